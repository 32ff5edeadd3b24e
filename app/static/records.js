// Result tables: column headers and rows of a `records` object (rows as objects or arrays).

import { withKey } from "./api_key.js";
import { t } from "./i18n.js";

function formatCell(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Fill `table` (with a thead and a tbody) with `columns` and `rows`. */
export function fillTable(table, columns, rows) {
  const headRow = document.createElement("tr");
  for (const column of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = column;
    headRow.append(th);
  }
  table.tHead.replaceChildren(headRow);
  table.tBodies[0].replaceChildren(
    ...rows.map((row) => {
      const tr = document.createElement("tr");
      columns.forEach((column, index) => {
        const td = document.createElement("td");
        const value = Array.isArray(row) ? row[index] : row?.[column];
        td.textContent = formatCell(value);
        if (value === null || value === undefined) td.className = "null";
        else if (typeof value === "number") td.className = "number";
        tr.append(td);
      });
      return tr;
    }),
  );
}

/** Return a new scrollable table of `columns` and `rows`. */
export function newTable(columns, rows, testId) {
  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  const table = document.createElement("table");
  if (testId) table.dataset.testid = testId;
  table.append(document.createElement("thead"), document.createElement("tbody"));
  fillTable(table, columns, rows);
  wrap.append(table);
  return wrap;
}

/** Return the note under a table: all rows, or how many of how many. */
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
  link.href = withKey(`${path}${encodeURIComponent(resultId)}.csv?user_id=${encodeURIComponent(userId)}`);
  link.download = `result-${resultId}.csv`;
  link.textContent = t("downloadCsv");
  return link;
}
