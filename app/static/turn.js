// One question and its answer in the thread: the question, the answer (Markdown) and its check,
// the chart, the results, the SQL, the thumbs, then the folded progress and the steps taken.

import { showAnswerCheck } from "./answer_check.js";
import { confidenceView } from "./candidates.js";
import { chartView } from "./chart.js";
import { feedbackView } from "./feedback.js";
import { label } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { Progress } from "./progress.js";
import { csvLink, recordsView } from "./records.js";
import { sqlBlock } from "./sql_format.js";
import { ToolList } from "./tool_items.js";

function part(tag, className, testId) {
  const el = document.createElement(tag);
  el.className = className;
  if (testId) el.dataset.testid = testId;
  return el;
}

// A turn whose query nobody ran: a person rejected it, or the guard refused it every time.
function stoppedBadge(data, toolOutcomes) {
  if (data.sql) return null;
  const outcomes = [...toolOutcomes, ...(data.sqls ?? []).map((entry) => entry.status)];
  if (outcomes.includes("rejected")) return "badgeRejected";
  if (outcomes.includes("refused")) return "badgeRefused";
  return null;
}

/** A turn of the thread: build it, feed it stream events, or fill it from history. */
export class Turn {
  constructor(question) {
    this.question = question;
    this.text = "";
    this.el = part("article", "turn", "turn");
    const asked = part("p", "turn-question", "turn-question");
    asked.textContent = question; // what a person typed is text, never markup
    this.actions = part("div", "turn-actions", "turn-actions");
    this.actions.hidden = true;
    // Not a live region: the thread has the one for the whole answer (see index.html).
    this.answer = part("div", "answer", "answer");
    this.results = part("div", "turn-results");
    this.work = part("details", "turn-work");
    const summary = document.createElement("summary");
    label(summary, "stepsTaken");
    this.toolBox = part("div", "tool-list", "tool-list");
    this.work.append(summary, this.toolBox);
    this.work.hidden = true;
    this.tools = new ToolList(this.toolBox);
    this.progress = null;
    this.data = null; // the final data once answered
    this.el.append(asked, this.actions, this.answer, this.results, this.work);
  }

  /** The run waits for a person: its step, chips and pending tool items say so. */
  waitFor(kind) {
    this.progress?.waiting(kind);
    this.tools.markWaiting(kind);
  }

  /** Mark the turn itself (a refused or rejected query) instead of "done". */
  showBadge(key) {
    this.el.querySelector(".turn-badge")?.remove();
    if (!key) return;
    const badge = part("span", "turn-badge", "turn-badge");
    label(badge, key);
    this.el.querySelector(".turn-question").append(badge);
  }

  /** Start following a run: a fresh progress block above the steps. */
  startProgress() {
    this.progress?.el.remove();
    this.progress = new Progress();
    this.el.insertBefore(this.progress.el, this.work);
    return this.progress;
  }

  /** The candidates may send the answer back: a new answer's first token replaces it. */
  expectNewAnswer() {
    this.newAnswerMayFollow = true;
  }

  /** Add streamed answer text; it is rendered as Markdown at most once per frame. */
  addToken(content) {
    if (this.newAnswerMayFollow) {
      this.newAnswerMayFollow = false;
      this.restartAnswer();
    }
    this.text += content;
    this.progress?.onToken();
    if (this.pendingRender) return;
    this.pendingRender = requestAnimationFrame(() => {
      this.pendingRender = null;
      renderMarkdown(this.answer, this.text);
    });
  }

  /** Drop the streamed answer: the answer check sent it back, and it is being restated. */
  restartAnswer() {
    if (this.pendingRender) cancelAnimationFrame(this.pendingRender);
    this.pendingRender = null;
    this.text = "";
    renderMarkdown(this.answer, this.text);
  }

  addToolCall(data) {
    this.tools.addCall(data);
    if (this.work.hidden) this.work.open = true; // open while it runs, folded once answered
    this.work.hidden = false;
  }

  addToolResult(data, threadId) {
    this.tools.addResult(data, threadId);
    this.work.hidden = false;
  }

  /** Show a finished answer: text and its check, chart, results, SQL, thumbs. */
  showResult(data, { threadId, resultId, runId, feedback = true }) {
    if (this.pendingRender) cancelAnimationFrame(this.pendingRender);
    this.pendingRender = null;
    this.text = data.response ?? data.answer ?? this.text;
    renderMarkdown(this.answer, this.text);
    // Marked on the sanitised answer's text nodes: the check's texts never become markup.
    const parts = showAnswerCheck(this.answer, data.answer_check);
    const confidence = confidenceView(data.react_agent_meta?.confidence);
    if (confidence) parts.push(confidence);
    // A verified example's SQL answered it (VERIFIED_ANSWERS): said above the rest.
    if (data.react_agent_meta?.verified_example_id) {
      const badge = part("p", "verified-answer");
      label(badge, "verifiedAnswer");
      badge.dataset.exampleId = data.react_agent_meta.verified_example_id;
      parts.unshift(badge);
    }
    const records = data.records;
    const rows = records?.rows?.length ?? 0;
    const total = records?.total_row_count ?? rows;
    const partial = records && (records.is_limited || total > rows) ? { shown: rows, total } : null;
    const chart = chartView(data.chart, partial, records);
    if (chart) parts.push(chart);
    if (records?.columns?.length) {
      const csv = threadId && resultId ? csvLink(threadId, resultId) : null;
      parts.push(recordsView(records, csv));
    }
    if (data.sql) {
      const block = part("details", "turn-sql");
      block.open = true;
      const summary = document.createElement("summary");
      label(summary, "sqlHeading");
      block.append(summary, sqlBlock(data.sql));
      parts.push(block);
    }
    if (feedback && data.sql) parts.push(feedbackView(data, this.question, runId));
    this.results.replaceChildren(...parts);
    this.work.open = false;
    const badge = stoppedBadge(data, this.tools.outcomes());
    this.showBadge(badge);
    this.progress?.finish(badge === "badgeRejected" ? "rejected" : "done");
    this.data = data;
    this.el.dataset.answered = "true";
  }

  /** Fill the steps taken from a conversation's tool calls (history). */
  showTools(tools, threadId) {
    tools.forEach((entry, index) => {
      const id = `turn-tool-${index}`;
      this.tools.addCall({ tool_call_id: id, ...entry.call });
      if (entry.result) this.tools.addResult({ tool_call_id: id, ...entry.result }, threadId);
    });
    this.work.hidden = tools.length === 0;
  }
}
