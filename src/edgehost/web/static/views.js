// MCP Apps: a tool's own view, under its card. The host's side of the bridge (SEP-1865).
// The view is framed by the sandbox, a second origin of this server (web/view_sandbox.py), which
// frames the view's HTML under the CSP its resource declared and relays JSON-RPC both ways. What the
// view asks of its server goes over the socket to the host (web/views_face.py): its own server's
// tools only, through the same approval and history as any call.
"use strict";

const VIEW_PROTOCOL = "2026-01-26";
const VIEW_MAX_HEIGHT = 600; // px, inline; the view asks for more with size-changed up to this
const TEARDOWN_WAIT_MS = 3000; // a view that does not answer its teardown is removed anyway
const DISPLAY_MODES = ["inline", "fullscreen"];
const views = new Set(); // the open views
let toolsWithViews = new Map(); // namespaced tool -> its /tools entry, for the tools that have a view
let toolsKnown = null; // the promise of the last load of /tools

function loadToolViews() {
  toolsKnown = api("/tools").then((tools) => {
    toolsWithViews = new Map(tools.filter((t) => t.ui && t.ui.resourceUri).map((t) => [t.name, t]));
  }).catch(() => {});
  return toolsKnown;
}

// The view of a finished call, below its card: run = {tool, arguments, result, status, conversation_id,
// chosen_by}. Calls a view made itself do not open the view again under their own card.
async function showView(cardNode, run) {
  const started = performance.now();
  if (toolsKnown) await toolsKnown;
  const tool = toolsWithViews.get(run.tool);
  if (!tool || run.chosen_by === "view" || !["ok", "error", "cancelled"].includes(run.status)) return null;
  let view;
  try {
    view = await api("/api/views?tool=" + encodeURIComponent(run.tool));
  } catch (error) {
    const note = document.createElement("p");
    note.className = "chosen view-error";
    note.textContent = "The view of " + run.tool + " could not be shown: " + error.message;
    cardNode.after(note);
    return null;
  }
  if (!cardNode.isConnected) return null; // the conversation was closed meanwhile
  const entry = openView(cardNode, tool, view, run);
  entry.timing = { started, read: performance.now() };
  return entry;
}

function openView(cardNode, tool, view, run) {
  const box = document.createElement("div");
  box.className = "view" + (view.prefersBorder === false ? "" : " bordered");
  const bar = document.createElement("div");
  bar.className = "view-bar";
  const label = document.createElement("span");
  label.textContent = "View of " + view.server + " · sandboxed";
  const full = document.createElement("button");
  full.type = "button";
  full.textContent = "⤢";
  full.title = "Full window";
  bar.append(label, full);
  const frame = document.createElement("iframe");
  frame.title = "View of " + run.tool;
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const allow = permissionsAllow(view.permissions);
  if (allow) frame.setAttribute("allow", allow);
  const sandbox = new URL(view.sandbox, location.href);
  sandbox.port = String(view.sandbox_port);
  const origin = sandbox.origin; // as the browser writes it (no ":80")
  frame.src = sandbox.href;
  frame.style.height = "120px";
  const consent = document.createElement("div");
  consent.className = "view-consent";
  consent.hidden = true;
  box.append(bar, frame, consent);
  cardNode.after(box);
  const entry = {
    id: crypto.getRandomValues(new Uint32Array(2)).join("-"), // its calls are withdrawn with it
    box, frame, origin, view, run, tool, consent, nextId: 1, waiting: new Map(),
    initialized: false, mode: "inline", modes: null, closed: false,
  };
  full.onclick = () => setMode(entry, entry.mode === "fullscreen" ? "inline" : "fullscreen");
  views.add(entry);
  return entry;
}

function permissionsAllow(permissions) {
  const names = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
  return (permissions || []).filter((p) => names[p]).map((p) => names[p]).join("; ");
}

