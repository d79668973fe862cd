"""The agent's ToolExecutor on top of the MCP ServerManager, and the catalog as ToolSpecs."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from edgehost.agent.known_arguments import known_arguments, served_folder
from edgehost.agent.tool_calls import ProgressFn, ToolOutcome
from edgehost.agent.tools import ToolSpec
from edgehost.mcp.catalog import Catalog
from edgehost.mcp.config import ServersConfig
from edgehost.mcp.errors import ServerUnavailable, ToolCallError, ToolTimeout
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.results import result_text
from edgehost.mcp.tasks import TaskState

# The whole result is kept (history caps what it stores); the agent cuts it to the model's budget.
WHOLE_RESULT_CHARS = 8 * 1024 * 1024


class ManagerExecutor:
    def __init__(self, manager: ServerManager) -> None:
        self.manager = manager

    async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: ProgressFn) -> ToolOutcome:
        report = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            report(progress, total, message)

        def on_task(state: TaskState) -> None:
            report(0.0, None, state.message, task_id=state.task_id, task_status=state.status)

        try:
            result = await self.manager.call_tool(tool.name, arguments, progress=on_progress, on_task=on_task)
        except ToolTimeout as exc:
            return ToolOutcome(str(exc), is_error=True, status="timeout")
        except ServerUnavailable as exc:
            return ToolOutcome(str(exc), is_error=True, status="error")
        except ToolCallError as exc:
            return ToolOutcome(str(exc), is_error=True, status="error")
        text = result_text(result, WHOLE_RESULT_CHARS)
        return ToolOutcome(
            text,
            is_error=bool(result.is_error),
            status="error" if result.is_error else "ok",
            structured=result.structured_content,
        )


def tool_specs(manager: ServerManager, config: ServersConfig) -> list[ToolSpec]:
    """Every tool of the catalog (enabled or not) as the agent sees it.

    The same ToolSpec objects come back while the catalog snapshot, the trusted servers and the
    folders the servers serve are the same, so what is cached per tool across turns (token counts,
    embeddings, rendered entries) is found by identity instead of comparing schemas."""
    global _last_specs
    catalog = manager.catalog
    trusted = frozenset(s.name for s in config.servers if s.trusted or s.builtin)
    folders = tuple(
        (s.name, folder)
        for s in config.servers
        if s.transport == "stdio"
        and (folder := served_folder(tuple(s.args), tuple(s.roots), s.cwd)) is not None
    )
    last = _last_specs
    if last is None or last[0] is not catalog or last[1] != (trusted, folders):
        last = _last_specs = (catalog, (trusted, folders), specs_of(catalog, trusted, dict(folders)))
    return list(last[2])


_last_specs: (
    tuple[Catalog, tuple[frozenset[str], tuple[tuple[str, str], ...]], tuple[ToolSpec, ...]] | None
) = None


def specs_of(
    catalog: Catalog, trusted: Collection[str] = (), folders: Mapping[str, str] | None = None
) -> tuple[ToolSpec, ...]:
    """The catalog's tools as the agent sees them (``trusted``: the servers whose tools are trusted;
    ``folders``: the one folder each server serves, where it serves one: agent/known_arguments.py)."""
    folders = folders or {}
    return tuple(
        ToolSpec(
            name=entry.name,
            server=entry.server,
            description=entry.description,
            input_schema=entry.input_schema,
            annotations=entry.annotations,
            title=entry.title,
            enabled=entry.enabled,
            trusted_server=entry.server in trusted,
            original_name=entry.original_name,
            output_schema=entry.output_schema,
            view_uri=entry.view_uri,
            visibility=entry.visibility,
            served_folder=folders.get(entry.server),
            known_arguments=known_arguments(
                entry.original_name or entry.name,
                entry.input_schema,
                folders.get(entry.server),
                read_only=(entry.annotations or {}).get("readOnlyHint") is True,
            ),
        )
        for entry in catalog.tools
    )
