"""The scope a run's task reads: a new question's, or the one its paused question stored."""

from __future__ import annotations

from typing import Any

from react_agent.access.current import CURRENT_ACTOR, CURRENT_SCOPE
from react_agent.access.scope import Scope
from react_agent.runs.run import Run


def scope_of_run(run: Run, snapshot: Any, graph_input: Any) -> Scope:
    """Set the run's scope for its task (tools read it): a new question's, or the stored one.

    A new question stores its scope in the checkpoint; a resume (graph_input a Command)
    takes the one its question started with, wherever that was.
    """
    if isinstance(graph_input, dict):
        scope = run.scope or Scope.allow_all()
        graph_input["access_scope"] = scope.to_dict() if run.scope is not None else None
    else:
        stored = snapshot.values.get("access_scope")
        scope = Scope.from_dict(stored) if stored else run.scope or Scope.allow_all()
    run.scope = scope
    CURRENT_SCOPE.set(scope)
    CURRENT_ACTOR.set(run.actor)
    return scope
