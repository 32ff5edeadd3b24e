// The empty thread: starter questions, the tables a person may ask about, and an upload button.
// Each part comes from its endpoint when the service has it and is left out quietly when not.

import { apiFetch } from "./api_key.js";
import { currentLang, label, t } from "./i18n.js";
import { setColumnLabels } from "./records.js";

const STARTER_KEYS = ["starter1", "starter2", "starter3"];
let starterTexts = new Set(); // the starters on show: a follow-up must be something else

async function getData(url) {
  try {
    const response = await apiFetch(url);
    if (!response.ok) return null;
    const envelope = await response.json();
    return envelope?.success ? envelope.data : null;
  } catch {
    return null;
  }
}

function starterButton(text, key, ask) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "starter";
  button.dataset.testid = "starter";
  if (key) label(button, key);
  else button.textContent = text;
  button.addEventListener("click", () => ask(button.textContent));
  return button;
}

async function suggested(params) {
  const query = new URLSearchParams({ lang: currentLang(), ...params });
  const data = await getData(`api/v0/suggestions?${query}`);
  const items = Array.isArray(data?.suggestions) ? data.suggestions : [];
  return items.map((item) => (typeof item === "string" ? item : item?.question)).filter(Boolean);
}

/** Fill the starter questions: GET /api/v0/suggestions, else the sample data's questions. */
export async function showStarters(box, ask) {
  const texts = await suggested({ limit: 6 });
  starterTexts = new Set(texts);
  box.replaceChildren(
    ...(texts.length
      ? texts.slice(0, 6).map((text) => starterButton(text, null, ask))
      : STARTER_KEYS.map((key) => starterButton("", key, ask))),
  );
}

/** Return follow-up questions after `question` as buttons (none when there are none). */
export async function followUps(question, ask) {
  // Follow-ups are about the answer: the starter list again is not one, nor the same question.
  const all = await suggested({ after: question, limit: 3 });
  const texts = all.filter((text) => !starterTexts.has(text) && text !== question);
  if (!texts.length) return null;
  const box = document.createElement("div");
  box.className = "follow-ups";
  box.dataset.testid = "follow-ups";
  for (const text of texts) {
    const button = starterButton(text, null, ask);
    button.dataset.testid = "follow-up";
    box.append(button);
  }
  return box;
}

/** Fill the table browser from GET /api/v0/schema, or a dataset's tables (hidden if none). */
export async function showSchema(section, list, dataset = null) {
  const data = dataset
    ? { tables: (dataset.tables ?? []).map((table) => ({ ...table, columns: (table.columns ?? []).map((name) => ({ name })) })) }
    : await getData("api/v0/schema");
  const tables = Array.isArray(data?.tables) ? data.tables : [];
  const labels = new Map();
  list.replaceChildren(
    ...tables.map((table) => {
      const item = document.createElement("details");
      item.className = "schema-table";
      item.dataset.testid = "schema-table";
      const summary = document.createElement("summary");
      const name = document.createElement("code");
      name.textContent = table.name;
      summary.append(name);
      if (table.description) summary.append(` — ${table.description}`);
      const columns = document.createElement("ul");
      for (const column of table.columns ?? []) {
        if (column.description) labels.set(column.name, column.description);
        const li = document.createElement("li");
        const code = document.createElement("code");
        code.textContent = column.name;
        li.append(code, ` ${column.type ?? ""}`);
        if (column.description) li.append(` — ${column.description}`);
        columns.append(li);
      }
      item.append(summary, columns);
      return item;
    }),
  );
  if (!dataset) setColumnLabels(labels);
  section.hidden = tables.length === 0;
}

/**
 * Show the upload button when the service takes datasets; `chosen(dataset)` gets the upload,
 * stored as `user()`'s (the user the questions ask as, who alone may use it).
 */
export async function setUpUpload(button, input, note, chosen, user) {
  const owner = () => new URLSearchParams({ user_id: user() });
  const response = await apiFetch(`api/v0/datasets?${owner()}`).catch(() => null);
  button.hidden = !response?.ok;
  if (button.hidden) return;
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (!file) return;
    const form = new FormData();
    form.append("file", file);
    try {
      const upload = await apiFetch(`api/v0/datasets?${owner()}`, { method: "POST", body: form });
      const envelope = await upload.json();
      if (!upload.ok) throw new Error(envelope?.message || `HTTP ${upload.status}`);
      label(note, "uploaded", { name: envelope.data.name });
      chosen(envelope.data);
    } catch (error) {
      note.textContent = t("uploadFailed", { message: error.message });
    }
    note.hidden = false;
    input.value = "";
  });
}
