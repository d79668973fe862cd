// The Models panel: this board's models as the window's Models panel lists them (host/model_cards.py),
// downloads with their progress, switching to a model on the board, and removing a downloaded one.
"use strict";

const models = {
  showAll: false,
  rows: new Map(), // a card's name (what its download is reported under) -> its row
  said: new Map(), // name -> what the last download of it ended with, shown once the list is read again
};

async function refreshModels() {
  const listing = await api("/api/models" + (models.showAll ? "?all=1" : ""));
  $("models-board").textContent = listing.board + ". Models come from the Hugging Face Hub into " +
    listing.folder + "; an interrupted download resumes.";
  const list = $("models");
  list.textContent = "";
  models.rows.clear();
  for (const card of listing.cards) {
    const row = modelRow(card, listing.folder);
    models.rows.set(card.name, row);
    list.appendChild(row.item);
  }
}

function button(label, onClick, kind) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = label;
  if (kind) node.className = kind;
  node.onclick = onClick;
  return node;
}

function modelRow(card, folder) {
  const item = document.createElement("li");
  item.className = "model";
  const head = document.createElement("div");
  head.className = "model-head";
  const title = document.createElement("strong");
  title.className = "name";
  title.textContent = card.title;
  head.appendChild(title);
  if (card.recommended) {
    const chip = document.createElement("span");
    chip.className = "pill on";
    chip.textContent = "Suggested for this board";
    head.appendChild(chip);
  }
  const details = document.createElement("div");
  details.className = "muted small";
  details.textContent = card.details;
  const progress = document.createElement("progress");
  progress.max = 1000;
  const status = document.createElement("div");
  status.className = "small";
  const row = { card, item, progress, status, state: card.state };
  const command = (name, fields, doing) => {
    if (doing) say(row, doing);
    return send(name, fields).catch((error) => say(row, error.message, true));
  };
  const remove = () => {
    const what = card.state === "available" ? "the unfinished download of " + card.title : card.title;
    if (!confirm("Delete " + what + " from " + folder + "?")) return;
    send("remove_model", { name: card.path || card.name })
      .then((reply) => {
        models.said.set(card.name, "Removed: " + Math.round(reply.freed_bytes / 1e6) + " MB freed.");
        refreshModels();
      })
      .catch((error) => say(row, error.message, true));
  };
  row.show = (state) => {
    row.state = state;
    for (const node of head.querySelectorAll("button")) node.remove();
    progress.hidden = state !== "downloading";
    if (state === "downloading") {
      head.appendChild(button("Cancel", () => command("cancel_download", { name: card.name })));
      return;
    }
    if (card.removable && state !== "in use") head.appendChild(button("Remove", remove, "danger"));
    if (state === "available") {
      const start = button(card.partial_bytes ? "Resume" : "Download", () => {
        row.show("downloading");
        command("download_model", { name: card.name }, "Asking the hub…");
      }, "primary");
      start.disabled = !card.fits;
      head.appendChild(start);
    } else {
      const use = button(state === "in use" ? "In use" : "Use",
        () => command("use_model", { path: card.path }, "Loading it…"));
      use.disabled = state === "in use" || !card.usable;
      head.appendChild(use);
    }
  };
  item.append(head, details, progress, status);
  row.show(card.state);
  const said = models.said.get(card.name);
  models.said.delete(card.name);
  say(row, said || card.note, !said && !card.usable);
  return row;
}

function say(row, text, error) {
  row.status.textContent = text || "";
  row.status.hidden = !text;
  row.status.classList.toggle("error", Boolean(error));
}

function modelDownloadProgressed(e) {
  const row = models.rows.get(e.name);
  if (!row) return;
  if (row.state !== "downloading") row.show("downloading");
  row.progress.value = e.total_bytes ? Math.round((1000 * e.done_bytes) / e.total_bytes) : 0;
  say(row, e.text);
}

function modelDownloadFinished(e) {
  if (state.panel !== "models") return;
  let said = e.error || "The download stopped.";
  if (e.path) said = "Downloaded to " + e.path + ". Use it now?";
  else if (e.cancelled) said = "Cancelled: Resume goes on from where it stopped.";
  models.said.set(e.name, said);
  refreshModels();
}

$("models-all").onchange = () => { models.showAll = $("models-all").checked; refreshModels(); };
$("hub-pull").onsubmit = (event) => {
  event.preventDefault();
  const spec = $("hub-file").value.trim();
  if (!spec) return;
  send("download_model", { name: spec })
    .then(() => { $("hub-file").value = ""; refreshModels(); })
    .catch((error) => notice(error.message, true));
};
