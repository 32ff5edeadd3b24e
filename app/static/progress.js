// A turn's progress in a person's words: understanding, querying, answering (sub-agents by
// task), a bar, and a status line; folded away once the answer is there.

import { label, t } from "./i18n.js";

const PHASES = ["understand", "query", "answer"];
// Which phase a graph node belongs to; the agent node's first call is understanding.
const NODE_PHASE = {
  __start__: "understand",
  trim_messages: "understand",
  retrieve_examples: "understand",
  prepare_tool_input: "query",
  approve_sql: "query",
  tools: "query",
  update_state_after_tool: "query",
  review_answer: "answer",
  format_final_response: "answer",
  __end__: "answer",
};
const PROGRESS_CAP = 95;

/** The progress block of one turn. */
export class Progress {
  constructor() {
    this.el = document.createElement("details");
    this.el.className = "progress";
    this.el.open = true;
    const summary = document.createElement("summary");
    this.status = document.createElement("span");
    this.status.className = "status";
    this.status.dataset.testid = "status";
    this.status.setAttribute("aria-live", "polite");
    summary.append(this.status);
    const track = document.createElement("div");
    track.className = "progress-track";
    this.bar = document.createElement("div");
    this.bar.className = "progress-bar";
    this.bar.dataset.testid = "progress-bar";
    this.bar.setAttribute("role", "progressbar");
    this.bar.setAttribute("aria-valuemin", "0");
    this.bar.setAttribute("aria-valuemax", "100");
    this.bar.dataset.i18nAriaLabel = "progressHeading";
    this.bar.setAttribute("aria-label", t("progressHeading")); // labelled from the start
    track.append(this.bar);
    this.steps = document.createElement("ol");
    this.steps.className = "steps";
    this.steps.dataset.testid = "step-list";
    this.items = new Map();
    for (const phase of PHASES) {
      const item = document.createElement("li");
      item.className = "step";
      item.dataset.testid = "step-item";
      item.dataset.phase = phase;
      item.dataset.state = "todo";
      label(item, phase);
      this.items.set(phase, item);
      this.steps.append(item);
    }
    this.subagents = document.createElement("ul");
    this.subagents.className = "subagents";
    this.subagentItems = new Map();
    this.el.append(summary, track, this.steps, this.subagents);
    this.phase = null;
    this.setBar(0);
    this.say("connecting");
  }

  say(key, params = {}) {
    label(this.status, key, params);
    // The bar says the state in words too (waiting, failed, stopped are not a percentage).
    this.bar.setAttribute("aria-valuetext", t(key, params));
  }

  setBar(percent) {
    const value = Math.max(0, Math.min(100, Math.round(percent)));
    this.bar.style.width = `${value}%`;
    this.bar.setAttribute("aria-valuenow", String(value));
  }

  /** Move to `phase` (never back): earlier phases are done. */
  enter(phase) {
    const index = PHASES.indexOf(phase);
    if (index < 0 || index < PHASES.indexOf(this.phase)) return;
    this.phase = phase;
    PHASES.forEach((name, i) => {
      const item = this.items.get(name);
      item.dataset.state = i < index ? "done" : i === index ? "active" : "todo";
      if (i === index) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    });
    this.say(phase);
    this.setBar(Math.min(PROGRESS_CAP, ((index + 1) * 100) / (PHASES.length + 1)));
  }

  /** Follow a `progress` event of the main agent or of a sub-agent. */
  onProgress(data) {
    if (data.subagent) {
      this.subagentStep(data);
      return;
    }
    if (data.node === "__source_wait__") {
      // A statement waits for its turn on a busy data source (its fair share).
      this.enter("query");
      this.say("sourceWait", { source: data.source ?? "", ahead: data.ahead ?? 0 });
      return;
    }
    const phase = NODE_PHASE[data.node] ?? (data.node === "agent" && this.phase ? null : "understand");
    if (phase) this.enter(phase);
  }

  /** The answer's first words arrive: the answering phase. */
  onToken() {
    if (this.phase !== "answer") this.enter("answer");
  }

  subagentStep(data) {
    const id = data.subagent.id ?? data.subagent.description ?? "";
    let item = this.subagentItems.get(id);
    if (!item) {
      item = document.createElement("li");
      item.className = "subagent";
      item.dataset.testid = "subagent";
      label(item, "subtask", { task: data.subagent.description ?? id });
      this.subagentItems.set(id, item);
      this.subagents.append(item);
      this.enter("query");
    }
    item.dataset.node = data.node ?? "";
  }

  /** Show the run waiting for a person: to approve its SQL, or (`question`) to answer. */
  waiting(kind = "sql_approval") {
    const asking = kind === "clarification";
    const step = this.items.get(asking ? "understand" : "query");
    step.dataset.state = "waiting";
    label(step, asking ? "waitingAnswer" : "waiting");
    this.say(asking ? "awaitingAnswer" : "awaitingApproval");
    this.el.dataset.state = "waiting";
  }

  /** End the progress as `state` (done, failed, stopped, rejected); done folds it away. */
  finish(state) {
    this.el.dataset.state = state;
    this.bar.classList.add(state === "done" ? "complete" : "failed");
    if (state === "done") {
      for (const item of this.items.values()) {
        item.dataset.state = "done";
        item.removeAttribute("aria-current");
      }
      this.setBar(100);
      this.el.open = false;
    }
    label(this.items.get("query"), "query");
    this.say(state);
  }
}
