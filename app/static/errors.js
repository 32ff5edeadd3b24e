// The error box: a plain sentence, a Retry button when asking again may help, and the code and
// the service's own words folded into details.

import { hasText, label, t } from "./i18n.js";

// The page's box; an embedded chat passes the one in its shadow root.
const pageBox = () => document.getElementById("error-box");
let countdown = null;

export function hideError(box = pageBox()) {
  clearInterval(countdown);
  box.hidden = true;
  box.replaceChildren();
}

// Retry is live only once the service's Retry-After has passed; the button counts down.
function countDown(button, seconds) {
  let left = Math.ceil(seconds);
  button.disabled = true;
  label(button, "retryIn", { n: left });
  countdown = setInterval(() => {
    left -= 1;
    if (left > 0) {
      label(button, "retryIn", { n: left });
      return;
    }
    clearInterval(countdown);
    button.disabled = false;
    label(button, "retry");
  }, 1000);
}

/** Show why a stream request was refused: its own words per status ({status, envelope}). */
export function showStreamFailure({ status, envelope, retryAfter }, retry, box = pageBox()) {
  const code = envelope?.data?.error_type ?? "";
  if (code && hasText(`err${code}`)) return showError(envelope, retry, { retryAfter, box });
  let key = "httpOther";
  if ([401, 403, 429].includes(status)) key = `http${status}`;
  else if (status >= 500) key = "http5xx";
  return showError({ ...envelope, message: t(key, { status }) }, retry, { retryAfter, box });
}

/** Show an error envelope (or {message}); `retry()` asks again, after `retryAfter` seconds. */
export function showError(envelope, retry = null, { retryAfter = null, box = pageBox() } = {}) {
  clearInterval(countdown);
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
      hideError(box);
      retry();
    });
    const wait = retryAfter ?? data.retry_after;
    if (wait > 0) countDown(button, wait);
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
  return box;
}
