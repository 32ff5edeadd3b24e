// The page: a chat thread over data. Each question follows the stream endpoint with an
// EventSource into its own turn; the URL (?c=) names the conversation, so a reload restores it.

import { apiFetch, ensureApiKey, storeKey, whoami, withKey } from "./api_key.js";
import { hideApproval, pendingApproval, showApproval } from "./approval.js";
import { hideClarification, showClarification } from "./clarification.js";
import { followUps, setUpUpload, showSchema, showStarters } from "./empty_state.js";
import { hideError, showError } from "./errors.js";
import { restoreTurns } from "./restore.js";
import { applyLanguage, currentLang, initialLang, label, rememberLang, t } from "./i18n.js";
import { redrawGrids } from "./records.js";
import { ConversationList } from "./sidebar.js";
import { Turn } from "./turn.js";

const STREAM_URL = "api/v0/ask_react_agent_stream";
const MAX_QUESTION_CHARS = 2000;
const NEAR_LIMIT_CHARS = 1800;
// The browser reconnects by itself and the server resumes from Last-Event-ID; give up after this.
const MAX_RECONNECTS = 3;

const byId = (id) => document.getElementById(id);
const ui = {
  form: byId("ask-form"),
  question: byId("question"),
  userId: byId("user-id"),
  lang: byId("lang"),
  submit: byId("submit"),
  stop: byId("stop"),
  thread: byId("thread"),
  empty: byId("empty-state"),
  counter: byId("counter"),
  lengthNotice: byId("length-notice"),
  conversationId: byId("conversation-id"),
  noConversation: byId("no-conversation"),
  approveSql: byId("approve-sql"),
  askBack: byId("ask-back"),
  keyNotice: byId("key-notice"),
  actingAs: byId("acting-as"),
};

let conversationId = "";
let boundUser = null; // the one user a bound API key acts for (GET /api/v0/whoami)
let datasetId = null; // an uploaded dataset the next questions are about
let current = null; // the run being followed: {es, turn, settled, ended, reconnects, runId}
let lastAsk = null; // {question} of the last question, for Retry

function askingUser() {
  return ui.userId.value.trim() || boundUser || "";
}

const sidebar = new ConversationList({
  user: () => askingUser() || "guest",
  active: () => conversationId,
  open: (threadId) => openConversation(threadId),
  removed: (threadId) => threadId === conversationId && startNewConversation(),
});

function setConversation(id) {
  conversationId = id || "";
  ui.conversationId.textContent = conversationId;
  ui.noConversation.hidden = Boolean(conversationId);
  const url = new URL(window.location.href);
  url.searchParams.delete("thread_id");
  if (conversationId) url.searchParams.set("c", conversationId);
  else url.searchParams.delete("c");
  window.history.replaceState(null, "", url);
}

function setRunning(running) {
  ui.submit.disabled = running || ui.question.value.length > MAX_QUESTION_CHARS;
  ui.stop.hidden = !running;
  ui.form.setAttribute("aria-busy", String(running));
}

function showThread() {
  ui.empty.hidden = ui.thread.children.length > 0;
}

function addTurn(question) {
  const turn = new Turn(question);
  ui.thread.append(turn.el);
  showThread();
  turn.el.scrollIntoView({ block: "start" });
  return turn;
}

function updateCounter() {
  const n = ui.question.value.length;
  label(ui.counter, "counter", { n, max: MAX_QUESTION_CHARS });
  const over = n - MAX_QUESTION_CHARS;
  ui.lengthNotice.hidden = n < NEAR_LIMIT_CHARS;
  ui.lengthNotice.classList.toggle("over", over > 0);
  if (over > 0) label(ui.lengthNotice, "overLimit", { max: MAX_QUESTION_CHARS, over });
  else label(ui.lengthNotice, "nearLimit", { max: MAX_QUESTION_CHARS, left: -over });
  ui.submit.disabled = Boolean(current) || over > 0;
}

function finishRun(run, state) {
  run.es.close(); // after `end` this keeps the browser from reconnecting
  if (state) run.turn.progress?.finish(state);
  if (current === run) {
    current = null;
    setRunning(false);
    updateCounter();
  }
}

function failRun(run, envelope) {
  run.settled = true;
  run.turn.progress?.finish("failed");
  showError(envelope, () => retry(run));
}

