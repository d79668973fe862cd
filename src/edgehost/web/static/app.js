// The page: renders host events from the WebSocket and sends the user's commands back.
// It keeps the number of the last event it applied; after a lost connection it asks for the events
// after that one, so an answer streams on with nothing lost and nothing twice.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get("token") || localStorage.getItem("edgehost-token") || "";
const DRAFT_PAUSE_MS = 120; // a pause in typing this long sends the draft (as the window does, ui/composer.py)
if (params.get("token")) {
  // Kept in this browser, and out of the address bar (its history, a screenshot, a shared link).
  localStorage.setItem("edgehost-token", token);
  history.replaceState(null, "", location.pathname + location.hash); // the hash: "Open the view"
}

const state = {
  socket: null, epoch: null, seq: 0, backoff: 500, commandId: 0, replies: new Map(), connections: 0,
  current: null, // the open conversation's id (null: a new one)
  turn: null, // the conversation whose turn is running
  answer: null, // {node, text} of the answer streaming in the open conversation
  question: null, // the running turn's question, until its message (with what was attached) arrives
  thinking: null, // the quiet line while the model reads the prompt (as the window's, ui/chat_view.py)
  cards: new Map(), // call_id -> card
  approvals: [], // pending requests, in order
  panel: null,
  openRun: null, // the call whose details are open in the history panel
  viewTimings: [], // each view's time to open, in ms: reading it, and until it said it is initialized
};
window.edgehost = state; // for the browser tests (and curious users)

function authorized(path) {
  return fetch(path, { headers: token ? { Authorization: "Bearer " + token } : {} });
}

async function api(path, as = "json") {
  const response = await authorized(path);
  if (!response.ok) throw new Error(path + ": " + response.status + " " + (await response.text()));
  return as === "response" ? response : response.json();
}

// ------------------------------------------------------------------ the socket
function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const protocols = token ? ["edgehost", "edgehost.bearer." + token] : ["edgehost"];
  const socket = new WebSocket(scheme + location.host + "/ws", protocols);
  state.socket = socket;
  socket.onopen = () => {
    state.connections += 1;
    socket.send(JSON.stringify({ command: "resume", after: state.seq, epoch: state.epoch }));
  };
  socket.onmessage = (message) => receive(JSON.parse(message.data));
  socket.onclose = () => {
    if (state.socket !== socket) return;
    state.socket = null;
    setLink(false);
    for (const [, reject] of state.replies) reject(new Error("the connection was lost"));
    state.replies.clear();
    setTimeout(() => start(), state.backoff);
    state.backoff = Math.min(state.backoff * 2, 10000);
  };
}

// Connects, unless the board refuses this browser's token (none yet, or one from before a new token
// was made): then the page says where the right link is, instead of retrying for ever.
async function start() {
  let refused = false;
  try {
    const response = await authorized("/health");
    refused = response.status === 401;
    if (response.ok) {
      const health = await response.json();
      $("model").textContent = "model: " + (health.model.name || health.model.backend || "none") + " (" + health.model.status + ")";
    }
  } catch (error) {
    // the board is not answering: the socket's retries go on
  }
  if (refused) {
    if (token) localStorage.removeItem("edgehost-token");
    $("locked").hidden = false;
    $("link").textContent = "no access";
    return;
  }
  connect();
}

function send(command, fields) {
  return new Promise((resolve, reject) => {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      reject(new Error("not connected; retrying"));
      return;
    }
    const id = ++state.commandId;
    state.replies.set(id, reject);
    state.replies.set("ok" + id, resolve);
    state.socket.send(JSON.stringify({ id, command, ...fields }));
  });
}

function receive(message) {
  if (message.hello) {
    state.backoff = 500;
    setLink(true);
    const reset = message.reset && state.epoch !== null;
    state.epoch = message.epoch;
    if (message.reset) state.seq = message.seq;
    state.turn = message.turn;
    state.approvalTimeoutS = message.approval_timeout_s;
    for (const request of message.approvals) addApproval(request);
    setBusy();
    const first = state.connections === 1 && !state.linkOpened;
    loadToolViews();
    if (reset) reloadCurrent();
    refreshLists();
    if (first) { state.linkOpened = true; openLinkedView().catch((error) => notice(error.message, true)); }
    return;
  }
  if ("reply" in message) {
    const resolve = state.replies.get("ok" + message.reply);
    const reject = state.replies.get(message.reply);
    state.replies.delete(message.reply);
    state.replies.delete("ok" + message.reply);
    if (message.ok) { if (resolve) resolve(message); }
    else if (reject) reject(new Error(message.error));
    else notice(message.error, true);
    return;
  }
  if (message.seq <= state.seq) return; // already applied
  state.seq = message.seq;
  apply(message.event, message.data);
}

