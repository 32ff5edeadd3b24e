"""Names of the graph's nodes, shared by the graph, the display map and the tests."""

from langgraph.constants import END, START

TRIM_MESSAGES = "trim_messages"
AGENT = "agent"
PREPARE_TOOL_INPUT = "prepare_tool_input"
APPROVE_SQL = "approve_sql"
TOOLS = "tools"
UPDATE_STATE_AFTER_TOOL = "update_state_after_tool"
FORMAT_FINAL_RESPONSE = "format_final_response"
REVIEW_ANSWER = "review_answer"
"""Only with ANSWER_CHECK=repair: checks a first answer and may send it back once."""
COMPARE_CANDIDATES = "compare_candidates"
"""Only with ANSWER_CANDIDATES on: more SQL candidates for an answer, grouped by results."""

QUEUED = "__queued__"
"""Not a node: the stream's progress name for a run waiting to start (display: Queued)."""
SOURCE_WAIT = "__source_wait__"
"""Not a node: the progress name of a statement waiting for its turn on a busy data source."""
RETRIEVE_EXAMPLES = "retrieve_examples"
"""Not a node: the progress name of the memory's retrieval before the model's first call."""

GRAPH_NODES = (
    TRIM_MESSAGES,
    AGENT,
    PREPARE_TOOL_INPUT,
    APPROVE_SQL,
    TOOLS,
    UPDATE_STATE_AFTER_TOOL,
    COMPARE_CANDIDATES,
    REVIEW_ANSWER,
    FORMAT_FINAL_RESPONSE,
)
"""Every node the graph may declare, in the order a tool-using run first meets them
(REVIEW_ANSWER only with ANSWER_CHECK=repair, COMPARE_CANDIDATES only with ANSWER_CANDIDATES)."""

__all__ = [
    "AGENT",
    "APPROVE_SQL",
    "COMPARE_CANDIDATES",
    "END",
    "FORMAT_FINAL_RESPONSE",
    "GRAPH_NODES",
    "PREPARE_TOOL_INPUT",
    "QUEUED",
    "RETRIEVE_EXAMPLES",
    "REVIEW_ANSWER",
    "SOURCE_WAIT",
    "START",
    "TOOLS",
    "TRIM_MESSAGES",
    "UPDATE_STATE_AFTER_TOOL",
]
