// The SQL approval card (issue #13): one editor shows the SQL once, highlighted and editable;
// Approve runs what the editor holds (an edit when it was changed), Reject says no.
import { apiFetch } from "./api_key.js";
import { label } from "./i18n.js";
import { formatSql, highlightInto, whenSqlToolsReady } from "./sql_format.js";

const STATUS_URL = "api/v0/react/status/";

let pending = null; // {interruptId, decide, shown}
let bound = false;

const card = () => document.getElementById("approval-card");
const sqlBox = () => document.getElementById("approval-sql");
const commentBox = () => document.getElementById("approval-comment");

function part(name) {
  return card().querySelector(`[data-approval="${name}"]`);
}

// The editor is a transparent textarea over its own highlighted copy: one SQL on screen.
function showPreview() {
  highlightInto(part("preview"), `${sqlBox().value}\n`);
}

function send(action) {
  if (!pending) return;
  const sql = sqlBox().value;
  // What the editor holds is what runs: a changed statement goes as an edit.
  const edited = action === "approve" && sql.trim() !== pending.shown.trim();
  const resume = { interrupt_id: pending.interruptId, action: edited ? "edit" : action };
  if (edited) resume.sql = sql;
  if (commentBox().value.trim()) resume.comment = commentBox().value.trim();
  const { decide } = pending;
  hideApproval();
  decide(resume);
}

function bind() {
  if (bound) return;
  bound = true;
  sqlBox().addEventListener("input", showPreview);
  part("approve").addEventListener("click", () => send("approve"));
  part("reject").addEventListener("click", () => send("reject"));
}

/** Show the card for an `interrupt` event (or a status's `approval`); `decide(resume)` answers. */
export function showApproval(data, { decide }) {
  bind();
  const refused = data.refused_edit;
  // After a refused edit the person's own SQL comes back, to fix rather than retype.
  const shown = refused ? refused.sql : formatSql(data.sql ?? "");
  pending = { interruptId: data.interrupt_id, decide, shown };
  part("message").textContent = data.message ?? "";
  label(part("tables"), "approvalTables", { tables: (data.tables ?? []).join(", ") });
  part("refused").hidden = !refused;
  const reason = refused?.message || refused?.reason;
  if (refused) label(part("refused"), "approvalRefused", { reason });
  sqlBox().value = shown;
  showPreview();
  commentBox().value = "";
  card().hidden = false;
  sqlBox().focus();
  // The formatter and highlighter load on the first SQL: lay it out again once they are here.
  whenSqlToolsReady().then(() => {
    if (pending?.shown !== shown || refused || sqlBox().value !== shown) return;
    pending.shown = formatSql(data.sql ?? "");
    sqlBox().value = pending.shown;
    showPreview();
  });
}

/** Hide the card and forget the pending approval. */
export function hideApproval() {
  pending = null;
  const el = card();
  if (el) el.hidden = true;
}

const PAUSED = ["awaiting_approval", "awaiting_clarification"];

/** Return what a conversation waits for (from /status): SQL or a question; else null. */
export async function pendingApproval(threadId, lang) {
  const response = await apiFetch(`${STATUS_URL}${encodeURIComponent(threadId)}?lang=${lang}`);
  if (!response.ok) return null;
  const body = await response.json();
  return PAUSED.includes(body?.data?.status) ? body.data.approval : null;
}
