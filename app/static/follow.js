// Following the newest answer: while a turn streams, the page keeps its bottom in view above the
// sticky composer, unless the reader scrolled up; then a "↓ latest" button brings them back.

import { label } from "./i18n.js";

const NEAR_BOTTOM_PX = 48; // this close to the end counts as "at the latest"

function scroller() {
  return document.scrollingElement ?? document.documentElement;
}

function distanceToBottom() {
  const el = scroller();
  return el.scrollHeight - el.scrollTop - el.clientHeight;
}

/** Keeps the page at its newest content while engaged; `content` is the element that grows. */
export class Follower {
  constructor(content) {
    this.engaged = false;
    this.lastTop = scroller().scrollTop;
    this.button = document.createElement("button");
    this.button.type = "button";
    this.button.className = "small to-latest";
    this.button.dataset.testid = "to-latest";
    this.button.hidden = true;
    label(this.button, "toLatest");
    this.button.addEventListener("click", () => this.engage());
    // Growth (tokens, tool items, a chart, a grid, a card) moves the end; follow it. A change
    // to the page is followed in the same frame (a microtask after it); a size change that
    // is not one (a font, a canvas) when it is seen.
    this.resizes = new ResizeObserver(() => this.keepUp());
    this.resizes.observe(content);
    this.changes = new MutationObserver(() => this.keepUp());
    this.changes.observe(content, { childList: true, subtree: true, characterData: true, attributes: true });
    window.addEventListener("scroll", () => this.onScroll(), { passive: true });
  }

  /** Follow from here on (a question was asked, or the reader pressed "↓ latest"). */
  engage() {
    this.engaged = true;
    this.button.hidden = true;
    this.toBottom();
  }

  /** Stop following without the button (a conversation was opened to read). */
  release() {
    this.engaged = false;
    this.button.hidden = true;
  }

  /** Bring `el` (an error, a card waiting for the reader) into view, above the composer. */
  reveal(el) {
    if (this.engaged) this.toBottom();
    else el.scrollIntoView({ block: "nearest" });
  }

  toBottom() {
    const el = scroller();
    el.scrollTop = el.scrollHeight;
    this.lastTop = el.scrollTop;
  }

  keepUp() {
    if (this.engaged && distanceToBottom() > 1) this.toBottom();
  }

  onScroll() {
    const top = scroller().scrollTop;
    const movedUp = top < this.lastTop - 2;
    this.lastTop = top;
    if (distanceToBottom() <= NEAR_BOTTOM_PX) {
      // Back at the end by themselves: follow again, no button needed.
      if (!this.engaged && !this.button.hidden) this.engaged = true;
      this.button.hidden = true;
    } else if (movedUp && this.engaged) {
      this.engaged = false; // the reader went back to read: leave them there
      this.button.hidden = false;
    }
  }
}
