// The page: a chat thread over data. Each question is a run followed over a fetch stream into its
// own turn; the URL (?c=) names the conversation, so a reload restores it.

import { ensureApiKey, storedKey, storeKey, whoami } from "./api_key.js";
import { askForKey } from "./key_dialog.js";
import { hideApproval, showApproval } from "./approval.js";
import { hideClarification, showClarification } from "./clarification.js";
import { sendOnEnter } from "./composer.js";
import { DatasetChip } from "./dataset_chip.js";
import { Drawer } from "./drawer.js";
import { followUps, showSchema, showStarters } from "./empty_state.js";
import { hideError, showError } from "./errors.js";
import { Follower } from "./follow.js";
import { applyLanguage, currentLang, initialLang, label, rememberLang, t } from "./i18n.js";
import { Identity } from "./identity.js";
import { redrawGrids } from "./grid.js";
import { restoreConversation } from "./restore.js";
import { addReworkActions } from "./rework.js";
import { Run } from "./run.js";
import { ConversationList } from "./sidebar.js";
import { cancelRun } from "./stop.js";
import { Turn } from "./turn.js";

const MAX_QUESTION_CHARS = 2000;
const NEAR_LIMIT_CHARS = 1800;

const byId = (id) => document.getElementById(id);
const ui = {
  form: byId("ask-form"),
  question: byId("question"),
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
  announcer: byId("announcer"),
};

let conversationId = "";
const identity = new Identity(); // whom the page asks as, as the keys bind it
let current = null; // the Run being followed
let lastAsk = null; // {question, options} of the last question, for Retry
let started = false; // the key was accepted: the page may read its endpoints

function askingUser() {
  return identity.current();
}

