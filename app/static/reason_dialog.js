// After a thumbs-down, a small dialog asks why: a quick choice, a line of text, or both (all
// optional). Enter sends, Escape or Cancel backs out (nothing is rated then).

import { label, t } from "./i18n.js";

const CHOICES = ["reasonWrongData", "reasonWrongSql", "reasonOffQuestion", "reasonOther"];
const MAX_DETAIL_CHARS = 450; // with the longest choice, within the service's 500

function choiceButton(key) {
  const item = document.createElement("label");
  item.className = "reason-choice";
  const radio = document.createElement("input");
  radio.type = "radio";
  radio.name = "reason-choice";
  radio.value = key;
  radio.dataset.testid = `reason-${key}`;
  item.append(radio, " ", label(document.createElement("span"), key));
  return item;
}

function build() {
  const dialog = document.createElement("dialog");
  dialog.className = "reason-dialog card";
  dialog.dataset.testid = "reason-dialog";
  dialog.setAttribute("aria-labelledby", "reason-heading");
  const form = document.createElement("form");
  form.method = "dialog";
  const heading = label(document.createElement("h2"), "reasonPrompt");
  heading.id = "reason-heading";
  const choices = document.createElement("fieldset");
  choices.className = "reason-choices";
  choices.append(label(document.createElement("legend"), "reasonChoose"));
  choices.append(...CHOICES.map(choiceButton));
  const detailLabel = label(document.createElement("label"), "reasonDetail");
  detailLabel.htmlFor = "reason-detail";
  const detail = document.createElement("input");
  detail.id = "reason-detail";
  detail.type = "text";
  detail.maxLength = MAX_DETAIL_CHARS;
  detail.autocomplete = "off";
  detail.dataset.testid = "reason-detail";
  const row = document.createElement("div");
  row.className = "form-row actions";
  const cancel = label(document.createElement("button"), "cancel");
  cancel.type = "button"; // not a submit button: Enter anywhere in the form sends
  cancel.dataset.testid = "reason-cancel";
  cancel.addEventListener("click", () => dialog.close("cancel"));
  const send = label(document.createElement("button"), "reasonSend");
  send.value = "send";
  send.className = "primary";
  send.dataset.testid = "reason-send";
  row.append(cancel, send);
  form.append(heading, choices, detailLabel, detail, row);
  // Enter on a choice sends too (a text field does so by itself); IME composition never does.
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing || event.target.type !== "radio") return;
    event.preventDefault();
    form.requestSubmit(send);
  });
  dialog.append(form);
  document.body.append(dialog);
  return dialog;
}

/** The reason the dialog's fields say: "choice：detail", either alone, or "" for none. */
function reasonOf(dialog) {
  const picked = dialog.querySelector('input[name="reason-choice"]:checked');
  const detail = dialog.querySelector("#reason-detail").value.trim();
  const choice = picked && !(picked.value === "reasonOther" && detail) ? t(picked.value) : "";
  return [choice, detail].filter(Boolean).join("：");
}

/** Resolve to the reason typed or picked ("" for none), or null when the person backed out. */
export function askReason(opener) {
  const dialog = document.querySelector("dialog.reason-dialog") ?? build();
  dialog.querySelector("form").reset();
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        opener?.focus(); // back to the thumb pressed
        resolve(dialog.returnValue === "send" ? reasonOf(dialog) : null);
      },
      { once: true },
    );
    dialog.showModal();
    dialog.querySelector('input[name="reason-choice"]').focus();
  });
}
