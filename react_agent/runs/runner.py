"""Running questions: one background task per question, with an event log clients follow."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, AnyMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability

from config import localize
from react_agent.errors import ServiceError, classify_exception
from react_agent.graph.node_names import AGENT
from react_agent.graph.nodes import (
    INTERRUPTED_MARKER,
    message_text,
    requests_tools,
    stamped,
    unanswered_tool_results,
)
from react_agent.graph.state import new_question_state
from react_agent.runs.thread_locks import ThreadLocks

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunResult:
    """What one question's run produced, read from the thread's final state."""

    thread_id: str
    answer: str
    execution_path: list[str]
    tools_used: list[str]
    sql: str | None
    records: dict[str, Any] | None
    sql_execution_count: int
    total_messages: int
    conversation_rounds: int
    sql_refusal_count: int = 0
    examples_used: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RunStarted:
    """The run holds its thread and is about to call the model."""

    thread_id: str


@dataclass(frozen=True)
class NodeFinished:
    """A graph node finished; `tool_names` are the tools it ran (for the tools node)."""

    node: str
    step: int
    tool_names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TokenStreamed:
    """New answer text from the model."""

    content: str


@dataclass(frozen=True)
class RunFinished:
    """The run ended with an answer."""

    result: RunResult


@dataclass(frozen=True)
class RunFailed:
    """The run ended with an error."""

    error: ServiceError


RunEvent = RunStarted | NodeFinished | TokenStreamed | RunFinished | RunFailed


class Run:
    """One question being answered: a task, and the log of its events in order."""

    def __init__(self, thread_id: str, lang: str | None) -> None:
        self.run_id = uuid.uuid4().hex
        self.thread_id = thread_id
        self.lang = lang
        self.events: list[RunEvent] = []
        self.task: asyncio.Task[None] | None = None
        self.cancel_reason: ServiceError | None = None
        self._appended = asyncio.Event()

    @property
    def done(self) -> bool:
        """Whether the final event (RunFinished or RunFailed) is in the log."""
        return bool(self.events) and isinstance(self.events[-1], RunFinished | RunFailed)

    def append(self, event: RunEvent) -> None:
        """Add an event and wake every follower."""
        self.events.append(event)
        self._appended.set()
        self._appended = asyncio.Event()

    async def follow(
        self, after: int = 0, *, idle_timeout: float | None = None
    ) -> AsyncIterator[tuple[int, RunEvent | None]]:
        """Yield `(seq, event)` for events after sequence number `after`, until the end.

        Sequence numbers start at 1. With `idle_timeout`, `(seq, None)` is yielded each time
        that many seconds pass without an event (streams send a heartbeat then).
        """
        index = after
        while True:
            while index < len(self.events):
                index += 1
                yield index, self.events[index - 1]
            if self.done:
                return
            try:
                await asyncio.wait_for(self._appended.wait(), idle_timeout)
            except TimeoutError:
                yield index, None

    async def outcome(self) -> RunResult:
        """Wait for the end of the run; return its result or raise its error."""
        async for _, event in self.follow(len(self.events) - 1 if self.done else 0):
            if isinstance(event, RunFinished):
                return event.result
            if isinstance(event, RunFailed):
                raise event.error
        raise ServiceError(500, "AGENT_FAILED", "run ended without a result")

    async def result(self) -> RunResult:
        """Like `outcome`, but the run is cancelled if the caller is (its client went away)."""
        try:
            return await self.outcome()
        except asyncio.CancelledError:
            self.cancel()
            raise

    def cancel(self, reason: ServiceError | None = None) -> None:
        """Stop the run (its model call and any running query); `reason` is its error."""
        if self.task is not None and not self.task.done():
            self.cancel_reason = reason
            self.task.cancel()


class AgentRunner:
    """Starts runs of the compiled graph, one at a time per thread.

    Args:
        graph: The compiled graph (with its checkpointer).
        locks: Who may run on which thread.
        recursion_limit: LangGraph's step limit per question.
        run_timeout: Seconds a question may take in all.

    """

    def __init__(
        self,
        graph: CompiledStateGraph,
        locks: ThreadLocks,
        *,
        recursion_limit: int,
        run_timeout: float,
        durability: Durability = "sync",
    ) -> None:
        self.graph = graph
        self.locks = locks
        self.recursion_limit = recursion_limit
        self.run_timeout = run_timeout
        self.durability = durability
        self.active: dict[str, Run] = {}
        self.draining = False

    async def start(
        self, question: str, thread_id: str, *, lang: str | None = None, stream_tokens: bool = False
    ) -> Run:
        """Claim the thread and start answering in the background.

        Raises:
            ServiceError: 409 THREAD_BUSY when the thread is already answering a question.

        """
        if self.draining:
            raise ServiceError(
                503, "SHUTTING_DOWN", "the service is shutting down; ask again shortly"
            )
        release = await self.locks.claim(thread_id)
        run = Run(thread_id, lang)
        self.active[thread_id] = run
        run.task = asyncio.create_task(
            self._execute(run, question, stream_tokens, release),
            name=f"run-{thread_id}",
            # A fresh context: the run must not keep its caller's (an HTTP request's) alive.
            context=contextvars.Context(),
        )
        return run

    async def ask(self, question: str, thread_id: str, *, lang: str | None = None) -> RunResult:
        """Answer a question and return the result; cancelling the caller cancels the run."""
        run = await self.start(question, thread_id, lang=lang)
        return await run.result()

    async def drain(self, grace: float) -> None:
        """Refuse new runs, give running ones `grace` seconds, then cancel the rest.

        A cancelled run ends with a 503 SHUTTING_DOWN error (its stream's `error` event);
        its thread keeps every finished step and the next question closes the turn.
        """
        self.draining = True
        tasks = [run.task for run in self.active.values() if run.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        for run in list(self.active.values()):
            run.cancel(
                ServiceError(
                    503, "SHUTTING_DOWN", "the service is shutting down; ask again shortly"
                )
            )
        await asyncio.gather(*tasks, return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel every run still going and wait for them to end."""
        await self.drain(0)

    def config_for(self, thread_id: str, lang: str | None = None) -> dict[str, Any]:
        """Return the graph config of a thread."""
        return {
            "configurable": {"thread_id": thread_id, "lang": lang},
            "recursion_limit": self.recursion_limit,
        }

    async def _execute(self, run: Run, question: str, stream_tokens: bool, release: Any) -> None:
        final: RunFinished | RunFailed = RunFailed(
            ServiceError(503, "RUN_CANCELLED", "the run was cancelled")
        )
        try:
            final = RunFinished(await self._answer(run, question, stream_tokens))
        except asyncio.CancelledError:
            final = RunFailed(run.cancel_reason or final.error)
            raise
        except TimeoutError:
            final = RunFailed(
                ServiceError(
                    504, "RUN_TIMEOUT", f"the question took longer than {self.run_timeout:g} s"
                )
            )
        except Exception as exc:
            error = classify_exception(exc)
            if error.error_type == "AGENT_FAILED":
                logger.exception("run on thread %s failed", run.thread_id)
            final = RunFailed(error)
        finally:
            if self.active.get(run.thread_id) is run:
                del self.active[run.thread_id]
            try:
                # Freed before the last event, so a client that sees it may ask again at once.
                await release()
            finally:
                run.append(final)

    async def _answer(self, run: Run, question: str, stream_tokens: bool) -> RunResult:
        config = self.config_for(run.thread_id, run.lang)
        path: list[str] = []
        # The thread is claimed, so the run has started: say so before any slower step.
        run.append(RunStarted(run.thread_id))
        async with asyncio.timeout(self.run_timeout):
            snapshot = await self.graph.aget_state(config)
            history: list[AnyMessage] = snapshot.values.get("messages", [])
            closing = close_unfinished_turn(history, run.lang)
            graph_input = {
                "messages": [*closing, stamped(HumanMessage(question))],
                **new_question_state(),
            }
            # The result is read from the updates, not from the checkpoint afterwards: that
            # would load and decode the whole conversation again for every question.
            tally = ResultTally(history, graph_input)
            modes = ["updates", "messages"] if stream_tokens else ["updates"]
            async for mode, chunk in self.graph.astream(
                graph_input, config, stream_mode=modes, durability=self.durability
            ):
                if mode == "updates":
                    for node, update in chunk.items():
                        path.append(node)
                        tally.add(update)
                        run.append(NodeFinished(node, len(path), _tool_names(update)))
                else:
                    token = _answer_token(chunk)
                    if token:
                        run.append(TokenStreamed(token))
        return tally.result(run.thread_id, path)


class ResultTally:
    """Builds a question's result from its run's node updates.

    The per-question fields are plain values each update replaces; messages are counted by
    id, because a node may re-send a message (same id) to replace it.
    """

    def __init__(self, history: Sequence[AnyMessage], graph_input: dict[str, Any]) -> None:
        self.values = {k: v for k, v in graph_input.items() if k != "messages"}
        self.message_ids = {m.id for m in history if m.id}
        self.total_messages = len(history)
        self.rounds = sum(isinstance(m, HumanMessage) for m in history)
        self.add(graph_input)

    def add(self, update: Any) -> None:
        """Take one node's update into account."""
        if not isinstance(update, dict):
            return
        for key, value in update.items():
            if key != "messages":
                self.values[key] = value
                continue
            for message in value:
                if message.id is None or message.id not in self.message_ids:
                    self.total_messages += 1
                    self.rounds += isinstance(message, HumanMessage)
                if message.id:
                    self.message_ids.add(message.id)

    def result(self, thread_id: str, path: list[str]) -> RunResult:
        """Return the question's result."""
        values = self.values
        return RunResult(
            thread_id=thread_id,
            answer=values.get("final_answer") or "",
            execution_path=list(path),
            tools_used=list(values.get("tools_used") or []),
            sql=values.get("sql"),
            records=values.get("records"),
            sql_execution_count=int(values.get("sql_execution_count") or 0),
            sql_refusal_count=int(values.get("sql_refusal_count") or 0),
            examples_used=list(values.get("examples_used") or []),
            total_messages=self.total_messages,
            conversation_rounds=self.rounds,
        )


def close_unfinished_turn(messages: Sequence[AnyMessage], lang: str | None) -> list[AnyMessage]:
    """Return messages that close a turn a crash or disconnect left open.

    Tool calls without results would make the next model call fail, so each gets an
    error result, and an interrupted question gets an answer saying so.
    """
    if not messages:
        return []
    last = messages[-1]
    if isinstance(last, AIMessage) and not requests_tools(last):
        return []
    closing: list[AnyMessage] = [
        *unanswered_tool_results(messages, "Not run: the question was interrupted.")
    ]
    closing.append(
        AIMessage(
            localize("INTERRUPTED_ANSWER", lang), response_metadata={INTERRUPTED_MARKER: True}
        )
    )
    return [stamped(message) for message in closing]


def _tool_names(update: Any) -> list[str]:
    if not isinstance(update, dict):
        return []
    return [
        message.name
        for message in update.get("messages", [])
        if getattr(message, "type", None) == "tool" and message.name
    ]


def _answer_token(chunk: Any) -> str:
    message, metadata = chunk
    if metadata.get("langgraph_node") != AGENT or not isinstance(message, AIMessageChunk):
        return ""
    return message_text(message)
