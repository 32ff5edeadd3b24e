// Whom the page asks as, shown only as the keys bind it. With keys off, each browser keeps one
// id of its own (made once, kept in localStorage) and shows it read-only: a typed id would let
// anyone list anyone's conversations. A key bound to one user asks as that user; a key bound to
// several offers only those; a key bound to no user (an admin's) may name anyone, as the API
// lets it, in a text field.

import { label } from "./i18n.js";

const STORAGE = "sqlAgentUserId";
const USER_ID = /^[^:\s]{1,50}$/; // the API's rule for a user id

/** Return this browser's user id, making and keeping one on the first visit. */
export function browserUserId() {
  const stored = localStorage.getItem(STORAGE);
  if (stored && USER_ID.test(stored)) return stored;
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const id = `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  localStorage.setItem(STORAGE, id);
  return id;
}

/** The settings' user controls: a text field (admin keys), a list (a key's users), a note. */
export class Identity {
  constructor() {
    this.field = document.getElementById("user-id");
    this.pick = document.getElementById("user-pick");
    this.label = document.querySelector("label.user-label");
    this.note = document.getElementById("acting-as");
    this.mode = "browser"; // until whoami says otherwise
    this.user = browserUserId();
  }

  /** Show the controls for `who` (GET /api/v0/whoami, as api_key.js reads it). */
  show(who) {
    const users = who?.users ?? null; // null: any user (or keys off)
    if (!who?.ok) this.mode = "unknown"; // a key is needed and none is accepted yet
    else if (who.userId) this.mode = "bound";
    else if (users?.length > 1) this.mode = "pick";
    else if (users) this.mode = "unknown"; // a key for no user's data: no one to name
    else if (who.keyNeeded) this.mode = "any";
    else this.mode = "browser";
    this.user = this.mode === "bound" ? who.userId : browserUserId();
    if (this.mode === "pick" && this.pick.dataset.users !== users.join("\n")) {
      this.pick.dataset.users = users.join("\n");
      this.pick.replaceChildren(...users.map((user) => new Option(user, user)));
    }
    this.field.hidden = this.mode !== "any";
    this.field.placeholder = this.user;
    this.pick.hidden = this.mode !== "pick";
    this.label.hidden = this.field.hidden && this.pick.hidden;
    this.label.htmlFor = this.mode === "pick" ? "user-pick" : "user-id";
    this.note.hidden = !["bound", "browser"].includes(this.mode);
    if (this.mode === "bound") label(this.note, "actingAs", { user: this.user });
    if (this.mode === "browser") label(this.note, "browserUser", { user: this.user });
  }

  /** Return the user the next request asks as. */
  current() {
    if (this.mode === "pick") return this.pick.value;
    if (this.mode === "any") return this.field.value.trim() || this.user;
    return this.user;
  }

  /** Call `changed` when the person picks or types another user. */
  onChange(changed) {
    this.field.addEventListener("change", changed);
    this.pick.addEventListener("change", changed);
  }
}
