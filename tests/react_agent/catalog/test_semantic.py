"""The semantic file: shape and names checked against the catalogue, each error with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from react_agent.catalog.semantic.checks import load_semantics
from react_agent.catalog.semantic.model import SemanticFileError
from react_agent.catalog.semantic.parsing import parse_semantics
from react_agent.databases.open import open_database
from react_agent.sample_data import SAMPLE_DATABASE_URL

SAMPLE_FILE = Path(__file__).resolve().parents[3] / "config" / "semantic.sample.yaml"


@pytest.fixture
async def sample_catalog():
    database = await open_database(SAMPLE_DATABASE_URL)
    try:
        return await database.introspect()
    finally:
        await database.aclose()


async def test_the_sample_file_fits_the_sample_database(sample_catalog):
    semantics, problems = load_semantics(SAMPLE_FILE, sample_catalog)

    assert problems == []
    orders = semantics.tables["orders"]
    assert "销售额" in orders.columns["total_amount"].synonyms
    assert "revenue" in orders.columns["total_amount"].synonyms
    assert semantics.tables["regions"].columns["region_name"].value_synonyms["华东"][0] == (
        "East China"
    )
    assert {m.name for m in semantics.metrics} >= {"销售额", "客单价"}


def test_a_wrong_shape_is_refused_with_the_line_of_each_problem():
    text = (
        "tables:\n"  # 1
        "  orders:\n"  # 2
        "    descripton: typo\n"  # 3
        "    columns:\n"  # 4
        "      total_amount: {synonyms: 销售额}\n"  # 5
        "metrics:\n"  # 6
        "  销售额: {description: no sql}\n"  # 7
    )
    with pytest.raises(SemanticFileError) as caught:
        parse_semantics(text, "s.yaml")

    assert caught.value.problems == [
        "s.yaml:3: unknown key 'descripton' in table orders (columns, description, synonyms)",
        "s.yaml:5: synonyms must be a list of strings",
        "s.yaml:7: metric '销售额' needs sql",
    ]


def test_bad_yaml_names_its_line():
    with pytest.raises(SemanticFileError) as caught:
        parse_semantics("tables:\n  orders: [unclosed\n  x: 1\n", "s.yaml")

    assert caught.value.problems[0].startswith("s.yaml:3: ")


async def test_names_the_database_lacks_are_reported_with_their_lines(sample_catalog, tmp_path):
    path = tmp_path / "semantic.yaml"
    path.write_text(
        "tables:\n"  # 1
        "  orders:\n"  # 2
        "    columns:\n"  # 3
        "      total_amount: {description: ok}\n"  # 4
        "      amount_total: {description: typo}\n"  # 5
        "  shipments:\n"  # 6
        "    description: no such table\n"  # 7
        "metrics:\n"  # 8
        "  销售额: {sql: 'SUM(orders.total)'}\n"  # 9
        "joins:\n"  # 10
        "  - {left: customers.city, right: stores.town}\n"  # 11
        "hidden: [regions, audit_log]\n",  # 12
        encoding="utf-8",
    )

    semantics, problems = load_semantics(path, sample_catalog)

    assert problems == [
        "semantic.yaml:5: no column 'amount_total' in table 'orders'",
        "semantic.yaml:6: no table 'shipments' in the database",
        "semantic.yaml:12: hidden table 'audit_log' is not in the database",
        "semantic.yaml:9: metric '销售额': no column orders.total",
        "semantic.yaml:11: join side 'stores.town' is not a table.column of the database",
    ]
    # A file with problems is applied not at all, rather than half.
    assert semantics.tables == {} and semantics.hidden == frozenset()


async def test_a_missing_file_is_a_problem_not_a_crash(sample_catalog, tmp_path):
    semantics, problems = load_semantics(tmp_path / "absent.yaml", sample_catalog)

    assert semantics.tables == {}
    assert len(problems) == 1 and "cannot be read" in problems[0]
