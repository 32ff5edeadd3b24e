"""The scope corpus again, in DuckDB's dialect, through the federation over attached sources.

east_analyst's hostile corpus (scope_corpus.py), its tables qualified by the source name
`sales` as a question across sources names them, runs on the federation that attaches
the full sample on PostgreSQL, under the policy's scope with its tables qualified the same
way; each attempt must be refused or give what the same statement gives on the federation
attaching region 1's oracle copy (no unit_cost) under the same name.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from config import Settings
from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import run_in_scope
from react_agent.databases.base import ForwardingDatabase, SQLDatabase, TableInfo
from react_agent.databases.federation.engine import Attachment, Federation
from react_agent.service.data_sources import open_named_sources
from tests.react_agent.access.conftest import POLICY_FILE, SampleCopies, postgres_copies
from tests.react_agent.access.scope_corpus import ATTEMPTS, BOTH, REFUSED, SAME
from tests.react_agent.access.test_scope_corpus import ROWS, _oracle, _problem, _scoped

SOURCE = "sales"


@pytest.fixture(scope="module")
def pg_copies(postgres_url: str) -> Iterator[SampleCopies]:
    with postgres_copies(postgres_url) as copies:
        yield copies


def qualified_sql(sql: str) -> str | None:
    """Return `sql` with every table that is not a CTE qualified by SOURCE (None: unparsable)."""
    try:
        tree = sqlglot.parse_one(sql.format(schema=SOURCE), read="duckdb")
    except ParseError:
        return None
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        bare = isinstance(table.this, exp.Identifier) and not table.db
        if bare and table.name.lower() not in ctes:
            table.set("db", exp.to_identifier(SOURCE))
    return tree.sql(dialect="duckdb")


def qualified_predicate(predicate: str) -> str:
    """Return a row filter with the tables of its subqueries named `SOURCE.table`."""
    tree = sqlglot.parse_one(predicate)
    for table in tree.find_all(exp.Table):
        if not table.db:
            table.set("db", exp.to_identifier(SOURCE))
    return tree.sql()


def qualified_scope(scope: Scope) -> Scope:
    """Return `scope` with its tables named `SOURCE.table`, as a multi-source policy names them."""

    def q(name: str) -> str:
        return f"{SOURCE}.{name}"

    return Scope(
        tables=frozenset(q(t) for t in scope.tables) if scope.tables is not None else None,
        row_filters={q(t): qualified_predicate(p) for t, p in scope.row_filters.items()},
        parameters=scope.parameters,
        denied_columns={q(t): c for t, c in scope.denied_columns.items()},
        sensitive_columns={q(t): c for t, c in scope.sensitive_columns.items()},
        roles=scope.roles,
    )


async def _federated_problem(attempt, sql, outcome, detail, oracle) -> str:
    """Return what is wrong: rows other than the oracle's, or a required refusal missing.

    An attempt written for one engine (PostgreSQL's case-sensitive quotes, SQLite's
    temp schema) may read differently in DuckDB: it passes refused, failed, or with
    exactly the oracle's rows. One for both that must be refused must be refused here too.
    """
    if attempt.expect == REFUSED and attempt.dialects == BOTH:
        return _problem(attempt, outcome, detail, None)
    if outcome != SAME:
        return ""
    expected = await _oracle(oracle, sql)
    return "" if expected == (SAME, detail) else f"rows differ from the oracle's: {detail}"


class DescribedFederation(ForwardingDatabase):
    """The federation running the statements, its tables described by the named sources.

    A federation lists no table of its own (its sources do), and the scope rewrite reads
    the columns of the database a statement runs on.
    """

    def __init__(self, federation: Federation, sources: SQLDatabase) -> None:
        self.federation = federation
        self.sources = sources

    @property
    def source(self) -> SQLDatabase:
        return self.federation

    async def list_tables(self) -> list[str]:
        return await self.sources.list_tables()

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        return await self.sources.describe_tables(names)


async def test_the_scope_holds_in_the_federation_as_it_does_on_one_source(pg_copies):
    settings = Settings(data_sources=f"{SOURCE}={pg_copies.full}", _env_file=None)
    sources = await open_named_sources(settings)
    full = DescribedFederation(Federation([Attachment(SOURCE, pg_copies.full)], {}), sources)
    oracle = Federation([Attachment(SOURCE, pg_copies.oracle)], {})
    try:
        found = await TableColumns(sources).get()
        bare = {name.split(".", 1)[1]: cols for name, cols in found.items()}
        policy = load_policy(POLICY_FILE, bare)
        scope = qualified_scope(policy.scope_for(policy.actor_for("alice")))
        columns = TableColumns(full)
        problems, ran = [], 0
        for attempt in ATTEMPTS:
            sql = qualified_sql(attempt.sql)
            if sql is None:
                continue  # DuckDB's dialect cannot read it: the guard refuses it as well
            outcome, detail = await _scoped(full, sql, scope, columns)
            problem = await _federated_problem(attempt, sql, outcome, detail, oracle)
            ran += outcome == SAME
            if problem:
                problems.append(f"{sql}\n    {problem[:300]}")
        assert problems == [], "\n".join(problems)
        assert ran >= 30  # not vacuous: most attempts ran and matched the oracle
        _, mine = await run_in_scope(
            full,
            f"SELECT count(*) AS n FROM {SOURCE}.orders",
            scope,
            columns,
            row_limit=ROWS,
            timeout=10,
        )
        everything = await full.run_query(
            f"SELECT count(*) AS n FROM {SOURCE}.orders", row_limit=1, timeout=10
        )
        assert 0 < mine.rows[0]["n"] < everything.rows[0]["n"]
    finally:
        await full.aclose()
        await oracle.aclose()
        await sources.aclose()
