// "From the registry" in the Servers panel: search the MCP Registry EdgeHost is set to, a card per
// server (what it runs as, whether this board can run it), the values it asks for, the exact command
// it will run, then Add and start (web/registry_face.py; the window's dialog does the same).
"use strict";

const registry = { query: "", open: null };

async function searchRegistry() {
  registry.query = $("registry-query").value.trim();
  $("registry-status").textContent = "Searching …";
  const listing = await api("/api/registry?q=" + encodeURIComponent(registry.query));
  const list = $("registry");
  list.textContent = "";
  if (listing.error) {
    $("registry-status").textContent = listing.error;
    return;
  }
  const said = [listing.entries.length + (listing.entries.length === 1 ? " server" : " servers") + " in " + listing.registry];
  if (listing.hidden) said.push(listing.hidden + " not active left out");
  if (listing.more) said.push("more on the registry: search with more words");
  if (listing.offline) said.push("offline (" + listing.offline + "): as it was " + Math.round(listing.age_s / 60) + " minutes ago");
  $("registry-status").textContent = said.join("; ") + ".";
  for (const entry of listing.entries) list.appendChild(registryCard(entry));
}

function registryCard(entry) {
  const item = document.createElement("li");
  item.className = "model registry-entry";
  const head = document.createElement("div");
  head.className = "model-head";
  const title = document.createElement("strong");
  title.className = "name";
  title.textContent = entry.title + " " + entry.version;
  head.appendChild(title);
  const here = entry.options.filter((o) => !o.why_not).map((o) => o.label);
  const chip = document.createElement("span");
  chip.className = "pill " + (here.length ? "on" : "off");
  chip.textContent = here.length ? "runs here: " + here.join(", ") : "not on this board yet";
  head.appendChild(chip);
  const about = document.createElement("div");
  about.className = "muted small";
  about.textContent = entry.description + " · " + entry.name + " · runs as " + entry.options.map((o) => o.label).join(", ");
  const form = document.createElement("div");
  form.hidden = true;
  item.append(head, about, form);
  head.onclick = () => {
    if (registry.open && registry.open !== form) registry.open.hidden = true;
    form.hidden = !form.hidden;
    registry.open = form;
    if (!form.hidden && !form.firstChild) fillRegistryForm(form, entry);
  };
  return item;
}

function fillRegistryForm(form, entry) {
  const runnable = entry.options.findIndex((o) => !o.why_not);
  const choose = document.createElement("select");
  choose.className = "registry-run-as";
  entry.options.forEach((o, i) => choose.appendChild(new Option(o.label + (o.why_not ? " (not here)" : ""), i)));
  choose.value = String(Math.max(runnable, 0));
  const body = document.createElement("div");
  form.append(labelled("Run as", choose), body);
  const show = () => showRegistryOption(body, entry, Number(choose.value));
  choose.onchange = show;
  show();
}

function labelled(text, field) {
  const label = document.createElement("label");
  label.className = "field small";
  const words = document.createElement("span");
  words.textContent = text;
  label.append(words, field);
  return label;
}

// One input per property of a flat JSON-schema form (string, number, boolean, enum; writeOnly unseen).
function schemaFields(schema) {
  const fields = [];
  for (const [key, prop] of Object.entries(schema.properties || {})) {
    let input;
    if (prop.enum) {
      input = document.createElement("select");
      for (const value of prop.enum) input.appendChild(new Option(String(value), String(value)));
    } else {
      input = document.createElement("input");
      input.type = prop.type === "boolean" ? "checkbox" : prop.type === "number" ? "number" : prop.writeOnly ? "password" : "text";
      if (prop.description) input.placeholder = prop.description;
    }
    if (prop.default !== undefined) {
      if (input.type === "checkbox") input.checked = Boolean(prop.default);
      else input.value = String(prop.default);
    }
    input.dataset.key = key;
    input.title = prop.description || "";
    const required = (schema.required || []).includes(key);
    fields.push({ key, prop, input, required, row: labelled((prop.title || key) + (required ? " *" : ""), input) });
  }
  return fields;
}

function schemaValues(fields) {
  const values = {};
  for (const { key, prop, input } of fields) {
    if (input.type === "checkbox") values[key] = input.checked;
    else if (input.value.trim() === "") continue;
    else values[key] = prop.type === "number" ? Number(input.value) : input.value;
  }
  return values;
}

function showRegistryOption(body, entry, index) {
  body.textContent = "";
  const option = entry.options[index];
  const why = document.createElement("p");
  why.className = "error small registry-why-not";
  why.textContent = option.why_not || "";
  why.hidden = !option.why_not;
  body.appendChild(why);
  if (option.needs_node) {
    body.appendChild(button("Install Node.js", async () => {
      why.textContent = "Installing Node.js from PyPI into EdgeHost's data folder …";
      try {
        await send("install_node", {});
        searchRegistry();
      } catch (error) {
        why.textContent = error.message;
      }
    }));
  }
  if (option.why_not) return;
  const name = document.createElement("input");
  name.value = entry.server_name;
  name.className = "registry-name";
  body.appendChild(labelled("Name", name));
  // A bundle's own form comes with it: the first plan downloads and checks it, and answers its form.
  let fields = schemaFields(option.schema);
  let bundleForm = null;
  const fieldBox = document.createElement("div");
  const showFields = () => {
    fieldBox.textContent = "";
    for (const field of fields) {
      fieldBox.appendChild(field.row);
      field.input.oninput = later;
    }
  };
  body.appendChild(fieldBox);
  const command = document.createElement("pre");
  command.className = "registry-command small";
  const problem = document.createElement("p");
  problem.className = "error small";
  const add = button("Add and start", null, "primary registry-add");
  add.disabled = true;
  body.append(labelled("Will run", command), problem, add);
  const fieldsOf = () => ({ name: entry.name, option: index, server: name.value.trim(), values: schemaValues(fields) });
  const preview = async () => {
    const missing = fields.filter((f) => f.required && !(f.key in schemaValues(fields))).map((f) => f.prop.title || f.key);
    if (missing.length) {
      command.textContent = "—";
      problem.textContent = "Needed: " + missing.join(", ");
      add.disabled = true;
      return;
    }
    try {
      if (option.label === "bundle" && bundleForm === null) problem.textContent = "Downloading the bundle …";
      const reply = await send("registry_plan", fieldsOf());
      if (reply.schema && bundleForm === null) {
        bundleForm = reply.schema;
        fields = schemaFields(bundleForm);
        showFields();
        return preview();
      }
      if (reply.problem) throw new Error(reply.problem);
      command.textContent = reply.summary.join("\n");
      problem.textContent = "";
      add.disabled = false;
    } catch (error) {
      command.textContent = "—";
      problem.textContent = error.message;
      add.disabled = true;
    }
  };
  const later = debounce(preview, 250);
  name.oninput = later;
  showFields();
  add.onclick = async () => {
    if (!confirm("EdgeHost will add “" + name.value.trim() + "” and run:\n\n" + command.textContent)) return;
    add.disabled = true;
    problem.textContent = "Adding " + name.value.trim() + " …";
    try {
      const reply = await send("registry_add", fieldsOf());
      problem.textContent = "";
      notice("Added " + reply.server + ": " + reply.summary[0]);
      if (registry.open) registry.open.hidden = true;
      refreshServers();
    } catch (error) {
      problem.textContent = "Not added: " + error.message;
      add.disabled = false;
    }
  };
  preview();
}

$("registry-search").onsubmit = (event) => {
  event.preventDefault();
  searchRegistry().catch((error) => { $("registry-status").textContent = error.message; });
};
