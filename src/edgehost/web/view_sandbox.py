"""The sandbox of MCP Apps' views: a second origin (another port of the same server) that the page
frames, and that frames the view (SEP-1865, "Sandbox proxy").

The page (web/static/views.js) and the view must not share an origin: a view is a server's HTML, and
the page holds the token. So the page frames ``/sandbox`` from this second port; the sandbox frames the
view's HTML (``srcdoc``, ``sandbox="allow-scripts allow-forms"``: an opaque origin of its own) and relays
the JSON-RPC messages between the two. The sandbox page is sent with the Content-Security-Policy built
from what the view's resource declares (``_meta.ui.csp``); the view's document inherits it, so it can
reach only the origins declared, and nothing on the internet by default. The page holds no data: the
view's HTML comes to it in a message from the page. ``frame-ancestors`` lets only the chat page frame it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from edgehost.host.app_views import declared_csp
from edgehost.web.auth import MachineNames, split_host

__all__ = ["SANDBOX_PATH", "ByPort", "SandboxApp", "sandbox_csp", "sandbox_page"]

SANDBOX_PATH = "/sandbox"

# The relay. Messages from the parent are taken only from the chat page's origin and sent only to it;
# the sandbox's own notifications (ui/notifications/sandbox-*) are not relayed either way (spec, 6).
_PROXY = """<!doctype html>
<html><head><meta charset="utf-8"><title>EdgeHost view sandbox</title>
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style>
</head><body><script>
"use strict";
const PAGE = __PAGE__;
const own = (m) => m && typeof m.method === "string" && m.method.startsWith("ui/notifications/sandbox-");
if (window.top === window) throw new Error("the view sandbox only runs inside EdgeHost's page");
const inner = document.createElement("iframe");
inner.setAttribute("sandbox", "allow-scripts allow-forms");
inner.title = "view";
document.body.appendChild(inner);
const ALLOWED = { camera: "camera", microphone: "microphone", geolocation: "geolocation",
  clipboardWrite: "clipboard-write" };
window.addEventListener("message", (event) => {
  const m = event.data;
  if (event.source === window.parent) {
    if (event.origin !== PAGE) return;
    if (m && m.method === "ui/notifications/sandbox-resource-ready") {
      const p = m.params || {};
      const allow = Object.keys(p.permissions || {}).filter((k) => ALLOWED[k]).map((k) => ALLOWED[k]);
      if (allow.length) inner.setAttribute("allow", allow.join("; "));
      inner.srcdoc = String(p.html || "");
    } else if (!own(m) && inner.contentWindow) {
      inner.contentWindow.postMessage(m, "*");
    }
  } else if (event.source === inner.contentWindow && !own(m)) {
    window.parent.postMessage(m, PAGE);
  }
});
window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, PAGE);
</script></body></html>
"""


def sandbox_csp(declared: Mapping[str, Sequence[str]], page_origin: str) -> str:
    """The Content-Security-Policy of the sandbox and of the view it frames: the spec's restrictive
    default, widened only by the origins the view's resource declared (``connectDomains`` …)."""

    def sources(key: str, base: str, none: str = "'none'") -> str:
        listed = " ".join(declared.get(key, ()))
        return " ".join(p for p in (base, listed) if p) or none

    inline, with_data, own = "'self' 'unsafe-inline'", "'self' data:", "'self'"
    return "; ".join(
        (
            "default-src 'none'",
            f"script-src {sources('resourceDomains', inline)}",
            f"style-src {sources('resourceDomains', inline)}",
            f"img-src {sources('resourceDomains', with_data)}",
            f"font-src {sources('resourceDomains', own)}",
            f"media-src {sources('resourceDomains', with_data)}",
            f"connect-src {sources('connectDomains', '')}",
            f"frame-src {sources('frameDomains', '')}",
            f"base-uri {sources('baseUriDomains', '', own)}",
            "object-src 'none'",
            f"frame-ancestors {page_origin}",
        )
    )


def page_origin(request: Request, page_port: int) -> str | None:
    """The chat page's origin, as the browser that asks for the sandbox names this machine."""
    parsed = split_host(request.headers.get("host", ""))
    if parsed is None:
        return None
    name, scheme = parsed[0], request.url.scheme
    shown = f"[{name}]" if ":" in name else name
    default = (scheme == "http" and page_port == 80) or (scheme == "https" and page_port == 443)
    return f"{scheme}://{shown}" if default else f"{scheme}://{shown}:{page_port}"  # as browsers write it


async def sandbox_page(request: Request, page_port: int) -> Response:
    """``/sandbox?csp=JSON``: the relay, under the CSP of the declared origins in ``csp`` (checked here
    again: whoever asks, only well-formed origins reach the header)."""
    if request.url.path != SANDBOX_PATH:
        return PlainTextResponse("the view sandbox serves /sandbox only", status_code=404)
    origin = page_origin(request, page_port)
    if origin is None:
        return PlainTextResponse("no Host", status_code=400)
    try:
        raw: Any = json.loads(request.query_params.get("csp") or "{}")
    except ValueError:
        return PlainTextResponse("csp is a JSON object of declared origins", status_code=400)
    declared, _dropped = declared_csp(raw)
    html = _PROXY.replace("__PAGE__", json.dumps(origin))
    headers = {
        "Content-Security-Policy": sandbox_csp(declared, origin),
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }
    return HTMLResponse(html, headers=headers)


class SandboxApp:
    """The second origin's ASGI app: GET /sandbox, for requests that name this machine (the same
    check as the page's, against DNS rebinding). No token: it serves nothing but the relay."""

    def __init__(self, names: MachineNames, page_port: int) -> None:
        self.names = names
        self.page_port = page_port

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close", "code": 1008, "reason": "the view sandbox has no socket"})
            return
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        response: Response
        if not self.names.allows(request.headers.get("host", "")):
            response = PlainTextResponse("this server answers only to this machine's names", status_code=421)
        elif request.method not in ("GET", "HEAD"):
            response = PlainTextResponse("the view sandbox is read only", status_code=405)
        else:
            response = await sandbox_page(request, self.page_port)
        await response(scope, receive, send)


class ByPort:
    """Two apps on one server: requests that came in on ``port`` go to ``other``, the rest to ``main``."""

    def __init__(self, main: Any, other: Any, port: int) -> None:
        self.main, self.other, self.port = main, other, port

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        server = scope.get("server")
        app = self.other if server is not None and server[1] == self.port else self.main
        await app(scope, receive, send)
