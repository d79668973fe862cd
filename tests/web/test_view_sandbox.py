"""The second origin that frames MCP Apps' views (web/view_sandbox.py): the CSP it sends, and what it
refuses. The views themselves, in a browser: tests/web/test_app_views_in_a_browser.py."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx2

from edgehost.llm.scripted import ScriptedBackend
from edgehost.web.view_sandbox import sandbox_csp


def test_without_declared_origins_a_view_reaches_nothing_and_declared_ones_widen_only_their_directive() -> (
    None
):
    page = "http://127.0.0.1:8765"
    bare = dict(part.split(" ", 1) for part in sandbox_csp({}, page).split("; "))
    assert bare == {
        "default-src": "'none'",
        "script-src": "'self' 'unsafe-inline'",
        "style-src": "'self' 'unsafe-inline'",
        "img-src": "'self' data:",
        "font-src": "'self'",
        "media-src": "'self' data:",
        "connect-src": "'none'",
        "frame-src": "'none'",
        "base-uri": "'self'",
        "object-src": "'none'",
        "frame-ancestors": page,
    }
    declared = {
        "connectDomains": ("https://api.example.com",),
        "resourceDomains": ("https://cdn.example.com",),
    }
    wide = dict(part.split(" ", 1) for part in sandbox_csp(declared, page).split("; "))
    assert wide["connect-src"] == "https://api.example.com"
    assert wide["img-src"] == "'self' data: https://cdn.example.com"
    assert wide["frame-src"] == "'none'" and wide["default-src"] == "'none'"


async def test_the_sandbox_answers_only_this_machines_names_and_only_reads(serve: Any) -> None:
    served = await serve(ScriptedBackend([]))
    sandbox = f"http://127.0.0.1:{served.server.sandbox_port}"
    injected = [
        "https://x.example.com; script-src *",
        "https://y.example.com\n",
    ]  # a directive; a header break
    declared = quote(json.dumps({"connectDomains": ["https://ok.example.com", *injected]}))
    async with httpx2.AsyncClient() as client:
        shown = await client.get(f"{sandbox}/sandbox?csp={declared}")
        rebound = await client.get(
            f"{sandbox}/sandbox", headers={"Host": f"evil.example:{served.server.sandbox_port}"}
        )
        posted = await client.post(f"{sandbox}/sandbox")
        elsewhere = await client.get(f"{sandbox}/api/executions")  # the page's data is not on this origin
        broken = await client.get(f"{sandbox}/sandbox?csp=%7Bnot%20json")
        page_on_its_port = await client.get(f"{served.base}/sandbox")
    policy = shown.headers["content-security-policy"]
    assert shown.status_code == 200 and "sandbox-proxy-ready" in shown.text
    assert (
        "connect-src https://ok.example.com;" in policy and "script-src *" not in policy
    )  # injection dropped
    assert "y.example.com" not in policy
    assert f"frame-ancestors {served.base}" in policy
    assert (rebound.status_code, posted.status_code, elsewhere.status_code, broken.status_code) == (
        421,
        405,
        404,
        400,
    )
    assert (
        page_on_its_port.status_code == 401
    )  # the page's port does not serve the sandbox, and wants the token
