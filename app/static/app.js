// The progress page: asks the stream endpoint with an EventSource and shows each event as it comes.
import { addSubagentStep, nestUnderDelegate } from "./subagents.js";

import { apiFetch, ensureApiKey, withKey } from "./api_key.js";
import { hideApproval, pendingApproval, showApproval } from "./approval.js";
import { clearChart, drawChart } from "./chart.js";
import {
  fetchConversation,
  fetchConversations,
  showConversationList,
  showTurns,
  showTurnTools,
  splitTurns,
} from "./history.js";
import { t } from "./i18n.js";
import { csvLink, fillTable, rowsNote } from "./records.js";
import { hideError, setProgress, setStatus, showError, ui } from "./page_ui.js";
import { ToolList } from "./tool_items.js";

const STREAM_URL = "api/v0/ask_react_agent_stream";
// A run with one query sends about ten progress events (__start__ … __end__); the bar estimates
// from that and never claims more than PROGRESS_CAP until `completed` arrives.
const EXPECTED_PROGRESS_EVENTS = 10;
const PROGRESS_CAP = 95;
// The browser reconnects by itself and the server resumes from Last-Event-ID; give up after this.
const MAX_RECONNECTS = 3;

const tools = new ToolList(document.getElementById("tool-list"));

let conversationId = "";
let lastQuestion = ""; // shown again above the answer of a resumed run
let current = null; // the run being followed: {es, settled, ended, reconnects}

function applyLanguage() {
  document.documentElement.lang = ui.lang.value;
  document.title = t("title");
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of document.querySelectorAll("[data-i18n-aria-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
  }
}

function setConversation(id) {
  conversationId = id || "";
  ui.conversationId.textContent = conversationId;
  ui.noConversation.hidden = Boolean(conversationId);
}

function setRunning(running) {
  ui.submit.disabled = running;
  ui.newConversation.disabled = running;
  ui.stop.hidden = !running;
  ui.form.setAttribute("aria-busy", String(running));
}

function resetRun(question) {
  hideError();
  ui.steps.replaceChildren();
  ui.progressBar.classList.remove("failed", "complete");
  setProgress(0);
  setStatus(t("connecting"));
  ui.progressSection.hidden = false;
  ui.resultSection.hidden = true;
  ui.asked.textContent = `${t("asked")}${question}`;
  ui.asked.dataset.question = question;
  ui.answer.textContent = "";
  ui.sql.textContent = "";
  ui.sqlBlock.hidden = true;
  ui.recordsBlock.hidden = true;
  ui.table.tHead.replaceChildren();
  ui.table.tBodies[0].replaceChildren();
  ui.recordsNote.textContent = "";
  ui.recordsCsv.replaceChildren();
  tools.clear();
  ui.toolsBlock.hidden = true;
  clearChart(ui.chartBlock);
}

function addStep(data) {
  const item = document.createElement("li");
  item.className = "step";
  item.dataset.testid = "step-item";
  item.dataset.node = data.node ?? "";
  const icon = document.createElement("span");
  icon.className = "step-icon";
  icon.setAttribute("aria-hidden", "true");
  icon.textContent = data.icon ?? "";
  const name = document.createElement("span");
  name.className = "step-name";
  name.textContent = data.display_name ?? data.node ?? "";
  item.append(icon, name);
  if (data.tool_name) {
    const tool = document.createElement("code");
    tool.className = "step-tool";
    tool.textContent = data.tool_name;
    item.append(" ", tool);
  }
  ui.steps.querySelector("[aria-current]")?.removeAttribute("aria-current");
  item.setAttribute("aria-current", "step");
  ui.steps.append(item);
  nestUnderDelegate(ui.steps, item, data); // sub-agents' steps go under it (subagents.js)
  const count = ui.steps.children.length;
  setProgress(Math.min(PROGRESS_CAP, (100 * count) / EXPECTED_PROGRESS_EVENTS));
  setStatus(t("running", { n: count }));
}

