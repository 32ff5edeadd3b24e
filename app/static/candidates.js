// The candidates that must agree (ANSWER_CANDIDATES), under an answer: "3 of 3 queries agree",
// or the disagreement, with each candidate's SQL, its status and its row count.

import { label } from "./i18n.js";
import { sqlBlock } from "./sql_format.js";

function candidateItem(query, index) {
  const item = document.createElement("li");
  item.className = query.answers ? "candidate answers" : "candidate";
  item.dataset.testid = "candidate";
  const head = document.createElement("p");
  const key = query.status === "ok" ? "candidateRows" : `candidate_${query.status}`;
  const name = index === 0 ? "candidateAgent" : "candidateOther";
  head.append(
    label(document.createElement("strong"), name, { n: index }),
    " ",
    label(document.createElement("span"), key, { rows: query.row_count ?? 0 }),
  );
  if (query.answers) head.append(" ", label(document.createElement("em"), "candidateAnswers"));
  item.append(head);
  // A role without show_sql gets no SQL at all; the rest of the line stays.
  if (query.sql) item.append(sqlBlock(query.sql, "candidate-sql"));
  return item;
}

/**
 * Return the line of `confidence` (react_agent_meta.confidence) to show under the answer, with
 * each candidate listed when they did not all agree; null when no candidates were written.
 */
export function confidenceView(confidence) {
  if (!confidence || !Number.isInteger(confidence.candidates)) return null;
  const queries = Array.isArray(confidence.queries) ? confidence.queries : [];
  const agreed = confidence.agreeing === confidence.candidates;
  const box = document.createElement("details");
  box.className = agreed ? "confidence agreed" : "confidence doubted";
  box.dataset.testid = "confidence";
  box.open = !agreed; // a disagreement is shown, never folded away
  const summary = document.createElement("summary");
  summary.dataset.testid = "confidence-summary";
  const key = agreed ? "candidatesAgree" : `candidates_${confidence.outcome ?? "split"}`;
  label(summary, key, { k: confidence.agreeing, n: confidence.candidates });
  const list = document.createElement("ol");
  list.className = "candidates";
  queries.forEach((query, index) => list.append(candidateItem(query, index)));
  box.append(summary, list);
  return box;
}
