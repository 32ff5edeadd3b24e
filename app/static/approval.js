// The SQL approval card (issue #13): shows the SQL a run stopped for, and sends the decision.
import { apiFetch } from "./api_key.js";

const STATUS_URL = "api/v0/react/status/";

const TEXT = {
  "zh-CN": {
    heading: "SQL 待确认",
    tables: "读取的表：{tables}",
    refused: "修改后的 SQL 被拒绝：{reason}",
    comment: "备注（可选，拒绝时告诉模型原因）",
    approve: "批准执行",
    edit: "修改后执行",
    reject: "拒绝",
  },
  "en-US": {
    heading: "SQL waiting for approval",
    tables: "Tables read: {tables}",
    refused: "The edited SQL was refused: {reason}",
    comment: "Comment (optional; tells the model why when rejecting)",
    approve: "Approve",
    edit: "Edit and run",
    reject: "Reject",
  },
};

const card = document.getElementById("approval-card");
const sqlBox = document.getElementById("approval-sql");
const commentBox = document.getElementById("approval-comment");
let pending = null; // {interruptId, decide}

function say(lang, key, params = {}) {
  const text = TEXT[lang]?.[key] ?? TEXT["zh-CN"][key];
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

function part(name) {
  return card.querySelector(`[data-approval="${name}"]`);
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
export function showApproval(data, { lang, decide }) {
  pending = { interruptId: data.interrupt_id, decide };
  for (const el of card.querySelectorAll("[data-approval-i18n]")) {
    el.textContent = say(lang, el.dataset.approvalI18n);
  }
  commentBox.placeholder = say(lang, "comment");
  part("message").textContent = data.message ?? "";
  part("tables").textContent = say(lang, "tables", { tables: (data.tables ?? []).join(", ") });
  const refused = data.refused_edit;
  part("refused").hidden = !refused;
  part("refused").textContent = refused ? say(lang, "refused", { reason: refused.reason }) : "";
  // After a refused edit the person's own SQL comes back, to fix rather than retype.
  sqlBox.value = refused ? refused.sql : data.sql ?? "";
  commentBox.value = "";
  card.hidden = false;
  sqlBox.focus();
}

/** Hide the card and forget the pending approval. */
export function hideApproval() {
  pending = null;
  card.hidden = true;
}

/** Return the approval a conversation waits for (from /status), or null. */
export async function pendingApproval(threadId, lang) {
  const response = await apiFetch(`${STATUS_URL}${encodeURIComponent(threadId)}?lang=${lang}`);
  if (!response.ok) return null;
  const body = await response.json();
  return body?.data?.status === "awaiting_approval" ? body.data.approval : null;
}

part("approve").addEventListener("click", () => send("approve"));
part("edit").addEventListener("click", () => send("edit"));
part("reject").addEventListener("click", () => send("reject"));
