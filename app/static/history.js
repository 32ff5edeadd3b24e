// Earlier conversations: the sidebar list, and a conversation's turns read back from the service.

import { apiFetch } from "./api_key.js";
import { label, t } from "./i18n.js";

const LIST_URL = (userId) => `api/v0/react/users/${encodeURIComponent(userId)}/conversations`;
const DETAIL_URL = (threadId) => `api/v0/react/conversations/${encodeURIComponent(threadId)}`;
// Both vocabularies of the detail endpoint's `role`: user/assistant and human/ai.
const ROLES = { user: "user", human: "user", assistant: "ai", ai: "ai", tool: "tool" };

// `api(url, init)` fetches a URL relative to the service: the page's apiFetch unless given (an
// embedded chat's, with its endpoint and its host's key). A refusal's error keeps its status.
async function getData(url, params, api = apiFetch) {
  const response = await api(`${url}?${new URLSearchParams(params)}`);
  const envelope = await response.json().catch(() => null);
  if (!response.ok || !envelope?.success) {
    const error = new Error(envelope?.message || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return envelope.data;
}

/** Return a user's conversations, newest first. */
export async function fetchConversations(userId, lang, search = "") {
  const params = { limit: "50", lang };
  if (search) params.q = search;
  const data = await getData(LIST_URL(userId), params);
  return data.conversations ?? [];
}

/** Return one conversation with its tool traffic (`api`: see getData). */
export async function fetchConversation(threadId, lang, api = apiFetch) {
  const userId = threadId.split(":")[0];
  return getData(DETAIL_URL(threadId), { user_id: userId, include_tools: "true", lang }, api);
}

/** Return what the run_sql/check_sql text of a tool message says: outcome, id, preview. */
function toolResultFromMessage(message) {
  const content = String(message.content ?? "");
  const lines = content.split("\n");
  const refused = content.startsWith("Error: query refused");
  const failed = message.status === "error" || content.startsWith("Error:");
  const result = { tool_name: message.tool_name, status: refused ? "refused" : "ok" };
  if (failed && !refused) result.status = "error";
  // The service's own words for a query a person rejected at approval (approval/node.py).
  if (failed && content.includes("rejected this query")) result.rejected = true;
  if (result.status !== "ok") result.error = content.replace(/^Error:\s*/, "");
  const idLine = lines[0].match(/^result_id: (\S+)$/);
  if (idLine) result.result_id = idLine[1];
  const countLine = lines.find((line) => /^\d+ row\(s\)/.test(line));
  if (countLine) result.row_count = Number(countLine.match(/^(\d+)/)[1]);
  const rows = [];
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      // not a preview row
    }
  }
  if (rows.length) {
    result.columns = Object.keys(rows[0]);
    result.rows = rows;
  }
  return result;
}

/** Split a conversation's messages into turns: question, tool calls with results, answer. */
export function splitTurns(messages) {
  const turns = [];
  let turn = null;
  let pending = [];
  for (const message of messages ?? []) {
    const role = ROLES[message.role] ?? message.role;
    if (role === "user") {
      turn = { question: message.content ?? "", answer: "", tools: [] };
      pending = [];
      turns.push(turn);
    } else if (!turn) {
      continue;
    } else if (role === "ai") {
      for (const call of message.tool_calls ?? []) {
        const entry = { call: { tool_name: call.name, args: call.args ?? {} }, result: null };
        turn.tools.push(entry);
        pending.push(entry);
      }
      if (message.content) turn.answer = message.content;
    } else if (role === "tool") {
      const index = pending.findIndex((entry) => entry.call.tool_name === message.tool_name);
      const entry = index >= 0 ? pending.splice(index, 1)[0] : null;
      if (entry) entry.result = toolResultFromMessage(message);
    }
  }
  return turns;
}

/** Rename a conversation (an empty title goes back to its first question). */
export async function renameConversation(threadId, title) {
  const response = await apiFetch(DETAIL_URL(threadId), {
    method: "PATCH",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title }),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

/** Delete a conversation. */
export async function deleteConversation(threadId) {
  const response = await apiFetch(DETAIL_URL(threadId), { method: "DELETE" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

function smallButton(key, testId, onClick) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small icon";
  button.dataset.testid = testId;
  button.dataset.i18nAriaLabel = key;
  button.dataset.i18nTitle = key;
  button.setAttribute("aria-label", t(key));
  button.title = t(key);
  button.textContent = key === "rename" ? "✎" : "🗑";
  button.addEventListener("click", onClick);
  return button;
}

/** Show the conversations in the list; a pick calls `actions.open(threadId)`. */
export function showConversationList(list, conversations, activeId, actions, search = "") {
  if (!conversations.length) {
    const empty = document.createElement("li");
    empty.className = "note";
    empty.dataset.testid = "history-empty";
    label(empty, search ? "noMatch" : "noHistory"); // a search that found nothing says so
    list.replaceChildren(empty);
    return;
  }
  list.replaceChildren(
    ...conversations.map((conversation) => {
      const item = document.createElement("li");
      item.className = "conversation-row";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "conversation-item";
      button.dataset.testid = "conversation-item";
      button.dataset.threadId = conversation.thread_id;
      if (conversation.thread_id === activeId) button.setAttribute("aria-current", "true");
      const title = document.createElement("span");
      title.className = "conversation-title";
      title.textContent = conversation.title || conversation.thread_id;
      const when = document.createElement("span");
      when.className = "note";
      when.textContent = (conversation.updated_at ?? "").replace("T", " ").slice(0, 16);
      button.append(title, when);
      button.addEventListener("click", () => actions.open(conversation.thread_id));
      const rename = smallButton("rename", "rename-conversation", () =>
        actions.rename(conversation.thread_id, conversation.title),
      );
      const remove = smallButton("delete", "delete-conversation", () =>
        actions.remove(conversation.thread_id),
      );
      item.append(button, rename, remove);
      return item;
    }),
  );
}
