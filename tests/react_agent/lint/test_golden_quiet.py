"""The lint stays quiet on the shipped golden set's gold SQL: no false alarm on right answers."""

from __future__ import annotations

import sqlite3

from react_agent.databases.catalog_model import Catalog, CatalogColumn, CatalogTable
from react_agent.eval.golden import SAMPLE_GOLDEN_SET, read_golden_set
from react_agent.lint.linter import lint_statement
from react_agent.sample_data import SAMPLE_DB_PATH


def sample_catalog() -> Catalog:
    """Return the sample's tables with their types, NOT NULLs and primary keys."""
    tables = []
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        names = [
            r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        for name in names:
            rows = connection.execute(f"PRAGMA table_info({name})").fetchall()
            columns = tuple(
                CatalogColumn(r[1], r[2], nullable=not r[3] and not r[5], primary_key=bool(r[5]))
                for r in rows
            )
            key = tuple(r[1] for r in rows if r[5])
            tables.append(CatalogTable(name, columns, primary_key=key))
    return Catalog("sqlite", tuple(tables))


def test_no_gold_query_of_the_shipped_set_draws_a_warning():
    catalog = sample_catalog()
    questions = read_golden_set(SAMPLE_GOLDEN_SET)
    warned = {
        q.id: [w.rule for w in lint_statement(q.gold_sql, "sqlite", q.question, catalog)]
        for q in questions
    }
    assert len(questions) >= 80
    assert {k: v for k, v in warned.items() if v} == {}
    # The same catalogue does catch a plausible wrong answer to a top-N question.
    top = next(q for q in questions if "ORDER BY" in q.gold_sql and "LIMIT" in q.gold_sql)
    unordered = top.gold_sql.split("ORDER BY")[0] + " LIMIT 3"
    rules = [w.rule for w in lint_statement(unordered, "sqlite", top.question, catalog)]
    assert "limit_without_order" in rules, (top.id, top.question)