function setLink(on) {
  $("link").textContent = on ? "connected" : "reconnecting…";
  $("link").className = "pill " + (on ? "on" : "off");
}

// ------------------------------------------------------------------ host events
const refreshSoon = debounce(refreshLists, 300);

function apply(kind, e) {
  const here = e.conversation_id !== undefined && e.conversation_id === state.current;
  switch (kind) {
    case "TurnStarted":
      state.turn = e.conversation_id;
      setBusy();
      if (here) {
        state.question = addQuestion(e.question, e.attachments);
        startAnswer();
        showThinking("Thinking…");
      }
      break;
    case "MessageAppended":
      // The question as the model reads it: the resources attached to it, asked in the window, come
      // with it (the turn's start has only what was typed there).
      if (here && e.role === "user" && state.question) {
        showQuestion(state.question, e.question, e.attachments);
        state.question = null;
      }
      break;
    case "TextDelta":
      if (here) {
        if (!(state.answer && state.answer.held)) stopThinking();
        appendAnswer(e.text);
      }
      break;
    case "TurnRouted":
      // Which tool EdgeHost chose, while the model reads the prompt before it writes the call.
      if (here && e.needs_tool) {
        const names = e.candidates;
        showThinking((names.length === 1 ? "Using " + names[0] : "Choosing among " + names.join(", "))
          + ": the model is reading the question…");
      }
      break;
    case "ToolCallDetected":
      if (here) card(e.call_id, e.name, e.arguments, e.chosen_by).setStatus("detected");
      break;
    case "ToolExecutionStarted":
      if (here) {
        const started = card(e.call_id, e.tool, e.arguments, e.chosen_by);
        started.setStatus("running");
        started.filled(e.filled_by_host || [], e.arguments);
      }
      break;
    case "ToolExecutionProgressed":
      if (here && state.cards.has(e.call_id)) {
        const c = state.cards.get(e.call_id);
        if (e.task_status) c.task(e.task_id, e.task_status, e.message);
        else c.progress(e.progress, e.total, e.message);
      }
      break;
    case "ToolExecutionFinished":
      if (here) {
        const c = card(e.call_id, e.tool, e.arguments, "model");
        c.setStatus(e.status, e.duration_ms);
        // A denied call: why it did not run, as the window and the history say it (not the model's instruction).
        c.result(e.denial || (e.error && !e.result_text ? e.error : e.result_text));
        showView(c.node, { tool: e.tool, arguments: e.arguments, result: e.full_result || e.result_text,
          structured_result: e.structured_result, status: e.status, conversation_id: e.conversation_id,
          chosen_by: e.chosen_by });
        startAnswer(); // the model reads the result and answers below the card
        // What a model writes about a call that did not run is often made up, and EdgeHost may replace
        // it: it is held back until the turn says what to show (as in the window).
        if (e.status === "denied") state.answer.held = true;
        if (state.turn === e.conversation_id) {
          showThinking(e.status === "denied" ? "The call did not run; the model is answering without it…" : "Thinking…");
        }
      }
      if (state.panel === "history") refreshHistory();
      break;
    case "AnswerUngrounded":
    case "AnswerWithResults":  // after calls EdgeHost chose: the results, then the grounded answer
      if (here && state.answer) setAnswer(e.text);
      break;
    case "TurnCompleted":
      stopThinking();
      if (here) finishAnswer(e.text, e.cancelled);
      state.turn = null;
      setBusy();
      break;
    case "TurnFailed":
      stopThinking();
      if (here) { finishAnswer("", false); notice(e.error, true); }
      state.turn = null;
      setBusy();
      break;
    case "ApprovalRequested":
      addApproval(e.request);
      break;
    case "ApprovalResolved":
      removeApproval(e.request_id);
      break;
    case "ModelStatusChanged":
      $("model").textContent = "model: " + (e.model || e.backend || "none") + " (" + e.status + ")";
      if (state.panel === "models" && e.status !== "loading") refreshModels();
      break;
    case "ModelDownloadProgressed":
      modelDownloadProgressed(e);
      break;
    case "ModelDownloadFinished":
      modelDownloadFinished(e);
      break;
    case "ConversationsChanged":
      refreshSoon();
      break;
    case "ServerStatusChanged":
    case "CatalogChanged":
      if (kind === "CatalogChanged") loadToolViews();
      if (state.panel === "servers" || state.panel === "tools") refreshSoon();
      break;
    default:
      break;
  }
}

