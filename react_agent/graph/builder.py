"""The ReAct graph: trim, think, run tools, repeat, answer."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode

from react_agent.graph.features import GraphParts
from react_agent.graph.hooks import AnswerCandidates, AnswerReview
from react_agent.graph.node_names import (
    AGENT,
    APPROVE_SQL,
    COMPARE_CANDIDATES,
    END,
    FORMAT_FINAL_RESPONSE,
    PREPARE_TOOL_INPUT,
    REVIEW_ANSWER,
    START,
    TOOLS,
    TRIM_MESSAGES,
    UPDATE_STATE_AFTER_TOOL,
)
from react_agent.graph.nodes.tool_calls import ToolCallErrors
from react_agent.graph.run_context import RunContext
from react_agent.graph.state import AgentState


def build_graph(parts: GraphParts, checkpointer: BaseCheckpointSaver | None) -> CompiledStateGraph:
    """Wire the nodes into the ReAct loop and compile it with the checkpointer.

    With a tool gate (approval), runs that ask for it stop before each query for a
    person's decision. With a review (ANSWER_CHECK=repair), a question's first answer is
    checked against its rows before it is final, and one with unsupported figures goes
    back to the model once. With candidates (ANSWER_CANDIDATES), an answer resting on a
    query is first weighed against more candidates; one the majority contradicts goes back.
    """
    nodes, tools, approval = parts.bound_nodes(), list(parts.tools), parts.gate
    review, candidates = parts.review, parts.candidates
    # What a run asks (its language, its pauses) comes as its typed context (run_context).
    builder = StateGraph(AgentState, context_schema=RunContext)
    builder.add_node(TRIM_MESSAGES, nodes.trim_messages)
    builder.add_node(AGENT, nodes.call_model)
    builder.add_node(PREPARE_TOOL_INPUT, nodes.prepare_tool_input)
    # Unknown tools, bad arguments and refused or failed SQL come back to the model as
    # tool errors to correct; a ServiceError (a database outage) ends the run with its code.
    errors = ToolCallErrors(tools)
    builder.add_node(
        TOOLS, ToolNode(tools, handle_tool_errors=errors.describe, awrap_tool_call=errors.vet)
    )
    builder.add_node(UPDATE_STATE_AFTER_TOOL, nodes.update_state_after_tool)
    builder.add_node(FORMAT_FINAL_RESPONSE, nodes.format_final_response)

    # Every question starts by choosing what part of the history the model sees.
    builder.add_edge(START, TRIM_MESSAGES)
    builder.add_edge(TRIM_MESSAGES, AGENT)
    # The model either asks for tools or answers (also when the step limit is near).
    answering = [
        *([COMPARE_CANDIDATES] if candidates else []),
        *([REVIEW_ANSWER] if review else []),
        FORMAT_FINAL_RESPONSE,
    ]
    # An answer may be weighed against candidates, then checked, on its way out.
    route = _reviewing(nodes.route_model_output, review, candidates)
    builder.add_conditional_edges(AGENT, route, [PREPARE_TOOL_INPUT, *answering])
    if candidates is not None:
        builder.add_node(COMPARE_CANDIDATES, candidates.compare_candidates)
        # The majority's rows go back to the agent to answer from; else on to the answer.
        builder.add_conditional_edges(
            COMPARE_CANDIDATES,
            _reviewing(candidates.route_after_candidates, review, None),
            [AGENT, *answering[1:]],
        )
    if review is not None:
        # A first answer is checked on its way out; an unsupported one gets one repair turn.
        builder.add_node(REVIEW_ANSWER, review.review_answer)
        builder.add_conditional_edges(
            REVIEW_ANSWER, review.route_after_review, [AGENT, FORMAT_FINAL_RESPONSE]
        )
    if approval is None:
        builder.add_edge(PREPARE_TOOL_INPUT, TOOLS)
    else:
        # Approval: queries wait for a person, one interrupt each, when the run
        # asks for it; the calls not rejected then go to the tools.
        builder.add_node(APPROVE_SQL, approval.approve_sql)
        builder.add_conditional_edges(
            PREPARE_TOOL_INPUT, approval.route_after_prepare, [APPROVE_SQL, TOOLS]
        )
        builder.add_conditional_edges(
            APPROVE_SQL,
            approval.route_after_approval,
            [APPROVE_SQL, TOOLS, UPDATE_STATE_AFTER_TOOL],
        )
    builder.add_edge(TOOLS, UPDATE_STATE_AFTER_TOOL)
    # Tool results go back to the model, which decides what to do next.
    builder.add_edge(UPDATE_STATE_AFTER_TOOL, AGENT)
    builder.add_edge(FORMAT_FINAL_RESPONSE, END)
    return builder.compile(checkpointer=checkpointer, name="sql_react_agent")


def _reviewing(
    route: Callable[[AgentState], str],
    review: AnswerReview | None,
    candidates: AnswerCandidates | None,
) -> Callable[..., str]:
    """Return `route` with answers the candidates, then the review, want to see sent there."""

    def route_with_review(state: AgentState) -> str:
        target = route(state)
        if target != FORMAT_FINAL_RESPONSE:
            return target
        if candidates is not None and candidates.wants_candidates(state):
            return COMPARE_CANDIDATES
        if review is not None and review.wants_review(state):
            return REVIEW_ANSWER
        return target

    return route_with_review
