"""The graph's state, declared once."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from langgraph.managed import RemainingSteps

from react_agent.graph.model_input.question_context import keep_contexts


def append_blocks(
    left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Reduce the history blocks: append new ones; a block with a known id replaces its old one."""
    merged = {block["block_id"]: block for block in left or []}
    for block in right or []:
        merged[block["block_id"]] = block
    return sorted(merged.values(), key=lambda block: block["turn"])


class AgentState(TypedDict, total=False):
    """State of one conversation thread; the per-question fields are reset by each question."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The whole conversation, kept in the checkpoint (the model sees a trimmed window)."""

    context_start_id: str | None
    """Id of the first message the model sees, chosen by trim_messages."""

    pending_tools: list[str]
    """Names of the tools the model asked for, about to run."""

    tools_used: list[str]
    """Tools run while answering the current question, in order."""

    sql: str | None
    """The last SQL that ran successfully for the current question."""

    records: dict[str, Any] | None
    """The records of that SQL: columns, rows, total_row_count, is_limited."""

    sql_execution_count: int
    """SQL executions that reached the database for the current question."""

    sql_refusal_count: int
    """Queries the SQL guard refused (in run_sql or check_sql) for the current question."""

    examples_prompt: str | None
    """The memory's examples block for the current question (None until the first model call)."""

    question_contexts: Annotated[dict[str, str], keep_contexts]
    """Each question's context (examples, value links, results, time) by its message id,
    made at its first model call and sent before it in every later request (prefix-stable
    prompts, graph/model_input/question_context), kept across questions."""

    verified_example_id: str | None
    """The verified example whose SQL answered the current question without the model
    writing SQL (VERIFIED_ANSWERS), or None."""

    examples_used: list[str]
    """Ids of the examples and notes shown to the model for the current question."""

    instructions_used: list[str]
    """Ids of the business instructions the current question's prompts held."""

    sql_approval: dict[str, Any]
    """Approval of this question's queries: `approved` call ids, and `refused_edit`, a
    person's edit the guard refused (tool_call_id, sql, reason) until they decide again."""

    final_answer: str | None
    """The answer to the current question, set by format_final_response."""

    answer_repair: dict[str, Any] | None
    """With ANSWER_CHECK=repair: the check of the first answer that review_answer sent back
    for the question's one repair turn (`{checked, supported, unsupported}`); None while the
    question has had no repair turn."""

    answer_confidence: dict[str, Any] | None
    """With ANSWER_CANDIDATES: how many SQL candidates were written for the answer and how
    many agree (results/candidates: `{candidates, agreeing, method, ...}`); None while the
    question has had none."""

    scope_note: str | None
    """The line saying that nothing the asker may see matched, naming their filters, when
    a scoped query of the answer returned no rows (results/scope_note); None otherwise."""

    remaining_steps: RemainingSteps
    """Steps left before the recursion limit (managed by LangGraph)."""

    access_scope: dict[str, Any] | None
    """The asking user's scope (access.Scope.to_dict) for the current question, kept so a
    resume on any worker runs under the scope the question started with."""

    history_blocks: Annotated[list[dict[str, Any]], append_blocks]
    """One block per finished turn (see react_agent.history.blocks), kept across questions."""

    custom_title: str | None
    """The conversation's title as a person renamed it (None: its first question)."""


def new_question_state() -> dict[str, Any]:
    """Return the per-question fields as they are when a question starts."""
    return {
        "pending_tools": [],
        "tools_used": [],
        "sql": None,
        "records": None,
        "sql_execution_count": 0,
        "sql_refusal_count": 0,
        "sql_approval": {"approved": [], "refused_edit": None},
        "final_answer": None,
        "answer_repair": None,
        "answer_confidence": None,
        "scope_note": None,
        "examples_prompt": None,
        "verified_example_id": None,
        "examples_used": [],
        "instructions_used": [],
    }
