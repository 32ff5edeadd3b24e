"""A run's switches: whether it stops for SQL approval, may ask back, starts a new thread."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunFlags:
    """How a run goes (all off: it answers on a thread it reads first, without stopping)."""

    approve_sql: bool = False
    """Each query waits for a person's approval (react_agent.approval.node)."""
    clarify: bool = False
    """The model may ask the person a clarifying question (react_agent.approval.clarification)."""
    new_thread: bool = False
    """The thread id was minted for this question (never handed out before, app/asking/
    thread_ids), so it has no checkpoint: the run reads none before it starts, one
    statement or trip less per new conversation. Never set for a thread a client named."""
