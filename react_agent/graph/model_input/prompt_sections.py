"""The prompt's parts made for a model call: the stable prefix, and a question's own context.

The question's context (its schema part, its examples, the index of earlier turns, the
results so far, the time) is made once, at the question's first model call; how the two
parts are put before the model is graph/model_input/question_context's.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AnyMessage, HumanMessage

from react_agent.access.current import current_scope
from react_agent.graph.messages import message_text
from react_agent.graph.model_input.prompts import (
    ASSUME_RULE,
    CLARIFY_RULE,
    QUESTION_CONTEXT,
    SYSTEM_PROMPT,
)
from react_agent.graph.model_input.question_context import last_question
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.tools.results import recent_results

if TYPE_CHECKING:
    from react_agent.graph.nodes.agent import AgentNodes

logger = logging.getLogger(__name__)


async def stable_prompt(nodes: AgentNodes) -> str:
    """Return the stable prefix: the rules, the tables or the schema, the rule of asking."""
    stable_schema = ""
    if nodes.schema is not None:
        try:
            stable_schema = await nodes.schema.stable_section()
        except Exception as exc:
            logger.warning("the schema could not be put in the prompt: %s", exc)
    described = nodes.schema is not None and await nodes.schema.describes_tables()
    prompt = SYSTEM_PROMPT.format(
        dialect=nodes.dialect,
        preview_rows=nodes.preview_rows,
        row_limit=nodes.row_limit,
        language_hint=nodes.language_hint,
        tables=(
            "see the schema below"
            if described
            else ", ".join(t for t in nodes.tables if current_scope().can_read(t)) or "(none)"
        ),
    )
    if stable_schema:
        prompt = f"{prompt}\n\n{stable_schema}"
    asks = nodes.clarify and run_context().clarify
    return prompt + "\n\n" + (CLARIFY_RULE if asks else ASSUME_RULE)


async def question_context(
    nodes: AgentNodes, state: AgentState, context: list[AnyMessage], question: HumanMessage
) -> tuple[str, dict[str, Any]]:
    """Make the question's context once, at its first model call (model_input/question_context).

    Returns the context and the state it sets (the examples shown).
    """
    listed = nodes.history.results_source(state, context) if nodes.history else state["messages"]
    head = QUESTION_CONTEXT.format(
        results="; ".join(
            f"{r['result_id']} ({r['rows']} rows): {r['sql'][:200]}" for r in recent_results(listed)
        )
        or "(none)",
        now=datetime.now().astimezone().isoformat(timespec="seconds"),
    )
    schema = await schema_for_question(nodes, message_text(question))
    examples = await examples_for_question(nodes, state)
    # the index of earlier turns (blocks mode)
    history = nodes.history.prompt_section(state).strip() if nodes.history else ""
    parts = [head, schema, examples.get("examples_prompt") or "", history]
    return "\n\n".join(part for part in parts if part), examples


async def schema_for_question(nodes: AgentNodes, question: str) -> str:
    """Return the question's part of the schema; a failure leaves it out.

    Made once per question, so it is reported once per question.
    """
    if nodes.schema is None:
        return ""
    started = time.perf_counter()
    try:
        section = await nodes.schema.question_section(question)
        stable = await nodes.schema.stable_section()
    except Exception as exc:
        logger.warning("the schema section could not be made; the prompt lists tables: %s", exc)
        section, outcome = "", "error"
    else:
        outcome = "ok" if section or stable else "empty"
    if nodes.report_schema_retrieval is not None:
        nodes.report_schema_retrieval(outcome, time.perf_counter() - started)
    return section


async def examples_for_question(nodes: AgentNodes, state: AgentState) -> dict[str, Any]:
    """Retrieve the examples once per question (first model call); a failure costs none.

    A retrieval over a memory that holds items is reported as a step of the run
    (`report_retrieval`); an empty memory is not searched, so there is nothing to show.
    """
    if nodes.retriever is None:
        return {}
    if state.get("examples_prompt") is not None:
        return {"examples_prompt": state["examples_prompt"]}
    question = last_question(state["messages"])
    text = message_text(question) if question else ""
    started = time.monotonic()
    try:
        block, ids = await nodes.retriever.prompt_block(text)
    except Exception as exc:
        logger.warning("memory retrieval failed; answering without examples: %s", exc)
        block, ids = "", []
    else:
        searched = nodes.retriever.k > 0 and nodes.retriever.holds_items
        if nodes.report_retrieval is not None and searched:
            duration_ms = round((time.monotonic() - started) * 1000)
            nodes.report_retrieval(text, ids, duration_ms)
    return {"examples_prompt": block, "examples_used": [*state.get("examples_used", []), *ids]}
