"""The one page, assembled from the shipped files in web/static/ (no CDN: boards are often offline).

The style sheet and scripts are put inline, so the page is one response: loading it needs the token
once (in its link), and nothing else is fetched without it.
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["STATIC", "page_html"]

STATIC = Path(__file__).resolve().parent / "static"
# The panels' scripts wire their elements with app.js's helpers: after it.
SCRIPTS = (
    "markdown.js",
    "app.js",
    "views.js",
    "approvals.js",
    "history.js",
    "models.js",
    "settings.js",
    "registry.js",
)


@functools.lru_cache(maxsize=1)
def page_html() -> str:
    """index.html with style.css and the scripts inline. Raises FileNotFoundError when one is missing."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    style = (STATIC / "style.css").read_text(encoding="utf-8")
    scripts = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in SCRIPTS)
    return html.replace("/*STYLE*/", style).replace("/*SCRIPT*/", scripts)
