// The error box: a plain sentence, a Retry button when asking again may help, and the code and
// the service's own words folded into details.

import { hasText, label, t } from "./i18n.js";

const box = document.getElementById("error-box");

export function hideError() {
  box.hidden = true;
  box.replaceChildren();
}

/** Show an error envelope (or {message}); `retry()` asks again. */
export function showError(envelope, retry = null) {
  const data = envelope?.data ?? {};
  const code = data.error_type ?? "";
  const title = document.createElement("strong");
  title.className = "error-message";
  if (code && hasText(`err${code}`)) label(title, `err${code}`);
  else title.textContent = envelope?.message || data.error || t("unknownError");
  const parts = [title];
  if (retry) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.dataset.testid = "retry";
    label(button, "retry");
    button.addEventListener("click", () => {
      hideError();
      retry();
    });
    parts.push(" ", button);
  }
  const detail = [code, envelope?.message, data.error].filter(Boolean);
  if (code || (data.error && data.error !== envelope?.message)) {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    label(summary, "errorDetail");
    const type = document.createElement("code");
    type.className = "error-type";
    type.dataset.testid = "error-type";
    type.textContent = code;
    const text = document.createElement("p");
    text.textContent = [...new Set(detail.slice(1))].join(" — ");
    details.append(summary, type, text);
    parts.push(details);
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}
