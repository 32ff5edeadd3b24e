"""The guard's hostile corpus in every dialect a supported engine speaks, and each one's own.

The shared corpus (test_hostile_corpus.py) is checked in each dialect twice: as written
and as sqlglot transpiles it from PostgreSQL into the dialect; every case refused on
PostgreSQL must be refused in both forms, every look-alike must pass. Where transpiling
changes a query's meaning, or a dialect reads the text otherwise, TRANSPILED_OTHERWISE
says so and what was checked by hand instead. Each engine's own attacks (engine_corpora.py)
must be refused by name. These dialects have no server here (ClickHouse runs as chdb:
test_hostile_corpus_dialects.py): this is the guard alone.
"""

from __future__ import annotations

import logging

import pytest
import sqlglot

from react_agent.guard.sql_guard import QueryRejected, check_query
from tests.react_agent.tools.engine_corpora import ENGINE_ONLY, ORDINARY
from tests.react_agent.tools.test_hostile_corpus import (
    CLEAR_REASON,
    HOSTILE,
    LOOK_ALIKES,
    REFUSED,
    Case,
)

DIALECTS = [
    "sqlite", "postgres", "mysql", "duckdb", "clickhouse",
    "tsql", "oracle", "trino", "snowflake", "bigquery", "doris", "starrocks",
]  # fmt: skip
"""Native engines' dialects, ClickHouse's, and the generic engine's likely ones."""
FOR_UPDATE = ("SELECT * FROM orders FOR UPDATE", "SELECT * FROM orders FOR SHARE NOWAIT")
NO_LOCKING = ("clickhouse", "tsql", "trino", "snowflake", "bigquery", "sqlite", "duckdb")
# (dialect, SQL) → why the transpiled text is not the query: it is checked as written only.
TRANSPILED_OTHERWISE = {
    # sqlglot drops a locking clause the target dialect has no syntax for: the transpiled
    # text is a plain SELECT (harmless); the text as written does not parse there.
    **{(dialect, sql): "locking clause dropped" for dialect in NO_LOCKING for sql in FOR_UPDATE},
}
# (dialect, text) → the outcome of that text there, where it differs from PostgreSQL's
# (checked by hand).
OUTCOME_OTHERWISE = {
    # BigQuery has no '' escape: as written the text is another query there, refused to
    # be sure; transpiled ('it\'s; …') it is the look-alike and passes.
    ("bigquery", "SELECT 'it''s; DROP TABLE orders; --' AS s"): REFUSED,
}


def _refused(sql: str, dialect: str) -> str | None:
    """Return the guard's reason for refusing `sql` in `dialect`, or None if it passes."""
    try:
        check_query(sql, dialect, None)
    except QueryRejected as exc:
        return exc.reason
    return None


def _transpiled(sql: str, dialect: str) -> str | None:
    """Return `sql` as sqlglot writes it in `dialect` from PostgreSQL, or None if it cannot."""
    try:
        logging.disable(logging.WARNING)  # sqlglot's "falling back to a Command" notes
        [written] = sqlglot.transpile(sql, read="postgres", write=dialect)
    except Exception:
        return None
    finally:
        logging.disable(logging.NOTSET)
    return written


def _problem(case: Case, sql: str, dialect: str) -> str:
    expected = OUTCOME_OTHERWISE.get((dialect, sql), case.outcome("postgres"))
    reason = _refused(sql, dialect)
    if expected != REFUSED:
        return "" if reason is None else f"refused: {reason}"
    if reason is None:
        return "not refused"
    return "" if CLEAR_REASON.match(reason) else f"unclear reason {reason!r}"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_shared_corpus_ends_the_same_in_every_dialect_written_and_transpiled(dialect: str):
    problems, transpiled = [], 0
    for case in HOSTILE + LOOK_ALIKES:
        sql = case.sql.replace("{out}", "/nonexistent")
        forms = [sql]
        written = _transpiled(sql, dialect)
        if written and written != sql and (dialect, case.sql) not in TRANSPILED_OTHERWISE:
            forms.append(written)
            transpiled += 1
        problems += [f"{form!r}: {p}" for form in forms if (p := _problem(case, form, dialect))]
    assert problems == [], "\n".join(problems)
    assert transpiled >= 10 or dialect == "postgres"  # the second form is not vacuous


def test_transpiling_drops_locking_clauses_where_the_dialect_has_none():
    # What TRANSPILED_OTHERWISE relies on: the dropped clause leaves a plain SELECT.
    for dialect in NO_LOCKING:
        for sql in FOR_UPDATE:
            assert _transpiled(sql, dialect) == "SELECT * FROM orders", dialect


@pytest.mark.parametrize("dialect", sorted(ENGINE_ONLY))
def test_each_engines_own_attacks_are_refused_by_name(dialect: str):
    problems = []
    for case in ENGINE_ONLY[dialect]:
        sql = case.sql.replace("{out}", "/nonexistent")
        reason = _refused(sql, dialect)
        if case.outcome(dialect) != REFUSED:
            if reason is not None:
                problems.append(f"{sql!r}: refused: {reason}")
        elif reason is None or not CLEAR_REASON.match(reason):
            problems.append(f"{sql!r}: {reason!r}")
        elif case.reason_in(dialect) not in reason:
            problems.append(f"{sql!r}: {reason!r} does not say {case.reason_in(dialect)!r}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("dialect", sorted(ORDINARY))
def test_each_engines_ordinary_syntax_still_passes(dialect: str):
    refused = {sql: _refused(sql, dialect) for sql in ORDINARY[dialect]}
    assert {sql: reason for sql, reason in refused.items() if reason} == {}


@pytest.mark.parametrize("dialect", ["clickhouse", "tsql", "oracle", "trino", "bigquery"])
def test_an_engines_names_stay_ordinary_in_the_other_dialects(dialect: str):
    # Refused by name in one dialect only: a column or function so named elsewhere passes.
    others = {"clickhouse": "SELECT sleep FROM t", "tsql": "SELECT file FROM t"}
    sql = others.get(dialect, "SELECT url, query FROM t")
    assert _refused(sql, "postgres") is None and _refused(sql, dialect) is None
    assert _refused("SELECT * FROM numbers(3)", "postgres") is None  # a function, in PostgreSQL