function onStreamMessage(run, event) {
  if (run !== current) return;
  run.reconnects = 0;
  let envelope;
  try {
    envelope = JSON.parse(event.data);
  } catch {
    failRun(run, { message: t("badEvent") });
    return;
  }
  const data = envelope?.data ?? {};
  // Kept for the stop button: the run id is the part of the event id before ':'.
  if (event.lastEventId) run.runId = event.lastEventId.split(":")[0];
  if (data.type === "error" || envelope?.success === false) {
    failRun(run, envelope);
    return;
  }
  const turn = run.turn;
  switch (data.type) {
    case "started":
      run.userId = data.user_id ?? "";
      // The conversation is known from here on: a stopped first question stays in it.
      if (data.thread_id && data.thread_id !== conversationId) setConversation(data.thread_id);
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
      turn.addToolResult(data, data.thread_id ?? conversationId);
      break;
    case "token":
      if (!data.subagent) turn.addToken(data.content ?? ""); // a sub-agent's text is not the answer
      break;
    case "completed":
      run.settled = true;
      completeTurn(run, data);
      break;
    case "interrupt": // the run waits for a person: SQL to approve, or a question
      run.settled = true;
      setConversation(data.thread_id);
      turn.progress.waiting(data.kind);
      showPause(data, turn);
      break;
    case "end":
      run.ended = true;
      finishRun(run);
      break;
    default:
      break; // a newer server may send types this page does not know; they are not errors
  }
}

/** Show what a paused run waits for: the question's card, or the SQL approval's. */
function showPause(data, turn) {
  const resume = (decision) => resumeRun(turn, decision);
  if (data.kind === "clarification") showClarification(data, { answer: resume });
  else showApproval(data, { decide: resume });
}

function completeTurn(run, data) {
  if (data.conversation_id) setConversation(data.conversation_id);
  const ok = (data.sqls ?? []).filter((entry) => entry.status === "ok" && entry.result_id);
  const threadId = data.conversation_id ?? conversationId;
  run.turn.showResult(data, { threadId, resultId: ok.at(-1)?.result_id, runId: run.runId });
  sidebar.refresh();
  // Questions to ask next, under the newest answer only (no model call; none if none).
  followUps(run.turn.question, (question) => ask(question)).then((box) => {
    if (!box) return;
    for (const earlier of ui.thread.querySelectorAll(".follow-ups")) earlier.remove();
    run.turn.results.append(box);
  });
}

function onStreamError(run) {
  if (run !== current || run.ended) return;
  if (run.settled) {
    // The answer or the error is already shown; only the closing `end` went missing.
    finishRun(run);
    return;
  }
  run.reconnects += 1;
  if (run.es.readyState === EventSource.CONNECTING && run.reconnects <= MAX_RECONNECTS) {
    run.turn.progress.say("reconnecting");
    return;
  }
  showError({ message: t("connectionLost") }, () => retry(run));
  finishRun(run, "failed");
}

function followStream(params, turn) {
  hideApproval();
  hideClarification();
  hideError();
  turn.startProgress();
  const run = { es: null, turn, settled: false, ended: false, reconnects: 0 };
  run.es = new EventSource(withKey(`${STREAM_URL}?${params}`));
  current = run;
  run.es.onmessage = (message) => onStreamMessage(run, message);
  run.es.onerror = () => onStreamError(run);
  setRunning(true);
}

async function ask(question, turn = null) {
  if (current) return;
  const who = await ensureApiKey(() => window.prompt(t("apiKeyPrompt")));
  if (who === null) {
    ui.keyNotice.hidden = false;
    return;
  }
  setBoundUser(who.userId);
  const userId = askingUser();
  // A conversation belongs to one user; another user id starts a new conversation.
  if (conversationId && userId && conversationId.split(":")[0] !== userId) setConversation("");
  const params = new URLSearchParams({
    question,
    lang: currentLang(),
    stream_tools: "true",
    stream_tokens: "true",
  });
  if (userId) params.set("user_id", userId);
  if (conversationId) params.set("thread_id", conversationId);
  if (ui.approveSql.checked) params.set("approve_sql", "true");
  // The page can answer a clarifying question, so it asks with clarification on (the API's
  // default stays off for clients that cannot); the settings' toggle turns it off.
  params.set("clarify", ui.askBack.checked ? "true" : "false");
  if (datasetId) params.set("dataset_id", datasetId);
  lastAsk = { question };
  followStream(params, turn ?? addTurn(question));
}

function submitQuestion(event) {
  event?.preventDefault();
  const question = ui.question.value.trim();
  if (!question) {
    showError({ message: t("questionRequired") });
    ui.question.focus();
    return;
  }
  if (question.length > MAX_QUESTION_CHARS) return; // the notice says why; nothing is cut
  ui.question.value = "";
  updateCounter();
  ask(question);
}

