// The progress page: asks the stream endpoint with an EventSource and shows each event as it comes.

const STREAM_URL = "api/v0/ask_react_agent_stream";
// A run with one query sends about ten progress events (__start__ … __end__); the bar estimates
// from that and never claims more than PROGRESS_CAP until `completed` arrives.
const EXPECTED_PROGRESS_EVENTS = 10;
const PROGRESS_CAP = 95;
// The browser reconnects by itself and the server resumes from Last-Event-ID; give up after this.
const MAX_RECONNECTS = 3;

const TEXT = {
  "zh-CN": {
    title: "数据问答",
    language: "语言",
    questionLabel: "问题",
    questionPlaceholder: "例如：每个地区有多少家门店？",
    userIdLabel: "用户 ID（可选）",
    userIdPlaceholder: "guest",
    submit: "提交",
    stop: "停止",
    newConversation: "新对话",
    hint: "Ctrl+Enter 提交",
    conversationLabel: "当前对话：",
    noConversation: "（新对话）",
    progressHeading: "进度",
    answerHeading: "回答",
    sqlHeading: "执行的 SQL",
    recordsHeading: "查询结果",
    asked: "问题：",
    questionRequired: "请输入问题。",
    connecting: "正在连接…",
    running: "处理中… 已完成 {n} 步",
    reconnecting: "连接中断，正在重连…",
    connectionLost: "连接中断：服务没有发来结束事件，请重试。",
    done: "已完成",
    failed: "出错了",
    stopped: "已停止",
    rowsAll: "共 {total} 行",
    rowsLimited: "显示 {shown} 行，共 {total} 行",
    errorDetail: "详情",
    canRetry: "可以稍后重试。",
    badEvent: "收到无法解析的事件：{data}",
    unknownError: "未知错误",
  },
  "en-US": {
    title: "Ask your data",
    language: "Language",
    questionLabel: "Question",
    questionPlaceholder: "e.g. How many stores does each region have?",
    userIdLabel: "User ID (optional)",
    userIdPlaceholder: "guest",
    submit: "Ask",
    stop: "Stop",
    newConversation: "New conversation",
    hint: "Ctrl+Enter to ask",
    conversationLabel: "Conversation: ",
    noConversation: "(new conversation)",
    progressHeading: "Progress",
    answerHeading: "Answer",
    sqlHeading: "SQL executed",
    recordsHeading: "Results",
    asked: "Question: ",
    questionRequired: "Please type a question.",
    connecting: "Connecting…",
    running: "Working… {n} steps done",
    reconnecting: "Connection interrupted, reconnecting…",
    connectionLost: "Connection lost: the service did not finish the stream. Please try again.",
    done: "Done",
    failed: "Failed",
    stopped: "Stopped",
    rowsAll: "{total} rows",
    rowsLimited: "Showing {shown} of {total} rows",
    errorDetail: "Details",
    canRetry: "You can try again later.",
    badEvent: "Received an event that could not be read: {data}",
    unknownError: "Unknown error",
  },
};

const byId = (id) => document.getElementById(id);
const ui = {
  form: byId("ask-form"),
  question: byId("question"),
  userId: byId("user-id"),
  lang: byId("lang"),
  submit: byId("submit"),
  stop: byId("stop"),
  newConversation: byId("new-conversation"),
  conversationId: byId("conversation-id"),
  noConversation: byId("no-conversation"),
  errorBox: byId("error-box"),
  progressSection: byId("progress-section"),
  progressBar: byId("progress-bar"),
  status: byId("status"),
  steps: byId("steps"),
  resultSection: byId("result-section"),
  asked: byId("asked"),
  answer: byId("answer"),
  sqlBlock: byId("sql-block"),
  sql: byId("sql"),
  recordsBlock: byId("records-block"),
  recordsNote: byId("records-note"),
  table: byId("results-table"),
};

let conversationId = "";
let current = null; // the run being followed: {es, settled, ended, reconnects}

