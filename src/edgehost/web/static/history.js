// The History panel: every tool call recorded, filtered by tool and status, a call opened to what it
// was given and gave (as the window's history panel shows it), and the calls shown exported.
"use strict";

function historyQuery() {
  const query = new URLSearchParams();
  if ($("history-tool").value.trim()) query.set("tool", $("history-tool").value.trim());
  if ($("history-status").value) query.set("status", $("history-status").value);
  return query;
}

// A call's start in the reader's time zone: the time for today's, the date too for older ones (the
// history keeps UTC ISO times; the window shows local ones).
function whenText(iso) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  const time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  if (when.toDateString() === new Date().toDateString()) return time;
  return when.toLocaleDateString([], { month: "short", day: "numeric" }) + " " + time;
}

async function refreshHistory() {
  const runs = await api("/api/executions?" + historyQuery());
  const body = $("history");
  body.textContent = "";
  $("history-empty").hidden = runs.length > 0;
  for (const run of runs) {
    const row = document.createElement("tr");
    row.className = "run";
    row.tabIndex = 0;
    for (const value of [whenText(run.started), run.tool, run.status, run.decided_by || "", run.duration_ms === null ? "" : Math.round(run.duration_ms)]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.appendChild(cell);
    }
    row.onclick = () => toggleRunDetails(row, run);
    row.onkeydown = (event) => { if (event.key === "Enter") toggleRunDetails(row, run); };
    body.appendChild(row);
    if (run.id === state.openRun) showRunDetails(row, run); // stays open while the list refreshes
  }
}

// What the window's history panel shows of a call (ui/history_panel.py): its arguments (and what the
// model had proposed, when you edited them), its result or error, and the way to its conversation.
// As the window says it (host/history_view.py CHOSEN_BY).
const CHOSEN_BY = { host: "chosen by EdgeHost", model: "chosen by the model", user: "chosen by you", probe: "called by edgehost probe" };

function toggleRunDetails(row, run) {
  for (const open of $("history").querySelectorAll("tr.run-details")) open.remove();
  for (const open of $("history").querySelectorAll("tr.run.open")) open.classList.remove("open");
  if (state.openRun === run.id) { state.openRun = null; return; }
  state.openRun = run.id;
  showRunDetails(row, run);
}

function showRunDetails(row, run) {
  row.classList.add("open");
  const details = document.createElement("tr");
  details.className = "run-details";
  const cell = document.createElement("td");
  cell.colSpan = row.children.length;
  const section = (title, text) => {
    const heading = document.createElement("h3");
    heading.textContent = title;
    const pre = document.createElement("pre");
    pre.textContent = text;
    cell.append(heading, pre);
  };
  if (run.chosen_by) {
    const who = document.createElement("p");
    who.className = "muted";
    who.textContent = CHOSEN_BY[run.chosen_by] || run.chosen_by;
    cell.appendChild(who);
  }
  section("Arguments", JSON.stringify(run.arguments, null, 2));
  if (run.proposed_arguments !== null) section("The model proposed (you edited it)", JSON.stringify(run.proposed_arguments, null, 2));
  let result = run.error || "";
  if (run.result) result = (result ? result + "\n\n" : "") + run.result;
  if (run.result_truncated) result += "\n\n… (cut; " + run.result_size + " bytes in all)";
  section(run.error ? "Error" : "Result", result || "(none)");
  if (run.conversation_id !== null) {
    const jump = document.createElement("button");
    jump.type = "button";
    jump.textContent = "Open its conversation";
    jump.onclick = () => openConversation(run.conversation_id);
    cell.appendChild(jump);
  }
  details.appendChild(cell);
  row.after(details);
}

async function exportHistory(format) {
  const query = historyQuery();
  query.set("format", format);
  const response = await api("/api/executions/export?" + query, "response");
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = "edgehost-executions." + format;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

$("history-tool").oninput = debounce(refreshHistory, 250);
$("history-status").onchange = refreshHistory;
$("export-json").onclick = () => exportHistory("json");
$("export-csv").onclick = () => exportHistory("csv");
