"""The scope on the parse tree: filtered tables wrapped, denied columns and tables refused.

Every reference to a real table that has a row filter or denied columns is replaced by
`(SELECT <allowed columns> FROM t WHERE <filter> <fence>) AS <alias>`, wherever it appears (FROM,
JOIN, subqueries, CTE bodies, set-operation branches, correlated and scalar subqueries),
so `*`, `t.*` and whole-row references see only the allowed columns and rows. The filter's
`:name` placeholders stay placeholders: their values travel as bound parameters. Which
reference is a real table and which a CTE comes from sqlglot's scope analysis; a CTE named
like a real table is refused, so it can neither hide a table from the rewrite nor stand in
for the table a filter's own subquery reads.

The fence (FENCES) is a LIMIT/OFFSET that changes no row but keeps every planner from
merging the subquery into the query around it or pushing the model's conditions into it,
so the filter is applied to every row before anything the model wrote is evaluated on it:
an expression that raises on a row outside the scope never sees that row.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import OptimizeError, ParseError
from sqlglot.optimizer.scope import traverse_scope

from react_agent.access.scope import Scope
from react_agent.access.sensitive.lineage import sensitive_lineage
from react_agent.access.table_keys import DEFAULT_SCHEMAS, table_key
from react_agent.guard.sql_guard import QueryRejected, parse_statement

PARAMETER_PREFIX = f"scope_{secrets.token_hex(4)}_"
"""Prefix of the bound parameters' names, new per process: the model's SQL cannot name
them, so a driver that reads `%(name)s` never takes text the model wrote for one."""
_INNER_TABLE = "access_scope_inner_table"
"""Stands for the table reference's own text inside the generated subquery."""
DEFAULT_SCHEMAS_BY_DIALECT = {"tsql": frozenset({"dbo"}), "clickhouse": frozenset()}
"""Where a dialect's own differ: SQL Server's dbo; ClickHouse's `x.t` is another database."""
FENCES = {
    # PostgreSQL neither pulls up a subquery with an OFFSET nor pushes quals into it;
    # DuckDB pushes no filter through a LIMIT/OFFSET operator.
    "postgres": "OFFSET 0",
    "duckdb": "OFFSET 0",
    # SQLite's flattener (rule 14) and WHERE push-down both skip a subquery with OFFSET.
    "sqlite": "LIMIT -1 OFFSET 0",
    # MySQL/MariaDB merge no derived table with a LIMIT, nor push conditions into it.
    "mysql": "LIMIT 18446744073709551615",
    # ClickHouse moves an outer WHERE into the subquery's PREWHERE, beside the filter, unless
    # a LIMIT stands between them (OFFSET 0 does not stop it: tests/react_agent/access).
    "clickhouse": "LIMIT 18446744073709551615",
    # Engines that do not run here (the generic engine's): a LIMIT no filter may be pushed
    # below without changing the result, in each one's own syntax (a bare OFFSET is not
    # SQL in these, and Trino drops an OFFSET 0). Untested against the engines' planners.
    "tsql": "ORDER BY (SELECT NULL) OFFSET 0 ROWS",
    "oracle": "OFFSET 0 ROWS",
    "trino": "LIMIT 9223372036854775807",
    "snowflake": "LIMIT 9223372036854775807",
    "bigquery": "LIMIT 9223372036854775807",
    "doris": "LIMIT 9223372036854775807",
    "starrocks": "LIMIT 9223372036854775807",
}
"""Per dialect: what ends each filtered subquery so the filter runs before the model's SQL."""


