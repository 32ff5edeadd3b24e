"""The one seam optional features attach to the graph through: parts in, parts out.

service/assembly.py starts from the SQL tools and the plain nodes, then lets each feature
of service/graph_features.py (history, memory retrieval, the schema catalogue, sub-agents,
clarifying questions, SQL approval) add its tools, fill a hook of the nodes or set the
tool gate, in order; the graph is built from what comes out. A new feature (a per-user
data scope, say) is one more `GraphFeature`, not an edit of graph/.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import chain, combinations
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from react_agent.graph.hooks import AnswerCandidates, AnswerReview, ToolGate
from react_agent.graph.nodes.agent import AgentNodes


@dataclass(frozen=True)
class GraphParts:
    """What a graph is built from.

    Args:
        nodes: The node functions; their model is set to `model` bound to `tools` at build.
        model: The chat model, not bound to tools.
        tools: The tools the model may call, in the order it is told of them.
        gate: Holds tool calls for a decision before they run (approval); None holds none.
        review: Sees a question's first answer before it is final (ANSWER_CHECK=repair).
        candidates: Checks an answer's query against more candidates (ANSWER_CANDIDATES).

    """

    nodes: AgentNodes
    model: BaseChatModel
    tools: tuple[BaseTool, ...] = ()
    gate: ToolGate | None = None
    review: AnswerReview | None = None
    candidates: AnswerCandidates | None = None

    def adding(self, tools: list[BaseTool] | None = None, **hooks: Any) -> GraphParts:
        """Return these parts with `tools` after the others and `hooks` set on the nodes."""
        nodes = replace(self.nodes, **hooks) if hooks else self.nodes
        return replace(self, nodes=nodes, tools=(*self.tools, *(tools or [])))

    def bound_nodes(self) -> AgentNodes:
        """Return the nodes with the model bound to the tools, and to all but some.

        One binding for each set of the tools a run may be denied (ask_tool, check_tool).
        """
        nodes = replace(self.nodes, model=self.model.bind_tools(list(self.tools)))
        optional = [name for name in (self.nodes.ask_tool, self.nodes.check_tool) if name]
        subsets = chain.from_iterable(combinations(optional, n) for n in (1, 2))
        sets = {frozenset(names) for names in subsets}
        bound = {
            names: self.model.bind_tools([tool for tool in self.tools if tool.name not in names])
            for names in sorted(sets, key=sorted)
        }
        return replace(nodes, bound_without=bound)


class GraphFeature(Protocol):
    """An optional part of the graph: tools, a hook of the nodes, or the tool gate."""

    def attach(self, parts: GraphParts) -> GraphParts:
        """Return `parts` with this feature added."""
