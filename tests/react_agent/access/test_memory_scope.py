"""Memory retrieval under a scope: examples whose SQL reads outside it are never shown."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from config import Settings
from react_agent.access.current import CURRENT_SCOPE
from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scope import Scope
from react_agent.access.scoping.reach import reads_within
from react_agent.memory.examples import DOCUMENTATION, SQL
from react_agent.memory.store import Memory, open_memory
from tests.react_agent.access.conftest import POLICY_FILE
from tests.react_agent.access.test_policy_file import CATALOG


@pytest.fixture
async def memory(settings: Settings) -> AsyncIterator[Memory]:
    async with open_memory(settings.model_copy(update={"memory_examples_k": 10})) as opened:
        yield opened


def support_scope() -> Scope:
    policy = load_policy(POLICY_FILE, {**CATALOG, "secrets": ["x"]})
    return policy.scope_for(policy.actor_for("bob"))


@pytest.mark.parametrize(
    ("sql", "inside"),
    [
        ("SELECT product_name, unit_price FROM products", True),
        ("WITH t AS (SELECT * FROM orders) SELECT count(*) FROM t", True),
        ("SELECT avg(unit_price - unit_cost) FROM products", False),
        ("SELECT * FROM secrets", False),
        ("SELECT * FROM orders JOIN secrets USING (order_id)", False),
        ("SELECT FROM WHERE (", False),
    ],
)
def test_an_example_is_inside_the_scope_only_without_unreadable_tables_or_columns(sql, inside):
    assert reads_within(sql, support_scope()) is inside
    assert reads_within(sql, Scope.allow_all()) is True


async def test_retrieval_skips_examples_outside_the_running_questions_scope(memory: Memory):
    margin = await memory.examples.add(
        SQL, "product margin", "SELECT product_name, unit_price - unit_cost FROM products"
    )
    price = await memory.examples.add(SQL, "product price", "SELECT product_name FROM products")
    note = await memory.examples.add(DOCUMENTATION, None, "product margin is price minus cost")
    everything = {item.id for item in await memory.retriever.search("product margin price")}
    assert everything == {margin.id, price.id, note.id}
    token = CURRENT_SCOPE.set(support_scope())
    try:
        scoped = {item.id for item in await memory.retriever.search("product margin price")}
    finally:
        CURRENT_SCOPE.reset(token)
    assert scoped == {price.id, note.id}