function retry(run) {
  if (current || !lastAsk) return;
  run.turn.el.remove();
  ask(lastAsk.question);
}

function resumeRun(turn, resume) {
  const params = new URLSearchParams({ thread_id: conversationId, lang: currentLang() });
  params.set("resume", JSON.stringify(resume));
  params.set("stream_tools", "true");
  params.set("stream_tokens", "true");
  followStream(params, turn);
}

function stop() {
  if (!current) return;
  const { runId, userId } = current;
  finishRun(current, "stopped");
  // Stops the run at once on whichever worker runs it, instead of after the resume grace.
  if (runId) {
    apiFetch(`api/v0/react/runs/${encodeURIComponent(runId)}/cancel`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(userId ? { user_id: userId } : {}),
    }).catch(() => {}); // the stream is closed either way; the grace then ends the run
  }
}

function clearThread() {
  hideApproval();
  hideClarification();
  hideError();
  ui.thread.replaceChildren();
  showThread();
}

function startNewConversation() {
  if (current) return;
  setConversation("");
  clearThread();
  document.body.classList.remove("drawer-open");
  ui.question.focus();
  sidebar.refresh();
}

async function openConversation(threadId) {
  if (current) return;
  clearThread();
  document.body.classList.remove("drawer-open");
  try {
    const turns = await restoreTurns(threadId, currentLang());
    setConversation(threadId);
    for (const turn of turns) ui.thread.append(turn.el);
    showThread();
    turns.at(-1)?.el.scrollIntoView({ block: "start" });
    // A conversation waiting for a person shows its card, however it was opened.
    const pause = await pendingApproval(threadId, currentLang());
    if (pause) {
      const turn = turns.at(-1) ?? addTurn("");
      turn.startProgress().waiting(pause.kind);
      showPause(pause, turn);
    }
    sidebar.refresh();
  } catch (error) {
    showError({ message: error.message });
  }
}

function setBoundUser(userId) {
  boundUser = userId;
  ui.actingAs.hidden = !boundUser;
  if (boundUser) label(ui.actingAs, "actingAs", { user: boundUser });
}

async function enterKey() {
  const entered = (window.prompt(t("apiKeyPrompt")) || "").trim();
  if (!entered) return;
  storeKey(entered);
  await start();
}

function forgetKey() {
  storeKey("");
  setBoundUser(null);
  showError({ message: t("apiKeyForgotten") });
  start();
}

function changeLanguage() {
  rememberLang(ui.lang.value);
  applyLanguage();
  redrawGrids();
  sidebar.refresh();
  showStarters(byId("starters"), (question) => ask(question));
}

// Asks who the key acts for before anything else, so a missing key is asked for, not reported.
async function start() {
  const who = await whoami().catch(() => ({ ok: true, userId: null }));
  ui.keyNotice.hidden = who.ok;
  if (!who.ok) return;
  setBoundUser(who.userId);
  sidebar.refresh();
  showStarters(byId("starters"), (question) => ask(question));
  showSchema(byId("schema-section"), byId("schema-list"));
  if (conversationId && !ui.thread.children.length) openConversation(conversationId);
}

ui.form.addEventListener("submit", submitQuestion);
ui.stop.addEventListener("click", stop);
byId("new-conversation").addEventListener("click", startNewConversation);
ui.lang.addEventListener("change", changeLanguage);
ui.question.addEventListener("input", updateCounter);
ui.question.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) ui.form.requestSubmit();
});
ui.userId.addEventListener("change", () => {
  const userId = askingUser();
  if (conversationId && userId && conversationId.split(":")[0] !== userId) startNewConversation();
  sidebar.refresh();
});
byId("enter-key").addEventListener("click", enterKey);
byId("change-key").addEventListener("click", enterKey);
byId("forget-key").addEventListener("click", forgetKey);
byId("open-drawer").addEventListener("click", () => document.body.classList.add("drawer-open"));
byId("close-drawer").addEventListener("click", () => document.body.classList.remove("drawer-open"));
setUpUpload(byId("upload"), byId("upload-file"), byId("upload-note"), (dataset) => {
  datasetId = dataset.dataset_id;
});

ui.lang.value = initialLang();
applyLanguage();
updateCounter();
const opened = new URLSearchParams(window.location.search);
setConversation(opened.get("c") || opened.get("thread_id") || ""); // ?thread_id= still works
start();
