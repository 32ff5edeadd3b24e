"""The runner: starts one background task per question, one question at a time per thread."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.messages import AIMessageChunk, AnyMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability

from react_agent.errors import ServiceError, classify_exception
from react_agent.graph.messages import message_text, stamped
from react_agent.graph.node_names import AGENT
from react_agent.graph.state import new_question_state
from react_agent.runs.admission import Admission, Ticket
from react_agent.runs.busy_threads import OnBusy, claim_when_free, interrupted_by_newer_question
from react_agent.runs.events import (
    NodeFinished,
    RunFailed,
    RunFinished,
    RunResult,
    RunStarted,
    RunWaiting,
    TokenStreamed,
)
from react_agent.runs.run import Run
from react_agent.runs.tally import ResultTally
from react_agent.runs.thread_locks import Release, ThreadLocks
from react_agent.runs.turn_repair import close_unfinished_turn

logger = logging.getLogger(__name__)


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
        admission: Admission | None = None,
    ) -> None:
        self.graph = graph
        self.admission = admission
        self.locks = locks
        self.recursion_limit = recursion_limit
        self.run_timeout = run_timeout
        self.durability = durability
        self.active: dict[str, Run] = {}
        self.waiting: set[Run] = set()
        """Runs waiting for their busy thread (on_busy enqueue or interrupt)."""
        self.interrupt_elsewhere: Callable[[str], Awaitable[None]] | None = None
        """Asks the other processes to interrupt a thread's question (set when shared)."""
        self.draining = False

    async def start(
        self,
        question: str,
        thread_id: str,
        *,
        lang: str | None = None,
        stream_tokens: bool = False,
        on_busy: OnBusy = "reject",
    ) -> Run:
        """Claim the thread and start answering in the background.

        With `on_busy` enqueue or interrupt, a busy thread does not refuse the question:
        the run starts waiting (its first event is RunWaiting) and answers once it holds
        the thread (after interrupting the running question, for interrupt).

        Raises:
            ServiceError: 409 THREAD_BUSY when the thread is already answering a question
                (with on_busy reject).

        """
        if self.draining:
            raise ServiceError(
                503, "SHUTTING_DOWN", "the service is shutting down; ask again shortly"
            )
        ticket = self.admission.reserve() if self.admission is not None else None
        try:
            release: Release | None = await self.locks.claim(thread_id)
        except ServiceError as error:
            if on_busy == "reject" or error.error_type != "THREAD_BUSY":
                if ticket is not None:
                    ticket.release()
                raise
            release = None
        run = Run(thread_id, lang)
        if release is None:
            run.append(RunWaiting(thread_id, "thread_busy"))
            self.waiting.add(run)
        else:
            self.active[thread_id] = run
        if ticket is not None and ticket.waiting:
            self._show_queue_position(run, ticket)
        run.task = asyncio.create_task(
            self._execute(run, question, stream_tokens, release, on_busy, ticket),
            name=f"run-{thread_id}",
            # A fresh context: the run must not keep its caller's (an HTTP request's) alive.
            context=contextvars.Context(),
        )
        return run

    def _show_queue_position(self, run: Run, ticket: Ticket) -> None:
        """Tell the run's followers its place in the admission queue, now and as it moves."""
        assert self.admission is not None

        def moved(position: int) -> None:
            run.append(RunWaiting(run.thread_id, "capacity", position))

        ticket.on_position = moved
        moved(self.admission.position(ticket))

    def cancel_thread_here(self, thread_id: str) -> bool:
        """Interrupt the question running on `thread_id` in this process; False if none."""
        run = self.active.get(thread_id)
        if run is None:
            return False
        run.cancel(interrupted_by_newer_question())
        return True

    async def interrupt(self, thread_id: str) -> None:
        """Interrupt the question running on `thread_id`, here or in another process."""
        if not self.cancel_thread_here(thread_id) and self.interrupt_elsewhere is not None:
            await self.interrupt_elsewhere(thread_id)

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
        runs = [*self.active.values(), *self.waiting]
        tasks = [run.task for run in runs if run.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        for run in runs:
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

    async def _execute(
        self,
        run: Run,
        question: str,
        stream_tokens: bool,
        release: Release | None,
        on_busy: OnBusy = "reject",
        ticket: Ticket | None = None,
    ) -> None:
        final: RunFinished | RunFailed = RunFailed(
            ServiceError(503, "RUN_CANCELLED", "the run was cancelled")
        )
        try:
            if release is None:
                release = await claim_when_free(self.locks, run.thread_id, on_busy, self.interrupt)
                self.waiting.discard(run)
                self.active[run.thread_id] = run
            if ticket is not None:
                await ticket.wait()  # FIFO, after RUNS_MAX_ACTIVE runs of this process
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
            if ticket is not None:
                ticket.release()
            self.waiting.discard(run)
            if self.active.get(run.thread_id) is run:
                del self.active[run.thread_id]
            try:
                # Freed before the last event, so a client that sees it may ask again at once.
                if release is not None:
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
