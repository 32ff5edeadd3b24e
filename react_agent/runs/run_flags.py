"""A run's pause switches: whether it stops for SQL approval, whether it may ask back."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunFlags:
    """What may pause a run for a person (both off: it answers without stopping)."""

    approve_sql: bool = False
    """Each query waits for a person's approval (react_agent.approval.node)."""
    clarify: bool = False
    """The model may ask the person a clarifying question (react_agent.approval.clarification)."""
