"""The scope rewrite in the dialects of engines that do not run here, checked on DuckDB.

Each attempt of the scope corpus that PostgreSQL runs is transpiled by sqlglot into the
dialect (SQL Server, Oracle, Trino, Snowflake, BigQuery, Doris, StarRocks), passed through
the guard and the scope rewrite there, and the scoped SQL, as that dialect's parser reads
it, is transpiled to DuckDB and run on the full sample: it must return exactly what the
attempt returns on region 1's oracle copy, or be refused as on PostgreSQL. What no round
trip shows is each engine's planner: their fences (rewrite.FENCES) are untested here.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

import pytest
import sqlglot

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.rewrite import FENCES, ScopeRefused, apply_scope
from react_agent.databases.base import QueryFailed
from react_agent.databases.open import open_database
from react_agent.guard.sql_guard import QueryRejected, check_query
from tests.react_agent.access.conftest import POLICY_FILE
from tests.react_agent.access.engine_copies import duckdb_copies
from tests.react_agent.access.scope_corpus import ATTEMPTS, REFUSED, SAME

DIALECTS = ["tsql", "oracle", "trino", "snowflake", "bigquery", "doris", "starrocks"]
RECURSIVE_CTE = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
    "SELECT s.store_id, n.i FROM stores s, n"
)
# (dialect, SQL) → the outcome there, where it differs from PostgreSQL's (read by hand).
OUTCOME_OTHERWISE = {
    # T-SQL writes no RECURSIVE: the scope analysis then takes `n`'s self-reference for a
    # table, and the rewrite refuses it (TABLE_NOT_ALLOWED). The safe side, but a refusal.
    ("tsql", RECURSIVE_CTE): REFUSED,
}
# (dialect, SQL) → why the attempt is not checked there (read by hand).
NOT_THE_SAME_QUERY = {
    # Doris and StarRocks read "x" as a string (MySQL's rule): no column is named.
    **{
        (dialect, sql): "double quotes are a string"
        for dialect in ("doris", "starrocks")
        for sql in ('SELECT "unit_cost" FROM products',)
    },
}


def _transpiled(sql: str, read: str, write: str) -> str:
    logging.disable(logging.WARNING)
    try:
        [written] = sqlglot.transpile(sql, read=read, write=write)
    finally:
        logging.disable(logging.NOTSET)
    return written


def _rows(result: Any) -> list[str]:
    def value(v: Any) -> Any:
        return round(float(v), 6) if isinstance(v, float | Decimal) else v

    return sorted(repr(tuple(value(v) for v in row.values())) for row in result.rows)


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory):
    return duckdb_copies(tmp_path_factory.mktemp("scope-dialects"))


@pytest.mark.slow  # a long corpus: some 80 attempts per dialect, each run twice on DuckDB
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_the_scope_rewrite_in_each_dialect_reads_only_region_one(copies, dialect: str):
    full = await open_database(copies.full)
    oracle = await open_database(copies.oracle)
    try:
        columns = await TableColumns(full).get()
        policy = load_policy(POLICY_FILE, columns)
        scope = policy.scope_for(policy.actor_for("alice"))
        problems, checked = [], 0
        for attempt in ATTEMPTS:
            # PostgreSQL-only attempts (row_to_json, ::text, json_agg) have no DuckDB twin.
            if "postgres" not in attempt.dialects or len(attempt.dialects) == 1:
                continue
            if attempt.expect not in (SAME, REFUSED):
                continue
            if "{schema}" in attempt.sql or (dialect, attempt.sql) in NOT_THE_SAME_QUERY:
                continue
            problem = await _check(attempt, dialect, scope, columns, full, oracle)
            checked += 1
            if problem:
                problems.append(f"{attempt.sql}\n    {problem}")
        assert problems == [], "\n".join(problems)
        assert checked >= 60
    finally:
        await full.aclose()
        await oracle.aclose()


async def _check(attempt, dialect, scope, columns, full, oracle) -> str:
    expect = OUTCOME_OTHERWISE.get((dialect, attempt.sql), attempt.expect)
    try:
        sql = _transpiled(attempt.sql, "postgres", dialect)
    except sqlglot.errors.SqlglotError as exc:
        return "" if expect == REFUSED else f"cannot be written in {dialect}: {exc}"
    try:
        check_query(sql, dialect, None)
        scoped = apply_scope(sql, dialect, scope, columns)
    except (QueryRejected, ScopeRefused) as exc:
        reason = getattr(exc, "reason", str(exc))
        return "" if expect == REFUSED else f"refused: {reason}"
    if expect == REFUSED:
        return f"not refused: {scoped.sql}"
    if scoped.params and FENCES[dialect] not in scoped.sql:
        return f"no fence: {scoped.sql}"
    as_duckdb = _transpiled(scoped.sql, dialect, "duckdb")
    try:
        mine = await full.run_query(
            as_duckdb, row_limit=100_000, timeout=10, params=dict(scoped.params) or None
        )
        expected = await oracle.run_query(
            _transpiled(attempt.sql, "postgres", "duckdb"), row_limit=100_000, timeout=10
        )
    except QueryFailed as exc:
        return f"failed on DuckDB: {exc}: {as_duckdb}"
    return "" if _rows(mine) == _rows(expected) else f"rows differ: {as_duckdb}"


def test_each_dialect_has_a_fence_of_its_own_syntax():
    for dialect in DIALECTS:
        scoped = apply_scope(
            "SELECT * FROM t",
            dialect,
            _scope_of_t(),
            {"t": ["a"]},
        )
        fence = FENCES[dialect]
        assert scoped.sql.endswith(f"{fence}) AS t"), scoped.sql
        # The dialect's own parser reads the fenced subquery back.
        assert sqlglot.parse_one(scoped.sql, read=dialect) is not None


def _scope_of_t():
    from react_agent.access.scope import Scope

    return Scope(tables=frozenset({"t"}), row_filters={"t": "a = :a"}, parameters={"a": 1})
