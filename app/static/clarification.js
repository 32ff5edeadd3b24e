// The clarifying-question card: the agent asks back; an option or a typed answer resumes the run.

const card = document.getElementById("clarification-card");
const textBox = card.querySelector('[data-clarification="text"]');
let pending = null; // {interruptId, answer}

function part(name) {
  return card.querySelector(`[data-clarification="${name}"]`);
}

function send(text) {
  const answerText = text.trim();
  if (!pending || !answerText) return;
  const resume = { interrupt_id: pending.interruptId, action: "answer", text: answerText };
  const { answer } = pending;
  hideClarification();
  answer(resume);
}

/** Show the card for a clarification (an `interrupt` event, or a status's `approval`). */
export function showClarification(data, { answer }) {
  pending = { interruptId: data.interrupt_id, answer };
  part("question").textContent = data.question ?? "";
  const buttons = (data.options ?? []).map((option) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = option;
    button.dataset.testid = "clarification-option";
    button.addEventListener("click", () => send(option));
    return button;
  });
  part("options").replaceChildren(...buttons);
  textBox.value = "";
  card.hidden = false;
  (buttons[0] ?? textBox).focus();
}

/** Hide the card and forget the pending question. */
export function hideClarification() {
  pending = null;
  card.hidden = true;
}

part("form").addEventListener("submit", (event) => {
  event.preventDefault();
  send(textBox.value);
});
