// Thumb up / down under an answer that ran SQL, stored by qa_feedback/add. A thumbs-down first
// asks why (reason_dialog.js; backing out rates nothing). Pressing the pressed thumb again
// undoes the rating; pressing the other one replaces it (the old one is deleted).

import { apiFetch } from "./api_key.js";
import { label, t } from "./i18n.js";
import { askReason } from "./reason_dialog.js";

async function send(url, init) {
  const response = await apiFetch(url, init);
  const envelope = await response.json();
  if (!response.ok) throw new Error(envelope.message || response.statusText);
  return envelope.data;
}

/** Return the thumbs of an answer: `data` is its final data, `question` what was asked. */
export function feedbackView(data, question, runId) {
  const block = document.createElement("div");
  block.className = "feedback";
  block.dataset.testid = "feedback";
  const status = document.createElement("span");
  status.className = "note";
  status.dataset.testid = "feedback-status";
  status.setAttribute("aria-live", "polite");
  const buttons = ["up", "down"].map((thumb) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.dataset.thumb = thumb;
    button.dataset.testid = `thumb-${thumb}`;
    button.setAttribute("aria-pressed", "false");
    button.dataset.i18nAriaLabel = thumb === "up" ? "thumbUp" : "thumbDown";
    button.setAttribute("aria-label", t(button.dataset.i18nAriaLabel));
    button.textContent = thumb === "up" ? "👍" : "👎";
    return button;
  });
  block.append(...buttons, status);
  const userId = data.user_id || "guest";
  let rating = null; // {id, up} of the stored rating, if any
  async function rate(up) {
    const undo = rating && rating.up === up;
    const reason = up || undo ? "" : await askReason(buttons[1]);
    if (reason === null) return; // backed out of the thumbs-down: the old rating stays
    const previous = rating;
    rating = null;
    for (const button of buttons) button.disabled = true;
    try {
      if (previous) {
        const owner = new URLSearchParams({ user_id: userId });
        await send(`api/v0/qa_feedback/delete/${previous.id}?${owner}`, { method: "DELETE" });
        for (const button of buttons) button.setAttribute("aria-pressed", "false");
      }
      if (previous && previous.up === up) {
        label(status, "undone");
        return;
      }
      const body = { question, sql: data.sql, is_thumb_up: up, user_id: userId };
      if (reason) body.reason = reason;
      if (data.conversation_id) body.thread_id = data.conversation_id;
      if (runId) body.run_id = runId; // the answer rated, not only its conversation
      const added = await send("api/v0/qa_feedback/add", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      rating = { id: added.feedback_id, up };
      buttons[up ? 0 : 1].setAttribute("aria-pressed", "true");
      label(status, "thanks");
    } catch (error) {
      status.textContent = `${t("failed")}: ${error.message}`;
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }
  for (const button of buttons) button.addEventListener("click", () => rate(button.dataset.thumb === "up"));
  return block;
}
