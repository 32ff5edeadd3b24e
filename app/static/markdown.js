// Answer text as Markdown (vendored marked), sanitised by the vendored DOMPurify: never raw HTML.

// Nothing the model or a person writes may run: no scripts, no handlers, no frames or forms;
// images only from this page or data: (the CSP blocks the rest anyway).
const PURIFY_OPTIONS = {
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object"],
  FORBID_ATTR: ["style"],
};

// Raw HTML in the Markdown is shown as the text it is, never parsed; DOMPurify is the second
// guard, for whatever Markdown itself could produce.
let configured = false;
function configureMarked() {
  if (configured) return;
  configured = true;
  window.marked.use({ renderer: { html: (token) => escapeHtml(token.text ?? token.raw ?? "") } });
}

/** Return `text` as sanitised HTML (plain escaped text when the libraries are missing). */
export function markdownHtml(text) {
  const source = String(text ?? "");
  if (!window.marked || !window.DOMPurify) return escapeHtml(source);
  configureMarked();
  const html = window.marked.parse(source, { gfm: true, breaks: true, async: false });
  return window.DOMPurify.sanitize(html, PURIFY_OPTIONS);
}

/** Render `text` as Markdown into `el`; links open in a new tab without an opener. */
export function renderMarkdown(el, text) {
  el.innerHTML = markdownHtml(text);
  for (const link of el.querySelectorAll("a[href]")) {
    link.target = "_blank";
    link.rel = "noopener noreferrer";
  }
  for (const table of el.querySelectorAll("table")) {
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    table.replaceWith(wrap);
    wrap.append(table);
  }
}

function escapeHtml(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}
