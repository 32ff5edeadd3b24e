// The SQL approval card (issue #13): one editor shows the SQL once, highlighted and editable;
// Approve runs what the editor holds (an edit when it was changed), Reject says no.
import { apiFetch } from "./api_key.js";
import { label } from "./i18n.js";
import { formatSql, highlightInto, whenSqlToolsReady } from "./sql_format.js";

const STATUS_URL = "api/v0/react/status/";

/** The card of `root` (the page's document, or an embedded chat's shadow root). */
export class ApprovalCard {
  constructor(root) {
    this.card = root.getElementById("approval-card");
    this.sqlBox = root.getElementById("approval-sql");
    this.commentBox = root.getElementById("approval-comment");
    this.pending = null; // {interruptId, decide, shown}
    this.sqlBox.addEventListener("input", () => this.showPreview());
    this.part("approve").addEventListener("click", () => this.send("approve"));
    this.part("reject").addEventListener("click", () => this.send("reject"));
  }

  part(name) {
    return this.card.querySelector(`[data-approval="${name}"]`);
  }

  // The editor is a transparent textarea over its own highlighted copy: one SQL on screen.
  showPreview() {
    highlightInto(this.part("preview"), `${this.sqlBox.value}\n`);
  }

  send(action) {
    if (!this.pending) return;
    const sql = this.sqlBox.value;
    // What the editor holds is what runs: a changed statement goes as an edit.
    const edited = action === "approve" && sql.trim() !== this.pending.shown.trim();
    const resume = { interrupt_id: this.pending.interruptId, action: edited ? "edit" : action };
    if (edited) resume.sql = sql;
    if (this.commentBox.value.trim()) resume.comment = this.commentBox.value.trim();
    const { decide } = this.pending;
    this.hide();
    decide(resume);
  }

  /** Show the card for an `interrupt` event (or a status's `approval`); `decide(resume)` answers. */
  show(data, { decide }) {
    const refused = data.refused_edit;
    // After a refused edit the person's own SQL comes back, to fix rather than retype.
    const shown = refused ? refused.sql : formatSql(data.sql ?? "");
    this.pending = { interruptId: data.interrupt_id, decide, shown };
    this.part("message").textContent = data.message ?? "";
    label(this.part("tables"), "approvalTables", { tables: (data.tables ?? []).join(", ") });
    this.part("refused").hidden = !refused;
    const reason = refused?.message || refused?.reason;
    if (refused) label(this.part("refused"), "approvalRefused", { reason });
    this.sqlBox.value = shown;
    this.showPreview();
    this.commentBox.value = "";
    this.card.hidden = false;
    this.sqlBox.focus();
    // The formatter and highlighter load on the first SQL: lay it out again once they are here.
    whenSqlToolsReady().then(() => {
      const pending = this.pending;
      if (pending?.shown !== shown || refused || this.sqlBox.value !== shown) return;
      pending.shown = formatSql(data.sql ?? "");
      this.sqlBox.value = pending.shown;
      this.showPreview();
    });
  }

  /** Hide the card and forget the pending approval. */
  hide() {
    this.pending = null;
    this.card.hidden = true;
  }
}

let pageCard = null;
const onPage = () => (pageCard ??= new ApprovalCard(document));

/** Show the page's card for an `interrupt` event (or a status's `approval`). */
export function showApproval(data, { decide }) {
  onPage().show(data, { decide });
}

/** Hide the page's card and forget the pending approval. */
export function hideApproval() {
  if (document.getElementById("approval-card")) onPage().hide();
}

const PAUSED = ["awaiting_approval", "awaiting_clarification"];

/**
 * Return what a conversation waits for (from /status): SQL or a question; else null. `api`
 * fetches a URL relative to the service: the page's apiFetch unless given (an embedded chat's).
 */
export async function pendingApproval(threadId, lang, api = apiFetch) {
  const response = await api(`${STATUS_URL}${encodeURIComponent(threadId)}?lang=${lang}`);
  if (!response.ok) return null;
  const body = await response.json();
  return PAUSED.includes(body?.data?.status) ? body.data.approval : null;
}
