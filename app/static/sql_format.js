// SQL as people read it: laid out by the vendored sql-formatter, coloured by highlight.js, copyable.
// Both load with the first SQL shown; until then the SQL shows in a simple clause layout.

import { label, t } from "./i18n.js";
import { loadLibrary, loadStyle, loaded, whenVisible } from "./lazy.js";
import { offThread } from "./offthread.js";

// The worker's copies of the two tools (lazy.js loads the page's own).
const SQL_TOOLS = ["vendor/sql-formatter/sql-formatter.min.js", "vendor/highlight/highlight.min.js"];

/** Load sql-formatter and highlight.js (once); resolves when both are there (or failed). */
export function whenSqlToolsReady() {
  return Promise.all([loadLibrary("sqlFormatter"), loadLibrary("hljs")]);
}

// A simple layout for when sql-formatter cannot parse a dialect's statement.
const CLAUSES =
  /\s+(?=\b(?:SELECT|FROM|WHERE|GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET|UNION(?:\s+ALL)?|(?:LEFT\s+|RIGHT\s+|INNER\s+|FULL\s+|CROSS\s+)?(?:OUTER\s+)?JOIN)\b)/gi;
const ANDS = /\s+(?=\b(?:AND|OR)\b)/gi;
const QUOTED = /('(?:[^']|'')*'|"(?:[^"]|"")*")/;

function clauseLayout(sql) {
  return sql
    .split(QUOTED)
    .map((part, index) =>
      index % 2 === 1 ? part : part.replace(CLAUSES, "\n").replace(ANDS, "\n  "),
    )
    .join("")
    .trim();
}

/** Return `sql` laid out one clause per line (sql-formatter; a clause split if it fails). */
export function formatSql(sql) {
  const text = String(sql ?? "").trim();
  if (!text) return "";
  try {
    if (window.sqlFormatter) {
      return window.sqlFormatter.format(text, { language: "sql", keywordCase: "upper" });
    }
  } catch {
    // a statement the formatter does not know: fall back to the clause layout
  }
  return clauseLayout(text);
}

/** Fill `code` with `sql` coloured as SQL (textContent when highlight.js is missing). */
export function highlightInto(code, sql) {
  code.classList.add("hljs", "language-sql");
  if (window.hljs?.getLanguage("sql")) {
    code.innerHTML = window.hljs.highlight(sql, { language: "sql", ignoreIllegals: true }).value;
  } else {
    code.textContent = sql;
  }
}

/** Return a button that copies `text()` to the clipboard and says so. */
export function copyButton(text, key = "copy", testId = "copy") {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small copy";
  button.dataset.testid = testId;
  label(button, key);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = t("copied");
    } catch {
      button.textContent = t("failed");
    }
  });
  return button;
}

/** Return a block showing `sql` formatted and highlighted, with a copy button. */
export function sqlBlock(sql, testId = "sql") {
  let formatted = formatSql(sql);
  const block = document.createElement("div");
  block.className = "sql-block";
  const pre = document.createElement("pre");
  pre.className = "sql";
  pre.dataset.testid = testId;
  const code = document.createElement("code");
  highlightInto(code, formatted);
  if (!loaded("sqlFormatter") || !loaded("hljs")) {
    // Laid out and coloured once the block comes near the screen: in the drawing worker, so a
    // long thread's SQL costs the reader no frame; here once the tools load where there is none.
    loadStyle("hljs");
    whenVisible(pre, async () => {
      const done = await offThread("sql", { sql: String(sql ?? "").trim() }, SQL_TOOLS);
      if (done?.formatted) {
        formatted = done.formatted;
        code.innerHTML = done.html; // highlight.js's spans around the text it escaped
        return;
      }
      await whenSqlToolsReady();
      formatted = formatSql(sql);
      highlightInto(code, formatted);
    });
  }
  pre.append(code);
  block.append(pre, copyButton(() => formatted, "copy", "copy-sql"));
  return block;
}