const sidebar = new ConversationList({
  user: () => askingUser(),
  active: () => conversationId,
  open: (threadId) => openConversation(threadId),
  removed: (threadId) => threadId === conversationId && forgetConversation(),
});
const drawer = new Drawer(byId("drawer"), byId("open-drawer"), byId("close-drawer"));
const follower = new Follower(document.querySelector("main.page"));
ui.form.append(follower.button);
const datasets = new DatasetChip({
  conversation: () => conversationId,
  user: () => askingUser(),
  schema: () => started && showSchema(byId("schema-section"), byId("schema-list"), datasets.current),
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
  datasets.follow(conversationId);
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

const runHooks = {
  conversation: () => conversationId,
  setConversation,
  completed: completeTurn,
  paused: (run, data) => showPause(data, run.turn, run),
  finished: (run) => {
    if (current !== run) return;
    current = null;
    setRunning(false);
    updateCounter();
  },
  retry,
  revealed: (el) => follower.reveal(el),
};

/** Show what a paused run waits for: the question's card, or the SQL approval's. */
function showPause(data, turn, run = null) {
  const resume = (decision) => resumeRun(turn, decision);
  if (data.kind === "clarification") {
    showClarification(data, { answer: resume });
  } else if (run?.sqlEdit && !data.refused_edit) {
    // "Edit SQL and run": the person's SQL goes in place of the model's, through the guard.
    resume({ interrupt_id: data.interrupt_id, action: "edit", sql: run.sqlEdit });
    return;
  } else {
    showApproval(data, { decide: resume });
  }
  follower.reveal(byId(data.kind === "clarification" ? "clarification-card" : "approval-card"));
}

function completeTurn(run, data) {
  if (data.conversation_id) setConversation(data.conversation_id);
  const ok = (data.sqls ?? []).filter((entry) => entry.status === "ok" && entry.result_id);
  const threadId = data.conversation_id ?? conversationId;
  run.turn.showResult(data, { threadId, resultId: ok.at(-1)?.result_id, runId: run.runId });
  addReworkActions(run.turn, ask);
  ui.announcer.textContent = run.turn.answer.textContent; // read once, when it is whole
  sidebar.refresh();
  // Questions to ask next, under the newest answer only (no model call; none if none).
  followUps(run.turn.question, (question) => ask(question)).then((box) => {
    if (!box) return;
    for (const earlier of ui.thread.querySelectorAll(".follow-ups")) earlier.remove();
    run.turn.results.append(box);
  });
}

function follow(body, turn, sqlEdit = null) {
  hideApproval();
  hideClarification();
  current = new Run(turn, body, runHooks);
  current.sqlEdit = sqlEdit;
  setRunning(true);
  follower.engage();
  current.start();
}

async function ask(question, options = {}) {
  if (current) return;
  const who = await ensureApiKey(askForKey);
  if (who === null) {
    ui.keyNotice.hidden = false;
    return;
  }
  identity.show(who);
  const userId = askingUser();
  // A conversation belongs to one user; another user id starts a new conversation.
  if (conversationId && userId && conversationId.split(":")[0] !== userId) setConversation("");
  const body = { question, lang: currentLang(), stream_tools: true, stream_tokens: true };
  if (userId) body.user_id = userId;
  if (conversationId) body.thread_id = conversationId;
  if (ui.approveSql.checked || options.sql) body.approve_sql = true;
  // The page can answer a clarifying question, so it asks with clarification on (the API's
  // default stays off for clients that cannot); the settings' toggle turns it off.
  body.clarify = ui.askBack.checked;
  if (datasets.current) body.dataset_id = datasets.current.dataset_id;
  lastAsk = { question, options };
  follow(body, addTurn(question), options.sql ?? null);
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
  if (current) return; // Enter while an answer streams keeps the text for later
  ui.question.value = "";
  updateCounter();
  ask(question);
}

function retry(run) {
  if (current || !lastAsk) return;
  run.turn.el.remove();
  ask(lastAsk.question, lastAsk.options);
}

function resumeRun(turn, resume) {
  const body = { thread_id: conversationId, lang: currentLang(), resume };
  body.stream_tools = true;
  body.stream_tokens = true;
  follow(body, turn);
}

function stop() {
  if (!current) return;
  const { runId, userId } = current;
  current.finish("stopped");
  cancelRun(runId, userId); // stops it at once on whichever worker runs it
}

function clearThread() {
  hideApproval();
  hideClarification();
  hideError();
  follower.release();
  ui.thread.replaceChildren();
  showThread();
}

function startNewConversation() {
  if (current) return;
  setConversation("");
  clearThread();
  drawer.close();
  ui.question.focus();
  sidebar.refresh();
}

/** The open conversation was deleted: its id leaves the URL, and its turns the screen. */
function forgetConversation() {
  setConversation("");
  if (!current) clearThread();
}

async function openConversation(threadId) {
  if (current) return;
  clearThread();
  drawer.close();
  try {
    const { turns, pause } = await restoreConversation(threadId, currentLang());
    setConversation(threadId);
    for (const turn of turns) {
      ui.thread.append(turn.el);
      if (turn.el.dataset.answered) addReworkActions(turn, ask);
    }
    showThread();
    turns.at(-1)?.el.scrollIntoView({ block: "start" });
    // A conversation waiting for a person shows its card, however it was opened.
    if (pause) showPause(pause, turns.at(-1));
    sidebar.refresh();
  } catch (error) {
    showError({ message: error.message });
  }
}

async function enterKey() {
  const entered = ((await askForKey()) || "").trim();
  if (!entered) return;
  storeKey(entered);
  await start();
}

function forgetKey() {
  storeKey("");
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
  const who = await whoami().catch(() => ({ ok: true, userId: null, keyNeeded: false }));
  ui.keyNotice.hidden = who.ok;
  // With keys off there is no key to change or forget.
  const keys = who.keyNeeded || Boolean(storedKey());
  byId("change-key").hidden = !keys;
  byId("forget-key").hidden = !keys;
  identity.show(who);
  if (!who.ok) return;
  started = true;
  datasets.show(); // the chip of the open conversation and the table browser
  sidebar.refresh();
  showStarters(byId("starters"), (question) => ask(question));
  if (who.datasets !== false) datasets.start(byId("upload"), byId("upload-file"), byId("upload-note"));
  if (conversationId && !ui.thread.children.length) openConversation(conversationId);
}

ui.form.addEventListener("submit", submitQuestion);
ui.stop.addEventListener("click", stop);
byId("new-conversation").addEventListener("click", startNewConversation);
ui.lang.addEventListener("change", changeLanguage);
ui.question.addEventListener("input", updateCounter);
sendOnEnter(ui.question, () => ui.form.requestSubmit());
identity.onChange(() => {
  const userId = askingUser();
  if (conversationId && userId && conversationId.split(":")[0] !== userId) startNewConversation();
  sidebar.refresh();
});
byId("enter-key").addEventListener("click", enterKey);
byId("change-key").addEventListener("click", enterKey);
byId("forget-key").addEventListener("click", forgetKey);

ui.lang.value = initialLang();
applyLanguage();
updateCounter();
const opened = new URLSearchParams(window.location.search);
setConversation(opened.get("c") || opened.get("thread_id") || ""); // ?thread_id= still works
start();
