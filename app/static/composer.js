// The composer's keys, as in every chat product: Enter sends, Shift+Enter starts a new line, and
// an Enter that ends an IME composition (pinyin, kana) only picks the characters.

/** Whether this keydown is the Enter that sends (not Shift+Enter, not inside a composition). */
export function isSendKey(event) {
  if (event.key !== "Enter" || event.shiftKey || event.altKey) return false;
  // keyCode 229: the IME has the key (Safari and older Chrome report isComposing late).
  return !event.isComposing && event.keyCode !== 229;
}

/** Make Enter in `textarea` call `send()`; other keys type as usual. */
export function sendOnEnter(textarea, send) {
  let composing = false;
  textarea.addEventListener("compositionstart", () => {
    composing = true;
  });
  textarea.addEventListener("compositionend", () => {
    composing = false;
  });
  textarea.addEventListener("keydown", (event) => {
    if (composing || !isSendKey(event)) return;
    event.preventDefault();
    send();
  });
}
