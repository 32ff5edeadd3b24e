"""Writing more SQL candidates for a question, and running each as run_sql runs the agent's.

The model writes each candidate on its own: it reads the question, the earlier turns'
questions and answers, and the schema (the catalogue's section for the question, else
the readable tables as list_tables and describe_tables show them), never the agent's
query, so agreement means something. The samples come from one request with `n` where
the server honours it (OpenAI, vLLM, DashScope), else from parallel calls (Ollama and
llama.cpp answer one choice: the rest are asked for at once, and this process then asks
in parallel from the start). Each call is reported to the run's listeners (metrics,
traces, the token quota), as the agent's are.

Each candidate runs through the run_sql tool itself: the SQL guard, the asker's scope
(only the scoped statement reaches the database), masking, the lint, and one audit
record per statement, exactly as the agent's own queries.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool

from react_agent.access.current import current_scope
from react_agent.access.sensitive.masking import mask_for_model
from react_agent.graph.hooks import ModelCallReporter, SchemaPrompt
from react_agent.graph.messages import message_text, requests_tools
from react_agent.results.candidate_groups import Candidate
from react_agent.runs.events.listener_reports import tables_read
from react_agent.tools.sql_tools import RUN_SQL

logger = logging.getLogger(__name__)

CANDIDATE_PROMPT = """You write one SQL query that answers the user's question from a \
{dialect} database.
Reply with the query alone in a ```sql block: one read-only SELECT (WITH is allowed), no \
other text. Use only the tables and columns below. Read the question closely (what is \
counted or summed, over which rows, for which period) and decide each of those yourself.
The current time is {now}.

{schema}"""
"""The candidate writer's system prompt; `{schema}` is the schema it may use."""
EARLIER_TURNS = 3
"""Earlier questions and answers a candidate writer reads (a follow-up needs them)."""
SCHEMA_TABLES = 30
"""Readable tables described in full for the writer when there is no schema catalogue."""
LISTING_TOOL, DESCRIBING_TOOL = "list_tables", "describe_tables"
"""The agent's tools that show the asker's tables and columns, by name (when it has them)."""
_FENCE = re.compile(r"```[ \t]*(?:sql)?[ \t]*\n?(?P<sql>.*?)```", re.IGNORECASE | re.DOTALL)
_BARE = re.compile(r"^\s*(?:select|with)\b", re.IGNORECASE)


def sql_of(message: BaseMessage) -> str | None:
    """Return the query a candidate reply holds: a ```sql block, bare SQL or a run_sql call."""
    for call in getattr(message, "tool_calls", None) or []:
        sql = (call.get("args") or {}).get("sql")
        if isinstance(sql, str) and sql.strip():
            return sql.strip()
    text = message_text(message)
    fenced = _FENCE.search(text)
    if fenced and fenced.group("sql").strip():
        return fenced.group("sql").strip()
    return text.strip() if _BARE.match(text) else None


def question_turn(messages: Sequence[AnyMessage]) -> int:
    """Return the index of the newest human message (the question being answered)."""
    return max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=0)


def earlier_turns(messages: Sequence[AnyMessage], start: int) -> list[AnyMessage]:
    """Return the questions and final answers before `start`, the newest EARLIER_TURNS."""
    pairs: list[AnyMessage] = []
    for message in messages[:start]:
        if isinstance(message, HumanMessage):
            pairs.append(HumanMessage(message_text(message)))
        elif isinstance(message, AIMessage) and not requests_tools(message):
            if message_text(message) and pairs and isinstance(pairs[-1], HumanMessage):
                pairs.append(AIMessage(message_text(message)))
    humans = [i for i, m in enumerate(pairs) if isinstance(m, HumanMessage)]
    return pairs[humans[-EARLIER_TURNS] :] if len(humans) > EARLIER_TURNS else pairs


@dataclass(frozen=True)
class Written:
    """The candidates written and run for one answer, and what writing them cost."""

    candidates: list[Candidate]
    sampling: str
    """n (one request for all) or parallel (one call each)."""
    calls: list[dict[str, Any]]
    """One entry per model call made: its token usage ({} when none was reported)."""

    def cost(self) -> dict[str, Any]:
        """Return `{model_calls, usage}` as react_agent_meta.confidence reports it."""
        usage = {
            name: sum(int(call.get(name) or 0) for call in self.calls)
            for name in ("input_tokens", "output_tokens", "total_tokens")
        }
        return {"model_calls": len(self.calls), "usage": usage if any(usage.values()) else None}


@dataclass
class CandidateWriter:
    """Writes and runs candidates with the agent's model, tools and prompt's schema.

    Args:
        model: The chat model, not bound to tools.
        tools: The agent's tools by name (run_sql, list_tables, describe_tables).
        dialect: The database's dialect, told to the writer.
        temperature: The samples' temperature (ANSWER_CANDIDATES_TEMPERATURE).
        schema: The catalogue's schema section for a question; None lists the tables.
        tables: The database's tables, named to the writer when no tool lists them.
        report_model_call: Tells the run's listeners of each call; None tells none.
        model_name: The configured model's name, for reports whose answer names none.
        call_timeout: Seconds one model call may take (LLM_TIMEOUT); None: no bound here.

    """

    model: BaseChatModel
    tools: dict[str, BaseTool]
    dialect: str
    temperature: float = 0.7
    schema: SchemaPrompt | None = None
    tables: Sequence[str] = ()
    report_model_call: ModelCallReporter | None = None
    model_name: str = ""
    call_timeout: float | None = None
    n_honoured: bool | None = field(default=None, init=False)
    """Whether the server answered a request with `n` with n choices (None: not yet asked)."""

    async def write(self, state: dict[str, Any], count: int) -> Written:
        """Write `count` candidates and run each; return them (indexes 1…) and their cost."""
        messages = state["messages"]
        start = question_turn(messages)
        question = message_text(messages[start])
        prompt = CANDIDATE_PROMPT.format(
            dialect=self.dialect,
            now=datetime.now().astimezone().isoformat(timespec="seconds"),
            schema=await self._schema(question, messages[start:]),
        )
        writer_input = [SystemMessage(prompt), *earlier_turns(messages, start)]
        writer_input.append(HumanMessage(question))
        # The one boundary into the model: sensitive values become tokens (access/sensitive/masking)
        writer_input = mask_for_model(writer_input, messages)
        spent: list[dict[str, Any]] = []
        replies, sampling = await self._sample(writer_input, count, spent)
        runs = [self._run(reply, state, index) for index, reply in enumerate(replies, start=1)]
        return Written(list(await asyncio.gather(*runs)), sampling, spent)

    async def _schema(self, question: str, turn: Sequence[AnyMessage]) -> str:
        """Return the schema the writer reads: the catalogue's, else the tools' listing."""
        if self.schema is not None and self.schema.budget_chars > 0:
            try:
                section = await self.schema.prompt_section(question)
            except Exception as exc:  # the listing below serves as well
                logger.warning("candidates: no schema section (%s); listing the tables", exc)
            else:
                if section:
                    return section
        parts: list[str] = []
        if (listing := self.tools.get(LISTING_TOOL)) is not None:
            parts.append(str(await listing.ainvoke({})))
        else:
            readable = [t for t in self.tables if current_scope().can_read(t)]
            parts.append(", ".join(readable))
        named = sorted(
            {
                name
                for message in turn
                if isinstance(message, ToolMessage) and isinstance(message.artifact, dict)
                for name in tables_read(str(message.artifact.get("sql") or ""), self.dialect)
            }
        )[:SCHEMA_TABLES]
        if named and (describe := self.tools.get(DESCRIBING_TOOL)) is not None:
            parts.append(str(await describe.ainvoke({"table_names": named})))
        return "Tables:\n" + "\n\n".join(parts)

    async def _sample(
        self, messages: list[BaseMessage], count: int, spent: list[dict[str, Any]]
    ) -> tuple[list[BaseMessage | BaseException], str]:
        """Return `count` replies (an exception where a call failed) and how they were asked.

        Each call made adds its token usage to `spent` ({} when the server reports none).
        """
        replies: list[BaseMessage | BaseException] = []
        sampling = "parallel"
        if count > 1 and self.n_honoured is not False:
            try:
                replies = list(await self._call(messages, count, spent))
            except Exception as exc:
                logger.info("candidates: a request with n=%d failed (%s); asking apart", count, exc)
            self.n_honoured = len(replies) >= count
            if self.n_honoured:
                return replies[:count], "n"
        missing = count - len(replies)
        calls = [self._call(messages, 1, spent) for _ in range(missing)]
        for outcome in await asyncio.gather(*calls, return_exceptions=True):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            replies.extend(outcome if isinstance(outcome, list) else [outcome])
        return replies, sampling

    async def _call(
        self, messages: list[BaseMessage], n: int, spent: list[dict[str, Any]]
    ) -> list[BaseMessage]:
        """Ask the model once (for `n` choices), bounded by LLM_TIMEOUT, and report the call."""
        options: dict[str, Any] = {"temperature": self.temperature}
        if n > 1:
            options["n"] = n
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.call_timeout):
                result = await self.model.agenerate([messages], **options)
        except BaseException as exc:
            spent.append({})
            cancelled = isinstance(exc, asyncio.CancelledError)
            self._report("cancelled" if cancelled else "error", started, None, exc)
            raise
        replies = [generation.message for generation in result.generations[0]]  # type: ignore[attr-defined]
        first = replies[0] if replies else None
        # A request with n reports its usage once, on every choice: counted once.
        usage = getattr(first, "usage_metadata", None)
        spent.append(dict(usage or {}))
        name = (getattr(first, "response_metadata", None) or {}).get("model_name")
        self._report("ok", started, usage, None, name)
        return replies

    def _report(
        self,
        outcome: str,
        started: float,
        usage: Any,
        error: BaseException | None,
        model: str | None = None,
    ) -> None:
        if self.report_model_call is not None:
            seconds = time.perf_counter() - started
            self.report_model_call(model or self.model_name, outcome, seconds, usage, error)

    async def _run(
        self, reply: BaseMessage | BaseException, state: dict[str, Any], index: int
    ) -> Candidate:
        """Run one candidate's query with run_sql, as the agent's own queries run."""
        if isinstance(reply, BaseException):
            return Candidate(index, None, "model_error", error=type(reply).__name__)
        sql = sql_of(reply)
        if sql is None:
            return Candidate(index, None, "no_sql")
        call = {
            "type": "tool_call",
            "name": RUN_SQL,
            "args": {"sql": sql, "state": state},
            "id": f"candidate_{index}_{time.monotonic_ns()}",
        }
        try:
            result = await self.tools[RUN_SQL].ainvoke(call)
        except Exception as exc:  # a database outage: this candidate only
            return Candidate(index, sql, "error", error=str(exc)[:200])
        artifact = result.artifact if isinstance(result, ToolMessage) else None
        outcome = artifact.get("outcome") if isinstance(artifact, dict) else None
        if outcome == "ok":
            return Candidate(index, sql, "ok", artifact["records"], result)
        status = "refused" if outcome == "refused" else "error"
        return Candidate(index, sql, status, error=str(message_text(result))[:200])
