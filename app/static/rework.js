// Reworking an answered turn, as Vanna, WrenAI and Genie offer: edit the question and send it as
// a new turn (the old one stays), regenerate the answer, or edit the SQL and run it. Each is a
// new question in the same conversation; an edited SQL goes through the approval path, so the
// same guard and policy check it as any SQL a person edits.

import { label } from "./i18n.js";

function button(key, testId, onClick) {
  const el = document.createElement("button");
  el.type = "button";
  el.className = "small";
  el.dataset.testid = testId;
  label(el, key);
  el.addEventListener("click", onClick);
  return el;
}

// An inline editor under the turn's question: `text`, a send key and Cancel.
function inlineEditor(turn, { text, rows, testId, sendKey, send }) {
  const form = document.createElement("form");
  form.className = testId === "sql-run" ? "sql-run" : "turn-edit";
  form.dataset.testid = testId;
  const box = document.createElement("textarea");
  box.rows = rows;
  box.value = text;
  box.dataset.testid = `${testId}-text`;
  box.setAttribute("aria-label", turn.question);
  if (testId === "sql-run") box.spellcheck = false;
  const row = document.createElement("div");
  row.className = "form-row actions";
  const go = document.createElement("button");
  go.type = "submit";
  go.dataset.testid = `${testId}-send`;
  label(go, sendKey);
  row.append(button("cancel", `${testId}-cancel`, () => form.remove()), go);
  form.append(box, row);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = box.value.trim();
    if (!value) return;
    form.remove();
    send(value);
  });
  turn.actions.after(form);
  box.focus();
}

/**
 * Give an answered `turn` its rework buttons. `ask(question, options)` asks as a new turn;
 * options.sql is the SQL to run in place of the model's (through the approval path).
 */
export function addReworkActions(turn, ask) {
  const open = (testId) => turn.el.querySelector(`[data-testid="${testId}"]`);
  const parts = [
    button("editQuestion", "edit-question", () => {
      if (open("edit-question-form")) return;
      inlineEditor(turn, {
        text: turn.question,
        rows: 2,
        testId: "edit-question-form",
        sendKey: "resend",
        send: (question) => ask(question),
      });
    }),
    button("regenerate", "regenerate", () => ask(turn.question)),
  ];
  if (turn.data?.sql) {
    parts.push(
      button("editSql", "edit-sql", () => {
        if (open("sql-run")) return;
        inlineEditor(turn, {
          text: turn.data.sql,
          rows: 4,
          testId: "sql-run",
          sendKey: "runSql",
          send: (sql) => ask(turn.question, { sql }),
        });
      }),
    );
  }
  turn.actions.replaceChildren(...parts);
  turn.actions.hidden = false;
}
