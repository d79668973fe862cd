"""Adding a server from the registry to the servers file: the one way the window, the web page and
`edgehost servers add` do it."""

from __future__ import annotations

from collections.abc import Callable

from edgehost.mcp.config import ServersConfig
from edgehost.mcp.config.edits import ImportPlan, edit_servers_file, merge_servers, written_servers_config
from edgehost.mcp.inputs import InputValues
from edgehost.paths import Paths
from edgehost.registry.install import InstallPlan, SecretInputs, check_server_name

__all__ = ["add_entry", "add_to_servers_file", "free_server_name", "keep_secrets", "remove_entry"]


def free_server_name(paths: Paths, wanted: str) -> str:
    """``wanted``, or ``wanted-2``, ``wanted-3`` … where the servers file already has that name. Raises
    ConfigError when the file cannot be read, ValueError when ``wanted`` is no server name."""
    check_server_name(wanted)
    taken = {server.name for server in written_servers_config(paths).servers}
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted}-{number}"
    return name


# What the person set on a server in EdgeHost (the panels, the file): kept when its entry is replaced by
# a newer version of the same server.
_KEPT_ON_UPDATE = (
    "enabled",
    "timeout",
    "allowed_tools",
    "excluded_tools",
    "roots",
    "trusted",
    "max_concurrent_calls",
)


def keep_secrets(plan: InstallPlan, values: Callable[[], InputValues]) -> None:
    """The plan's secrets into the credential store (``values()``, opened only when there are any: a
    keyring may ask the person to unlock it). Raises CredentialStoreError."""
    if plan.secrets:
        store = values()
        for input_id, secret in plan.secrets.items():
            store.set(input_id, secret)


def add_entry(paths: Paths, plan: InstallPlan) -> ImportPlan:
    """Add the plan's entry (and the inputs that refer to its secrets) to the servers file; an entry of
    the same name is replaced, keeping what the person set on it. Raises ConfigError."""

    def add(config: ServersConfig) -> ImportPlan:
        earlier = config.get(plan.server.name)
        if earlier is not None:
            for name in _KEPT_ON_UPDATE:
                setattr(plan.server, name, getattr(earlier, name))
            plan.server.extra = {**earlier.extra, **plan.server.extra}  # other hosts' keys
        return merge_servers(config, plan.servers_config())

    return edit_servers_file(paths, add)


def add_to_servers_file(paths: Paths, plan: InstallPlan, values: Callable[[], InputValues]) -> ImportPlan:
    """Keep the plan's secrets, then add its entry: when the store fails, the file is not changed.
    Raises CredentialStoreError or ConfigError."""
    keep_secrets(plan, values)
    return add_entry(paths, plan)


def remove_entry(paths: Paths, name: str, values: Callable[[], InputValues]) -> None:
    """Take the server ``name`` out of the servers file with the inputs declared for its secrets, and
    forget those secrets. Raises ConfigError, CredentialStoreError."""
    prefix = SecretInputs.input_id(name, "")

    def remove(config: ServersConfig) -> list[str]:
        config.servers = [s for s in config.servers if s.name != name]
        declared = config.extra.get("inputs")
        if not isinstance(declared, list):
            return []
        ids = [
            i.get("id") for i in declared if isinstance(i, dict) and str(i.get("id", "")).startswith(prefix)
        ]
        config.extra["inputs"] = [i for i in declared if not (isinstance(i, dict) and i.get("id") in ids)]
        return [str(i) for i in ids]

    forgotten = edit_servers_file(paths, remove)
    if forgotten:
        store = values()
        for input_id in forgotten:
            store.forget(input_id)