function showRecords(records) {
  const columns = Array.isArray(records?.columns) ? records.columns : [];
  const rows = Array.isArray(records?.rows) ? records.rows : [];
  if (!columns.length) return;
  fillTable(ui.table, columns, rows);
  const total = records.total_row_count ?? rows.length;
  ui.recordsNote.textContent = rowsNote(rows.length, total, records.is_limited);
  ui.recordsBlock.hidden = false;
}

function showRecordsCsv(threadId, resultId) {
  ui.recordsCsv.replaceChildren(...(threadId && resultId ? [csvLink(threadId, resultId)] : []));
}

// Without tool events or `sqls` (an older server), the tool items and the result id of the
// answer's records are read back from the conversation, whose run_sql results name their ids.
async function showToolsFromConversation(threadId, showItems) {
  const conversation = await fetchConversation(threadId, ui.lang.value);
  const turn = splitTurns(conversation.messages).at(-1);
  if (!turn) return;
  if (showItems && turn.tools.length) {
    showTurnTools(tools, turn.tools, threadId);
    ui.toolsBlock.hidden = false;
  }
  const results = turn.tools.map((entry) => entry.result).filter((r) => r?.result_id);
  showRecordsCsv(threadId, results.at(-1)?.result_id);
}

function showResult(data) {
  ui.answer.textContent = data.response ?? "";
  if (data.sql) {
    ui.sql.textContent = data.sql;
    ui.sqlBlock.hidden = false;
  }
  if (data.records) showRecords(data.records);
  ui.resultSection.hidden = false;
  ui.progressBar.classList.add("complete");
  setProgress(100);
  setStatus(t("done"));
  if (data.conversation_id) setConversation(data.conversation_id);
  drawChart(ui.chartBlock, ui.chart, data.chart);
  const sqls = Array.isArray(data.sqls) ? data.sqls : null;
  const threadId = data.conversation_id ?? conversationId;
  if (sqls) {
    const ok = sqls.filter((entry) => entry.status === "ok" && entry.result_id);
    showRecordsCsv(threadId, ok.at(-1)?.result_id);
  }
  if (threadId && (!sqls || (sqls.length && tools.size === 0))) {
    showToolsFromConversation(threadId, tools.size === 0).catch(() => {});
  }
  refreshHistory();
}