// ------------------------------------------------------------------ the conversation
function addMessage(kind, text, markdown) {
  const node = document.createElement("div");
  node.className = "msg " + kind;
  if (markdown) node.innerHTML = renderMarkdown(text);
  else node.textContent = text;
  $("messages").appendChild(node);
  scrollDown();
  return node;
}

// A question as it was sent: each resource attached to it as a chip (its name and size; the URI on
// hover), not its text, as the window shows it.
function addQuestion(text, attachments) {
  const node = addMessage("user", "");
  showQuestion(node, text, attachments);
  return node;
}

function showQuestion(node, text, attachments) {
  node.textContent = text;
  if (!attachments || !attachments.length) return;
  const chips = document.createElement("div");
  chips.className = "attachments";
  for (const attached of attachments) {
    const chip = document.createElement("span");
    chip.className = "attachment";
    chip.textContent = "▤ " + attached.label;
    chip.title = attached.uri;
    chips.appendChild(chip);
  }
  node.prepend(chips);
  scrollDown();
}

function notice(text, error) { addMessage(error ? "notice error" : "notice", text); }

function showThinking(text) {
  if (!state.thinking) state.thinking = addMessage("thinking", text);
  else state.thinking.textContent = text;
}

function stopThinking() {
  if (state.thinking) state.thinking.remove();
  state.thinking = null;
}

function startAnswer() {
  if (state.answer && !state.answer.text) return; // still empty: keep using it
  state.answer = { node: addMessage("assistant", "", true), text: "", pending: false, held: false };
  state.answer.node.hidden = true;
}

function appendAnswer(text) {
  if (!state.answer) startAnswer();
  state.answer.text += text;
  renderSoon(state.answer);
}

function setAnswer(text) {
  state.answer.text = text;
  renderSoon(state.answer);
}

function renderSoon(answer) {
  if (answer.pending) return;
  answer.pending = true;
  requestAnimationFrame(() => {
    answer.pending = false;
    answer.node.hidden = !answer.text || answer.held;
    if (answer.held) return;
    answer.node.innerHTML = renderMarkdown(answer.text);
    scrollDown();
  });
}

function finishAnswer(text, cancelled) {
  if (state.answer) {
    state.answer.held = false;
    // The final answer replaces what streamed (a grounded answer may differ from the raw reply).
    if (text && text !== state.answer.text) setAnswer(text);
    else renderSoon(state.answer);
  } else if (text) {
    addMessage("assistant", text, true);
  }
  if (cancelled) notice("Stopped.");
  state.answer = null;
}

