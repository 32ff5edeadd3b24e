// A conversation read back into turns: each question with its answer (and its check), SQL,
// chart and results (the detail endpoint's `turns`) and the steps it took (its tool messages).

import { fetchConversation, splitTurns } from "./history.js";
import { Turn } from "./turn.js";

/** Return the turns of conversation `threadId`, filled in. */
export async function restoreTurns(threadId, lang) {
  const conversation = await fetchConversation(threadId, lang);
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
    turn.showResult(data, { threadId, resultId: item.result_id, feedback: Boolean(item.sql) });
    turn.showTools(steps[index]?.tools ?? [], threadId);
    return turn;
  });
}
