"""The scope a run's task reads: a new question's, or for a resume the stricter of two."""

from __future__ import annotations

from typing import Any

from react_agent.access.current import CURRENT_ACTOR, CURRENT_SCOPE
from react_agent.access.scope import Scope
from react_agent.access.stricter import stricter_scope
from react_agent.runs.run import Run


def scope_of_run(run: Run, snapshot: Any, graph_input: Any) -> Scope:
    """Set the run's scope for its task (tools read it): a new question's, or a resume's.

    A new question stores its scope in the checkpoint. A resume (graph_input a Command)
    runs under the stricter of the one its question started with and the one the policy
    gives the asker now (`run.scope`, resolved by the resume request): access cut while
    the question waited is cut for its resume too.
    """
    if isinstance(graph_input, dict):
        scope = run.scope or Scope.allow_all()
        graph_input["access_scope"] = scope.to_dict() if run.scope is not None else None
    else:
        stored = snapshot.values.get("access_scope")
        started = Scope.from_dict(stored) if stored else None
        if started is not None and run.scope is not None:
            scope = stricter_scope(started, run.scope)
        else:
            scope = started or run.scope or Scope.allow_all()
    run.scope = scope
    CURRENT_SCOPE.set(scope)
    CURRENT_ACTOR.set(run.actor)
    return scope
