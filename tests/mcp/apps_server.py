"""A stdio MCP server with the MCP Apps extension (the SDK's ``Apps``, io.modelcontextprotocol/ui): a
counter whose ``show_counter`` tool has a view (``ui://counter/view.html``), ``add_one`` and ``add_slowly``
tools only that view may call (visibility ["app"]), a ``peek`` tool the model may call but views may not
(visibility ["model"]), and a plain ``reset`` tool without a view.

The view speaks the MCP Apps protocol over postMessage without any library, as the spec's example
does: ui/initialize, then its buttons call tools, ask to send a message, update the model's context;
it answers ui/resource-teardown with a log message first. On load it fetches each URL of
``COUNTER_PROBES`` (space-separated) and writes which ones the browser let through; its resource
declares the origins of ``COUNTER_CONNECT`` (space-separated) as connectDomains.

``python apps_server.py``
"""

import os
import warnings

VIEW = """<!doctype html>
<html><head><meta charset="utf-8"><title>Counter</title></head>
<body>
<p>Count: <span id="count">?</span></p>
<p id="input"></p>
<button id="add">Add one</button>
<button id="peek">Peek</button>
<button id="other">Delete a file</button>
<button id="tell">Tell the model</button>
<button id="ask">Ask in the chat</button>
<p id="status"></p>
<p id="net"></p>
<script>
"use strict";
let next = 1;
const waiting = new Map();
const $ = (id) => document.getElementById(id);
function request(method, params) {
  const id = next++;
  parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
function notify(method, params) { parent.postMessage({ jsonrpc: "2.0", method, params }, "*"); }
function show(result) {  // from the structured result, as ext-apps views render
  const counter = result.structuredContent;
  if (counter && typeof counter.count === "number") $("count").textContent = String(counter.count);
}
window.addEventListener("message", (event) => {
  const m = event.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.method === undefined) {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (w) { if (m.error) w.reject(m.error); else w.resolve(m.result); }
    return;
  }
  if (m.method === "ui/notifications/tool-input") $("input").textContent = "input " + JSON.stringify(m.params.arguments);
  else if (m.method === "ui/notifications/tool-result") show(m.params);
  else if (m.method === "ui/resource-teardown") {
    notify("notifications/message", { level: "info", data: "counter view torn down: " + m.params.reason });
    parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
  }
});
async function call(name, args) {
  try { show(await request("tools/call", { name, arguments: args })); $("status").textContent = name + " ran"; }
  catch (error) { $("status").textContent = name + " refused: " + error.message; }
}
$("add").onclick = () => call("add_one", {});
$("peek").onclick = () => call("peek", {});
$("other").onclick = () => call("files__delete_file", { path: "notes.txt" });
$("tell").onclick = () => request("ui/update-model-context", {
  content: [{ type: "text", text: "The counter view shows " + $("count").textContent + "." }] });
$("ask").onclick = () => request("ui/message", {  // content as the ext-apps SDK's App.sendMessage sends it
  role: "user", content: [{ type: "text", text: "What is the counter at?" }] })
  .then(() => { $("status").textContent = "message sent"; }, (e) => { $("status").textContent = "message refused: " + e.message; });
const blocked = [];
document.addEventListener("securitypolicyviolation", (e) => blocked.push(e.blockedURI));
async function probe(url) {
  try { await fetch(url); return url + " fetched"; } catch (error) { return url + " failed"; }
}
(async () => {
  const init = await request("ui/initialize", {
    appCapabilities: { availableDisplayModes: ["inline"] },
    appInfo: { name: "counter view", version: "1.0" },
    protocolVersion: "2026-01-26",
  });
  document.body.dataset.host = init.hostInfo.name;
  notify("ui/notifications/initialized", {});
  const probes = PROBES.filter(Boolean);
  const results = [];
  for (const url of probes) results.push(await probe(url));
  await new Promise((resolve) => setTimeout(resolve, 0)); // the violation events are queued
  $("net").textContent = results.join("; ") + (blocked.length ? " | blocked by the CSP: " + blocked.join(" ") : "");
  document.body.dataset.probed = "yes";
})();
</script>
</body></html>
"""


def main() -> None:
    warnings.simplefilter("ignore")
    import anyio
    from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
    from mcp.server.mcpserver import Context, MCPServer
    from mcp_types import ToolAnnotations
    from pydantic import BaseModel

    class Counter(BaseModel):
        count: int
        note: str

    reading = ToolAnnotations(read_only_hint=True)

    count = [0]
    apps = Apps()
    probes = os.environ.get("COUNTER_PROBES", "").split()
    connect = os.environ.get("COUNTER_CONNECT", "").split()

    @apps.tool(
        resource_uri="ui://counter/view.html",
        description="Show the counter with its view.",
        annotations=reading,
    )
    def show_counter(ctx: Context) -> Counter:
        shown = "its view is shown" if client_supports_apps(ctx) else "the client shows no views"
        return Counter(count=count[0], note=shown)

    @apps.tool(resource_uri="ui://counter/view.html", visibility=["app"], description="Add one.")
    def add_one() -> Counter:
        count[0] += 1
        return Counter(count=count[0], note="added one")

    @apps.tool(resource_uri="ui://counter/view.html", visibility=["app"], description="Add one, slowly.")
    async def add_slowly() -> Counter:
        await anyio.sleep(0.5)
        count[0] += 1
        return Counter(count=count[0], note="added one slowly")

    @apps.tool(
        resource_uri="ui://counter/view.html", visibility=["model"], description="Peek at the counter."
    )
    def peek() -> str:
        return f"The counter is at {count[0]}."

    view = VIEW.replace("PROBES", repr(probes).replace("'", '"'))
    apps.add_html_resource(
        "ui://counter/view.html",
        view,
        name="counter view",
        csp=ResourceCsp(connect_domains=connect) if connect else None,
        prefers_border=True,
    )
    server = MCPServer("counter", version="1.0", extensions=[apps])

    @server.tool(description="Set the counter back to zero.")
    def reset() -> str:
        count[0] = 0
        return "The counter is at 0."

    server.run("stdio")


if __name__ == "__main__":
    main()
