"""Finding the conversation a chat client continues when it sends history but no id.

OpenAI-style clients (the `llm` CLI's `-c`, LangChain's ChatOpenAI) continue a
conversation by sending its earlier messages again, not an id. The conversation they
continue is the user's recent thread whose questions are the earlier user messages, in
order, and whose last answer starts the last assistant message sent back (the answer is
followed there by its SQL and table) — or which waits at a pause (an SQL approval or a
clarifying question), whose message was that reply. Nothing is stored: any worker finds it.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph

from react_agent.conversations.thread_index import list_thread_ids
from react_agent.graph.messages import message_text

RECENT_THREADS = 20
"""How many of the user's most recently updated threads are looked at."""


async def find_continued_thread(
    graph: CompiledStateGraph, user_id: str, questions: list[str], last_reply: str
) -> str | None:
    """Return the user's thread whose questions are `questions` and whose answer ends it.

    Args:
        graph: The compiled graph whose checkpointer holds the conversations.
        user_id: Whose threads to look at.
        questions: The earlier user messages, oldest first.
        last_reply: The last assistant message the client sent back.

    """
    if graph.checkpointer is None or not questions:
        return None
    wanted = [_normal(text) for text in questions]
    reply = _normal(last_reply)
    for thread_id in await list_thread_ids(graph.checkpointer, user_id, RECENT_THREADS):
        snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
        messages = snapshot.values.get("messages", []) if snapshot.values else []
        asked = [_normal(message_text(m)) for m in messages if isinstance(m, HumanMessage)]
        answers = [m for m in messages if isinstance(m, AIMessage) and message_text(m).strip()]
        if asked != wanted:
            continue
        if snapshot.interrupts or (
            answers and reply.startswith(_normal(message_text(answers[-1])))
        ):
            return thread_id
    return None


def _normal(text: str) -> str:
    # Clients may trim or re-wrap what they send back; compare words, not whitespace.
    return " ".join(text.split())
