// The answer check on the page: each figure no row supports is marked in the rendered answer
// (on its text nodes, after sanitising), and a line under the answer says how many.

import { hasText, label, t } from "./i18n.js";

// A figure's text inside a longer number is not that figure: "12" in "2012", "12.5" or "12万".
const BEFORE = /[A-Za-z0-9.,_]/;
const UNIT_AFTER = /^\s*[%％万亿千]/;

function standsAlone(text, start, figure) {
  const end = start + figure.length;
  if (start > 0 && BEFORE.test(text[start - 1])) return false;
  if (/^(\d|[.,，]\d)/.test(text.slice(end, end + 2))) return false;
  return !/\d$/.test(figure) || !UNIT_AFTER.test(text.slice(end));
}

/** Return the text nodes of `root` in document order, less those already marked. */
function textNodes(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement?.closest("mark.unsupported")
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  return nodes;
}

/** Wrap the first unmarked occurrence of `entry.text` in a mark; false when there is none. */
function markFigure(root, entry) {
  for (const node of textNodes(root)) {
    let start = node.data.indexOf(entry.text);
    while (start !== -1 && !standsAlone(node.data, start, entry.text)) {
      start = node.data.indexOf(entry.text, start + 1);
    }
    if (start === -1) continue;
    const figure = node.splitText(start);
    figure.splitText(entry.text.length);
    const mark = document.createElement("mark");
    mark.className = "unsupported";
    mark.dataset.testid = "unsupported-figure";
    mark.dataset.reason = entry.reason ?? "";
    // The reason in the page's language, re-rendered by a language switch (data-i18n-title).
    const reason = `check_${entry.reason}`;
    mark.dataset.i18nTitle = hasText(reason) ? reason : "check_UNSUPPORTED";
    mark.title = t(mark.dataset.i18nTitle);
    figure.replaceWith(mark);
    mark.append(figure);
    return true;
  }
  return false;
}

function line(className, testId, icon, key, params) {
  const el = document.createElement("p");
  el.className = `answer-check ${className}`;
  el.dataset.testid = testId;
  const sign = document.createElement("span");
  sign.className = "answer-check-icon";
  sign.setAttribute("aria-hidden", "true");
  sign.textContent = icon;
  el.append(sign, label(document.createElement("span"), key, params));
  return el;
}

/**
 * Mark the unsupported figures of `check` in the rendered answer `answerEl`.
 *
 * Returns the lines to show under the answer (how many figures no row supports, and a note
 * when the answer was corrected once), or [] when there is nothing to say.
 */
export function showAnswerCheck(answerEl, check) {
  const unsupported = Array.isArray(check?.unsupported) ? check.unsupported : [];
  const lines = [];
  for (const entry of unsupported) if (entry?.text) markFigure(answerEl, entry);
  if (unsupported.length) {
    const figures = unsupported.map((entry) => entry.text).join(", ");
    const key = unsupported.length === 1 ? "checkSummaryOne" : "checkSummaryMany";
    const summary = line("doubted", "answer-check", "⚠", key, { n: unsupported.length, figures });
    summary.setAttribute("role", "note");
    lines.push(summary);
  }
  if (check?.repaired) lines.push(line("repaired", "answer-repaired", "↻", "checkRepaired", {}));
  return lines;
}
