// <sql-agent-chat>: the chat as a web component for other sites (served at /embed/sql-agent-chat.js).
// It follows the stream route with fetch (POST, the key in a header) and shows each turn with
// the page's own modules in a shadow root of its own. The host page gives the key through a
// callback (`api-key-provider`, the name of a global function, or the `apiKeyProvider`
// property), never in markup; the service lets it in from EMBED_ORIGINS only (CORS). Its
// conversation is kept per element (embed_conversation.js) and read back when the host page
// reloads, with the card of a pause, as the page reads one back (restore.js).
//
// Imports say ../static/ so they resolve the same from /embed/ and from /static/.

import { ApprovalCard } from "../static/approval.js";
import { ClarificationCard } from "../static/clarification.js";
import { loadLibraries, pageParts, styleLinks } from "../static/embed_assets.js";
import {
  conversationPlace,
  keepConversation,
  keptConversation,
} from "../static/embed_conversation.js";
import { hideError, showError } from "../static/errors.js";
import { applyLanguage, currentLang, label, useLang } from "../static/i18n.js";
import { restoreConversation } from "../static/restore.js";
import { Run } from "../static/run.js";
import { Turn } from "../static/turn.js";

const STATIC_BASE = new URL("../static/", import.meta.url);
const STREAM_PATH = "api/v0/ask_react_agent_stream";
const MAX_QUESTION_CHARS = 2000;
const LANGS = { zh: "zh-CN", "zh-cn": "zh-CN", en: "en-US", "en-us": "en-US" };
const FOLLOW_SLACK_PX = 80; // the thread follows new text unless the reader scrolled further up

function langOf(value) {
  return LANGS[String(value ?? "").toLowerCase()] ?? "zh-CN";
}

function element(tag, className, testId) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (testId) el.dataset.testid = testId;
  return el;
}

/** The chat element: a thread of turns, the cards, and a composer. */
export class SqlAgentChat extends HTMLElement {
  static observedAttributes = ["lang"];