function post(entry, message) {
  if (entry.frame.contentWindow) entry.frame.contentWindow.postMessage(message, entry.origin);
}
function reply(entry, id, result) { post(entry, { jsonrpc: "2.0", id, result }); }
function fail(entry, id, message, code = -32000) { post(entry, { jsonrpc: "2.0", id, error: { code, message } }); }
function notifyView(entry, method, params) { if (entry.initialized) post(entry, { jsonrpc: "2.0", method, params }); }
function requestView(entry, method, params) {
  const id = "edgehost-" + entry.nextId++;
  post(entry, { jsonrpc: "2.0", id, method, params });
  return new Promise((resolve, reject) => entry.waiting.set(id, { resolve, reject }));
}

window.addEventListener("message", (event) => {
  for (const entry of views) {
    if (event.source !== entry.frame.contentWindow) continue;
    if (event.origin !== entry.origin) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) { // an answer to the host's request
      const waiting = entry.waiting.get(m.id);
      entry.waiting.delete(m.id);
      if (waiting) (m.error ? waiting.reject : waiting.resolve)(m.error || m.result);
      return;
    }
    fromView(entry, m).catch((error) => { if (m.id !== undefined) fail(entry, m.id, error.message); });
    return;
  }
});

// What a view being closed may still do: answer its teardown (a response), log, tell its size.
const WHILE_CLOSING = new Set(["notifications/message", "ui/notifications/size-changed", "ping"]);

async function fromView(entry, m) {
  const { view, run } = entry;
  const p = m.params || {};
  if (entry.closed && !WHILE_CLOSING.has(m.method)) throw new Error("the view is being closed");
  switch (m.method) {
    case "ui/notifications/sandbox-proxy-ready":
      if (entry.timing) entry.timing.framed = performance.now();
      post(entry, { jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready",
        params: { html: view.html, csp: view.csp, permissions: Object.fromEntries(view.permissions.map((k) => [k, {}])) } });
      return;
    case "ui/initialize":
      if (entry.timing) entry.timing.asked = performance.now();
      entry.modes = Array.isArray(p.appCapabilities && p.appCapabilities.availableDisplayModes)
        ? p.appCapabilities.availableDisplayModes : null;
      reply(entry, m.id, {
        protocolVersion: VIEW_PROTOCOL,
        hostInfo: { name: "EdgeHost", version: "1" },
        hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {},
          message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} },
          sandbox: { csp: view.csp, permissions: Object.fromEntries(view.permissions.map((k) => [k, {}])) } },
        hostContext: {
          toolInfo: { tool: { name: entry.tool.tool || run.tool, description: entry.tool.description,
            inputSchema: entry.tool.inputSchema } },
          theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
          displayMode: entry.mode, availableDisplayModes: DISPLAY_MODES,
          containerDimensions: { maxHeight: VIEW_MAX_HEIGHT },
          locale: navigator.language, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          platform: "web", userAgent: "EdgeHost",
        },
      });
      return;
    case "ui/notifications/initialized":
      entry.initialized = true;
      if (entry.timing) { // how long views take to open, step by step (bench/app_view.py)
        const { started, read } = entry.timing;
        state.viewTimings.push({ read_ms: read - started, open_ms: performance.now() - started,
          framed_ms: entry.timing.framed - started, asked_ms: entry.timing.asked - started });
      }
      notifyView(entry, "ui/notifications/tool-input", { arguments: run.arguments || {} });
      if (run.status === "cancelled") notifyView(entry, "ui/notifications/tool-cancelled", { reason: "the call was stopped" });
      else notifyView(entry, "ui/notifications/tool-result", toolResult(run));
      return;
    case "ui/notifications/size-changed":
      if (typeof p.height === "number" && entry.mode === "inline") {
        entry.frame.style.height = Math.max(40, Math.min(Math.ceil(p.height), VIEW_MAX_HEIGHT)) + "px";
      }
      return;
    case "notifications/message":
      send("view_log", { server: view.server, level: String(p.level || "info"), data: p.data }).catch(() => {});
      return;
    case "ping":
      reply(entry, m.id, {});
      return;
    case "tools/call": {
      const answer = await send("view_call", { server: view.server, name: String(p.name || ""),
        arguments: p.arguments || {}, conversation_id: run.conversation_id, view: entry.id });
      reply(entry, m.id, answer.result);
      if (state.panel === "history") refreshHistory();
      return;
    }
    case "resources/read": {
      const answer = await send("view_read", { server: view.server, uri: String(p.uri || "") });
      reply(entry, m.id, answer.result);
      return;
    }
    case "ui/update-model-context":
      if (run.conversation_id === null || run.conversation_id === undefined) throw new Error("Context update denied: the view is not in a conversation");
      await send("view_context", { server: view.server, uri: view.uri, conversation_id: run.conversation_id,
        content: p.content || null, structuredContent: p.structuredContent || null });
      reply(entry, m.id, {});
      return;
    case "ui/open-link": {
      const url = String(p.url || "");
      if (!/^https?:\/\//i.test(url)) throw new Error("Invalid URL: only http and https links open");
      window.open(url, "_blank", "noopener,noreferrer");
      reply(entry, m.id, {});
      return;
    }
    case "ui/message": {
      // content is a list of blocks (the ext-apps SDK's App.sendMessage), or one block (the spec's example).
      const blocks = Array.isArray(p.content) ? p.content : [p.content];
      const text = blocks.filter((b) => b && b.type === "text").map((b) => String(b.text || "")).join("\n");
      if (!text.trim()) throw new Error("Invalid message format: a text message is sent");
      if (!(await askConsent(entry, text))) throw new Error("Message sending denied by the user");
      if (state.turn !== null) throw new Error("Message sending denied: a turn is running");
      await send("submit", { text, conversation_id: run.conversation_id ?? state.current });
      reply(entry, m.id, {});
      return;
    }
    case "ui/request-display-mode": {
      const wanted = String(p.mode || "");
      const ok = DISPLAY_MODES.includes(wanted) && (!entry.modes || entry.modes.includes(wanted));
      if (ok) setMode(entry, wanted);
      reply(entry, m.id, { mode: entry.mode });
      return;
    }
    default:
      if (m.id !== undefined) fail(entry, m.id, "Method not found: " + m.method, -32601);
  }
}

