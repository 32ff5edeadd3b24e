// The page's elements, and the status, progress and error parts every view shares.

import { t } from "./i18n.js";

const byId = (id) => document.getElementById(id);
export const ui = {
  form: byId("ask-form"),
  question: byId("question"),
  userId: byId("user-id"),
  lang: byId("lang"),
  submit: byId("submit"),
  stop: byId("stop"),
  newConversation: byId("new-conversation"),
  conversationId: byId("conversation-id"),
  noConversation: byId("no-conversation"),
  errorBox: byId("error-box"),
  progressSection: byId("progress-section"),
  progressBar: byId("progress-bar"),
  status: byId("status"),
  steps: byId("steps"),
  resultSection: byId("result-section"),
  asked: byId("asked"),
  answer: byId("answer"),
  sqlBlock: byId("sql-block"),
  sql: byId("sql"),
  recordsBlock: byId("records-block"),
  recordsNote: byId("records-note"),
  table: byId("results-table"),
  approveSql: byId("approve-sql"),
  recordsCsv: byId("records-csv"),
  toolsBlock: byId("tools-block"),
  chartBlock: byId("chart-block"),
  chart: byId("chart"),
  historyList: byId("conversation-list"),
  historyRefresh: byId("refresh-history"),
  historyNote: byId("history-note"),
  turnsSection: byId("turns-section"),
  turns: byId("turns"),
};
export function setProgress(percent) {
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  ui.progressBar.style.width = `${value}%`;
  ui.progressBar.setAttribute("aria-valuenow", String(value));
}

export function setStatus(text) {
  ui.status.textContent = text;
}

export function hideError() {
  ui.errorBox.hidden = true;
  ui.errorBox.replaceChildren();
}

export function showError(message, { errorType = "", detail = "", canRetry = false } = {}) {
  const title = document.createElement("strong");
  title.className = "error-message";
  title.textContent = message;
  const parts = [title];
  if (errorType) {
    const code = document.createElement("code");
    code.className = "error-type";
    code.dataset.testid = "error-type";
    code.textContent = errorType;
    parts.push(" ", code);
  }
  if (canRetry) {
    const retry = document.createElement("span");
    retry.className = "error-retry";
    retry.textContent = ` ${t("canRetry")}`;
    parts.push(retry);
  }
  if (detail && detail !== message) {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = t("errorDetail");
    const text = document.createElement("p");
    text.textContent = detail;
    details.append(summary, text);
    parts.push(details);
  }
  ui.errorBox.replaceChildren(...parts);
  ui.errorBox.hidden = false;
}