  #keyProvider = null;

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    this.conversationId = "";
    this.current = null; // the Run being followed (run.js, as on the page)
    this.ready = null;
  }

  /** A function returning the API key (or a promise of it), set by the host page's script. */
  get apiKeyProvider() {
    return this.#keyProvider;
  }

  set apiKeyProvider(provider) {
    this.#keyProvider = typeof provider === "function" ? provider : null;
  }

  connectedCallback() {
    // A property set before this script defined the element shadows the setter: take it over.
    if (Object.hasOwn(this, "apiKeyProvider")) {
      const provider = this.apiKeyProvider;
      delete this.apiKeyProvider;
      this.apiKeyProvider = provider;
    }
    this.ready ??= this.build();
  }

  attributeChangedCallback() {
    useLang(langOf(this.getAttribute("lang")));
    if (this.thread) applyLanguage(this.shadowRoot);
  }

  async build() {
    useLang(langOf(this.getAttribute("lang")));
    const root = this.shadowRoot;
    root.append(...styleLinks(STATIC_BASE, ["sql_agent_chat.css"]));
    const [parts] = await Promise.all([pageParts(STATIC_BASE), loadLibraries(STATIC_BASE)]);
    const chat = element("div", "chat");
    this.thread = element("div", "thread", "thread");
    this.thread.setAttribute("aria-live", "polite");
    this.watchThread();
    [this.errorBox] = parts;
    chat.append(this.thread, ...parts, this.composer());
    root.append(chat);
    this.approval = new ApprovalCard(root);
    this.clarification = new ClarificationCard(root);
    applyLanguage(root);
    await this.restore();
    this.dataset.ready = "true";
  }

  /** Where this chat keeps its conversation id: per service and `conversation-key` (or id). */
  get place() {
    const name = this.getAttribute("conversation-key") ?? this.id;
    return conversationPlace(this.getAttribute("remember"), this.endpoint.href, name);
  }

  setConversation(id) {
    this.conversationId = id || "";
    keepConversation(this.place, this.conversationId);
  }

  /** Read the kept conversation back (the host page reloaded), and the card of its pause. */
  async restore() {
    const threadId = keptConversation(this.place);
    if (!threadId) return;
    const userId = this.getAttribute("user-id");
    // A conversation belongs to one user: asking as another starts a new one.
    if (userId && threadId.split(":")[0] !== userId) {
      this.setConversation("");
      return;
    }
    this.conversationId = threadId;
    const options = { api: (url, init) => this.api(url, init), extras: false };
    try {
      const { turns, pause } = await restoreConversation(threadId, currentLang(), options);
      this.thread.append(...turns.map((turn) => turn.el));
      applyLanguage(this.thread);
      if (pause) this.showPause(pause, turns.at(-1));
    } catch (error) {
      // Gone, or not this key's to read: the next question starts a new conversation.
      if ([400, 403, 404].includes(error.status)) this.setConversation("");
      else showError({ message: error.message }, null, { box: this.errorBox });
    }
  }

  composer() {
    const form = element("form", "composer card");
    form.noValidate = true;
    this.question = element("textarea", "", "question-input");
    this.question.rows = 2;
    this.question.maxLength = MAX_QUESTION_CHARS;
    this.question.dataset.i18nPlaceholder = "questionPlaceholder";
    this.question.dataset.i18nAriaLabel = "questionLabel";
    this.submit = label(element("button", "", "submit"), "submit");
    this.submit.type = "submit";
    this.stop = label(element("button", "", "stop"), "stop");
    this.stop.type = "button";
    this.stop.hidden = true;
    const fresh = label(element("button", "small", "new-conversation"), "newConversation");
    fresh.type = "button";
    const row = element("div", "form-row actions");
    row.append(fresh, this.stop, this.submit);
    form.append(this.question, row);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    // Enter sends, Shift+Enter is a new line; never while an input method is composing.
    this.question.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      form.requestSubmit();
    });
    this.stop.addEventListener("click", () => this.stopRun());
    fresh.addEventListener("click", () => this.startOver());
    return form;
  }

  /** The service's base URL: the `endpoint` attribute, else where this script came from. */
  get endpoint() {
    const given = this.getAttribute("endpoint") || new URL("../", import.meta.url);
    const base = new URL(given, document.baseURI);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    return base;
  }

  /** Fetch `path` (relative to the service's base URL) with the host page's key. */
  async api(path, init = {}) {
    const headers = await this.headers(init.headers ?? {});
    return fetch(new URL(path, this.endpoint), { ...init, headers });
  }

  async headers(headers = { "Content-Type": "application/json" }) {
    // The global function the attribute names; a dotted name reaches into an object (app.key).
    const named = (this.getAttribute("api-key-provider") || "").split(".").filter(Boolean);
    const global = named.length ? named.reduce((owner, name) => owner?.[name], window) : null;
    const provider = this.#keyProvider ?? global;
    const key = typeof provider === "function" ? String((await provider()) ?? "").trim() : "";
    return key ? { ...headers, Authorization: `Bearer ${key}` } : headers;
  }

  /** Ask `question` (the composer's text when omitted) in this chat's conversation. */
  async send(text = null) {
    await this.ready;
    const question = (text ?? this.question.value).trim();
    if (this.current || !question) return;
    if (text === null) this.question.value = "";
    const turn = new Turn(question);
    this.thread.append(turn.el);
    const body = { question, lang: currentLang(), stream_tokens: true };
    body.clarify = this.getAttribute("clarify") !== "false"; // the chat can answer one
    if (this.hasAttribute("approve-sql")) body.approve_sql = true;
    const userId = this.getAttribute("user-id");
    if (userId) body.user_id = userId;
    // A conversation belongs to one user; another user id starts a new conversation.
    const owner = this.conversationId.split(":")[0];
    if (userId && this.conversationId && owner !== userId) this.setConversation("");
    if (this.conversationId) body.thread_id = this.conversationId;
    this.follow(body, turn);
  }

  follow(body, turn) {
    this.approval.hide();
    this.clarification.hide();
    const hooks = {
      conversation: () => this.conversationId,
      setConversation: (id) => this.setConversation(id || this.conversationId),
      completed: (run, data) => {
        if (data.conversation_id) this.setConversation(data.conversation_id);
        run.turn.showResult(data, { threadId: this.conversationId, feedback: false });
        this.emit("sql-agent-answer", data);
      },
      paused: (run, data) => this.showPause(data, run.turn),
      finished: (run) => this.finished(run),
      retry: (run) => this.retry(run),
      revealed: (box) => this.emit("sql-agent-error", box?.textContent ?? ""),
    };
    const url = new URL(STREAM_PATH, this.endpoint);
    const options = { stream: { url, authorize: (h) => this.headers(h) }, box: this.errorBox };
    this.current = new Run(turn, body, hooks, options);
    this.setRunning(true);
    this.current.start();
    applyLanguage(turn.el); // its labels set by attribute only (the progress bar's name)
  }

  finished(run) {
    if (this.current !== run) return;
    this.current = null;
    this.setRunning(false);
  }

  showPause(data, turn) {
    const resume = (decision) => this.resume(turn, decision);
    if (data.kind === "clarification") this.clarification.show(data, { answer: resume });
    else this.approval.show(data, { decide: resume });
    this.emit("sql-agent-pause", data);
  }

  resume(turn, decision) {
    const body = { thread_id: this.conversationId, lang: currentLang(), stream_tokens: true };
    this.follow({ ...body, resume: decision }, turn);
  }

  retry(run) {
    if (this.current) return;
    run.turn.el.remove();
    this.send(run.turn.question);
  }

  stopRun() {
    const run = this.current;
    if (!run) return;
    run.finish("stopped");
    // Stops the run at once, instead of after the service's resume grace.
    if (run.runId) this.cancelRun(run).catch(() => {});
  }

  async cancelRun(run) {
    const path = `api/v0/react/runs/${encodeURIComponent(run.runId)}/cancel`;
    const body = JSON.stringify(run.userId ? { user_id: run.userId } : {});
    await this.api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body });
  }

  startOver() {
    if (this.current) return;
    this.setConversation("");
    this.approval.hide();
    this.clarification.hide();
    hideError(this.errorBox);
    this.thread.replaceChildren();
    this.question.focus();
  }

  setRunning(running) {
    this.submit.disabled = running;
    this.stop.hidden = !running;
    this.toggleAttribute("busy", running);
  }

  // The thread follows what grows at its foot, unless the reader scrolled up to read.
  followThread() {
    if (this.following) this.thread.scrollTop = this.thread.scrollHeight;
  }

  watchThread() {
    this.following = true;
    this.thread.addEventListener("scroll", () => {
      const { scrollTop, scrollHeight, clientHeight } = this.thread;
      this.following = scrollHeight - scrollTop - clientHeight < FOLLOW_SLACK_PX;
    });
    const growth = new MutationObserver(() => this.followThread());
    growth.observe(this.thread, { childList: true, subtree: true, characterData: true });
  }

  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}

if (!customElements.get("sql-agent-chat")) customElements.define("sql-agent-chat", SqlAgentChat);
