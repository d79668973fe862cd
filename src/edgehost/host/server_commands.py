"""The Host's commands about the MCP servers (a mixin of ``Host``, host/host.py).

Their states and output, the catalog (tools, prompts, resources) and one-off calls, the servers file
(entries, imports, the user's approval rules) and OAuth sign-in. The faces call these as ``Host``
methods; the Host owns the state they use, declared below.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgehost.agent.approval import ApprovalPolicy, parse_rules
from edgehost.agent.tools import ToolSpec
from edgehost.errors import EdgeHostError
from edgehost.host.direct_calls import call_outside_conversation
from edgehost.host.executor import tool_specs
from edgehost.host.known_tools import KnownTools
from edgehost.host.options import HostOptions
from edgehost.mcp.auth import (
    AuthStatus,
    ServerAuth,
    SignInFailed,
    default_credential_store,
    describe_sign_in_failure,
    uses_oauth,
)
from edgehost.mcp.catalog import PromptEntry, ResourceEntry, ResourceTemplateEntry
from edgehost.mcp.config import ServerConfig, ServersConfig, load_servers_config
from edgehost.mcp.config.edits import (
    ImportPlan,
    builtin_servers_by_name,
    edit_servers_file,
    import_servers,
    merge_servers,
)
from edgehost.mcp.inputs import InputValues, environ_with_inputs
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.results import block_text
from edgehost.mcp.server_state import ServerStatus
from edgehost.paths import Paths

if TYPE_CHECKING:
    from edgehost.host import events as ev

__all__ = ["RULE_ACTIONS", "ServerCommands", "ServersReloaded", "with_rule"]

log = logging.getLogger(__name__)

RULE_ACTIONS = ("default", "allow", "ask", "deny")  # "default": no user rule, the tool's risk decides


@dataclass(frozen=True)
class ServersReloaded:
    """What Host.reload_servers_file did."""

    started: tuple[str, ...] = ()  # new to the file, or their entry changed: (re)started
    stopped: tuple[str, ...] = ()  # no longer in the file
    file_error: str | None = None  # the file still cannot be read: nothing changed


class ServerCommands:
    """The servers' side of the Host's command surface; ``Host`` inherits it."""

    # The Host's, set in Host.__init__ and Host.start().
    paths: Paths
    options: HostOptions
    servers_config: ServersConfig
    policy: ApprovalPolicy
    _mcp: ServerManager | None
    _auth: ServerAuth | None
    _known_tools: KnownTools

    if TYPE_CHECKING:

        def emit(self, event: ev.HostEvent) -> None: ...

    def _manager(self) -> ServerManager:
        if self._mcp is None:
            raise RuntimeError("Host.start() has not run")
        return self._mcp

    async def wait_servers_ready(self, timeout: float) -> list[Any]:  # noqa: ASYNC109 - a bound on start-up
        """Wait until every enabled server is ready or failed (at most ``timeout`` s); their states."""
        return list(await self._manager().wait_ready(timeout))

    def server_output(self, name: str) -> tuple[list[str], list[str]]:
        """The last lines a server wrote on stderr and the log messages it sent, for its details."""
        manager = self._manager()
        return list(manager.stderr_tail(name)), list(manager.log_tail(name))

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - the server's call timeout, passed on
        decided_by: str = "user",
    ) -> Any:
        """One tool call outside a conversation (`edgehost call`, `probe`), recorded in the history;
        the user's deny rules refuse it (host/direct_calls.py). Returns the CallToolResult."""
        return await call_outside_conversation(
            self._manager(),
            self.policy,
            self.tools(),
            self.emit,
            name,
            arguments,
            timeout=timeout,
            decided_by=decided_by,
        )

    def prompts(self) -> list[PromptEntry]:
        """The servers' prompts (namespaced names, descriptions, arguments); none before start()."""
        return list(self._mcp.catalog.prompts) if self._mcp is not None else []

    def resource_templates(self) -> list[ResourceTemplateEntry]:
        """The servers' resource templates (uri template, name, server); none before start()."""
        return list(self._mcp.catalog.resource_templates) if self._mcp is not None else []

    def resources(self) -> list[ResourceEntry]:
        """The servers' resources (uri, name, server); none before start()."""
        return list(self._mcp.catalog.resources) if self._mcp is not None else []

    def prompt_arguments(self, name: str) -> tuple[str, list[dict[str, Any]]] | None:
        """A server prompt's description and its arguments ({name, description, required}), or None."""
        entry = self._manager().catalog.prompt(name)
        return (entry.description or "", list(entry.arguments or [])) if entry is not None else None

    def tools(self) -> list[ToolSpec]:
        return tool_specs(self._mcp, self.servers_config) if self._mcp is not None else []

    def model_tools(self) -> list[ToolSpec]:
        """The tools the model may be offered: all but those only a server's own view calls (MCP Apps'
        visibility without "model"), which a person still sees and may call."""
        return [t for t in self.tools() if t.offered_to_model]

    def switched_off_tools(self) -> list[ToolSpec]:
        """The tools of the servers switched off, as they listed them when last connected: tools that
        are off, for a turn to tell the user which server to switch on (host/known_tools.py)."""
        if self._mcp is None:
            return []
        off = [s.name for s in self._mcp.statuses() if s.status is ServerStatus.DISABLED]
        if not off:
            return []
        trusted = {s.name for s in self.servers_config.servers if s.trusted or s.builtin}
        return self._known_tools.of_switched_off(off, {t.name for t in self.tools()}, trusted)

    def set_server_enabled(self, name: str, enabled: bool) -> None:
        self._manager().set_server_enabled(name, enabled)

    def set_tool_enabled(self, namespaced: str, enabled: bool) -> None:
        self._manager().set_tool_enabled(namespaced, enabled)

    def set_approval_rule(self, namespaced: str, action: str) -> None:
        """Save the user's rule for one tool (allow / ask / deny; "default" removes it) in the servers
        file's ``approval`` list, taking back the user's grants for it; it applies from the next call on.

        Raises ValueError for an unknown action, KeyError for a tool not in the catalog and ConfigError
        when the servers file cannot be read or written (then nothing changes).
        """
        if action not in RULE_ACTIONS:
            raise ValueError(f"a rule's action is one of {', '.join(RULE_ACTIONS)}, got {action!r}")
        tool = next((t for t in self.tools() if t.name == namespaced), None)
        if tool is None:
            raise KeyError(namespaced)

        def set_rule(config: ServersConfig) -> tuple[list[dict[str, Any]], list[Any]]:
            config.approval = with_rule(list(config.approval), tool, action)
            return config.approval, parse_rules(config.approval)  # checked before anything is saved

        approval, rules = edit_servers_file(self.paths, set_rule)
        self.servers_config.approval = approval
        self.policy.set_rules(rules)
        # The user's latest choice for this tool is what counts: an earlier "Always" answer would
        # outrank an "ask" rule set now (grants come before rules), and nothing would show it.
        self.policy.forget_grants(tool)

    def save_server(self, server: ServerConfig, *, renamed_from: str | None = None) -> None:
        """Add ``server`` to the servers file, or replace the entry of that name (and take out the
        entry ``renamed_from``, in the same write); reload_server applies each. Raises ConfigError when
        the file cannot be read or written (then nothing changes)."""

        def save(config: ServersConfig) -> None:
            if renamed_from is not None and renamed_from != server.name:
                config.servers = [s for s in config.servers if s.name != renamed_from]
            merge_servers(config, ServersConfig(servers=[server]))

        edit_servers_file(self.paths, save)

    def remove_server_entry(self, name: str) -> None:
        """Take ``name`` out of the servers file with the secrets EdgeHost kept for it (a bundle's server:
        uninstall the bundle, its folder and options with it); reload_server stops it. Raises
        ConfigError, CredentialStoreError."""
        from edgehost.bundles.installing import installed_bundles, uninstall_bundle  # at first use
        from edgehost.registry.adding import remove_entry

        if any(bundle.name == name for bundle in installed_bundles(self.paths.data_dir)):
            uninstall_bundle(self.paths, name, self.input_values)
            return
        remove_entry(self.paths, name, self.input_values)  # and the secrets EdgeHost kept for it

    def builtin_servers(self) -> dict[str, ServerConfig]:
        """EdgeHost's own servers as they are by default, by name: what the server form tells a
        built-in's own arguments and the user's options apart by."""
        return builtin_servers_by_name(self.paths)

    def import_servers(self, source: Path) -> ImportPlan:
        """Merge a Claude Desktop / VS Code / TOML config into the servers file (same names replaced);
        reload_server applies each. Raises ConfigError when a file cannot be read or written."""
        return import_servers(self.paths, source)

    async def reload_server(self, name: str) -> None:
        """Apply the servers file's entry for ``name`` now: start it (anew) when the file has it, stop
        and forget it when the file no longer does. Raises ConfigError when the file cannot be read."""
        config = await asyncio.to_thread(load_servers_config, self.paths, environ=self.servers_environ())
        server = config.get(name)
        manager = self._manager()
        if server is not None:
            await manager.add_server(server)
        elif any(state.name == name for state in manager.statuses()):
            await manager.remove_server(name)

    async def reload_servers_file(self) -> ServersReloaded:
        """Read the servers file again and apply it while the app runs: a server new to the file or
        whose entry changed starts (anew), one the file no longer has stops, the others keep running;
        its approval rules apply from the next call. What the faces offer once a file that could not be
        read is fixed, instead of restarting EdgeHost.

        A file that still cannot be read changes nothing but ``servers_config.file_error`` (the servers
        running go on); the returned ServersReloaded says so. Raises ConfigError for an approval rule
        that is not valid (then nothing changes).
        """
        config = await asyncio.to_thread(
            load_servers_config, self.paths, fall_back=True, environ=self.servers_environ()
        )
        if config.file_error:
            log.warning("%s; the servers running go on", config.file_error)
            self.servers_config.file_error = config.file_error
            return ServersReloaded(file_error=config.file_error)
        rules = parse_rules(config.approval)  # checked before anything changes
        for warning in config.warnings:
            log.warning("%s", warning)
        running = self.servers_config  # the ServerManager shares this object: it is updated in place
        before = {s.name: s for s in running.servers}
        for config_field in dataclasses.fields(ServersConfig):
            setattr(running, config_field.name, getattr(config, config_field.name))
        self.policy.set_rules(rules)
        if any(uses_oauth(server) for server in running.servers):  # as start() does: not on the loop
            await asyncio.to_thread(self.auth)
        if self._mcp is None or not self.options.with_servers:
            return ServersReloaded()
        wanted = [
            s
            for s in config.servers
            if self.options.only_servers is None or s.name in self.options.only_servers
        ]
        present = {state.name for state in self._mcp.statuses()}
        started = [s.name for s in wanted if s.name not in present or not _same_entry(before.get(s.name), s)]
        stopped = sorted(present - {s.name for s in wanted})
        for name in stopped:
            await self._mcp.remove_server(name)
        for name in started:
            server = config.get(name)
            assert server is not None
            await self._mcp.add_server(server)
        running.servers = list(config.servers)  # in the file's order (add_server puts a new one last)
        return ServersReloaded(started=tuple(started), stopped=tuple(stopped))

    # ------------------------------------------------------------------ VS Code inputs
    def servers_environ(self) -> Mapping[str, str]:
        """What ``${VAR}`` in the servers file expands from: the environment, and the values entered for
        VS Code's ``${input:ID}`` (read only when a reference needs one)."""
        return environ_with_inputs(lambda: self.auth().store)

    def input_values(self) -> InputValues:
        """The values entered for ``${input:ID}``, kept with the OAuth tokens."""
        return InputValues(self.auth().store)

    async def set_input(self, input_id: str, value: str) -> list[str]:
        """Keep ``value`` for ``${input:input_id}`` and start the servers that were waiting for it; their
        names. Raises CredentialStoreError, ConfigError (the servers file cannot be read)."""
        await asyncio.to_thread(lambda: self.input_values().set(input_id, value))
        waiting = [s.name for s in self.servers_config.servers if s.missing_input == input_id]
        for name in waiting:
            await self.reload_server(name)
        return waiting

    def restart_server(self, name: str) -> None:
        self._manager().restart(name)

    # ------------------------------------------------------------------ OAuth
    def _http_auth(self, server: ServerConfig) -> Any:
        """A connection's OAuth (ServerAuth.http_auth): the credential store is not looked for until a
        server that may sign in connects."""
        return self.auth().http_auth(server) if uses_oauth(server) else None

    def _signed_in_elsewhere(self, server: ServerConfig) -> bool:
        """ServerAuth.signed_in_elsewhere for a server that may sign in (blocking: a store read)."""
        return uses_oauth(server) and self.auth().signed_in_elsewhere(server)

    def auth(self) -> ServerAuth:
        """The OAuth side of the remote servers (tokens in the OS keyring or a 0600 file)."""
        if self._auth is None:
            self._auth = ServerAuth(default_credential_store(self.paths.data_dir))
        return self._auth

    def _configured_server(self, name: str) -> ServerConfig:
        server = self.servers_config.get(name)
        if server is None:
            known = ", ".join(s.name for s in self.servers_config.servers) or "none"
            raise EdgeHostError(f"no server named {name!r} is configured (configured: {known})")
        return server

    def auth_statuses(self) -> list[AuthStatus]:
        """The sign-in state of every configured server (no network). Raises CredentialStoreError."""
        return [self.auth().status(server) for server in self.servers_config.servers]

    def auth_status(self, name: str) -> AuthStatus:
        """Raises EdgeHostError for an unknown server, CredentialStoreError when the store fails."""
        return self.auth().status(self._configured_server(name))

    async def sign_in(self, name: str, open_url: Callable[[str], object]) -> AuthStatus:
        """Sign in to server ``name``: ``open_url`` shows the authorization page (the browser), the
        redirect comes back to a loopback port; the tokens are stored and the server restarted.

        Raises ValueError (the server does not use OAuth), SignInFailed (why, in words: the flow, or the
        loopback port before it), and EdgeHostError (an unknown server, a credential store that cannot be
        read)."""
        server = self._configured_server(name)
        try:
            async with self.auth().browser_authorizer(server, open_url) as authorizer:
                status = await self.auth().sign_in(server, authorizer)
        except OSError as exc:  # the loopback port, before the flow (which says its own failures)
            raise SignInFailed(describe_sign_in_failure(exc, server.url)) from exc
        self._reconnect(name)
        return status

    def sign_out(self, name: str) -> bool:
        """Forget server ``name``'s tokens and registration (False when there were none) and restart it,
        so that its connection stops using them."""
        forgotten = self.auth().sign_out(self._configured_server(name))
        self._reconnect(name)
        return forgotten

    def _reconnect(self, name: str) -> None:
        """Restart server ``name``'s connection (when it runs here), so that it uses its new tokens."""
        if self._mcp is not None and any(s.name == name for s in self._mcp.statuses()):
            self._mcp.restart(name)

    def server_states(self) -> list[Any]:
        """A snapshot of every server (edgehost.mcp.server_state.ServerState)."""
        return self._manager().statuses() if self._mcp is not None else []

    def server_instructions(self) -> dict[str, str]:
        return {s.name: s.instructions for s in self._manager().statuses() if s.instructions}

    async def read_resource(self, uri: str, server: str | None = None) -> Any:
        """resources/read (the ReadResourceResult). Raises ToolCallError."""
        return await self._manager().read_resource(uri, server=server)

    def watch_resource(
        self, uri: str, server: str | None = None
    ) -> AbstractAsyncContextManager[AsyncIterator[str]]:
        """The updates of a resource while the block runs: an iterator that yields its URI once per
        update the server announces. Raises ToolCallError (also when the server sends no updates)."""
        return self._manager().watch_resource(uri, server=server)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """prompts/get of a namespaced prompt (the GetPromptResult). Raises ToolCallError."""
        return await self._manager().get_prompt(name, arguments)

    async def read_resource_text(self, uri: str) -> str:
        """A resource's contents as text (to attach to a message). Raises ToolCallError."""
        result = await self.read_resource(uri)
        return "\n".join(
            getattr(c, "text", None) or f"[binary {getattr(c, 'mime_type', '')}]" for c in result.contents
        )

    async def prompt_text(self, name: str, arguments: dict[str, str]) -> str:
        """An MCP prompt rendered to the text the user sends. Raises ToolCallError."""
        result = await self.get_prompt(name, arguments)
        return "\n\n".join(block_text(m.content) for m in result.messages)


def with_rule(approval: list[dict[str, Any]], tool: ToolSpec, action: str) -> list[dict[str, Any]]:
    """``approval`` with the exact rule for ``tool`` set to ``action`` ("default" removes it)."""
    kept = [r for r in approval if not (r.get("server") == tool.server and r.get("tool") == tool.tool_name)]
    if action == "default":
        return kept
    return [{"server": tool.server, "tool": tool.tool_name, "action": action}, *kept]


def _same_entry(before: ServerConfig | None, after: ServerConfig) -> bool:
    """Whether a server's entry is unchanged (where in the file it is does not count)."""
    return before is not None and dataclasses.replace(before, source=None) == dataclasses.replace(
        after, source=None
    )
