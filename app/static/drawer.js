// The conversation list as a drawer on a phone: full height and scrollable, over a scrim; it
// closes on Escape, on a tap outside and on its close button; focus moves in, stays in while it
// is open and goes back to the menu button after.

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';

/** The drawer `panel` opened by `opener`; `closer` is its own close button. */
export class Drawer {
  constructor(panel, opener, closer) {
    this.panel = panel;
    this.opener = opener;
    this.scrim = document.createElement("div");
    this.scrim.className = "scrim";
    this.scrim.dataset.testid = "drawer-scrim";
    this.scrim.hidden = true;
    panel.after(this.scrim);
    opener.setAttribute("aria-expanded", "false");
    opener.addEventListener("click", () => this.open());
    closer.addEventListener("click", () => this.close());
    this.scrim.addEventListener("click", () => this.close());
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  get isOpen() {
    return document.body.classList.contains("drawer-open");
  }

  open() {
    document.body.classList.add("drawer-open");
    this.opener.setAttribute("aria-expanded", "true");
    this.scrim.hidden = false;
    this.panel.setAttribute("role", "dialog");
    this.panel.setAttribute("aria-modal", "true");
    this.focusables()[0]?.focus();
  }

  /** Close it (after a pick too); focus goes back to the menu button if it was inside. */
  close() {
    if (!this.isOpen) return;
    const hadFocus = this.panel.contains(document.activeElement);
    document.body.classList.remove("drawer-open");
    this.opener.setAttribute("aria-expanded", "false");
    this.scrim.hidden = true;
    this.panel.removeAttribute("role");
    this.panel.removeAttribute("aria-modal");
    if (hadFocus && this.opener.offsetParent) this.opener.focus();
  }

  focusables() {
    return [...this.panel.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
  }

  onKey(event) {
    if (!this.isOpen) return;
    if (event.key === "Escape") {
      event.preventDefault();
      this.close();
      return;
    }
    if (event.key !== "Tab") return;
    // Focus stays in the drawer: Tab from the last goes to the first, Shift+Tab the other way.
    const items = this.focusables();
    if (!items.length) return;
    const first = items[0];
    const last = items.at(-1);
    const inside = this.panel.contains(document.activeElement);
    if (event.shiftKey && (document.activeElement === first || !inside)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
      event.preventDefault();
      first.focus();
    }
  }
}
