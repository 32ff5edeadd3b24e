"""east_analyst's hostile corpus: each attempt sees region 1 only and never products.unit_cost.

Every attempt runs the executor's path (guard → scope rewrite → backend) on the full
sample, and must either be refused or return exactly what the same SQL returns on a copy
that holds only region 1's rows and has no unit_cost column — on SQLite, PostgreSQL,
MariaDB, DuckDB and ClickHouse (chdb), each with its own variants of the attempts.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.access.scoping.rewrite import ScopeRefused
from react_agent.databases.base import QueryFailed, SQLDatabase
from react_agent.databases.open import open_database
from react_agent.guard.sql_guard import QueryRejected, check_query
from tests.react_agent.access.conftest import POLICY_FILE, SampleCopies
from tests.react_agent.access.scope_corpus import ATTEMPTS, FAILS, REFUSED, SAME, Attempt

ROWS = 100_000
SCHEMAS = {
    "sqlite": "main",
    "postgres": "public",
    "duckdb": "main",
    "mysql": "test",
    "clickhouse": "default",
}


def _value(value: Any) -> Any:
    if isinstance(value, float | Decimal):
        return round(float(value), 6)
    return value


def _rows(result: Any) -> tuple[list[str], list[str]]:
    rows = sorted(repr(tuple(_value(v) for v in row.values())) for row in result.rows)
    return list(result.columns), rows


async def _scoped(
    database: SQLDatabase, sql: str, scope: Scope, columns: TableColumns
) -> tuple[str, Any]:
    try:
        check_query(sql, database.dialect, None)
        _, result = await run_in_scope(database, sql, scope, columns, row_limit=ROWS, timeout=10)
    except QueryRejected as exc:
        return REFUSED, ("guard", exc.reason)
    except ScopeRefused as exc:
        return REFUSED, (exc.rule, exc.reason)
    except QueryFailed as exc:
        return FAILS, str(exc)
    return SAME, _rows(result)


async def _oracle(database: SQLDatabase, sql: str) -> tuple[str, Any]:
    try:
        result = await database.run_query(sql, row_limit=ROWS, timeout=10)
    except QueryFailed as exc:
        return FAILS, str(exc)
    return SAME, _rows(result)


def _problem(attempt: Attempt, outcome: str, detail: Any, oracle: tuple[str, Any] | None) -> str:
    """Return what is wrong with an attempt's outcome, or "" when it is as required."""
    if attempt.expect == REFUSED:
        if outcome != REFUSED:
            return f"not refused: {outcome}"
        if attempt.rule and detail[0] != attempt.rule:
            return f"refused by {detail[0]}, not {attempt.rule}: {detail[1]}"
        return ""
    if attempt.expect == FAILS:
        return "" if outcome in (FAILS, REFUSED) else f"returned rows: {detail}"
    assert oracle is not None
    if outcome != SAME:
        return f"{outcome}: {detail}"
    if oracle[0] != SAME:
        return f"the oracle failed: {oracle[1]}"
    if detail != oracle[1]:
        return f"rows differ from region 1's: {detail[1][:3]} vs {oracle[1][1][:3]}"
    return ""


async def test_east_analyst_reads_only_region_one_and_never_unit_cost(
    sample_copies: SampleCopies,
):
    dialect = sample_copies.dialect
    full = await open_database(sample_copies.full, connect_timeout=5)
    oracle = await open_database(sample_copies.oracle, connect_timeout=5)
    try:
        columns = TableColumns(full)
        policy = load_policy(POLICY_FILE, await columns.get())
        scope = policy.scope_for(policy.actor_for("alice"))
        attempts = [a for a in ATTEMPTS if dialect in a.dialects]
        assert len(attempts) >= 60
        problems = []
        for attempt in attempts:
            sql = attempt.sql.format(schema=SCHEMAS[dialect])
            outcome, detail = await _scoped(full, sql, scope, columns)
            expected = await _oracle(oracle, sql) if attempt.expect == SAME else None
            problem = _problem(attempt, outcome, detail, expected)
            if problem:
                problems.append(f"{sql}\n    {problem}")
        assert problems == [], "\n".join(problems)
        # Not vacuous: without the scope the same query sees other regions' orders.
        everything = await full.run_query(
            "SELECT count(*) AS n FROM orders", row_limit=1, timeout=10
        )
        _, mine = await run_in_scope(
            full, "SELECT count(*) AS n FROM orders", scope, columns, row_limit=1, timeout=10
        )
        assert 0 < mine.rows[0]["n"] < everything.rows[0]["n"]
    finally:
        await full.aclose()
        await oracle.aclose()
