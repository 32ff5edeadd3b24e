// The SQL approval card (issue #13): shows the SQL a run stopped for, and sends the decision.
import { apiFetch } from "./api_key.js";
import { label } from "./i18n.js";
import { formatSql, highlightInto } from "./sql_format.js";

const STATUS_URL = "api/v0/react/status/";

const card = document.getElementById("approval-card");
const sqlBox = document.getElementById("approval-sql");
const commentBox = document.getElementById("approval-comment");
let pending = null; // {interruptId, decide}

function part(name) {
  return card.querySelector(`[data-approval="${name}"]`);
}

function showPreview() {
  const code = document.createElement("code");
  highlightInto(code, sqlBox.value);
  const pre = document.createElement("pre");
  pre.className = "sql";
  pre.append(code);
  part("preview").replaceChildren(pre);
}

function send(action) {
  if (!pending) return;
  const resume = { interrupt_id: pending.interruptId, action };
  if (action === "edit") resume.sql = sqlBox.value;
  if (commentBox.value.trim()) resume.comment = commentBox.value.trim();
  const { decide } = pending;
  hideApproval();
  decide(resume);
}

/** Show the card for an `interrupt` event (or a status's `approval`); `decide(resume)` answers. */
export function showApproval(data, { decide }) {
  pending = { interruptId: data.interrupt_id, decide };
  part("message").textContent = data.message ?? "";
  label(part("tables"), "approvalTables", { tables: (data.tables ?? []).join(", ") });
  const refused = data.refused_edit;
  part("refused").hidden = !refused;
  const reason = refused?.message || refused?.reason;
  if (refused) label(part("refused"), "approvalRefused", { reason });
  // After a refused edit the person's own SQL comes back, to fix rather than retype.
  sqlBox.value = refused ? refused.sql : formatSql(data.sql ?? "");
  showPreview();
  commentBox.value = "";
  card.hidden = false;
  sqlBox.focus();
}

/** Hide the card and forget the pending approval. */
export function hideApproval() {
  pending = null;
  card.hidden = true;
}

const PAUSED = ["awaiting_approval", "awaiting_clarification"];

/** Return what a conversation waits for (from /status): SQL or a question; else null. */
export async function pendingApproval(threadId, lang) {
  const response = await apiFetch(`${STATUS_URL}${encodeURIComponent(threadId)}?lang=${lang}`);
  if (!response.ok) return null;
  const body = await response.json();
  return PAUSED.includes(body?.data?.status) ? body.data.approval : null;
}

sqlBox.addEventListener("input", showPreview);
part("approve").addEventListener("click", () => send("approve"));
part("edit").addEventListener("click", () => send("edit"));
part("reject").addEventListener("click", () => send("reject"));
