"""The graph's nodes and its router."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import add_messages

from config import localize
from react_agent.access.current import current_scope
from react_agent.access.masking import mask_for_model
from react_agent.graph.hooks import (
    ANSWER_METADATA,
    AnswerNote,
    ExampleSource,
    HistoryHooks,
    ModelCallReporter,
    RetrievalReporter,
    SchemaPrompt,
    SchemaRetrievalReporter,
    VerifiedSource,
)
from react_agent.graph.messages import (
    message_text,
    requests_tools,
    stamped,
    unanswered_tool_results,
    visible_messages,
)
from react_agent.graph.node_names import FORMAT_FINAL_RESPONSE, PREPARE_TOOL_INPUT
from react_agent.graph.prompts import ASSUME_RULE, CLARIFY_RULE, QUESTION_CONTEXT, SYSTEM_PROMPT
from react_agent.graph.question_context import last_question, with_question_contexts
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.graph.tool_calls import vet_model_calls
from react_agent.graph.trimming import select_context_start
from react_agent.graph.verified import verified_step
from react_agent.tools.results import recent_results
from react_agent.tools.sql_tools import RUN_SQL

logger = logging.getLogger(__name__)

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
        VERIFIED_ANSWERS=direct, its fixed answer) without the model (graph/verified).
        """
        step = await verified_step(self.verified, state) if self.verified is not None else {}
        if "messages" in step:
            return step
        context = visible_messages(state["messages"], state.get("context_start_id"))
        question = last_question(state["messages"])
        contexts = state.get("question_contexts") or {}
        update: dict[str, Any] = dict(step)
        if question is not None and question.id and question.id not in contexts:
            made, made_update = await self._question_context(state, context, question)
            update.update(made_update)
            contexts = {**contexts, question.id: made}
            update["question_contexts"] = {question.id: made}
        stable = await self._stable_prompt()
        # The one boundary into the model: sensitive values become tokens here (access/masking).
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

    async def _stable_prompt(self) -> str:
        """Return the stable prefix: the rules, the tables or the schema, the rule of asking."""
        stable_schema = ""
        if self.schema is not None:
            try:
                stable_schema = await self.schema.stable_section()
            except Exception as exc:
                logger.warning("the schema could not be put in the prompt: %s", exc)
        described = self.schema is not None and await self.schema.describes_tables()
        prompt = SYSTEM_PROMPT.format(
            dialect=self.dialect,
            preview_rows=self.preview_rows,
            row_limit=self.row_limit,
            language_hint=self.language_hint,
            tables=(
                "see the schema below"
                if described
                else ", ".join(t for t in self.tables if current_scope().can_read(t)) or "(none)"
            ),
        )
        if stable_schema:
            prompt = f"{prompt}\n\n{stable_schema}"
        asks = self.clarify and run_context().clarify
        return prompt + "\n\n" + (CLARIFY_RULE if asks else ASSUME_RULE)

    async def _question_context(
        self, state: AgentState, context: list[AnyMessage], question: HumanMessage
    ) -> tuple[str, dict[str, Any]]:
        """Make the question's context once, at its first model call (graph/question_context).

        Returns the context and the state it sets (the examples shown).
        """
        listed = self.history.results_source(state, context) if self.history else state["messages"]
        head = QUESTION_CONTEXT.format(
            results="; ".join(
                f"{r['result_id']} ({r['rows']} rows): {r['sql'][:200]}"
                for r in recent_results(listed)
            )
            or "(none)",
            now=datetime.now().astimezone().isoformat(timespec="seconds"),
        )
        schema = await self._schema_for_question(message_text(question))
        examples = await self._examples_for_question(state)
        # the index of earlier turns (blocks mode)
        history = self.history.prompt_section(state).strip() if self.history else ""
        parts = [head, schema, examples.get("examples_prompt") or "", history]
        return "\n\n".join(part for part in parts if part), examples

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

    async def _schema_for_question(self, question: str) -> str:
        """Return the question's part of the schema; a failure leaves it out.

        Made once per question, so it is reported once per question.
        """
        if self.schema is None:
            return ""
        started = time.perf_counter()
        try:
            section = await self.schema.question_section(question)
            stable = await self.schema.stable_section()
        except Exception as exc:
            logger.warning("the schema section could not be made; the prompt lists tables: %s", exc)
            section, outcome = "", "error"
        else:
            outcome = "ok" if section or stable else "empty"
        if self.report_schema_retrieval is not None:
            self.report_schema_retrieval(outcome, time.perf_counter() - started)
        return section

    async def _examples_for_question(self, state: AgentState) -> dict[str, Any]:
        """Retrieve the examples once per question (first model call); a failure costs none.

        A retrieval over a memory that holds items is reported as a step of the run
        (`report_retrieval`); an empty memory is not searched, so there is nothing to show.
        """
        if self.retriever is None:
            return {}
        if state.get("examples_prompt") is not None:
            return {"examples_prompt": state["examples_prompt"]}
        question = last_question(state["messages"])
        text = message_text(question) if question else ""
        started = time.monotonic()
        try:
            block, ids = await self.retriever.prompt_block(text)
        except Exception as exc:
            logger.warning("memory retrieval failed; answering without examples: %s", exc)
            block, ids = "", []
        else:
            searched = self.retriever.k > 0 and self.retriever.holds_items
            if self.report_retrieval is not None and searched:
                duration_ms = round((time.monotonic() - started) * 1000)
                self.report_retrieval(text, ids, duration_ms)
        return {"examples_prompt": block, "examples_used": [*state.get("examples_used", []), *ids]}

    async def prepare_tool_input(self, state: AgentState) -> dict[str, Any]:
        """Tidy the SQL, note the tools about to run, and answer calls that cannot run.

        A call whose arguments are not one JSON object (or are too long) gets an error
        result the model can correct (graph/tool_calls); the tools node runs the others.
        """
        message = state["messages"][-1]
        assert isinstance(message, AIMessage)
        vetted, answers = vet_model_calls(message)
        update: dict[str, Any] = {"pending_tools": [call["name"] for call in vetted.tool_calls]}
        messages: list[AnyMessage] = [vetted] if vetted is not message else []
        # The tools node runs only the runnable calls; every call needs a result.
        messages.extend(answers)
        if messages:
            update["messages"] = messages
        return update

    async def update_state_after_tool(self, state: AgentState) -> dict[str, Any]:
        """Record the tools that ran and the SQL results of this round."""
        results = _trailing_tool_messages(state["messages"])
        update: dict[str, Any] = {
            "pending_tools": [],
            "tools_used": [*state.get("tools_used", []), *(m.name or "" for m in results)],
            "sql_execution_count": state.get("sql_execution_count", 0),
            "sql_refusal_count": state.get("sql_refusal_count", 0),
        }
        for message in results:
            artifact = message.artifact if isinstance(message.artifact, dict) else None
            if artifact is not None and artifact.get("outcome") == "refused":
                update["sql_refusal_count"] += 1
            if artifact is not None and artifact.get("examples_used"):
                update["examples_used"] = [
                    *update.get("examples_used", state.get("examples_used", [])),
                    *artifact["examples_used"],
                ]
            if artifact is not None and isinstance(artifact.get("sqls"), list):
                # A delegate result: its sub-agents' statements count too (react_agent/subagents).
                statuses = [entry.get("status") for entry in artifact["sqls"]]
                update["sql_execution_count"] += sum(s in ("ok", "error") for s in statuses)
                update["sql_refusal_count"] += statuses.count("refused")
            if message.name != RUN_SQL or artifact is None:
                continue
            if artifact.get("outcome") in ("ok", "failed"):
                update["sql_execution_count"] += 1
            if artifact.get("outcome") == "ok":
                update["sql"] = artifact["sql"]
                update["records"] = artifact["records"]
        return update

    async def format_final_response(self, state: AgentState) -> dict[str, Any]:
        """Fix the answer text, and record the finished turn's history block."""
        update = await self._final_answer(state)
        if self.history:
            finished = add_messages(state["messages"], update.get("messages", []))
            update["history_blocks"] = [self.history.record(finished)]
        return update

    async def _final_answer(self, state: AgentState) -> dict[str, Any]:
        """Fix the answer text; when the step limit cut the run short, say so plainly."""
        last = state["messages"][-1]
        if requests_tools(last):
            answer = localize("STEP_LIMIT_ANSWER", run_context().lang)
            closing = [
                *unanswered_tool_results(state["messages"], "Not run: the step limit was reached."),
                AIMessage(answer),
            ]
            closing = [stamped(message) for message in closing]
            return {"messages": closing, "final_answer": answer, "pending_tools": []}
        text = message_text(last)
        # Kept as the model wrote it, so streamed tokens add up to exactly this answer.
        if not text.strip():
            text = localize("EMPTY_ANSWER", run_context().lang)
            # Same id, so it replaces the empty message: the history shows what the client
            # got, and the model is never sent an empty assistant message.
            return {"final_answer": text, "messages": [last.model_copy(update={"content": text})]}
        update: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        for answer_note in self.answer_notes:
            line, fields = await answer_note.note(state)
            metadata.update(fields.pop(ANSWER_METADATA, None) or {})
            update.update(fields)
            text = f"{text.rstrip()}\n\n{line}" if line else text
        if text != message_text(last) or metadata:  # same id: the history keeps it as sent
            kept = {**last.response_metadata, **metadata}
            update["messages"] = [
                last.model_copy(update={"content": text, "response_metadata": kept})
            ]
        return {**update, "final_answer": text}

    def route_model_output(self, state: AgentState) -> str:
        """Go on to the tools when the model asked for them and steps remain; else answer."""
        last = state["messages"][-1]
        if not requests_tools(last):
            return FORMAT_FINAL_RESPONSE
        if state["remaining_steps"] <= STEPS_PER_TOOL_ROUND + 1:
            return FORMAT_FINAL_RESPONSE
        return PREPARE_TOOL_INPUT


def _trailing_tool_messages(messages: Sequence[AnyMessage]) -> list[ToolMessage]:
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    return results[::-1]