// Thumb up / down under an answer that ran SQL, stored by qa_feedback/add. Pressing the pressed
// thumb again undoes the rating; pressing the other one replaces it (the old one is deleted).
function showFeedback(data, runId) {
  const words = {
    "zh-CN": { up: "有帮助", down: "没帮助", thanks: "感谢反馈", undone: "已撤销", failed: "反馈失败：" },
    "en-US": { up: "Helpful", down: "Not helpful", thanks: "Thanks", undone: "Undone", failed: "Feedback failed: " },
  };
  const word = (key) => (words[ui.lang.value] ?? words["zh-CN"])[key];
  const block = document.getElementById("feedback-block");
  const status = document.getElementById("feedback-status");
  const buttons = [...block.querySelectorAll("button[data-thumb]")];
  const question = ui.asked.dataset.question ?? "";
  const userId = data.user_id || "guest";
  let rating = null; // {id, up} of the stored rating, if any
  block.hidden = !data.sql;
  status.textContent = "";
  for (const button of buttons) {
    button.setAttribute("aria-pressed", "false");
    button.setAttribute("aria-label", word(button.dataset.thumb));
    button.onclick = () => rate(button.dataset.thumb === "up");
  }
  async function send(url, init) {
    const response = await apiFetch(url, init);
    const envelope = await response.json();
    if (!response.ok) throw new Error(envelope.message || response.statusText);
    return envelope.data;
  }
  async function rate(up) {
    const previous = rating;
    rating = null;
    for (const button of buttons) button.disabled = true;
    try {
      if (previous) {
        const owner = new URLSearchParams({ user_id: userId });
        await send(`api/v0/qa_feedback/delete/${previous.id}?${owner}`, { method: "DELETE" });
        for (const button of buttons) button.setAttribute("aria-pressed", "false");
      }
      if (previous && previous.up === up) {
        status.textContent = word("undone");
        return;
      }
      const body = { question, sql: data.sql, is_thumb_up: up, user_id: userId };
      if (data.conversation_id) body.thread_id = data.conversation_id;
      if (runId) body.run_id = runId; // the answer rated, not only its conversation
      const added = await send("api/v0/qa_feedback/add", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      rating = { id: added.feedback_id, up };
      buttons.find((b) => (b.dataset.thumb === "up") === up).setAttribute("aria-pressed", "true");
      status.textContent = word("thanks");
    } catch (error) {
      status.textContent = `${word("failed")}${error.message}`;
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }
}

function showEnvelopeError(envelope) {
  const data = envelope.data ?? {};
  ui.progressBar.classList.add("failed");
  setStatus(t("failed"));
  showError(envelope.message || data.error || t("unknownError"), {
    errorType: data.error_type ?? "",
    detail: data.error ?? "",
    canRetry: Boolean(data.can_retry),
  });
}

function finishRun(run, status) {
  run.es.close(); // after `end` this keeps the browser from reconnecting
  if (status) setStatus(status);
  if (current === run) {
    current = null;
    setRunning(false);
  }
}

function onStreamMessage(run, event) {
  if (run !== current) return;
  run.reconnects = 0;
  let envelope;
  try {
    envelope = JSON.parse(event.data);
  } catch {
    showError(t("badEvent", { data: String(event.data).slice(0, 200) }));
    return;
  }
  const data = envelope?.data ?? {};
  // Kept for the stop button: the run id is the part of the event id before ':'.
  if (event.lastEventId) run.runId = event.lastEventId.split(":")[0];
  if (data.type === "started") run.userId = data.user_id ?? "";
  if (data.type === "error" || envelope?.success === false) {
    run.settled = true;
    showEnvelopeError(envelope);
    return;
  }
  switch (data.type) {
    case "started":
      setStatus(t("running", { n: 0 }));
      break;
    case "progress":
      if (data.subagent) addSubagentStep(ui.steps, data);
      else addStep(data);
      break;
    case "tool_call":
      tools.addCall(data);
      ui.toolsBlock.hidden = false;
      ui.resultSection.hidden = false; // the work shows while the answer is still coming
      break;
    case "tool_result":
      tools.addResult(data, data.thread_id ?? conversationId);
      ui.toolsBlock.hidden = false;
      ui.resultSection.hidden = false;
      break;
    case "token":
      if (data.subagent) break; // a sub-agent's text is not the answer
      ui.resultSection.hidden = false;
      ui.answer.textContent += data.content ?? "";
      break;
    case "completed":
      run.settled = true;
      showResult(data);
      showFeedback(data, run.runId);
      break;
    case "interrupt": // the run waits for a person to approve its SQL
      run.settled = true;
      setConversation(data.thread_id);
      setStatus(data.message ?? "");
      showApproval(data, { lang: ui.lang.value, decide: resumeRun });
      break;
    case "end":
      run.ended = true;
      finishRun(run);
      break;
    default:
      break; // a newer server may send types this page does not know; they are not errors
  }
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
    setStatus(t("reconnecting"));
    return;
  }
  ui.progressBar.classList.add("failed");
  showError(t("connectionLost"));
  finishRun(run, t("failed"));
}

async function ask(event) {
  event.preventDefault();
  if (current) return;
  let key = "";
  try {
    key = await ensureApiKey(() => window.prompt(t("apiKeyPrompt")));
  } catch (error) {
    showError(String(error));
    return;
  }
  if (key === null) {
    showError(t("apiKeyRequired"));
    return;
  }
  const question = ui.question.value.trim();
  if (!question) {
    showError(t("questionRequired"));
    ui.question.focus();
    return;
  }
  const userId = ui.userId.value.trim();
  // A conversation belongs to one user; another user id starts a new conversation.
  if (conversationId && userId && conversationId.split(":")[0] !== userId) setConversation("");
  const params = new URLSearchParams({ question, lang: ui.lang.value, stream_tools: "true" });
  if (userId) params.set("user_id", userId);
  if (conversationId) params.set("thread_id", conversationId);
  if (ui.approveSql.checked) params.set("approve_sql", "true");
  followStream(params, question);
}

function resumeRun(resume) {
  const params = new URLSearchParams({ thread_id: conversationId, lang: ui.lang.value });
  params.set("resume", JSON.stringify(resume));
  followStream(params, lastQuestion);
}

function followStream(params, question) {
  lastQuestion = question;
  hideApproval();
  resetRun(question);
  const run = { es: null, settled: false, ended: false, reconnects: 0 };
  try {
    run.es = new EventSource(withKey(`${STREAM_URL}?${params}`));
  } catch (error) {
    showError(String(error));
    return;
  }
  current = run;
  run.es.onmessage = (message) => onStreamMessage(run, message);
  run.es.onerror = () => onStreamError(run);
  setRunning(true);
}

function stop() {
  if (!current) return;
  const { runId, userId } = current;
  finishRun(current, t("stopped"));
  // Stops the run at once on whichever worker runs it, instead of after the resume grace.
  if (runId && userId) {
    fetch(`/api/v0/react/runs/${encodeURIComponent(runId)}/cancel`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_id: userId }),
    }).catch(() => {}); // the stream is closed either way; the grace then ends the run
  }
}

