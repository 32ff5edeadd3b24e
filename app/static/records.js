// Query results: a Tabulator grid (vendored) with paging, sort, a sticky header, locale numbers
// and dates, labels from the schema's descriptions and copy; one value as a headline figure.

import { downloadWithKey, storedKey } from "./api_key.js";
import { currentLang, label, t } from "./i18n.js";
import { loadLibrary, whenVisible } from "./lazy.js";
import { copyButton } from "./sql_format.js";

const PAGE_SIZE = 50;
const GRID_MAX_HEIGHT = "420px"; // the grid scrolls inside this; its header stays in view
const ISO_DATE = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?$/;

let columnLabels = new Map(); // column name → description, from GET /api/v0/schema
const grids = new Set(); // every grid on the page, redrawn when the language changes

/** Write every grid's numbers, dates and pager again in the page's (new) language. */
export function redrawGrids() {
  for (const table of grids) {
    if (!table.element.isConnected) {
      grids.delete(table);
      continue;
    }
    table.setLocale(currentLang());
    table.redraw(true);
  }
}

const PAGER_KEYS = ["first", "prev", "next", "last"];

// Tabulator's own English pager words, in each of the page's languages.
function pagerTexts() {
  const langs = {};
  for (const lang of ["zh-CN", "en-US"]) {
    const text = (key) => t(`pager_${key}`, {}, lang);
    const pagination = {};
    for (const key of PAGER_KEYS) {
      pagination[key] = text(key);
      pagination[`${key}_title`] = text(key);
    }
    pagination.page_title = text("page");
    langs[lang] = { pagination };
  }
  return langs;
}

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
  const numeric = columns.map((_, i) => rows.every((r) => {
    const v = rowValues(columns, r)[i];
    return v === null || v === undefined || typeof v === "number";
  }));
  // A column's numbers all show as many decimals as its most precise one (at most 6).
  const decimals = columns.map((_, i) => (numeric[i] ? columnDecimals(rows.map((r) => rowValues(columns, r)[i])) : null));
  const data = rows.map((row) => {
    const item = {};
    rowValues(columns, row).forEach((value, index) => { item[`c${index}`] = value; });
    return item;
  });
  const definitions = columns.map((column, index) => ({
    title: escapeHtml(columnLabels.get(column) || column),
    field: `c${index}`, // never the name itself: Tabulator reads dots in a field as nesting
    headerTooltip: column,
    hozAlign: numeric[index] ? "right" : "left",
    sorter: numeric[index] ? "number" : "string",
    formatter: (cell) => {
      const span = document.createElement("span");
      const value = cell.getValue();
      span.textContent = formatValue(value, decimals[index]);
      if (value === null || value === undefined) span.className = "null";
      return span;
    },
  }));
  // Tabulator (loaded on the first grid) measures its box: build it once it is on screen.
  whenVisible(box, async () => {
    const Tabulator = await loadLibrary("tabulator");
    if (!Tabulator) return;
    const table = new Tabulator(box, {
      data,
      columns: definitions,
      layout: "fitDataFill",
      // At most a page of 50 rows is on show: plain rows cost less than the virtual renderer.
      renderVertical: "basic",
      maxHeight: GRID_MAX_HEIGHT,
      pagination: rows.length > PAGE_SIZE,
      paginationSize: PAGE_SIZE,
      placeholder: "",
      locale: true, // the pager's words from `langs`, in the page's language
      langs: pagerTexts(),
    });
    table.on("tableBuilt", () => {
      fixGridRoles(box);
      sortByKeyboard(box);
      table.setLocale(currentLang());
    });
    grids.add(table);
  });
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

// A sortable header is a button to the keyboard too: Tab to it, Enter or Space sorts.
function sortByKeyboard(box) {
  for (const header of box.querySelectorAll(".tabulator-col.tabulator-sortable")) {
    header.tabIndex = 0;
    header.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      header.querySelector(".tabulator-col-content")?.click();
    });
  }
}

// Tabulator puts its focusable scroll box (so keys can scroll it) straight inside role=grid,
// which ARIA does not allow: the box becomes the rows' rowgroup, the inner table plain.
function fixGridRoles(box) {
  const holder = box.querySelector(".tabulator-tableholder");
  const body = box.querySelector(".tabulator-table");
  if (!holder || !body) return;
  box.removeAttribute("aria-owns");
  holder.setAttribute("role", "rowgroup");
  body.setAttribute("role", "none");
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
