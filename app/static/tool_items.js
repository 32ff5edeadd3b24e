// A run's tool calls as collapsible items: the SQL, the outcome, a preview table, a CSV link.

import { hasText, label, t } from "./i18n.js";
import { csvLink, newTable } from "./records.js";
import { sqlBlock } from "./sql_format.js";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The tool items of one run (or one earlier turn), keyed by tool call id. */
export class ToolList {
  constructor(list) {
    this.list = list;
    this.items = new Map();
  }

  get size() {
    return this.items.size;
  }

  clear() {
    this.list.replaceChildren();
    this.items.clear();
  }

  /** The outcome of each finished item (ok, error, refused, rejected). */
  outcomes() {
    return [...this.items.values()].map((entry) => entry.item.dataset.status);
  }

  /** A pause waits for a person: the pending items say "waiting for you", not "running". */
  markWaiting(kind) {
    for (const { item, status } of this.items.values()) {
      if (item.dataset.status !== "pending") continue;
      item.dataset.status = "waiting";
      label(status, kind === "clarification" ? "toolAsking" : "toolWaiting");
    }
  }

  /** Add the item of a `tool_call` event: {tool_call_id, tool_name, args, sql}. */
  addCall(call) {
    const item = element("details", "tool-item pending");
    item.dataset.testid = "tool-item";
    item.dataset.tool = call.tool_name ?? "";
    item.dataset.status = "pending";
    const summary = element("summary");
    const status = label(element("span", "tool-status"), "toolPending");
    status.dataset.testid = "tool-status";
    const name = element("span", "tool-name");
    const key = `tool_${call.tool_name}`;
    if (hasText(key)) label(name, key);
    else name.textContent = call.tool_name ?? "";
    name.title = call.tool_name ?? "";
    summary.append(name, " ", status);
    const body = element("div", "tool-body");
    const sql = call.sql ?? call.args?.sql;
    if (sql) {
      body.append(sqlBlock(sql, "tool-sql"));
    } else if (call.args && Object.keys(call.args).length) {
      body.append(element("pre", "tool-args", JSON.stringify(call.args)));
    }
    item.append(summary, body);
    this.list.append(item);
    this.list.hidden = false;
    const entry = { item, status, body };
    this.items.set(call.tool_call_id ?? `item-${this.items.size}`, entry);
    return entry;
  }

  /** Complete an item with a `tool_result` event; `threadId` makes its CSV link. */
  addResult(result, threadId) {
    const id = result.tool_call_id ?? `item-${this.items.size}`;
    const entry = this.items.get(id) ?? this.addCall({ tool_call_id: id, ...result });
    const outcome = result.rejected ? "rejected" : result.status ?? "ok";
    entry.item.dataset.status = outcome;
    entry.item.classList.remove("pending");
    entry.item.classList.add(outcome);
    let key = "toolOk";
    if (outcome === "refused") key = "toolRefused";
    else if (outcome === "rejected") key = "toolRejected";
    else if (outcome !== "ok") key = "toolError";
    else if (result.row_count === undefined || result.row_count === null) key = "done";
    label(entry.status, key, { rows: result.row_count ?? 0 });
    if (result.duration_ms !== undefined) entry.status.title = t("toolMs", { ms: result.duration_ms });
    // A rejection's text was written for the model; the person knows they said no.
    if (result.error && outcome !== "rejected") {
      entry.body.append(element("p", "tool-error", result.error_message || result.error));
    }
    const columns = Array.isArray(result.columns) ? result.columns : [];
    const rows = Array.isArray(result.rows) ? result.rows : [];
    if (columns.length) {
      entry.body.append(newTable(columns, rows, "tool-preview"));
      const total = result.row_count ?? rows.length;
      const limited = rows.length < total;
      const note = element("p", "note");
      label(note, limited ? "rowsLimited" : "rowsAll", { shown: rows.length, total });
      entry.body.append(note);
    }
    if (outcome === "ok" && result.result_id && threadId) {
      entry.body.append(csvLink(threadId, result.result_id));
    }
    if (outcome !== "ok" && outcome !== "rejected") entry.item.open = true;
  }
}
