"""The runner: starts one background task per question, one question at a time per thread."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability

from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.approval.decisions import ApprovalDecision
from react_agent.approval.pending import (
    check_resume,
)
from react_agent.databases.base import SQLDatabase
from react_agent.databases.routing import chosen_source, run_on
from react_agent.errors import ServiceError, classify_exception
from react_agent.log_context import bind_log_ids, current_trace_id
from react_agent.runs.admission.busy_threads import (
    OnBusy,
    claim_when_free,
    interrupted_by_newer_question,
)
from react_agent.runs.admission.queue import Admission, Ticket
from react_agent.runs.events.events import (
    RunFailed,
    RunFinished,
    RunResult,
    RunWaiting,
)
from react_agent.runs.events.listeners import RunAccepted, RunListeners
from react_agent.runs.execution.answer_review import AnswerChecker
from react_agent.runs.execution.answering import GraphTurn, answer_question
from react_agent.runs.run import Run
from react_agent.runs.run_flags import RunFlags
from react_agent.runs.store.locks import Release, ThreadLocks

logger = logging.getLogger(__name__)

NO_FLAGS = RunFlags()
"""A run that reads its thread first and stops for nobody."""


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
        check_answer: AnswerChecker | None = None,
        listeners: RunListeners | None = None,
    ) -> None:
        self.graph = graph
        self.check_answer = check_answer
        """Matches a final answer's figures against its rows (ANSWER_CHECK), or None."""
        self.listeners = listeners if listeners is not None else RunListeners()
        """Told of every run's events (runs/events/listeners): metrics, traces, audit."""
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
        self.source_of_thread: Callable[[str], Awaitable[SQLDatabase | None]] | None = None
        """The data source of a conversation's runs (its dataset, #50.3), set by the service."""

    async def start(
        self,
        question: str,
        thread_id: str,
        *,
        lang: str | None = None,
        stream_tokens: bool = False,
        resume: ApprovalDecision | None = None,
        on_busy: OnBusy = "reject",
        flags: RunFlags = NO_FLAGS,
        scope: Scope | None = None,
        actor: Actor | None = None,
        source: SQLDatabase | None = None,
    ) -> Run:
        """Claim the thread and start answering in the background.

        `scope` is what the asking user may see (None: everything); it is stored with the
        question in the checkpoint, and a resume runs under the stored one. `actor` is who
        asks (kept on the run, where listeners such as the audit read it, and in
        CURRENT_ACTOR within the run's task). `source` is the data source the run reads
        (an asker's dataset; None: the service's database).

        With `flags.approve_sql` the run stops before each query for a person's decision;
        with `flags.clarify` the model may stop it to ask the person (ask_user); with
        `resume` (and no question) it goes on from such a stop with the person's decision
        or answer. `flags.new_thread` says the thread was minted for this question.
        With `on_busy` enqueue or interrupt, a busy thread does not refuse the question:
        the run starts waiting (its first event is RunWaiting) and answers once it holds
        the thread (after interrupting the running question, for interrupt). A resume
        never waits: it answers the stop it names, now or not at all.

        Raises:
            ServiceError: 409 THREAD_BUSY when the thread is already answering a question
                (with on_busy reject); 409 NOT_AWAITING_APPROVAL or STALE_INTERRUPT for a
                resume that answers nothing pending (checked once the thread is ours, so
                two resumes of one interrupt cannot both pass).

        """
        if self.draining:
            raise ServiceError(
                503, "SHUTTING_DOWN", "the service is shutting down; ask again shortly"
            )
        # The conversation's source, read before anything is held: a follow-up, a reload
        # and a resume read what its first question read, whoever sends them.
        source = await self.source_of_thread(thread_id) if self.source_of_thread else None
        ticket = self.admission.reserve() if self.admission is not None else None
        run = Run(thread_id, lang, self.listeners)
        release = await self._claim(run, "reject" if resume else on_busy, ticket)
        if resume is not None and release is not None:
            await self._check_resume(thread_id, resume, release, ticket)
        run.scope = scope
        run.actor = actor
        run.trace_id = current_trace_id()
        # In the caller's context: a listener may take the request's trace as the parent.
        run.report(RunAccepted(question, resume=resume is not None))
        if release is None:
            run.append(RunWaiting(thread_id, "thread_busy"))
            self.waiting.add(run)
        else:
            self.active[thread_id] = run
        if ticket is not None and ticket.waiting:
            self._show_queue_position(run, ticket)
        graph_input = resume if resume is not None else question
        if resume is not None:
            flags = replace(flags, new_thread=False)  # a resume goes on with a stored turn
        # A fresh context: the run must not keep its caller's (an HTTP request's) alive;
        # only the conversation's data source (a dataset) goes along.
        context = contextvars.Context()
        context.run(run_on, source or chosen_source())
        run.task = asyncio.create_task(
            self._execute(run, graph_input, stream_tokens, release, flags, on_busy, ticket),
            name=f"run-{thread_id}",
            context=context,
        )
        return run

    async def _claim(self, run: Run, on_busy: OnBusy, ticket: Ticket | None) -> Release | None:
        """Claim the run's thread; None when it is busy and the run is to wait for it.

        The claim holds the run's liveness too (one round trip on PostgreSQL for both).
        """
        try:
            return await self.locks.claim(run.thread_id, run_id=run.run_id)
        except ServiceError as error:
            if on_busy == "reject" or error.error_type != "THREAD_BUSY":
                if ticket is not None:
                    ticket.release()
                raise
            return None

    async def _check_resume(
        self,
        thread_id: str,
        resume: ApprovalDecision,
        release: Release,
        ticket: Ticket | None,
    ) -> None:
        """Raise the 409 of a resume that answers nothing pending, freeing what it held."""
        try:
            snapshot = await self.graph.aget_state(self.config_for(thread_id))
            check_resume(snapshot, resume, thread_id)
        except BaseException:
            if ticket is not None:
                ticket.release()
            await release()
            raise

    def _show_queue_position(self, run: Run, ticket: Ticket) -> None:
        """Tell the run's followers its place in the admission queue, now and as it moves."""
        assert self.admission is not None

        def moved(position: int) -> None:
            run.append(RunWaiting(run.thread_id, "capacity", position))

        ticket.on_position = moved
        ticket.tell(self.admission.position(ticket))

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

    def config_for(self, thread_id: str) -> dict[str, Any]:
        """Return the graph config of a thread (a run's options go in its RunContext)."""
        return {"configurable": {"thread_id": thread_id}, "recursion_limit": self.recursion_limit}

    async def _execute(
        self,
        run: Run,
        question: str | ApprovalDecision,
        stream_tokens: bool,
        release: Release | None,
        flags: RunFlags,
        on_busy: OnBusy = "reject",
        ticket: Ticket | None = None,
    ) -> None:
        final: RunFinished | RunFailed = RunFailed(
            ServiceError(503, "RUN_CANCELLED", "the run was cancelled")
        )
        # The run's task has a fresh context: its log lines carry the run's own ids.
        user_id = run.thread_id.split(":", 1)[0]
        bind_log_ids(run_id=run.run_id, thread_id=run.thread_id, user_id=user_id)
        bind_log_ids(trace_id=run.trace_id)
        try:
            if release is None:
                release = await claim_when_free(
                    self.locks, run.thread_id, on_busy, self.interrupt, run.run_id
                )
                self.waiting.discard(run)
                self.active[run.thread_id] = run
            if ticket is not None:
                await ticket.wait()  # FIFO, after RUNS_MAX_ACTIVE runs of this process
            turn = GraphTurn(
                self.graph,
                self.config_for(run.thread_id),
                self.run_timeout,
                self.durability,
                self.check_answer,
            )
            final = RunFinished(await answer_question(turn, run, question, stream_tokens, flags))
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
                logger.info("run ended: %s", _describe_end(final))


def _describe_end(final: RunFinished | RunFailed) -> str:
    """Return how a run ended, for its one log line (ids come from the log context)."""
    if isinstance(final, RunFailed):
        return f"{final.error.status} {final.error.error_type}"
    return "awaiting approval" if final.result.approval is not None else "answered"
