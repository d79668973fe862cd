"""What a newcomer looks for in the README and the docs: how to open quick ask on a desktop without a
tray icon (whose menu is the other way in), and that `--web` serves the page beside the window."""

from __future__ import annotations

import re
from pathlib import Path

from edgehost.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]


def _window_options() -> set[str]:
    """The options of `edgehost` without a command (the desktop app)."""
    return {option for action in build_parser(())._actions for option in action.option_strings}


def test_the_readme_and_the_docs_say_how_to_open_quick_ask_without_a_tray_and_what_web_does() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    docs = {path.name: path.read_text(encoding="utf-8") for path in (REPO / "docs").glob("*.md")}
    for text in (readme, docs["troubleshooting.md"]):
        assert re.search(r"without a (system )?tray", text)
        assert "`edgehost --quick-ask` opens" in text
        assert "edgehost --web 0.0.0.0" in text and "beside" in text
    assert "serves the page beside it" in docs["web.md"]
    named = set(re.findall(r"edgehost (--[a-z-]+)", readme + "".join(docs.values())))
    assert {"--quick-ask", "--web"} <= named <= _window_options()  # only options the app has
