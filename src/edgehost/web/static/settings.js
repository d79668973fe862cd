// The Settings panel: what a board without a screen needs of the window's Settings dialog
// (web/settings_face.py). Saving a setting the model is loaded with loads it again.
"use strict";

const NUMBERS = ["context_length", "threads", "approval_timeout_s", "max_calls_per_turn"];

async function refreshSettings() {
  const listing = await api("/api/settings");
  const form = $("settings-form");
  for (const [name, choices] of Object.entries(listing.choices)) {
    const select = form.elements[name];
    select.textContent = "";
    for (const [value, label] of choices) {
      const option = document.createElement("option");
      option.value = value === null ? "" : value;
      option.textContent = label;
      select.appendChild(option);
    }
  }
  for (const [name, value] of Object.entries(listing.values)) form.elements[name].value = value === null ? "" : value;
  form.dataset.saved = JSON.stringify(formValues());
}

function formValues() {
  const form = $("settings-form");
  const values = {};
  for (const name of ["backend", "profile", "routing", ...NUMBERS]) {
    const raw = form.elements[name].value;
    values[name] = NUMBERS.includes(name) ? Number(raw) : raw || null;
  }
  return values;
}

function saySettings(text, error) {
  const said = $("settings-said");
  said.textContent = text;
  said.hidden = !text;
  said.classList.toggle("error", Boolean(error));
}

$("settings-form").onsubmit = async (event) => {
  event.preventDefault();
  const form = $("settings-form");
  if (!form.reportValidity()) return;
  const saved = JSON.parse(form.dataset.saved || "{}");
  const values = formValues();
  const changed = Object.fromEntries(Object.entries(values).filter(([name, value]) => saved[name] !== value));
  if (!Object.keys(changed).length) { saySettings("Nothing changed."); return; }
  saySettings("Saving…");
  try {
    const reply = await send("save_settings", { values: changed });
    form.dataset.saved = JSON.stringify(values);
    saySettings("Saved." + (reply.reloads_model ? " The model is loading again with them." : ""));
  } catch (error) {
    saySettings(error.message, true);
  }
};
