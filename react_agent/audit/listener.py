"""The audit's and the token tally's run listener: a record per query, tokens per model call.

A run listener (react_agent/runs/events/listeners.py) is told of every event of the runs this
process owns. At `RunAccepted` (in the request that started the run) it notes the
question and the actor; each `QueryFinished` becomes an audit record, each `ModelCalled`
adds its tokens to the asker's day; the run's end forgets it. Nothing here waits: records
and tokens are queued for their background writers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from react_agent.access.actor import Actor
from react_agent.access.current import CURRENT_ACTOR
from react_agent.audit.records import AuditRecord, audit_time
from react_agent.runs.events.events import RunFailed, RunFinished
from react_agent.runs.events.listener_reports import tables_read
from react_agent.runs.events.listeners import ListenedRun, ModelCalled, QueryFinished, RunAccepted


class RecordSink(Protocol):
    """Where records go (react_agent.audit.writer.AuditWriter)."""

    def submit(self, record: AuditRecord) -> None:
        """Queue a record for writing."""


class TokenSink(Protocol):
    """Where tokens go (react_agent.quotas.tally.TokenTally)."""

    def add(self, user_id: str, tokens: int) -> None:
        """Count tokens for a user."""


@dataclass(frozen=True)
class RunFacts:
    """What the audit keeps of a run while it lasts: its question and who asked it."""

    question: str
    actor: Actor | None


def thread_owner(thread_id: str) -> Actor:
    """Return the actor a thread id names (`user:…`), for runs started without one."""
    return Actor(user_id=thread_id.partition(":")[0] or thread_id)


class LedgerListener:
    """Turns run events into audit records (with `records`) and token counts (with `tokens`)."""

    def __init__(self, records: RecordSink | None, tokens: TokenSink | None) -> None:
        self.records = records
        self.tokens = tokens
        self.runs: dict[str, RunFacts] = {}

    def on_run_event(self, run: ListenedRun, event: Any) -> None:
        """Take note of one event of `run` (see the module docstring)."""
        if isinstance(event, RunAccepted):
            question = event.question if isinstance(event.question, str) else ""
            self.runs[run.run_id] = RunFacts(question, run.actor or CURRENT_ACTOR.get())
        elif isinstance(event, QueryFinished):
            if self.records is not None:
                self.records.submit(self.record(run, event))
        elif isinstance(event, ModelCalled):
            tokens = (event.prompt_tokens or 0) + (event.completion_tokens or 0)
            if self.tokens is not None and tokens:
                self.tokens.add(self.actor(run).user_id, tokens)
        elif isinstance(event, RunFinished | RunFailed):
            self.runs.pop(run.run_id, None)

    def actor(self, run: ListenedRun) -> Actor:
        """Return who asked `run`'s question: the run's actor, else the thread's owner."""
        facts = self.runs.get(run.run_id)
        return CURRENT_ACTOR.get() or (facts and facts.actor) or thread_owner(run.thread_id)

    def record(self, run: ListenedRun, query: QueryFinished) -> AuditRecord:
        """Return the audit record of one query of `run`."""
        actor = self.actor(run)
        facts = self.runs.get(run.run_id)
        return AuditRecord(
            at=audit_time(),
            user_id=actor.user_id,
            key_id=actor.key_id,
            roles=tuple(actor.roles),
            thread_id=run.thread_id,
            run_id=run.run_id,
            question=(facts.question or None) if facts else None,  # a resume asks none
            model_sql=query.sql,
            run_sql=query.sql_run,
            # A refused query did not run: its tables are those the model's SQL names.
            tables=tuple(query.tables) or tables_read(query.sql, query.backend),
            row_count=query.row_count,
            duration_ms=round(query.seconds * 1000),
            outcome=query.outcome,
            reason=query.reason,
            subagent=(query.subagent or {}).get("id"),
            kind=query.kind,
        )
