"""Ranking tables for a question (Chinese and English), value linking, and callers' filters."""

from __future__ import annotations

import pytest

from react_agent.catalog.context import SchemaContext, describe_search
from react_agent.catalog.search import SchemaIndex
from react_agent.catalog.semantic.model import Semantics
from react_agent.catalog.service import Snapshot
from react_agent.catalog.view import TableAllowList, visible_tables


def top(snapshot: Snapshot, question: str, k: int = 2) -> list[str]:
    return [t.name for t, _ in SchemaIndex(snapshot.tables).rank(question, k)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("每个门店上个月的订单数", {"stores", "orders"}),
        ("哪个品类的商品最多", {"products"}),
        ("会员等级分布", {"customers"}),
        ("revenue of each store", {"orders", "stores"}),
        ("which products have the highest unit cost", {"products"}),
        ("how many customers joined per region", {"customers", "regions"}),
    ],
)
async def test_the_tables_a_question_is_about_rank_first(
    sample_catalog_service, question, expected
):
    snapshot = sample_catalog_service.snapshot

    assert set(top(snapshot, question, len(expected))) == expected


async def test_ranking_without_the_semantic_file_still_uses_names_and_values(sample_data):
    catalog = await sample_data.introspect()
    index = SchemaIndex(visible_tables(catalog, Semantics()))

    assert index.rank("order_items quantity", 1)[0][0].name == "order_items"
    assert index.rank("家用电器", 1)[0][0].name == "products"  # a stored category value


async def test_question_words_that_are_stored_values_are_linked(sample_catalog_service):
    context = SchemaContext(sample_catalog_service, 100_000)
    snapshot = sample_catalog_service.snapshot

    links = context.value_links(snapshot, "华东地区上海徐汇店的已完成订单")
    described = {(link.table, link.column, link.value) for link in links}

    assert ("regions", "region_name", "华东") in described
    assert ("stores", "store_name", "上海徐汇店") in described
    assert ("orders", "status", "已完成") in described
    # 上海 is inside the longer store name: not linked again as a city.
    assert not any(link.value == "上海" for link in links)


async def test_a_value_synonym_links_to_the_stored_value(sample_catalog_service):
    context = SchemaContext(sample_catalog_service, 100_000)

    links = context.value_links(
        sample_catalog_service.snapshot, "Sales in East China by gold members"
    )

    assert {(link.table, link.column, link.value) for link in links} == {
        ("regions", "region_name", "华东"),
        ("customers", "member_level", "金卡"),
    }
    assert links[0].describe() == "- regions.region_name = '华东' (said as 'East China')"


async def test_a_latin_value_matches_whole_words_only(sample_catalog_service):
    context = SchemaContext(sample_catalog_service, 100_000)

    assert context.value_links(sample_catalog_service.snapshot, "the goldfish shop") == []


async def test_the_whole_schema_goes_in_the_prompt_when_it_fits(sample_catalog_service):
    section = await SchemaContext(sample_catalog_service, 12_000).prompt_section("华东的销售额")

    assert section.startswith("Schema: every table you may read")
    for table in ("customers", "order_items", "orders", "products", "regions", "stores"):
        assert f"\n{table} (~" in f"\n{section}"
    assert "- 销售额 = SUM(orders.total_amount)" in section
    assert "- regions.region_name = '华东'" in section


async def test_a_small_budget_gets_the_questions_tables_and_their_neighbours(
    sample_catalog_service,
):
    section = await SchemaContext(sample_catalog_service, 1_500).prompt_section(
        "哪个品类的商品卖得最多"
    )

    assert section.startswith("Schema: the ")
    assert "\nproducts (~60 rows)" in section
    assert "\ncustomers (~" not in section
    assert "search_schema" in section
    assert len(section) <= 1_500


async def test_a_caller_sees_only_readable_and_not_hidden_tables(sample_catalog_service, tmp_path):
    readable = TableAllowList(frozenset({"orders", "regions", "customers"}))
    context = SchemaContext(sample_catalog_service, 12_000, readable)

    section = await context.prompt_section("各门店的会员")
    found = await describe_search(context, "门店 store")

    assert "\nstores (~" not in section and "stores.store_name" not in section
    assert "\nstores (~" not in f"\n{found}"
    assert "\norders (~" in f"\n{section}"
    # Hidden by the semantic file: gone for every caller, whatever they may read.
    path = tmp_path / "semantic.yaml"
    path.write_text("hidden: [customers]\n", encoding="utf-8")
    sample_catalog_service.semantic_file = path
    await sample_catalog_service.refresh()
    section = await context.prompt_section("各门店的会员")
    assert "\norders (~" in f"\n{section}"
    assert "customers" not in section  # not even as the target of orders.customer_id
    assert "customers" not in await describe_search(context, "会员 customers member")


async def test_a_value_in_several_columns_keeps_the_one_the_question_is_about(
    sample_catalog_service,
):
    context = SchemaContext(sample_catalog_service, 100_000)
    snapshot = sample_catalog_service.snapshot

    stores = context.value_links(snapshot, "上海有几家门店")
    members = context.value_links(snapshot, "上海的会员有多少")

    assert [(link.table, link.column) for link in stores] == [("stores", "city")]
    assert [(link.table, link.column) for link in members] == [("customers", "city")]


class ScopeLike:
    """A filter shaped like the access Scope: frozen content in mappings, so not hashable."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, tables: set[str], denied: dict[str, set[str]]) -> None:
        self.tables, self.denied = frozenset(tables), {t: frozenset(c) for t, c in denied.items()}

    def can_read(self, table: str) -> bool:
        return table.lower() in self.tables

    def readable_columns(self, table: str, columns):
        return [c for c in columns if c.lower() not in self.denied.get(table.lower(), ())]

    def to_dict(self) -> dict:
        return {
            "tables": sorted(self.tables),
            "denied": {t: sorted(c) for t, c in self.denied.items()},
        }


async def test_denied_columns_and_their_values_stay_out_for_an_unhashable_scope(
    sample_catalog_service,
):
    scope = ScopeLike({"stores", "regions"}, {"stores": {"city"}})
    context = SchemaContext(sample_catalog_service, 12_000, scope)

    section = await context.prompt_section("上海有几家门店")
    again = await SchemaContext(
        sample_catalog_service, 12_000, ScopeLike({"stores", "regions"}, {"stores": {"city"}})
    ).prompt_section("上海有几家门店")

    assert "\nstores (~32 rows)" in section and "  city " not in section
    assert "stores.city" not in section  # the denied column's values are not linked either
    assert again == section
