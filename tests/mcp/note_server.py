"""A stdio MCP server (the SDK's MCPServer, so 2026-07-28) with one resource that changes: the text of
a note file, ``note://today``. It publishes an update on its subscriptions/listen streams whenever the
file changes, as a server watching a sensor or a log would.

``python note_server.py NOTE_FILE``
"""

import os
import sys
import warnings
from pathlib import Path

POLL_S = 0.1


def main() -> None:
    warnings.simplefilter("ignore")
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.subscriptions import InMemorySubscriptionBus
    from mcp.shared.subscriptions import ResourceUpdated

    note = Path(sys.argv[1])
    bus = InMemorySubscriptionBus()
    server = MCPServer("notes", version="1.0", subscriptions=bus)

    @server.resource("note://today", name="today", mime_type="text/plain")
    def today() -> str:
        """Today's note."""
        return note.read_text(encoding="utf-8")

    async def watch_note() -> None:
        seen = os.stat(note).st_mtime_ns  # a stat of a local file: too quick to need a thread
        while True:
            await anyio.sleep(POLL_S)
            changed = os.stat(note).st_mtime_ns
            if changed != seen:
                seen = changed
                await bus.publish(ResourceUpdated(uri="note://today"))

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch_note)
            await server.run_stdio_async()
            tg.cancel_scope.cancel()

    anyio.run(run)


if __name__ == "__main__":
    main()
