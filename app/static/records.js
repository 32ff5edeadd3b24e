// Query results: a grid (grid.js) with paging, sort, a sticky header, locale numbers and dates,
// labels from the schema's descriptions and copy; one value as a headline figure.

import { downloadWithKey, storedKey } from "./api_key.js";
import { fillGrid } from "./grid.js";
import { currentLang, label, t } from "./i18n.js";
import { whenVisible } from "./lazy.js";
import { copyButton } from "./sql_format.js";

const ISO_DATE = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?$/;

let columnLabels = new Map(); // column name → description, from GET /api/v0/schema

/** Use the schema's column descriptions as the grids' column labels. */
export function setColumnLabels(labels) {
  columnLabels = labels;
}

function escapeHtml(text) {
  const div = document.createElement("div");
  div.textContent = String(text);
  return div.innerHTML;
}

/** Return a cell value as this page's language writes it (numbers, dates, NULL). */
export function formatValue(value, decimals = null) {
  if (value === null || value === undefined) return "NULL";
  const lang = currentLang();
  if (typeof value === "number") {
    const digits = decimals === null ? { maximumFractionDigits: 6 } : {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    };
    return new Intl.NumberFormat(lang, digits).format(value);
  }
  if (typeof value === "string" && ISO_DATE.test(value)) {
    const date = new Date(value.length === 10 ? `${value}T00:00:00` : value.replace(" ", "T"));
    if (!Number.isNaN(date.getTime())) {
      const time = value.length > 10 ? { timeStyle: "short" } : {};
      return new Intl.DateTimeFormat(lang, { dateStyle: "medium", ...time }).format(date);
    }
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function rowValues(columns, row) {
  return columns.map((column, index) => (Array.isArray(row) ? row[index] : row?.[column]));
}

/** Return the records as tab-separated text (header first), for the copy button. */
export function recordsTsv(columns, rows) {
  const clean = (v) => (v === null || v === undefined ? "" : String(v).replace(/[\t\n]/g, " "));
  const lines = [columns.map(clean).join("\t")];
  for (const row of rows) lines.push(rowValues(columns, row).map(clean).join("\t"));
  return lines.join("\n");
}

function headline(column, value) {
  const box = document.createElement("div");
  box.className = "headline";
  box.dataset.testid = "headline";
  const figure = document.createElement("strong");
  figure.className = "headline-value";
  figure.textContent = formatValue(value);
  const caption = document.createElement("span");
  caption.className = "note";
  caption.textContent = columnLabels.get(column) || column;
  box.append(figure, caption);
  return box;
}

function grid(columns, rows) {
  const box = document.createElement("div");
  box.className = "grid";
  box.dataset.testid = "results-table";
  const values = rows.map((row) => rowValues(columns, row));
  const numeric = columns.map((_, i) => values.every((v) => v[i] === null || v[i] === undefined || typeof v[i] === "number"));
  // A column's numbers all show as many decimals as its most precise one (at most 6).
  const decimals = columns.map((_, i) => (numeric[i] ? columnDecimals(values.map((v) => v[i])) : null));
  const described = columns.map((name, i) => ({ name, label: columnLabels.get(name) || name, numeric: numeric[i] }));
  // Built once it comes near the screen, one per idle moment (lazy.js).
  whenVisible(box, () => fillGrid(box, described, values, (value, i) => formatValue(value, decimals[i])));
  return box;
}

function columnDecimals(values) {
  let most = 0;
  for (const value of values) {
    if (typeof value !== "number" || Number.isInteger(value)) continue;
    const [, fraction = ""] = String(value).split("e")[0].split(".");
    most = Math.max(most, Math.min(6, fraction.length));
  }
  return most;
}

/** Return the view of a `records` object: a headline figure for one value, else a grid. */
export function recordsView(records, csv) {
  const columns = Array.isArray(records?.columns) ? records.columns : [];
  const rows = Array.isArray(records?.rows) ? records.rows : [];
  const view = document.createElement("div");
  view.className = "records";
  if (!columns.length) return view;
  if (columns.length === 1 && rows.length === 1 && !records.is_limited) {
    view.append(headline(columns[0], rowValues(columns, rows[0])[0]));
    return view;
  }
  const total = records.total_row_count ?? rows.length;
  const note = document.createElement("span");
  note.className = "note";
  note.dataset.testid = "records-note";
  if (records.is_limited) label(note, "rowsLimited", { shown: rows.length, total });
  else label(note, "rowsAll", { total });
  const bar = document.createElement("div");
  bar.className = "records-bar";
  bar.append(note, copyButton(() => recordsTsv(columns, rows), "copyTable", "copy-table"));
  if (csv) bar.append(csv);
  view.append(bar, grid(columns, rows));
  return view;
}

/** Return a plain scrollable table of `columns` and `rows` (tool previews). */
export function newTable(columns, rows, testId) {
  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  const table = document.createElement("table");
  if (testId) table.dataset.testid = testId;
  const head = document.createElement("tr");
  for (const column of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = column;
    head.append(th);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const tbody = document.createElement("tbody");
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const value of rowValues(columns, row)) {
      const td = document.createElement("td");
      td.textContent = formatValue(value);
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  wrap.append(table);
  return wrap;
}

/** Return the note under a preview: all rows, or how many of how many. */
export function rowsNote(shown, total, isLimited) {
  return isLimited ? t("rowsLimited", { shown, total }) : t("rowsAll", { total });
}

/** Return the CSV download link of a query result of a conversation. */
export function csvLink(threadId, resultId) {
  const link = document.createElement("a");
  link.className = "csv-download button-link";
  link.dataset.testid = "csv-download";
  link.dataset.resultId = resultId;
  const userId = threadId.split(":")[0];
  const path = `api/v0/react/conversations/${encodeURIComponent(threadId)}/results/`;
  link.href = `${path}${encodeURIComponent(resultId)}.csv?user_id=${encodeURIComponent(userId)}`;
  link.download = `result-${resultId}.csv`;
  label(link, "downloadCsv");
  // With a key the file is fetched with it in a header: no key in a URL, a log or a history.
  link.addEventListener("click", (event) => {
    if (!storedKey()) return;
    event.preventDefault();
    downloadWithKey(link.href, link.download).catch(() => {});
  });
  return link;
}
