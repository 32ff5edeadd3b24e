// A conversation read back into turns: each question with its answer (and its check), SQL,
// chart and results (the detail endpoint's `turns`) and the steps it took (its tool messages);
// and what it waits for, when a run paused for a person (an approval or a question).

import { apiFetch } from "./api_key.js";
import { pendingApproval } from "./approval.js";
import { fetchConversation, splitTurns } from "./history.js";
import { Turn } from "./turn.js";

/**
 * Return the turns of conversation `threadId`, filled in. `api(url, init)` fetches a URL
 * relative to the service (the page's apiFetch unless given: an embedded chat's); `extras`
 * false leaves out what only the page shows: the steps taken, thumbs and CSV links.
 */
export async function restoreTurns(threadId, lang, { api = apiFetch, extras = true } = {}) {
  const conversation = await fetchConversation(threadId, lang, api);
  const steps = splitTurns(conversation.messages);
  // An older server has no `turns`: the questions and answers of the messages then.
  const items = Array.isArray(conversation.turns)
    ? conversation.turns
    : steps.map((s) => ({ question: s.question, answer: s.answer }));
  return items.map((item, index) => {
    const turn = new Turn(item.question ?? "");
    const data = {
      response: item.answer ?? "",
      sql: item.sql,
      records: item.records,
      chart: item.chart,
      answer_check: item.answer_check,
      react_agent_meta: item.confidence ? { confidence: item.confidence } : undefined,
      conversation_id: threadId,
      user_id: conversation.user_id,
    };
    const resultId = extras ? item.result_id : undefined; // no result id, no CSV link
    turn.showResult(data, { threadId, resultId, feedback: extras && Boolean(item.sql) });
    if (extras) turn.showTools(steps[index]?.tools ?? [], threadId);
    return turn;
  });
}

/**
 * Return {turns, pause} of conversation `threadId` (options as restoreTurns'): its turns and
 * what it waits for (a status's `approval`: SQL or a question), else null. A pause waits in
 * the last turn (a new, empty one when there is none), marked waiting as it was live.
 */
export async function restoreConversation(threadId, lang, options = {}) {
  const turns = await restoreTurns(threadId, lang, options);
  const pause = await pendingApproval(threadId, lang, options.api);
  if (pause) {
    if (!turns.length) turns.push(new Turn(""));
    const turn = turns.at(-1);
    turn.startProgress();
    turn.waitFor(pause.kind);
  }
  return { turns, pause };
}
