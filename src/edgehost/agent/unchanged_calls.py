"""A call that was to change what a server keeps and changed nothing, said so in its result.

The reference memory server answers "Relations deleted successfully" for a relation it does not have,
and skips an entity it has when asked to create it again: "Remove the link between Lena and Max" with
the type "link" (kept as "sister") deleted nothing, "Alice also has a cat named Miso" through
create_entities kept nothing, and the answers said both were done. Where a server keeps named things
that EdgeHost may list by itself (agent/kept_names.py), a call of its that may change something is
read around: what the server keeps before and after it. The same before and after, the call's result
ends with UNCHANGED_NOTE, which the model reads and the user sees on the tool card and under the
answer (a result the host renders, agent/result_rendering.py).

A tool that says it only reads, a call that failed and a server whose listing cannot be read are
left as they are. Calls of one turn run one after another unless a reply asks for several at once; a
change by a call beside it can only hide a no-op (the listing differs), never report one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from edgehost.agent.kept_names import KeptNames
from edgehost.agent.tool_calls import ProgressFn, ToolExecutor, ToolOutcome
from edgehost.agent.tools import ToolSpec

__all__ = ["UNCHANGED_NOTE", "UnchangedNoted"]

UNCHANGED_NOTE = (
    "EdgeHost read what {server} keeps before and after this call: it is the same, so this call changed "
    "nothing."
)


class UnchangedNoted:
    """A ToolExecutor that adds UNCHANGED_NOTE to the result of a change that changed nothing."""

    def __init__(self, executor: ToolExecutor, kept: KeptNames) -> None:
        self._executor = executor
        self._kept = kept

    async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: ProgressFn) -> ToolOutcome:
        if tool.hint("readOnlyHint") is True:
            return await self._executor.call(tool, arguments, progress)
        before = await self._kept.everything_kept(tool.server)
        outcome = await self._executor.call(tool, arguments, progress)
        if before is None or outcome.is_error:
            return outcome
        after = await self._kept.everything_kept(tool.server)
        if after != before:
            return outcome
        note = UNCHANGED_NOTE.format(server=tool.server)
        return replace(outcome, text=f"{outcome.text}\n\n{note}" if outcome.text.strip() else note)