function card(callId, name, args, chosenBy) {
  if (state.cards.has(callId)) return state.cards.get(callId);
  stopThinking();
  if (state.answer && !state.answer.text) {
    // Nothing was said before the call: the answer starts below its card.
    state.answer.node.remove();
    state.answer = null;
  }
  const node = document.createElement("details");
  node.className = "card";
  const summary = document.createElement("summary");
  const title = document.createElement("strong");
  title.textContent = name;
  const chosen = document.createElement("span");
  chosen.className = "chosen";
  chosen.textContent = chosenBy === "host" ? "chosen by EdgeHost" : chosenBy === "user" ? "pinned" : "";
  const status = document.createElement("span");
  status.className = "status";
  summary.append(title, chosen, status);
  const argsNode = document.createElement("pre");
  argsNode.textContent = JSON.stringify(args, null, 2);
  const filledNode = document.createElement("p");
  filledNode.className = "chosen filled";
  filledNode.hidden = true;
  const bar = document.createElement("progress");
  bar.hidden = true;
  const result = document.createElement("pre");
  result.className = "result";
  result.hidden = true;
  node.append(summary, bar, argsNode, filledNode, result);
  $("messages").appendChild(node);
  scrollDown();
  const handle = {
    node,
    setStatus(value, ms) {
      status.textContent = value + (ms !== undefined ? " · " + Math.round(ms) + " ms" : "");
      status.className = "status " + value;
      if (value !== "running") bar.hidden = true;
    },
    progress(done, total, message) {
      bar.hidden = false;
      if (total) { bar.max = total; bar.value = done; } else bar.removeAttribute("value");
      if (message) status.textContent = message;
    },
    task(taskId, value, message) {
      bar.hidden = false;
      bar.removeAttribute("value");
      status.textContent = "task " + value.replace("_", " ") + (message ? " — " + message : "");
      status.className = "status running";
      status.title = "MCP task " + taskId;
    },
    result(text) {
      result.textContent = text || "";
      result.hidden = !text;
    },
    // The arguments EdgeHost filled in, not the user: the repository a git server serves, the file
    // the question names by its words, a text a server keeps (a list or object shown as JSON).
    filled(names, values) {
      const shown = (v) => (typeof v === "string" ? v : JSON.stringify(v));
      filledNode.textContent = names.length
        ? "Filled in by EdgeHost, not typed by you: " + names.map((n) => n + " = " + shown(values[n])).join("; ")
        : "";
      filledNode.hidden = !names.length;
    },
  };
  state.cards.set(callId, handle);
  return handle;
}

function scrollDown() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

function clearMessages() {
  // Views being closed stay (hidden) until they answered their teardown (views.js).
  for (const node of [...$("messages").children]) if (!node.classList.contains("closing")) node.remove();
  state.cards.clear();
  state.answer = null;
  state.question = null;
  state.thinking = null;
}

// On a phone the conversations open above the chat ("☰ Chats") and close once one is chosen.
function showConversations(shown) {
  document.body.classList.toggle("show-side", shown);
  $("chats-toggle").setAttribute("aria-expanded", String(shown));
}

async function openConversation(id) {
  showConversations(false);
  state.current = id;
  closeViews("the conversation was closed");
  clearMessages();
  if (id === null) { $("title").textContent = "New conversation"; markCurrent(); return; }
  const view = await api("/api/conversations/" + id);
  if (state.current !== id) return;
  $("title").textContent = view.title;
  for (const entry of view.entries) {
    if (entry.kind === "question") addQuestion(entry.text, entry.attachments);
    else if (entry.kind === "answer") { if (entry.text) addMessage("assistant", entry.text, true); }
    else if (entry.kind === "tool") {
      const run = entry.execution;
      const c = card("history-" + run.id, run.tool, run.arguments, "model");
      c.setStatus(run.status, run.duration_ms === null ? undefined : run.duration_ms);
      c.result(run.result || run.error || "");
      showView(c.node, run);
    }
  }
  if (state.turn === id) startAnswer();
  markCurrent();
}

// The page opened from the window's "Open the view" (#view=EXECUTION): that call's conversation, its card
// open and in sight, its view below it (or the call alone, for one made outside a conversation).
async function openLinkedView() {
  const found = /^#view=(\d+)$/.exec(location.hash);
  if (!found) return;
  const run = await api("/api/executions/" + found[1]);
  await openConversation(run.conversation_id);
  let c = state.cards.get("history-" + run.id);
  if (!c) {
    c = card("history-" + run.id, run.tool, run.arguments, run.chosen_by);
    c.setStatus(run.status, run.duration_ms === null ? undefined : run.duration_ms);
    c.result(run.result || run.error || "");
    showView(c.node, run);
  }
  c.node.open = true;
  c.node.scrollIntoView({ block: "start" });
}

function reloadCurrent() { if (state.current !== null) openConversation(state.current); }

function setBusy() {
  const busy = state.turn !== null;
  $("send").hidden = busy;
  $("stop").hidden = !busy;
}

