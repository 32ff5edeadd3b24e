// The clarifying-question card: the agent asks back; an option or a typed answer resumes the run.

let pending = null; // {interruptId, answer}
let bound = false;

const card = () => document.getElementById("clarification-card");

function part(name) {
  return card().querySelector(`[data-clarification="${name}"]`);
}

function bind() {
  if (bound) return;
  bound = true;
  part("form").addEventListener("submit", (event) => {
    event.preventDefault();
    send(part("text").value);
  });
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
  bind();
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
  part("text").value = "";
  card().hidden = false;
  (buttons[0] ?? part("text")).focus();
}

/** Hide the card and forget the pending question. */
export function hideClarification() {
  pending = null;
  const el = card();
  if (el) el.hidden = true;
}
