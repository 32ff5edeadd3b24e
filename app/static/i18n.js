// The page's texts in each language, the language in force, and labels that follow a switch.

import { MORE_TEXT } from "./i18n_chat.js";

const LANG_STORAGE = "sqlAgentLang";

export const TEXT = {
  "zh-CN": {
    title: "数据问答",
    language: "语言",
    questionLabel: "问题",
    questionPlaceholder: "用一句话问你的数据，例如：每个地区有多少家门店？",
    userIdLabel: "用户 ID（可选）",
    submit: "提问",
    stop: "停止",
    newConversation: "新对话",
    hint: "Enter 发送，Shift+Enter 换行",
    approveSql: "执行 SQL 前确认",
    askBack: "允许反问澄清",
    settings: "设置",
    apiKeyPrompt: "此服务需要 API 密钥，请输入：",
    apiKeyRequired: "此服务需要 API 密钥。请点「API 密钥」输入。",
    apiKeyButton: "API 密钥",
    apiKeyChange: "更换密钥",
    apiKeyForget: "忘记密钥",
    apiKeyForgotten: "已忘记密钥。",
    actingAs: "身份：{user}",
    browserUser: "本浏览器的用户 ID：{user}",
    conversationLabel: "当前对话：",
    noConversation: "（新对话）",
    counter: "{n} / {max}",
    nearLimit: "接近 {max} 字上限，还能输入 {left} 字。",
    overLimit: "超出 {max} 字上限 {over} 字，请删减后再提交（不会自动截断）。",
    questionRequired: "请输入问题。",
    understand: "理解问题",
    query: "查询数据",
    answer: "组织回答",
    waiting: "等待确认 SQL",
    subtask: "子任务：{task}",
    connecting: "正在连接…",
    reconnecting: "连接中断，正在重连…",
    connectionLost: "连接中断：服务没有发来结束事件。",
    done: "已完成",
    failed: "出错了",
    stopped: "已停止",
    rejected: "已拒绝执行",
    awaitingApproval: "等待你确认 SQL",
    sourceWait: "等待数据源 {source}，前面还有 {ahead} 个查询",
    awaitingAnswer: "等待你回答一个问题",
    waitingAnswer: "等待你的回答",
    progressHeading: "进度",
    stepsTaken: "查看过程",
    sqlHeading: "SQL",
    verifiedAnswer: "已验证的答案",
    copy: "复制",
    copied: "已复制",
    copyTable: "复制表格",
    savePng: "保存图片",
    chartExplore: "点击图表查看数值",
    chartType: "图表类型",
    chartBar: "柱状图",
    chartLine: "折线图",
    chartPie: "饼图",
    partialChart: "图表只含前 {shown} 行（共 {total} 行）。",
    rowsAll: "共 {total} 行",
    rowsLimited: "显示 {shown} 行，共 {total} 行",
    downloadCsv: "下载 CSV",
    retry: "重试",
    errorDetail: "详情",
    unknownError: "出了点问题，请重试。",
    badEvent: "收到无法解析的事件。",
    errUNAUTHORIZED: "API 密钥缺失或不正确。",
    errFORBIDDEN: "这个 API 密钥不能以该用户身份提问。",
    errLLM_UNAVAILABLE: "语言模型暂时不可用，请稍后重试。",
    errTHREAD_BUSY: "这个对话正在回答上一个问题，请稍候。",
    errTIMEOUT: "回答超时了，请重试或换个问法。",
    historyHeading: "对话",
    historySearch: "搜索对话",
    refreshHistory: "刷新",
    noHistory: "还没有对话",
    historyFailed: "无法读取对话列表。",
    rename: "重命名",
    renamePrompt: "新的对话名称：",
    delete: "删除",
    deleteConfirm: "删除这个对话？",
    menu: "对话列表",
    close: "关闭",
    toolPending: "进行中…",
    toolOk: "{rows} 行",
    toolRefused: "被安全检查拒绝",
    toolRejected: "已拒绝",
    toolError: "失败",
    toolMs: "{ms} 毫秒",
    tool_run_sql: "执行查询",
    tool_check_sql: "检查查询",
    tool_list_tables: "查看有哪些表",
    tool_describe_table: "查看表结构",
    tool_delegate: "分成子任务",
    tool_search_examples: "查找相似问题",
    emptyHeading: "问点什么吧",
    startersHeading: "可以这样问",
    schemaHeading: "可以查询的表",
    uploadButton: "上传数据文件",
    uploaded: "已上传：{name}，接下来的问题将基于它。",
    uploadFailed: "上传失败：{message}",
    starter1: "每个地区有多少家门店？",
    starter2: "上个月销售额最高的 5 家门店是哪些？",
    starter3: "各产品类别的销售额占比是多少？",
    thumbUp: "有帮助",
    thumbDown: "没帮助",
    thanks: "感谢反馈",
    clarificationHeading: "需要您确认一下",
    clarificationPlaceholder: "或输入您自己的回答",
    clarificationSend: "回答",
    approvalHeading: "SQL 待确认",
    approvalTables: "读取的表：{tables}",
    approvalRefused: "修改后的 SQL 被拒绝：{reason}",
    approvalComment: "备注（可选，拒绝时告诉模型原因）",
    approve: "批准执行",
    edit: "修改后执行",
    reject: "拒绝",
    undone: "已撤销",
    check_NUMBER_NOT_IN_RESULTS: "查询结果中没有这个数字",
    check_DATE_NOT_IN_RESULTS: "查询结果中没有这个日期",
    check_UNSUPPORTED: "查询结果不支持这个数值",
    checkSummaryOne: "1 个数值未在查询结果中找到：{figures}",
    checkSummaryMany: "{n} 个数值未在查询结果中找到：{figures}",
    checkRepaired: "此回答已按查询结果更正过一次。",
    candidatesAgree: "⚖️ {k} / {n} 条独立写出的查询结果一致",
    candidates_majority: "⚖️ {n} 条独立写出的查询中 {k} 条结果一致，其余不同",
    candidates_split: "⚖️ {n} 条独立写出的查询结果不一致（最多 {k} 条相同）",
    candidates_asked: "⚖️ {n} 条独立写出的查询结果不一致，已向你确认问题的含义",
    candidates_unconfirmed: "⚖️ 其他 {n} 条候选查询中没有一条能运行，无法互相印证",
    candidateAgent: "原查询",
    candidateOther: "候选 {n}",
    candidateRows: "{rows} 行",
    candidateAnswers: "（回答依据）",
    candidate_error: "运行出错",
    candidate_refused: "被安全检查拒绝",
    candidate_no_sql: "未写出查询",
    candidate_model_error: "模型调用失败",
  },
  "en-US": {
    title: "Ask your data",
    language: "Language",
    questionLabel: "Question",
    questionPlaceholder: "Ask your data in one sentence, e.g. How many stores does each region have?",
    userIdLabel: "User ID (optional)",
    submit: "Ask",
    stop: "Stop",
    newConversation: "New conversation",
    hint: "Enter to ask, Shift+Enter for a new line",
    approveSql: "Approve SQL before it runs",
    askBack: "Let the agent ask back",
    settings: "Settings",
    apiKeyPrompt: "This service needs an API key. Enter it:",
    apiKeyRequired: "This service needs an API key. Use “API key” to enter it.",
    apiKeyButton: "API key",
    apiKeyChange: "Change key",
    apiKeyForget: "Forget key",
    apiKeyForgotten: "The key is forgotten.",
    actingAs: "Acting as {user}",
    browserUser: "This browser's user id: {user}",
    conversationLabel: "Conversation: ",
    noConversation: "(new conversation)",
    counter: "{n} / {max}",
    nearLimit: "Close to the {max}-character limit: {left} left.",
    overLimit: "{over} characters over the {max} limit. Shorten it to ask (nothing is cut).",
    questionRequired: "Please type a question.",
    understand: "Understanding the question",
    query: "Querying the data",
    answer: "Writing the answer",
    waiting: "Waiting for SQL approval",
    subtask: "Sub-task: {task}",
    connecting: "Connecting…",
    reconnecting: "Connection interrupted, reconnecting…",
    connectionLost: "Connection lost: the service did not finish.",
    done: "Done",
    failed: "Failed",
    stopped: "Stopped",
    rejected: "Rejected",
    awaitingApproval: "Waiting for you to approve the SQL",
    sourceWait: "Waiting for the {source} data source, {ahead} ahead",
    awaitingAnswer: "Waiting for you to answer a question",
    waitingAnswer: "Waiting for your answer",
    progressHeading: "Progress",
    stepsTaken: "How it was answered",
    sqlHeading: "SQL",
    verifiedAnswer: "Verified answer",
    copy: "Copy",
    copied: "Copied",
    copyTable: "Copy table",
    savePng: "Save image",
    chartExplore: "Click the chart to see its values",
    chartType: "Chart type",
    chartBar: "Bar",
    chartLine: "Line",
    chartPie: "Pie",
    partialChart: "The chart shows only the first {shown} of {total} rows.",
    rowsAll: "{total} rows",
    rowsLimited: "Showing {shown} of {total} rows",
    downloadCsv: "Download CSV",
    retry: "Retry",
    errorDetail: "Details",
    unknownError: "Something went wrong. Please try again.",
    badEvent: "Received an event that could not be read.",
    errUNAUTHORIZED: "The API key is missing or wrong.",
    errFORBIDDEN: "This API key may not ask as that user.",
    errLLM_UNAVAILABLE: "The language model is not available right now. Try again shortly.",
    errTHREAD_BUSY: "This conversation is still answering. Wait a moment.",
    errTIMEOUT: "The answer took too long. Try again or ask differently.",
    historyHeading: "Conversations",
    historySearch: "Search conversations",
    refreshHistory: "Refresh",
    noHistory: "No conversations yet",
    historyFailed: "Could not read the conversations.",
    rename: "Rename",
    renamePrompt: "New name of the conversation:",
    delete: "Delete",
    deleteConfirm: "Delete this conversation?",
    menu: "Conversations",
    close: "Close",
    toolPending: "running…",
    toolOk: "{rows} rows",
    toolRefused: "refused by the safety check",
    toolRejected: "rejected",
    toolError: "failed",
    toolMs: "{ms} ms",
    tool_run_sql: "Run a query",
    tool_check_sql: "Check a query",
    tool_list_tables: "List the tables",
    tool_describe_table: "Read a table's columns",
    tool_delegate: "Split into sub-tasks",
    tool_search_examples: "Look up similar questions",
    emptyHeading: "Ask something",
    startersHeading: "Try asking",
    schemaHeading: "Tables you can ask about",
    uploadButton: "Upload a data file",
    uploaded: "Uploaded {name}; the next questions are about it.",
    uploadFailed: "Upload failed: {message}",
    starter1: "How many stores does each region have?",
    starter2: "Which 5 stores sold the most last month?",
    starter3: "What share of sales does each product category have?",
    thumbUp: "Helpful",
    thumbDown: "Not helpful",
    thanks: "Thanks",
    clarificationHeading: "A question for you",
    clarificationPlaceholder: "Or type your own answer",
    clarificationSend: "Answer",
    approvalHeading: "SQL waiting for approval",
    approvalTables: "Tables read: {tables}",
    approvalRefused: "The edited SQL was refused: {reason}",
    approvalComment: "Comment (optional; tells the model why when rejecting)",
    approve: "Approve",
    edit: "Edit and run",
    reject: "Reject",
    undone: "Undone",
    check_NUMBER_NOT_IN_RESULTS: "This number is not in the query results",
    check_DATE_NOT_IN_RESULTS: "This date is not in the query results",
    check_UNSUPPORTED: "The query results do not support this figure",
    checkSummaryOne: "1 figure not found in the rows: {figures}",
    checkSummaryMany: "{n} figures not found in the rows: {figures}",
    checkRepaired: "This answer was corrected once to match the rows.",
    candidatesAgree: "⚖️ {k} of {n} queries agree",
    candidates_majority: "⚖️ {k} of {n} queries agree; the others differ",
    candidates_split: "⚖️ The {n} queries disagree (at most {k} agree)",
    candidates_asked: "⚖️ The {n} queries disagree: you were asked what the question means",
    candidates_unconfirmed: "⚖️ No other candidate query ran: nothing to compare with",
    candidateAgent: "The agent's query",
    candidateOther: "Candidate {n}",
    candidateRows: "{rows} rows",
    candidateAnswers: "(the answer rests on it)",
    candidate_error: "failed",
    candidate_refused: "refused by the safety check",
    candidate_no_sql: "wrote no query",
    candidate_model_error: "the model call failed",
  },
};

