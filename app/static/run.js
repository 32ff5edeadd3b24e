// One run followed into its turn: the stream's events become the turn's progress, tool items,
// streamed answer and result; a refused request or a lost stream becomes the error box's words.

import { hideError, showError, showStreamFailure } from "./errors.js";
import { t } from "./i18n.js";
import { openStream } from "./stream.js";

/**
 * A run of `body` (the stream's POST body) shown in `turn`. `hooks`: conversation() and
 * setConversation(id), completed(run, data), paused(run, data), finished(run), retry(run),
 * revealed(el) (an error arrived: bring it into view). `stream` (openStream's options) and
 * `box` (the error box) are the page's unless given (an embedded chat's).
 */
export class Run {
  constructor(turn, body, hooks, { stream = {}, box = undefined } = {}) {
    this.turn = turn;
    this.body = body;
    this.hooks = hooks;
    this.streamOptions = stream;
    this.box = box;
    this.settled = false; // the answer, a pause or an error is shown
    this.ended = false;
    this.runId = null;
    this.userId = "";
    this.stream = null;
  }

  start() {
    hideError(this.box);
    this.turn.startProgress();
    this.stream = openStream(this.body, {
      onEvent: (event) => this.onEvent(event),
      onFailure: (failure) => {
        this.settled = true;
        this.fail(showStreamFailure(failure, () => this.hooks.retry(this), this.box));
      },
      onCut: () => this.turn.progress.say("reconnecting"),
      onLost: () => {
        // The answer or the error is already shown when only the closing `end` went missing.
        if (this.settled) this.finish();
        else this.fail(this.showError({ message: t("connectionLost") }, () => this.hooks.retry(this)));
      },
    }, this.streamOptions);
    return this;
  }

  /** Stop following: close the stream; `state` (stopped, failed) ends the progress too. */
  finish(state = null) {
    this.stream?.close();
    if (state) this.turn.progress?.finish(state);
    this.hooks.finished(this);
  }

  showError(envelope, retry = null, retryAfter = null) {
    return showError(envelope, retry, { retryAfter, box: this.box });
  }

  fail(box) {
    this.turn.progress?.finish("failed");
    this.finish();
    this.hooks.revealed(box);
  }

  onEvent({ data: text, lastEventId, retryAfter }) {
    let envelope;
    try {
      envelope = JSON.parse(text);
    } catch {
      this.settled = true;
      this.fail(this.showError({ message: t("badEvent") }));
      return;
    }
    const data = envelope?.data ?? {};
    // Kept for the stop button: the run id is the part of the event id before ':'.
    if (lastEventId) this.runId = lastEventId.split(":")[0];
    if (data.type === "error" || envelope?.success === false) {
      this.settled = true;
      this.turn.progress?.finish("failed");
      this.hooks.revealed(this.showError(envelope, () => this.hooks.retry(this), retryAfter));
      return;
    }
    this.apply(data);
  }

  apply(data) {
    const turn = this.turn;
    switch (data.type) {
      case "started":
        this.userId = data.user_id ?? "";
        // The conversation is known from here on: a stopped first question stays in it.
        if (data.thread_id && data.thread_id !== this.hooks.conversation()) {
          this.hooks.setConversation(data.thread_id);
        }
        turn.progress.enter("understand");
        break;
      case "progress":
        turn.progress.onProgress(data);
        if (data.answer_repair) turn.restartAnswer(); // ANSWER_CHECK=repair: a new answer follows
        // ANSWER_CANDIDATES: a majority that overturns the query sends the answer back.
        if (data.node === "compare_candidates") turn.expectNewAnswer();
        break;
      case "tool_call":
        turn.addToolCall(data);
        break;
      case "tool_result":
        turn.addToolResult(data, data.thread_id ?? this.hooks.conversation());
        break;
      case "token":
        if (!data.subagent) turn.addToken(data.content ?? ""); // a sub-agent's text is not the answer
        break;
      case "completed":
        this.settled = true;
        this.hooks.completed(this, data);
        break;
      case "interrupt": // the run waits for a person: SQL to approve, or a question
        this.settled = true;
        this.hooks.setConversation(data.thread_id);
        turn.waitFor(data.kind);
        this.hooks.paused(this, data);
        break;
      case "end":
        this.ended = true;
        this.finish();
        break;
      default:
        break; // a newer server may send types this page does not know; they are not errors
    }
  }
}
