// The clarifying-question card: the agent asks back; an option or a typed answer resumes the run.

/** The card of `root` (the page's document, or an embedded chat's shadow root). */
export class ClarificationCard {
  constructor(root) {
    this.card = root.getElementById("clarification-card");
    this.pending = null; // {interruptId, answer}
    this.part("form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.send(this.part("text").value);
    });
  }

  part(name) {
    return this.card.querySelector(`[data-clarification="${name}"]`);
  }

  send(text) {
    const answerText = text.trim();
    if (!this.pending || !answerText) return;
    const resume = { interrupt_id: this.pending.interruptId, action: "answer", text: answerText };
    const { answer } = this.pending;
    this.hide();
    answer(resume);
  }

  /** Show the card for a clarification (an `interrupt` event, or a status's `approval`). */
  show(data, { answer }) {
    this.pending = { interruptId: data.interrupt_id, answer };
    this.part("question").textContent = data.question ?? "";
    const buttons = (data.options ?? []).map((option) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = option;
      button.dataset.testid = "clarification-option";
      button.addEventListener("click", () => this.send(option));
      return button;
    });
    this.part("options").replaceChildren(...buttons);
    this.part("text").value = "";
    this.card.hidden = false;
    (buttons[0] ?? this.part("text")).focus();
  }

  /** Hide the card and forget the pending question. */
  hide() {
    this.pending = null;
    this.card.hidden = true;
  }
}

let pageCard = null;
const onPage = () => (pageCard ??= new ClarificationCard(document));

/** Show the page's card for a clarification. */
export function showClarification(data, { answer }) {
  onPage().show(data, { answer });
}

/** Hide the page's card and forget the pending question. */
export function hideClarification() {
  if (document.getElementById("clarification-card")) onPage().hide();
}
