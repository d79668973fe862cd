"""A stdio MCP server whose tools say what they do only by their names, for the CLI's probe tests.

``python risky_server.py MARKER_DIR``: each tool called leaves ``MARKER_DIR/<tool>`` behind.
Tools: delete_everything and count_words (no annotations), read_note (annotated read-only),
summary (returns a dict, so its result is structured content).
"""

import sys
import warnings
from pathlib import Path
from typing import Any


def main() -> None:
    warnings.simplefilter("ignore")
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    markers = Path(sys.argv[1])
    server = MCPServer("risky", version="9.9")

    def called(name: str) -> None:
        (markers / name).write_text("called", encoding="utf-8")

    @server.tool()
    def delete_everything() -> str:
        """Remove every file."""
        called("delete_everything")
        return "all gone"

    @server.tool()
    def count_words(text: str) -> int:
        """Count the words of a text."""
        called("count_words")
        return len(text.split())

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def read_note() -> str:
        """Read the note."""
        called("read_note")
        return "a note"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def summary() -> dict[str, Any]:
        """A structured summary."""
        return {"files": 3, "largest": "notes.txt"}

    server.run("stdio")


if __name__ == "__main__":
    main()
