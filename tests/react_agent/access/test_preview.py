"""`python -m react_agent.access.preview USER` against the sample policy and database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from react_agent.access.preview import bind_parameters, main
from react_agent.sample_data import SAMPLE_DATABASE_URL, SAMPLE_DB_PATH

POLICY_FILE = Path(__file__).resolve().parents[3] / "config" / "policy.sample.yaml"
EAST_TABLES = ["customers", "order_items", "orders", "products", "regions", "stores"]
# Region 1's rows per table, counted straight from the file: what alice may see.
REGION_ONE_COUNTS = {
    "customers": "SELECT COUNT(*) FROM customers WHERE region_id = 1",
    "order_items": "SELECT COUNT(*) FROM order_items WHERE order_id IN (SELECT order_id FROM "
    "orders WHERE store_id IN (SELECT store_id FROM stores WHERE region_id = 1))",
    "orders": "SELECT COUNT(*) FROM orders WHERE store_id IN "
    "(SELECT store_id FROM stores WHERE region_id = 1)",
    "products": "SELECT COUNT(*) FROM products",
    "regions": "SELECT COUNT(*) FROM regions WHERE region_id = 1",
    "stores": "SELECT COUNT(*) FROM stores WHERE region_id = 1",
}


def _preview(user: str, monkeypatch: pytest.MonkeyPatch, capsys) -> str:
    monkeypatch.setenv("POLICY_FILE", str(POLICY_FILE))
    monkeypatch.setenv("DATA_DATABASE_URL", SAMPLE_DATABASE_URL)
    assert main([user]) == 0
    return capsys.readouterr().out


def _blocks(text: str) -> dict[str, list[str]]:
    """Return each readable table's lines (its first line, then its rules)."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            current = line.strip().split(":")[0]
            blocks[current] = [line.strip()]
        elif line.startswith("    ") and current:
            blocks[current].append(line.strip())
    return blocks


def test_alice_sees_region_one_with_her_filters_bound_and_the_oracle_counts(
    monkeypatch: pytest.MonkeyPatch, capsys
):
    out = _preview("alice", monkeypatch, capsys)
    blocks = _blocks(out)
    assert out.startswith("user alice: roles east_analyst")
    assert sorted(blocks) == EAST_TABLES
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        expected = {
            t: connection.execute(sql).fetchone()[0] for t, sql in REGION_ONE_COUNTS.items()
        }
        every_table = [
            r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
    for table, count in expected.items():
        assert blocks[table][0] == f"{table}: {count} row(s) visible"
    assert "filter: region_id = 1" in blocks["stores"]
    assert any(":region_id" not in line and "region_id = 1" in line for line in blocks["orders"])
    assert "filter: none (all rows)" in blocks["products"]
    assert "denied columns: unit_cost" in blocks["products"]
    assert "sensitive columns (masked): customer_name" in blocks["customers"]
    hidden = sorted(set(every_table) - set(EAST_TABLES))
    assert out.rstrip().endswith(f"not readable: {', '.join(hidden) or '(none)'}")


def test_an_unlisted_user_gets_the_default_role_unfiltered(monkeypatch: pytest.MonkeyPatch, capsys):
    out = _preview("someone-else", monkeypatch, capsys)
    assert "(not in the policy: the default role): roles support" in out
    blocks = _blocks(out)
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        (orders,) = connection.execute("SELECT COUNT(*) FROM orders").fetchone()
    assert blocks["orders"][:2] == [f"orders: {orders} row(s) visible", "filter: none (all rows)"]
    assert all("filter: region_id" not in line for b in blocks.values() for line in b)


def test_without_a_policy_file_the_preview_says_so(monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.delenv("POLICY_FILE", raising=False)
    monkeypatch.chdir(Path(__file__).parent)  # no .env here
    assert main(["alice"]) == 2
    assert "POLICY_FILE is not set" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "dialect", "expected"),
    [
        (1, "sqlite", "region_id = 1"),
        ("华东", "postgres", "region_id = '华东'"),
        ("o'brien", "mysql", "region_id = 'o''brien'"),
        (2.5, "duckdb", "region_id = 2.5"),
        (True, "sqlite", "region_id = TRUE"),
    ],
)
def test_a_filter_is_shown_with_its_parameter_as_a_literal(value, dialect, expected):
    assert bind_parameters("region_id = :region_id", {"region_id": value}, dialect) == expected


NAMED_POLICY = """\
users:
  alice: {roles: [east], attributes: {region_id: 1}}
roles:
  east:
    tables: [sales.orders, fin.stores]
    row_filters: {fin.stores: "region_id = :region_id"}
    deny_columns: {fin.stores: [city]}
"""


def test_with_named_sources_the_preview_reads_them_as_the_service_does(
    postgres_database: str,
    mysql_sample_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
):
    """DATA_SOURCES (PostgreSQL and MariaDB): `source.table` names, counts on each server."""
    from react_agent.sample_data.load_postgres import load_into_postgres

    load_into_postgres(postgres_database)
    policy = tmp_path / "policy.yaml"
    policy.write_text(NAMED_POLICY, encoding="utf-8")
    monkeypatch.setenv("POLICY_FILE", str(policy))
    monkeypatch.setenv("DATA_SOURCES", f"sales={postgres_database};fin={mysql_sample_url}")
    monkeypatch.delenv("DATA_DATABASE_URL", raising=False)
    assert main(["alice"]) == 0
    out = capsys.readouterr().out
    blocks = _blocks(out)
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        (orders,) = connection.execute("SELECT COUNT(*) FROM orders").fetchone()
        (stores,) = connection.execute("SELECT COUNT(*) FROM stores WHERE region_id = 1").fetchone()
    assert sorted(blocks) == ["fin.stores", "sales.orders"]
    assert blocks["sales.orders"][0] == f"sales.orders: {orders} row(s) visible"
    assert blocks["fin.stores"] == [
        f"fin.stores: {stores} row(s) visible",
        "filter: region_id = 1",
        "denied columns: city",
    ]
    hidden = out.rstrip().rsplit("not readable: ", 1)[1].split(", ")
    assert "sales.stores" in hidden and "fin.orders" in hidden and "orders" not in hidden
