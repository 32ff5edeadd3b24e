"""The graph's nodes and its router."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AnyMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import add_messages

from react_agent.access.sensitive.masking import mask_for_model
from react_agent.graph.hooks import (
    AnswerNote,
    ExampleSource,
    HistoryHooks,
    ModelCallReporter,
    RetrievalReporter,
    SchemaPrompt,
    SchemaRetrievalReporter,
    VerifiedSource,
)
from react_agent.graph.messages import requests_tools, stamped, visible_messages
from react_agent.graph.model_input.prompt_sections import question_context, stable_prompt
from react_agent.graph.model_input.question_context import last_question, with_question_contexts
from react_agent.graph.model_input.trimming import select_context_start
from react_agent.graph.node_names import FORMAT_FINAL_RESPONSE, PREPARE_TOOL_INPUT
from react_agent.graph.nodes.final_answer import final_answer
from react_agent.graph.nodes.tool_round import state_after_tool, tool_input
from react_agent.graph.nodes.verified import verified_step
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState

STEPS_PER_TOOL_ROUND = 4
"""prepare_tool_input, tools, update_state_after_tool and agent again."""


@dataclass
class AgentNodes:
    """Node functions bound to one model and one set of settings.

    Args:
        model: The chat model, bound to the tools (graph/features.GraphParts binds it).
        dialect: The database's SQL dialect, told to the model.
        tables: Names of the tables, told to the model.
        max_turns: Most recent turns the model sees.
        max_tokens: Approximate token budget of what the model sees.
        row_limit: Row cap of query results, told to the model.
        preview_rows: Rows of a result the model sees.
        language_hint: Extra instruction for the system prompt.
        retriever: The memory's examples, put in the prompt once per question (None: off).
        history: Turn blocks and what of them the model sees; None keeps no blocks.
        report_retrieval: Shows each retrieval in the run's events; None shows none.
        clarify: Whether the model has ask_user (a run may still turn asking off).
        ask_tool: The name of that tool, kept from the model of a run that may not ask.
        check_tool: check_sql's name when only runs asking for approval get it
            (SQL_CHECK_TOOL=approval); None when every run gets the tools bound.
        bound_without: The model bound to all the tools but a set of them, by that set
            (features binds it: without ask_tool, check_tool or both).
        report_model_call: Tells the run's listeners of each model call; None tells none.
        model_name: The configured model's name, for reports whose answer names none.
        schema: The schema for each question's prompt (the catalogue); None lists only
            `tables`.
        report_schema_retrieval: Tells the run's listeners how long the schema section
            took, once per question; None tells none.
        answer_notes: Lines added under the final answer (a split among the candidates,
            nothing the asker may see matched), each with its state fields.
        verified: Finds the verified example a question matches (VERIFIED_ANSWERS);
            None: the model writes every question's SQL.

    """

    model: Any
    dialect: str
    tables: Sequence[str]
    max_turns: int
    max_tokens: int
    row_limit: int
    preview_rows: int
    language_hint: str = ""
    retriever: ExampleSource | None = None
    history: HistoryHooks | None = None
    report_retrieval: RetrievalReporter | None = None
    clarify: bool = False
    ask_tool: str | None = None
    check_tool: str | None = None
    bound_without: dict[frozenset[str], Any] = field(default_factory=dict)
    report_model_call: ModelCallReporter | None = None
    model_name: str = ""
    schema: SchemaPrompt | None = None
    report_schema_retrieval: SchemaRetrievalReporter | None = None
    answer_notes: tuple[AnswerNote, ...] = ()
    verified: VerifiedSource | None = None

    async def trim_messages(self, state: AgentState) -> dict[str, Any]:
        """Choose the whole turns the model will see, within the turn and token budgets."""
        messages = state["messages"]
        # --- history blocks: fewer whole turns, and blocks for turns that have none ---
        turns = self.history.context_turns(self.max_turns) if self.history else self.max_turns
        start = select_context_start(messages, max_turns=turns, max_tokens=self.max_tokens)
        update: dict[str, Any] = {"context_start_id": messages[start].id}
        if self.history and (missing := self.history.backfill(state)):
            update["history_blocks"] = missing
        return update

    async def call_model(self, state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        """Ask the model for its next step: tool calls, or the answer.

        A question a verified example answers gets that example's SQL (and, with
        VERIFIED_ANSWERS=direct, its fixed answer) without the model (graph/nodes/verified).
        """
        step = await verified_step(self.verified, state) if self.verified is not None else {}
        if "messages" in step:
            return step
        context = visible_messages(state["messages"], state.get("context_start_id"))
        question = last_question(state["messages"])
        contexts = state.get("question_contexts") or {}
        update: dict[str, Any] = dict(step)
        if question is not None and question.id and question.id not in contexts:
            made, made_update = await question_context(self, state, context, question)
            update.update(made_update)
            contexts = {**contexts, question.id: made}
            update["question_contexts"] = {question.id: made}
        stable = await stable_prompt(self)
        # The one boundary into the model: sensitive values become tokens (access/sensitive/masking)
        model_input = mask_for_model(
            with_question_contexts(stable, context, contexts), state["messages"]
        )
        # A run that may not ask is not offered ask_user at all (CLARIFY=request's default);
        # check_sql only to a run that asks for approval (SQL_CHECK_TOOL=approval).
        response = await self._invoke_model(self._model_for_run(), model_input, config)
        update["messages"] = [stamped(response)]
        if self.schema is not None:
            # The instructions in this prompt: cited in react_agent_meta.instructions.
            used = await self.schema.instruction_ids()
            update["instructions_used"] = list(
                dict.fromkeys([*(state.get("instructions_used") or []), *used])
            )
        return update

    def _model_for_run(self) -> Any:
        """Return the model bound to the tools this run may use."""
        withheld = set()
        if self.ask_tool and not (self.clarify and run_context().clarify):
            withheld.add(self.ask_tool)
        if self.check_tool and not run_context().approve_sql:
            withheld.add(self.check_tool)
        return self.bound_without.get(frozenset(withheld), self.model)

    async def _invoke_model(
        self, model: Any, messages: list[AnyMessage], config: RunnableConfig
    ) -> Any:
        """Call the model, reporting the call (model, outcome, time, tokens) when asked to."""
        if self.report_model_call is None:
            return await model.ainvoke(messages, config)
        started = time.perf_counter()
        try:
            response = await model.ainvoke(messages, config)
        except BaseException as exc:
            outcome = "cancelled" if isinstance(exc, asyncio.CancelledError) else "error"
            seconds = time.perf_counter() - started
            self.report_model_call(self.model_name, outcome, seconds, None, exc)
            raise
        model = (getattr(response, "response_metadata", None) or {}).get("model_name")
        usage = getattr(response, "usage_metadata", None)
        self.report_model_call(model or self.model_name, "ok", time.perf_counter() - started, usage)
        return response

    async def prepare_tool_input(self, state: AgentState) -> dict[str, Any]:
        """Tidy the SQL, note the tools about to run, and answer calls that cannot run.

        A call whose arguments are not one JSON object (or are too long) gets an error
        result the model can correct (graph/nodes/tool_calls); the tools node runs the others.
        """
        return tool_input(state)

    async def update_state_after_tool(self, state: AgentState) -> dict[str, Any]:
        """Record the tools that ran and the SQL results of this round."""
        return state_after_tool(state)

    async def format_final_response(self, state: AgentState) -> dict[str, Any]:
        """Fix the answer text, and record the finished turn's history block."""
        update = await final_answer(state, self.answer_notes)
        if self.history:
            finished = add_messages(state["messages"], update.get("messages", []))
            update["history_blocks"] = [self.history.record(finished)]
        return update

    def route_model_output(self, state: AgentState) -> str:
        """Go on to the tools when the model asked for them and steps remain; else answer."""
        last = state["messages"][-1]
        if not requests_tools(last):
            return FORMAT_FINAL_RESPONSE
        if state["remaining_steps"] <= STEPS_PER_TOOL_ROUND + 1:
            return FORMAT_FINAL_RESPONSE
        return PREPARE_TOOL_INPUT
