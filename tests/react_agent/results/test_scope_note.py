"""The scope note's words on the sample data: how each filter value is named, and when none is."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.results.scope_note import ScopeNote
from react_agent.sample_data import SAMPLE_DATABASE_URL
from tests.react_agent.access.conftest import POLICY_FILE

EMPTY_ORDERS = "SELECT order_id FROM orders WHERE total_amount > 100000000"
PRODUCTS = "SELECT product_name FROM products WHERE unit_price < 0"


@pytest.fixture
async def database() -> AsyncIterator[SQLDatabase]:
    opened = await open_database(SAMPLE_DATABASE_URL)
    try:
        yield opened
    finally:
        await opened.aclose()


def alice() -> Scope:
    policy = load_policy(POLICY_FILE)
    return policy.scope_for(policy.actor_for("alice"))


async def test_an_id_is_named_by_the_one_name_the_asker_reads_beside_it(database):
    note = ScopeNote(database, TableColumns(database))

    assert await note.line(alice(), EMPTY_ORDERS, "zh-CN") == (
        "🔒 在你可见的 华东 数据中没有符合条件的记录。"
    )
    assert await note.line(alice(), EMPTY_ORDERS, "en-US") == (
        "🔒 Nothing in the data you may see (华东) matches."
    )


async def test_a_text_attribute_is_shown_as_it_is_and_an_id_without_a_name_as_name_value(
    database,
):
    by_name = Scope(row_filters={"regions": "region_name = :region"}, parameters={"region": "华南"})
    # No table is filtered by the store id alone: nothing names store 3.
    by_store = Scope(row_filters={"orders": "store_id = :store_id"}, parameters={"store_id": 3})
    note = ScopeNote(database)

    sql = "SELECT region_id FROM regions WHERE region_id > 99"
    assert await note.line(by_name, sql, "zh-CN") == "🔒 在你可见的 华南 数据中没有符合条件的记录。"
    assert await note.line(by_store, EMPTY_ORDERS, "en-US") == (
        "🔒 Nothing in the data you may see (store_id=3) matches."
    )


async def test_a_query_of_unfiltered_tables_gets_no_note_and_a_db_role_one_naming_nothing(
    database,
):
    note = ScopeNote(database)
    under_role = Scope(db_role="east_analyst")

    assert await note.line(alice(), PRODUCTS, "zh-CN") is None  # products are not filtered
    assert await note.line(Scope.allow_all(), EMPTY_ORDERS, "zh-CN") is None
    assert (
        await note.line(under_role, PRODUCTS, "zh-CN") == "🔒 在你可见的数据中没有符合条件的记录。"
    )
