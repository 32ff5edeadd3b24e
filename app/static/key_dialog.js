// Asking for an API key in a dialog with a password field (never a clear-text prompt()).

import { label } from "./i18n.js";

function build() {
  const dialog = document.createElement("dialog");
  dialog.className = "key-dialog card";
  dialog.dataset.testid = "key-dialog";
  dialog.setAttribute("aria-labelledby", "key-dialog-heading");
  const form = document.createElement("form");
  form.method = "dialog";
  const heading = label(document.createElement("h2"), "apiKeyHeading");
  heading.id = "key-dialog-heading";
  const text = label(document.createElement("p"), "apiKeyPrompt");
  const input = document.createElement("input");
  input.type = "password";
  input.autocomplete = "off";
  input.dataset.testid = "key-input";
  input.setAttribute("aria-labelledby", "key-dialog-heading");
  const row = document.createElement("div");
  row.className = "form-row actions";
  const cancel = label(document.createElement("button"), "cancel");
  cancel.value = "cancel";
  cancel.dataset.testid = "key-cancel";
  const save = label(document.createElement("button"), "apiKeySave");
  save.value = "save";
  save.className = "primary";
  save.dataset.testid = "key-save";
  row.append(cancel, save);
  form.append(heading, text, input, row);
  dialog.append(form);
  document.body.append(dialog);
  return dialog;
}

/** Resolve to the key a person typed, or null when they cancelled. */
export function askForKey() {
  const dialog = document.querySelector("dialog.key-dialog") ?? build();
  const input = dialog.querySelector("input");
  input.value = "";
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => resolve(dialog.returnValue === "save" ? input.value.trim() || null : null),
      { once: true },
    );
    dialog.showModal();
    input.focus();
  });
}
