"""Adding a server from the registry to the servers file: the one way the window, the web page and
`edgehost servers add` do it."""

from __future__ import annotations

from collections.abc import Callable

from edgehost.mcp.config import server_name_problem
from edgehost.mcp.config.edits import ImportPlan, edit_servers_file, merge_servers, written_servers_config
from edgehost.mcp.inputs import InputValues
from edgehost.paths import Paths
from edgehost.registry.install import InstallPlan

__all__ = ["add_to_servers_file", "free_server_name"]


def free_server_name(paths: Paths, wanted: str) -> str:
    """``wanted``, or ``wanted-2``, ``wanted-3`` … where the servers file already has that name. Raises
    ConfigError when the file cannot be read, ValueError when ``wanted`` is no server name."""
    problem = server_name_problem(wanted)
    if problem is not None:
        raise ValueError(f"{wanted!r} cannot name a server: {problem}")
    taken = {server.name for server in written_servers_config(paths).servers}
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted}-{number}"
    return name


def add_to_servers_file(paths: Paths, plan: InstallPlan, values: Callable[[], InputValues]) -> ImportPlan:
    """Keep the plan's secrets in the credential store (``values()``, opened only when there are any: a
    keyring may ask the person to unlock it), then add its entry (and the inputs that refer to them) to
    the servers file; an entry of the same name is replaced. Raises CredentialStoreError (then the file
    is not changed) or ConfigError."""
    if plan.secrets:
        store = values()
        for input_id, secret in plan.secrets.items():
            store.set(input_id, secret)
    return edit_servers_file(paths, lambda config: merge_servers(config, plan.servers_config()))
