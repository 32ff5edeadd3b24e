// A query result's grid, the page's own: a page of 50 rows at a time, sort by a header (a
// button: click, Enter or Space; `aria-sort` says the order), the header kept in view while
// the rows scroll in their box, numbers right-aligned with one column's decimals, a pager in
// the page's language. Plain table markup built in one go: a few milliseconds where a grid
// library's build took a 90–280 ms frame on a slow phone.

import { t } from "./i18n.js";

const PAGE_SIZE = 50;
const grids = new Set(); // every grid's redraw, for a change of language

/** Write every grid on the page again (numbers, dates and pager in the new language). */
export function redrawGrids() {
  for (const grid of grids) {
    if (grid.box.isConnected) grid.draw();
    else grids.delete(grid);
  }
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1; // NULLs last either way round
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

function header(column, index, state) {
  const th = document.createElement("th");
  th.scope = "col";
  th.title = column.name;
  th.className = column.numeric ? "num" : "";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "grid-sort";
  button.dataset.column = String(index);
  button.textContent = column.label;
  th.append(button);
  button.addEventListener("click", () => state.sortBy(index));
  return th;
}

function pagerButton(key, state) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small";
  button.dataset.page = key;
  button.addEventListener("click", () => state.turn(key));
  return button;
}

/**
 * Fill `box` with a grid of `rows` (arrays of values); `columns` = [{name, label, numeric}],
 * `format(value, columnIndex)` writes a cell's text.
 */
export function fillGrid(box, columns, rows, format) {
  const scroller = document.createElement("div");
  scroller.className = "grid-scroll";
  scroller.tabIndex = 0; // the rows scroll by keyboard too
  scroller.setAttribute("role", "region");
  const table = document.createElement("table");
  const head = document.createElement("tr");
  const body = document.createElement("tbody");
  const pager = document.createElement("nav");
  pager.className = "grid-pager";
  const status = document.createElement("span");
  const state = {
    box,
    order: rows.map((_, i) => i),
    sorted: null, // [column, 1 | -1]
    page: 0,
    pages: Math.max(1, Math.ceil(rows.length / PAGE_SIZE)),
    sortBy(index) {
      const direction = this.sorted?.[0] === index && this.sorted[1] === 1 ? -1 : 1;
      this.sorted = [index, direction];
      this.order.sort((a, b) => direction * compare(rows[a][index], rows[b][index]) || a - b);
      this.page = 0;
      this.draw();
    },
    turn(key) {
      const to = { first: 0, prev: this.page - 1, next: this.page + 1, last: this.pages - 1 }[key];
      this.page = Math.min(this.pages - 1, Math.max(0, to));
      this.draw();
      scroller.scrollTop = 0;
    },
    draw() {
      drawRows(body, rows, this.order.slice(this.page * PAGE_SIZE, (this.page + 1) * PAGE_SIZE), columns, format);
      head.querySelectorAll("th").forEach((th, i) => {
        const sort = this.sorted?.[0] === i ? (this.sorted[1] === 1 ? "ascending" : "descending") : "none";
        th.setAttribute("aria-sort", sort);
      });
      scroller.setAttribute("aria-label", t("gridLabel"));
      pager.setAttribute("aria-label", t("pager_page"));
      for (const button of pager.querySelectorAll("button")) {
        button.textContent = t(`pager_${button.dataset.page}`);
        const back = button.dataset.page === "first" || button.dataset.page === "prev";
        button.disabled = back ? this.page === 0 : this.page === this.pages - 1;
      }
      status.textContent = t("pager_of", { page: this.page + 1, pages: this.pages });
    },
  };
  columns.forEach((column, index) => head.append(header(column, index, state)));
  const thead = document.createElement("thead");
  thead.append(head);
  table.append(thead, body);
  scroller.append(table);
  box.append(scroller);
  if (state.pages > 1) {
    pager.append(pagerButton("first", state), pagerButton("prev", state), status);
    pager.append(pagerButton("next", state), pagerButton("last", state));
    box.append(pager);
  }
  state.draw();
  grids.add(state);
}

function drawRows(body, rows, shown, columns, format) {
  const fragment = document.createDocumentFragment();
  for (const index of shown) {
    const tr = document.createElement("tr");
    columns.forEach((column, c) => {
      const td = document.createElement("td");
      const value = rows[index][c];
      td.textContent = format(value, c);
      if (value === null || value === undefined) td.className = "null";
      else if (column.numeric) td.className = "num";
      tr.append(td);
    });
    fragment.append(tr);
  }
  body.replaceChildren(fragment);
}
