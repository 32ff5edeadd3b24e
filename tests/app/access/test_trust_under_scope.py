"""Under the sample policy over HTTP: empty answers say "nothing you may see", candidates scoped.

alice (east_analyst) reads region 1 only. An empty result of hers says so, naming her
filter, in the same words whether or not other regions hold matching rows; root's
(unrestricted) says nothing of scope. Her candidates run as her queries do: the scoped
statement reaches the database, one reported query (an audit record) each.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import SecretStr

from app.http.app_state import agent_service_of
from config import Settings
from react_agent.runs.events.listeners import QueryFinished
from tests.react_agent.access.conftest import POLICY_FILE
from tests.support.candidate_scripts import ByRole, agent_script, fenced
from tests.support.live_server import ServiceClient, running_service
from tests.support.openai_stub import OpenAIStub, Reply

KEYS = {"alice": "alice-key-0123456789", "root": "root-key-012345"}
# No order is this large anywhere; region 2's orders exist, but not for alice.
NOWHERE_SQL = "SELECT order_id, total_amount FROM orders WHERE total_amount > 100000000"
ELSEWHERE_SQL = (
    "SELECT order_id FROM orders WHERE store_id IN "
    "(SELECT store_id FROM stores WHERE region_id = 2)"
)
REGION_SALES_SQL = (
    "SELECT s.store_name, ROUND(SUM(o.total_amount), 2) AS sales FROM orders o "
    "JOIN stores s ON s.store_id = o.store_id GROUP BY s.store_name"
)
SAME_SALES_SQL = (
    "SELECT st.store_name, ROUND(SUM(od.total_amount), 2) FROM stores st "
    "JOIN orders od ON od.store_id = st.store_id GROUP BY st.store_name"
)
NOTE = "🔒 在你可见的 华东 数据中没有符合条件的记录。"


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[user]}"}


class Queries:
    """Keeps every query the runs report (each one is an audit record where audit is on)."""

    def __init__(self) -> None:
        self.finished: list[QueryFinished] = []

    def on_run_event(self, run: Any, event: Any) -> None:
        if isinstance(event, QueryFinished):
            self.finished.append(event)


@pytest.fixture
async def governed(stub_settings: Settings) -> AsyncIterator[ServiceClient]:
    keys = "; ".join(f"{key}={user}" for user, key in KEYS.items())
    policed = stub_settings.model_copy(
        update={"policy_file": POLICY_FILE, "api_keys": SecretStr(keys)}
    )
    async with running_service(policed) as client:
        yield client


async def ask(service: ServiceClient, user: str, question: str) -> dict[str, Any]:
    response = await service.http.post(
        "/api/v0/ask_react_agent", json={"question": question}, headers=bearer(user)
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def test_an_empty_answer_says_nothing_the_asker_may_see_matches(
    governed: ServiceClient, stub: OpenAIStub
):
    stub.default_policy = ByRole(
        [
            *agent_script(NOWHERE_SQL, "没有符合条件的订单。"),
            *agent_script(ELSEWHERE_SQL, "没有符合条件的订单。"),
            *agent_script(NOWHERE_SQL, "没有符合条件的订单。"),
        ],
        [],
    )
    nowhere = await ask(governed, "alice", "有超过一亿元的订单吗")
    elsewhere = await ask(governed, "alice", "二号大区有订单吗")
    unrestricted = await ask(governed, "root", "有超过一亿元的订单吗")

    assert nowhere["react_agent_meta"]["scope_note"] == NOTE
    assert nowhere["response"] == f"没有符合条件的订单。\n\n{NOTE}"
    # Rows outside her scope would have matched: her answer is word for word the same.
    assert elsewhere["response"] == nowhere["response"]
    assert elsewhere["react_agent_meta"]["scope_note"] == NOTE
    assert "scope_note" not in unrestricted["react_agent_meta"]
    assert unrestricted["response"] == "没有符合条件的订单。"


async def test_a_non_empty_answer_under_a_scope_has_no_note(
    governed: ServiceClient, stub: OpenAIStub
):
    stub.default_policy = ByRole(agent_script(REGION_SALES_SQL, "见下表。"), [])
    data = await ask(governed, "alice", "各门店销售额")

    assert data["records"]["total_row_count"] > 0
    assert "scope_note" not in data["react_agent_meta"] and data["response"] == "见下表。"


async def test_candidates_run_under_the_askers_scope_each_reported_as_it_ran(
    stub_settings: Settings, stub: OpenAIStub
):
    keys = "; ".join(f"{key}={user}" for user, key in KEYS.items())
    settings = stub_settings.model_copy(
        update={"policy_file": POLICY_FILE, "api_keys": SecretStr(keys), "answer_candidates": "3"}
    )
    stub.default_policy = ByRole(
        agent_script(REGION_SALES_SQL, "见下表。"),
        [Reply(text=fenced(SAME_SALES_SQL), more_choices=[fenced(REGION_SALES_SQL)])],
    )
    queries = Queries()
    async with running_service(settings) as service:
        agent_service_of(service.app).runner.listeners.add(queries)
        data = await ask(service, "alice", "各门店销售额")

    confidence = data["react_agent_meta"]["confidence"]
    assert (confidence["candidates"], confidence["agreeing"]) == (3, 3)
    assert [q["sql"] for q in confidence["queries"][1:]] in (
        [SAME_SALES_SQL, REGION_SALES_SQL],
        [REGION_SALES_SQL, SAME_SALES_SQL],
    )
    runs = [q for q in queries.finished if q.kind == "run"]
    assert len(runs) == 3 and all(q.outcome == "ok" for q in runs)
    # What reached the database is the scoped statement, never the model's own text.
    assert all(q.sql_run and q.sql_run != q.sql and "region_id" in q.sql_run for q in runs)
    # Her region's stores only: every candidate agreed on her rows, not on everyone's.
    assert data["records"]["total_row_count"] < 20