for (const [lang, texts] of Object.entries(MORE_TEXT)) Object.assign(TEXT[lang], texts);

const langSelect = () => document.getElementById("lang");
let fixedLang = null; // an embedded chat's language (its lang attribute); the page reads its select

/** Fix the language of every text from now on (an embedded chat: no select to read). */
export function useLang(lang) {
  fixedLang = TEXT[lang] ? lang : null;
}

/** Return the language of a first visit: the one chosen before, else the browser's. */
export function initialLang() {
  const stored = localStorage.getItem(LANG_STORAGE);
  if (stored && TEXT[stored]) return stored;
  const browser = (navigator.languages?.[0] ?? navigator.language ?? "").toLowerCase();
  return browser.startsWith("zh") ? "zh-CN" : "en-US";
}

/** Remember the language chosen on the page. */
export function rememberLang(lang) {
  localStorage.setItem(LANG_STORAGE, lang);
}

/** Return the page's language. */
export function currentLang() {
  return fixedLang ?? langSelect()?.value ?? "zh-CN";
}

/** Return the text `key` in the page's language, with {name} placeholders filled in. */
export function t(key, params = {}, lang = currentLang()) {
  const text = TEXT[lang]?.[key] ?? TEXT["zh-CN"][key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** Whether `key` has a text (tool names, error codes). */
export function hasText(key) {
  return key in TEXT["zh-CN"];
}

/** Set `el`'s text to `key` and keep the key, so a language switch re-renders it. */
export function label(el, key, params = {}) {
  el.dataset.i18n = key;
  if (Object.keys(params).length) el.dataset.i18nParams = JSON.stringify(params);
  else delete el.dataset.i18nParams;
  el.textContent = t(key, params);
  return el;
}

/**
 * Re-render every labelled element, placeholder and aria-label in the page's language; `root`
 * is the page (its lang and title follow) or an embedded chat's shadow root.
 */
export function applyLanguage(root = document) {
  if (root === document) {
    document.documentElement.lang = currentLang();
    document.title = t("title");
  }
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const params = el.dataset.i18nParams ? JSON.parse(el.dataset.i18nParams) : {};
    el.textContent = t(el.dataset.i18n, params);
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-i18n-aria-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
  }
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
  }
}