function t(key, params = {}) {
  const text = TEXT[ui.lang.value]?.[key] ?? TEXT["zh-CN"][key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

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

function setProgress(percent) {
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  ui.progressBar.style.width = `${value}%`;
  ui.progressBar.setAttribute("aria-valuenow", String(value));
}

function setStatus(text) {
  ui.status.textContent = text;
}

function hideError() {
  ui.errorBox.hidden = true;
  ui.errorBox.replaceChildren();
}

function showError(message, { errorType = "", detail = "", canRetry = false } = {}) {
  const title = document.createElement("strong");
  title.className = "error-message";
  title.textContent = message;
  const parts = [title];
  if (errorType) {
    const code = document.createElement("code");
    code.className = "error-type";
    code.dataset.testid = "error-type";
    code.textContent = errorType;
    parts.push(" ", code);
  }
  if (canRetry) {
    const retry = document.createElement("span");
    retry.className = "error-retry";
    retry.textContent = ` ${t("canRetry")}`;
    parts.push(retry);
  }
  if (detail && detail !== message) {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = t("errorDetail");
    const text = document.createElement("p");
    text.textContent = detail;
    details.append(summary, text);
    parts.push(details);
  }
  ui.errorBox.replaceChildren(...parts);
  ui.errorBox.hidden = false;
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
  ui.answer.textContent = "";
  ui.sql.textContent = "";
  ui.sqlBlock.hidden = true;
  ui.recordsBlock.hidden = true;
  ui.table.tHead.replaceChildren();
  ui.table.tBodies[0].replaceChildren();
  ui.recordsNote.textContent = "";
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
  const count = ui.steps.children.length;
  setProgress(Math.min(PROGRESS_CAP, (100 * count) / EXPECTED_PROGRESS_EVENTS));
  setStatus(t("running", { n: count }));
}

function formatCell(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function showRecords(records) {
  const columns = Array.isArray(records?.columns) ? records.columns : [];
  const rows = Array.isArray(records?.rows) ? records.rows : [];
  if (!columns.length) return;
  const headRow = document.createElement("tr");
  for (const column of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = column;
    headRow.append(th);
  }
  ui.table.tHead.replaceChildren(headRow);
  const body = ui.table.tBodies[0];
  body.replaceChildren(
    ...rows.map((row) => {
      const tr = document.createElement("tr");
      columns.forEach((column, index) => {
        const td = document.createElement("td");
        const value = Array.isArray(row) ? row[index] : row?.[column];
        td.textContent = formatCell(value);
        if (value === null || value === undefined) td.className = "null";
        else if (typeof value === "number") td.className = "number";
        tr.append(td);
      });
      return tr;
    }),
  );
  const total = records.total_row_count ?? rows.length;
  ui.recordsNote.textContent = records.is_limited
    ? t("rowsLimited", { shown: rows.length, total })
    : t("rowsAll", { total });
  ui.recordsBlock.hidden = false;
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
      addStep(data);
      break;
    case "token":
      ui.resultSection.hidden = false;
      ui.answer.textContent += data.content ?? "";
      break;
    case "completed":
      run.settled = true;
      showResult(data);
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

function ask(event) {
  event.preventDefault();
  if (current) return;
  const question = ui.question.value.trim();
  if (!question) {
    showError(t("questionRequired"));
    ui.question.focus();
    return;
  }
  const userId = ui.userId.value.trim();
  // A conversation belongs to one user; another user id starts a new conversation.
  if (conversationId && userId && conversationId.split(":")[0] !== userId) setConversation("");
  const params = new URLSearchParams({ question, lang: ui.lang.value });
  if (userId) params.set("user_id", userId);
  if (conversationId) params.set("thread_id", conversationId);
  resetRun(question);
  const run = { es: null, settled: false, ended: false, reconnects: 0 };
  try {
    run.es = new EventSource(`${STREAM_URL}?${params}`);
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
  hideError();
  ui.progressSection.hidden = true;
  ui.resultSection.hidden = true;
  ui.question.focus();
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
});

applyLanguage();
setConversation("");