function startNewConversation() {
  setConversation("");
  hideApproval();
  hideError();
  ui.progressSection.hidden = true;
  ui.resultSection.hidden = true;
  ui.turnsSection.hidden = true;
  ui.question.focus();
  refreshHistory();
}

function historyUser() {
  return ui.userId.value.trim() || "guest";
}

async function refreshHistory() {
  try {
    const conversations = await fetchConversations(historyUser(), ui.lang.value);
    showConversationList(ui.historyList, conversations, conversationId, openConversation);
    ui.historyNote.hidden = true;
  } catch (error) {
    ui.historyNote.textContent = t("historyFailed", { message: error.message });
    ui.historyNote.hidden = false;
  }
}

async function openConversation(threadId) {
  if (current) return;
  hideError();
  try {
    const conversation = await fetchConversation(threadId, ui.lang.value);
    setConversation(threadId);
    ui.progressSection.hidden = true;
    ui.resultSection.hidden = true;
    showTurns(ui.turns, splitTurns(conversation.messages), threadId);
    ui.turnsSection.hidden = false;
    refreshHistory();
  } catch (error) {
    showError(error.message);
  }
}

ui.form.addEventListener("submit", ask);
ui.stop.addEventListener("click", stop);
ui.newConversation.addEventListener("click", startNewConversation);
ui.lang.addEventListener("change", applyLanguage);
ui.question.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) ui.form.requestSubmit();
});
ui.userId.addEventListener("change", () => {
  const userId = ui.userId.value.trim();
  if (conversationId && userId && conversationId.split(":")[0] !== userId) setConversation("");
  refreshHistory();
});
ui.historyRefresh.addEventListener("click", refreshHistory);

applyLanguage();
setConversation("");
refreshHistory();
// Reopening a conversation (?thread_id=…) that waits for approval shows its card again.
const reopened = new URLSearchParams(window.location.search).get("thread_id");
if (reopened) {
  setConversation(reopened);
  pendingApproval(reopened, ui.lang.value).then((approval) => {
    if (approval) showApproval(approval, { lang: ui.lang.value, decide: resumeRun });
  });
}