// A view's ui/message goes into the conversation only when the user agrees, below the view.
function askConsent(entry, text) {
  return new Promise((resolve) => {
    const { consent } = entry;
    consent.textContent = "";
    const what = document.createElement("p");
    what.textContent = "The view of " + entry.view.server + " wants to send this message: “" + text + "”";
    const yes = document.createElement("button");
    yes.textContent = "Send it";
    const no = document.createElement("button");
    no.textContent = "Don't send";
    const done = (answer) => { consent.hidden = true; consent.textContent = ""; resolve(answer); };
    yes.onclick = () => done(true);
    no.onclick = () => done(false);
    consent.append(what, yes, no);
    consent.hidden = false;
    entry.cancelConsent = () => done(false);
  });
}

function setMode(entry, mode) {
  entry.mode = mode;
  entry.box.classList.toggle("fullscreen", mode === "fullscreen");
  if (mode === "inline") entry.frame.style.height = entry.lastInlineHeight || entry.frame.style.height;
  else entry.lastInlineHeight = entry.frame.style.height;
  notifyView(entry, "ui/notifications/host-context-changed", { displayMode: mode });
}

function toolResult(run) {
  const result = { content: [{ type: "text", text: run.result || "" }], isError: run.status !== "ok" };
  if (run.structured_result !== null && run.structured_result !== undefined) result.structuredContent = run.structured_result;
  return result;
}

// Before a view goes away (its conversation closed, another opened), it is told, and given a moment to
// answer (spec: ui/resource-teardown; the host should wait for the answer). It waits hidden where it is
// (an iframe moved in the page would load again), while the next conversation is shown.
async function closeView(entry, reason) {
  if (entry.closed) return;
  entry.closed = true;
  entry.box.hidden = true;
  entry.box.classList.remove("fullscreen");
  entry.box.classList.add("closing");
  if (entry.cancelConsent) entry.cancelConsent();
  send("view_closed", { view: entry.id }).catch(() => {}); // its calls waiting for approval are withdrawn
  if (entry.initialized) {
    await Promise.race([
      requestView(entry, "ui/resource-teardown", { reason }).catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, TEARDOWN_WAIT_MS)),
    ]);
  }
  views.delete(entry);
  entry.box.remove();
}

function closeViews(reason) {
  for (const entry of views) closeView(entry, reason);
}