class ScopeRefused(Exception):
    """The query reaches outside the caller's scope; `rule` is the UPPER_SNAKE rule broken."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


@dataclass(frozen=True)
class ScopedQuery:
    """The SQL to run under a scope, with its bound parameters."""

    sql: str
    """The SQL as it runs (the model's, rewritten)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Values of the filters' placeholders."""
    tables: tuple[str, ...] = ()
    """The real tables the query reads (lower case)."""
    sensitive_positions: tuple[int, ...] = ()
    """0-based positions of the result columns whose values never reach the model."""
    output_count: int | None = None
    """How many columns the lineage saw in the result (None: no sensitive column read)."""
    sensitive_names: tuple[str, ...] = ()
    """Lower-case names of those columns, for a result of another width (`*` with USING)."""


def apply_scope(
    sql: str, dialect: str, scope: Scope, columns_of: Mapping[str, Sequence[str]]
) -> ScopedQuery:
    """Return `sql` rewritten to read only what `scope` allows, or raise ScopeRefused.

    Args:
        sql: One SELECT, already passed by the SQL guard.
        dialect: The sqlglot dialect of the database.
        scope: The running question's scope.
        columns_of: Lower-case table name → its column names as the database spells them
            (needed for tables with denied columns).

    """
    if scope.is_unrestricted or not scope.rewrite:
        return ScopedQuery(sql)
    tree = _parse(sql, dialect)
    nodes = _nodes_by_type(tree)
    if nodes[exp.Placeholder]:
        raise ScopeRefused("PLACEHOLDER_NOT_ALLOWED", "the query may not contain placeholders")
    real_tables = _real_tables(tree, nodes, columns_of, dialect)
    names = {_table_name(table) for table in real_tables}
    _refuse_unreadable(names, scope)
    _refuse_denied_columns(nodes[exp.Identifier], names, scope)
    lineage = sensitive_lineage(tree, real_tables, scope, columns_of)
    if lineage.refusal is not None:
        raise ScopeRefused(lineage.rule, lineage.refusal)
    used: set[str] = set()
    edits: list[tuple[int, int, str]] = []
    for table in real_tables:
        name = _table_name(table)
        if name in scope.row_filters or scope.denied_columns.get(name):
            edits.append(_edit(sql, table, name, scope, columns_of, dialect, used))
    params = {PARAMETER_PREFIX + key: scope.parameters[key] for key in sorted(used)}
    return ScopedQuery(_spliced(sql, edits), params, tuple(sorted(names)), *lineage.outputs)


def _edit(
    sql: str,
    table: exp.Table,
    name: str,
    scope: Scope,
    columns_of: Mapping[str, Sequence[str]],
    dialect: str,
    used: set[str],
) -> tuple[int, int, str]:
    """Return (start, end, text): a table reference's span and its filtered subquery."""
    parts = table.parts
    first, last = parts[0].meta, parts[-1].meta
    if "start" not in first or "end" not in last:
        raise ScopeRefused("QUERY_NOT_ANALYSABLE", f"the table {name} could not be located")
    start, end = first["start"], last["end"] + 1
    original = sql[start:end]
    allowed = None
    denied = scope.denied_columns.get(name)
    if denied:
        if name not in columns_of:
            raise ScopeRefused("TABLE_NOT_ALLOWED", f"the columns of {name} are unknown")
        allowed = tuple(c for c in columns_of[name] if c.lower() not in denied)
    body, placeholders = _subquery_text(scope.row_filters.get(name), allowed, dialect)
    used.update(placeholders)
    # Without an alias the subquery takes the table's own name, so t.col still resolves.
    alias = "" if table.args.get("alias") else f" AS {original.split('.')[-1].strip()}"
    return start, end, f"({body.replace(_INNER_TABLE, original, 1)}){alias}"


def _spliced(sql: str, edits: list[tuple[int, int, str]]) -> str:
    """Return `sql` with each table reference's text replaced by its filtered subquery.

    Only the references change: everything else stays as the model wrote it, so result
    column names (which SQLite takes from the expression's text) come out the same.
    """
    text = sql
    for start, end, replacement in sorted(edits, reverse=True):
        text = f"{text[:start]}{replacement}{text[end:]}"
    return text


@lru_cache(maxsize=1024)
def _subquery_text(
    predicate: str | None, allowed: tuple[str, ...] | None, dialect: str
) -> tuple[str, frozenset[str]]:
    """Return `SELECT allowed FROM <marker> WHERE filter <fence>` and its placeholders.

    The marker table stands for the reference's own text; the filter's `:name`s stay
    placeholders, written the way the dialect's driver binds them.
    """
    projections: list[exp.Expression] = (
        [exp.column(column, quoted=True) for column in allowed]
        if allowed is not None
        else [exp.Star()]
    )
    select = exp.select(*projections).from_(exp.to_table(_INNER_TABLE))
    placeholders: frozenset[str] = frozenset()
    if predicate is not None:
        condition = sqlglot.parse_one(predicate)
        placeholders = frozenset(p.name for p in condition.find_all(exp.Placeholder))
        for placeholder in condition.find_all(exp.Placeholder):
            placeholder.set("this", PARAMETER_PREFIX + placeholder.name)
        select = select.where(condition)
    return f"{select.sql(dialect=dialect)} {FENCES.get(dialect, FENCES['postgres'])}", placeholders


def _parse(sql: str, dialect: str) -> exp.Expression:
    """Return the guard's parse tree of `sql` (cached: the guard parsed it just before).

    The rewrite only reads the tree (it splices text), so sharing the cached tree is safe.
    """
    try:
        tree = parse_statement(sql, dialect)
    except (QueryRejected, ParseError) as exc:
        raise ScopeRefused("QUERY_NOT_ANALYSABLE", f"the query could not be parsed: {exc}") from exc
    if tree is None:
        raise ScopeRefused("QUERY_NOT_ANALYSABLE", "the query is empty")
    return tree


def _table_name(table: exp.Table) -> str:
    return table_key(table)


def _nodes_by_type(tree: exp.Expression) -> dict[type, list[Any]]:
    """Return the tree's nodes of the kinds the checks read, in one walk of it."""
    found: dict[type, list[Any]] = {kind: [] for kind in _INDEXED}
    for node in tree.walk():
        kind = type(node)
        if kind in found:
            found[kind].append(node)
    return found


_INDEXED = (exp.Placeholder, exp.CTE, exp.Table, exp.Identifier, exp.Column)


def _real_tables(
    tree: exp.Expression,
    nodes: dict[type, list[Any]],
    columns_of: Mapping[str, Sequence[str]],
    dialect: str,
) -> list[exp.Table]:
    """Return the table references that read a real table, not a CTE; refuse shadowing."""
    # A source's `sales.stores` is shadowed by a WITH named `stores` too: a row filter
    # written with the bare name would read the WITH query instead of the table.
    bare = {name.rpartition(".")[2] for name in columns_of} if nodes[exp.CTE] else set()
    for cte in nodes[exp.CTE]:
        if cte.alias_or_name.lower() in bare:
            raise ScopeRefused(
                "CTE_SHADOWS_TABLE",
                f"a WITH query may not be named like the table {cte.alias_or_name!r}; rename it",
            )
    ctes = set()
    if nodes[exp.CTE]:  # scope analysis tells CTE references from tables; no WITH, none
        try:
            scopes = traverse_scope(tree)
        except (OptimizeError, RecursionError) as exc:
            raise ScopeRefused(
                "QUERY_NOT_ANALYSABLE", f"the query could not be analysed: {exc}"
            ) from exc
        for scope in scopes:
            for table in scope.tables:
                source = scope.sources.get(table.alias_or_name)
                if source is not None and not isinstance(source, exp.Table):
                    ctes.add(id(table))
    tables = []
    defaults = DEFAULT_SCHEMAS_BY_DIALECT.get(dialect, DEFAULT_SCHEMAS)
    for table in nodes[exp.Table]:
        if id(table) in ctes or not isinstance(table.this, exp.Identifier):
            continue  # a CTE reference, or a table function such as json_each(…)
        schema = table.db.lower()
        # A source's table (`sales.orders`) is one the catalogue lists; any other schema is not.
        qualified = schema and schema not in defaults and table_key(table) not in columns_of
        if table.catalog or qualified:
            raise ScopeRefused(
                "TABLE_NOT_ALLOWED", f"the table {table.sql()} is outside the readable tables"
            )
        tables.append(table)
    return tables


def _refuse_unreadable(names: set[str], scope: Scope) -> None:
    refused = sorted(name for name in names if not scope.can_read(name))
    if refused:
        raise ScopeRefused(
            "TABLE_NOT_ALLOWED",
            f"your role may not read {', '.join(refused)}; readable tables: "
            + ", ".join(sorted(scope.tables or ())),
        )


def _refuse_denied_columns(
    identifiers: list[exp.Identifier], names: set[str], scope: Scope
) -> None:
    """Refuse a denied column's name anywhere: select list, WHERE, ON, USING, ORDER BY, calls.

    By name, whatever the qualifier: a same-named column of another table is refused too,
    which is the safe side of the doubt.
    """
    denied = {column for name in names for column in scope.denied_columns.get(name, ())}
    if not denied:
        return
    for identifier in identifiers:
        if identifier.name.lower() not in denied:
            continue
        if isinstance(identifier.parent, exp.Table | exp.TableAlias | exp.Alias):
            continue  # a name given to something else, not a read of the column
        raise ScopeRefused(
            "COLUMN_DENIED",
            f"your role may not read the column {identifier.name} "
            "(not in any part of a query: select, where, join, order, group or function)",
        )
