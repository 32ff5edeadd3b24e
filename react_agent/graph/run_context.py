"""What one run asks of the graph, typed: its language and what may pause it for a person.

LangGraph's run context (the graph's `context_schema`): the runner passes it to every
`astream`, a resume included, and the delegate tool passes it on to the sub-agents. It is
never checkpointed. Nodes, routers and tools read it with `run_context()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.runtime import get_runtime


@dataclass(frozen=True)
class RunContext:
    """The options of one run (all off: it answers in the default language without pausing)."""

    lang: str | None = None
    """The language of the fixed texts the graph writes (config.localize), None: the default."""
    approve_sql: bool = False
    """Each query waits for a person's approval (react_agent.approval.node)."""
    clarify: bool = False
    """The model may ask the person a clarifying question (react_agent.approval.clarification)."""


def run_context() -> RunContext:
    """Return the context of the run being executed; the defaults outside one."""
    try:
        context = get_runtime(RunContext).context
    except RuntimeError:  # not inside a graph run (a tool called directly)
        return RunContext()
    return context if isinstance(context, RunContext) else RunContext()