// ------------------------------------------------------------------ lists and panels
async function refreshLists() {
  const query = $("search").value.trim();
  const found = await api("/api/conversations" + (query ? "?q=" + encodeURIComponent(query) : ""));
  const list = $("conversations");
  list.textContent = "";
  for (const c of found) {
    const item = document.createElement("li");
    item.textContent = c.title;
    item.dataset.id = c.id;
    item.onclick = () => openConversation(c.id);
    list.appendChild(item);
  }
  markCurrent();
  if (state.panel) refreshPanel();
}

function markCurrent() {
  for (const item of $("conversations").children) {
    item.classList.toggle("current", Number(item.dataset.id) === state.current);
  }
}

function openPanel(name) {
  state.panel = state.panel === name ? null : name;
  $("panel").hidden = !state.panel;
  for (const key of ["servers", "tools", "history", "models", "settings"]) $("panel-" + key).hidden = key !== state.panel;
  if (state.panel) {
    $("panel-title").textContent = name[0].toUpperCase() + name.slice(1);
    refreshPanel();
    openSettings();
  }
}

function refreshPanel() {
  if (state.panel === "servers") refreshServers();
  if (state.panel === "tools") refreshTools();
  if (state.panel === "history") refreshHistory();
  if (state.panel === "models") refreshModels();
}

// Settings are read when the panel opens, not each time the lists refresh (that would undo what is typed).
function openSettings() { if (state.panel === "settings") refreshSettings().catch((error) => notice(error.message, true)); }

function switchRow(label, detail, checked, onChange) {
  const item = document.createElement("li");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = checked;
  box.setAttribute("aria-label", label);
  box.onchange = () => onChange(box.checked).catch((error) => { box.checked = !box.checked; notice(error.message, true); });
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = label;
  name.title = label;
  const info = document.createElement("span");
  info.className = "muted";
  info.textContent = detail;
  item.append(box, name, info);
  return item;
}

async function refreshServers() {
  const servers = await api("/api/servers");
  const list = $("servers");
  list.textContent = "";
  for (const s of servers) {
    const detail = s.status + (s.status === "ready" ? " · " + s.tools + " tools" : "") + (s.error ? " · " + s.error : "");
    list.appendChild(switchRow(s.name, detail, s.status !== "disabled",
      (on) => send("enable_server", { name: s.name, enabled: on })));
  }
}

async function refreshTools() {
  const tools = await api("/tools");
  const list = $("tools");
  list.textContent = "";
  for (const t of tools) {
    list.appendChild(switchRow(t.name, t.risk, t.enabled,
      (on) => send("enable_tool", { name: t.name, enabled: on })));
  }
}

// ------------------------------------------------------------------ wiring
function debounce(fn, ms) {
  let timer = null;
  return () => { clearTimeout(timer); timer = setTimeout(fn, ms); };
}

$("composer").onsubmit = async (event) => {
  event.preventDefault();
  const text = $("input").value.trim();
  if (!text.trim() || state.turn !== null) return;
  try {
    const reply = await send("submit", { text, conversation_id: state.current });
    $("input").value = "";
    if (state.current !== reply.conversation_id) {
      state.current = reply.conversation_id;
      closeViews("a new conversation was started");
      clearMessages();
      $("title").textContent = text.split("\n")[0].slice(0, 60);
      markCurrent();
    }
  } catch (error) {
    notice(error.message, true);
  }
};
$("input").onkeydown = (event) => {
  if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); $("composer").requestSubmit(); }
};
// A pause in typing hands the question to the host, which embeds it for tool ranking before Enter.
$("input").oninput = debounce(() => {
  const text = $("input").value.trim();
  if (text) send("draft", { text }).catch(() => {});
}, DRAFT_PAUSE_MS);
$("stop").onclick = () => send("cancel", {}).catch((error) => notice(error.message, true));
$("new-chat").onclick = () => openConversation(null);
$("chats-toggle").onclick = () => showConversations(!document.body.classList.contains("show-side"));
$("search").oninput = debounce(refreshLists, 250);
$("panel-close").onclick = () => openPanel(state.panel);
for (const button of document.querySelectorAll(".tabs button")) button.onclick = () => openPanel(button.dataset.panel);

start();
