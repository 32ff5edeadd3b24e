"""Scripting the agent and the candidate writer apart on the OpenAI stub (ANSWER_CANDIDATES)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from react_agent.results.candidate_sql import CANDIDATE_PROMPT
from tests.support.openai_stub import Reply, ToolCall

# The same result as DEFAULT_SALES_SQL (sales of completed orders per region), written apart.
SAME_SQL = (
    "SELECT r.region_name, ROUND(SUM(o.total_amount), 2) AS total FROM regions r "
    "JOIN stores s ON s.region_id = r.region_id JOIN orders o ON o.store_id = s.store_id "
    "WHERE o.status = '已完成' GROUP BY r.region_name ORDER BY total DESC"
)
# Another reading: every order, whatever its status.
ALL_ORDERS_SQL = (
    "SELECT r.region_name, ROUND(SUM(o.total_amount), 2) AS sales FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id "
    "GROUP BY r.region_name ORDER BY sales DESC"
)
# A third: how many completed orders.
COUNT_SQL = (
    "SELECT r.region_name, COUNT(*) AS orders FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id "
    "WHERE o.status = '已完成' GROUP BY r.region_name"
)
WRITER_OPENING = CANDIDATE_PROMPT.split("{dialect}")[0]


def fenced(sql: str) -> str:
    """Return a candidate reply as a model writes one: the query in a sql block."""
    return f"```sql\n{sql}\n```"


class ByRole:
    """Answers the agent's requests and the candidate writer's from two scripts.

    Handler threads answer concurrently; the candidate requests of one question arrive in
    any order, so each script is read under a lock.
    """

    def __init__(self, agent: Sequence[Reply], candidates: Sequence[Reply]) -> None:
        self.agent, self.candidates = deque(agent), deque(candidates)
        self.lock = threading.Lock()
        self.candidate_requests: list[dict[str, Any]] = []
        self.agent_requests: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        system = next((m for m in body["messages"] if m.get("role") == "system"), {})
        with self.lock:
            if str(system.get("content") or "").startswith(WRITER_OPENING):
                self.candidate_requests.append(body)
                return self.candidates.popleft()
            self.agent_requests.append(body)
            return self.agent.popleft()


def agent_script(sql: str, *answers: str) -> list[Reply]:
    """Return the agent's replies: run `sql`, then answer with each of `answers` in turn."""
    return [
        Reply(tool_calls=[ToolCall("run_sql", {"sql": sql})]),
        *(Reply(text=a) for a in answers),
    ]
