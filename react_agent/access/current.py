"""The scope of the run in progress, set by the runner for its task (sub-agents inherit it)."""

from __future__ import annotations

from contextvars import ContextVar

from react_agent.access.actor import Actor
from react_agent.access.scope import Scope

CURRENT_SCOPE: ContextVar[Scope | None] = ContextVar("access_scope", default=None)
"""The running question's scope; None outside a run (tools then allow everything)."""
CURRENT_ACTOR: ContextVar[Actor | None] = ContextVar("access_actor", default=None)
"""Who asked the running question; None outside a run."""


def current_scope() -> Scope:
    """Return the running question's scope, or the allow-all scope outside a run."""
    return CURRENT_SCOPE.get() or Scope.allow_all()
