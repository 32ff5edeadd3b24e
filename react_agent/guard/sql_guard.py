"""The SQL guard: only one read-only SELECT over the allowed tables may reach the database."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError
from sqlglot.tokens import TokenType

from react_agent.guard.sql_dialect_rules import (
    DialectRuleBroken,
    check_dialect_node,
    check_dialect_table,
    check_dialect_text,
    is_refused_in_dialect,
)
from react_agent.guard.sql_refusals import (
    WRITE_KINDS,
    is_catalog,
    is_refused_function,
    statement_keyword,
)


class QueryRejected(Exception):
    """The SQL guard refused a query before it reached the database; the reason is for the model.

    Args:
        reason: A sentence saying what was refused and what to do instead.

    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


DEFAULT_SCHEMAS = {"sqlite": "main", "postgres": "public", "duckdb": "main", "tsql": "dbo"}
"""The schema a bare table name lives in; `main.orders` is the same table as `orders`."""


@lru_cache(maxsize=1024)
def check_query(sql: str, dialect: str, allowed_tables: frozenset[str] | None) -> str:
    """Return `sql` unchanged when it is one read-only SELECT; raise QueryRejected if not.

    The checks work on sqlglot's parse tree, not on the text, so a string literal or an
    alias that merely contains DROP or DELETE passes, while a DELETE hidden in a CTE does
    not. System catalogs (pg_catalog, information_schema, pg_* and sqlite_* tables) are
    refused in every mode, "all" included: the model learns the schema from the
    list_tables and describe_tables tools, which show only the allowed tables.

    Args:
        sql: The query the model wrote.
        dialect: The sqlglot dialect of the database: "sqlite", "postgres", "mysql" or
            "duckdb".
        allowed_tables: Lower-case table names (`table` or `schema.table`) the query may
            read; None allows every table except the system catalogs.

    Raises:
        QueryRejected: The query breaks a rule; the reason says which and what to do.

    """
    root = parse_statement(sql, dialect)
    _check_statement_kind(root, sql, dialect)
    if dialect == "postgres":
        _check_no_unicode_escaped_names(sql)
    try:
        check_dialect_text(sql, dialect)
        for node in root.walk():
            _check_node(node, dialect)
        for table in _table_references(root):
            _check_table(table, dialect, allowed_tables)
    except DialectRuleBroken as exc:
        raise QueryRejected(str(exc)) from exc
    return sql


@lru_cache(maxsize=256)
def parse_statement(sql: str, dialect: str) -> exp.Expression:
    """Return the parse tree of `sql`'s one statement; raise QueryRejected if it has not one.

    Cached, so the history's description of a query that ran (react_agent/history/
    sql_terms.py) reads the tree the guard parsed instead of parsing it again (about 1 ms
    each). Callers only read the tree; none may change it.
    """
    return _parse_single_statement(sql, dialect)


def is_table_allowed(name: str, dialect: str, allowed_tables: frozenset[str] | None) -> bool:
    """Say whether the tools may show the table `name` (`table` or `schema.table`)."""
    schema, _, table = name.lower().rpartition(".")
    if is_catalog(schema or None, table):
        return False
    return allowed_tables is None or _is_listed(schema or None, table, dialect, allowed_tables)


def _parse_single_statement(sql: str, dialect: str) -> exp.Expression:
    try:
        statements = sqlglot.parse(sql, read=dialect)
    except ParseError as exc:
        raise QueryRejected(_describe_parse_error(exc, dialect)) from exc
    except Exception as exc:
        # Fail closed: whatever sqlglot cannot read (tokenizer errors, absurd nesting) is
        # not proven safe, so it does not run.
        raise QueryRejected(
            f"the query could not be read as {dialect} SQL ({_first_line(exc)}); "
            "write one plain SELECT query"
        ) from exc
    # A trailing semicolon leaves an empty statement, or one holding only a comment.
    found = [s for s in statements if s is not None and not isinstance(s, exp.Semicolon)]
    if not found:
        raise QueryRejected("the query is empty: write one SELECT query")
    if len(found) > 1:
        raise QueryRejected(
            "only one statement is allowed: send a single SELECT query, "
            "without other statements after a semicolon"
        )
    return found[0]


def _check_statement_kind(root: exp.Expression, sql: str, dialect: str) -> None:
    query = root
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.Select | exp.SetOperation):
        return
    keyword = statement_keyword(root) or _first_keyword(sql, dialect)
    if isinstance(root, WRITE_KINDS):
        raise QueryRejected(f"{keyword} is not allowed: the database is read-only")
    raise QueryRejected(
        f"{keyword} is not allowed: only a single read-only SELECT query "
        "(optionally with WITH, UNION, INTERSECT or EXCEPT) can run"
    )


def _check_node(node: exp.Expression, dialect: str) -> None:
    keyword = statement_keyword(node)
    if keyword is not None and isinstance(node, WRITE_KINDS):
        raise QueryRejected(f"{keyword} is not allowed: the database is read-only")
    if keyword is not None:
        raise QueryRejected(f"{keyword} is not allowed: only a read-only SELECT query can run")
    if isinstance(node, exp.Into):
        raise QueryRejected(
            "SELECT … INTO is not allowed: it creates a table and the database is read-only"
        )
    if isinstance(node, exp.Lock):
        raise QueryRejected(
            "locking clauses (FOR UPDATE, FOR SHARE) are not allowed: remove them, "
            "a read-only query needs no locks"
        )
    if isinstance(node, exp.Func):
        for name in _function_names(node):
            if is_refused_function(name) or is_refused_in_dialect(name, dialect):
                raise QueryRejected(f"function {name} is not allowed")
    check_dialect_node(node, dialect)


def _first_keyword(sql: str, dialect: str) -> str:
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except Exception:
        return "this statement"
    # The first word, not a parenthesis: `(VALUES (1))` is refused as VALUES.
    return next((t.text.upper() for t in tokens if t.text[:1].isalpha()), "this statement")


def _check_no_unicode_escaped_names(sql: str) -> None:
    # PostgreSQL reads U&"pg\005fsleep" as pg_sleep; sqlglot sees `U & "pg\005fsleep"`, so
    # the name checks would miss it. Plain names are always enough.
    tokens = Dialect.get_or_raise("postgres").tokenize(sql)
    for first, second, third in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if (
            first.text.upper() == "U"
            and second.token_type == TokenType.AMP
            and third.token_type == TokenType.IDENTIFIER
            and second.start == first.end + 1
            and third.start == second.end + 1
        ):
            raise QueryRejected(
                'Unicode-escaped names (U&"…") are not allowed: write table, column and '
                "function names plainly"
            )


def _function_names(node: exp.Func) -> list[str]:
    if isinstance(node, exp.Anonymous):
        return [node.name.lower()]
    return [name.lower() for name in node.sql_names()]


def _table_references(root: exp.Expression) -> Iterator[exp.Table]:
    """Yield the tables the query reads, skipping references to its own CTEs.

    A CTE name is visible in the query that defines it and in later CTEs of the same WITH
    (in every CTE of a WITH RECURSIVE). Outside that scope the same name is a real table,
    so `(WITH secrets AS (…) …)` in a subquery does not hide a `secrets` table elsewhere.
    """
    # Iterative, so a deeply nested query cannot exhaust Python's recursion limit.
    stack: list[tuple[exp.Expression, frozenset[str]]] = [(root, frozenset())]
    while stack:
        node, visible = stack.pop()
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            if node.db or node.name.lower() not in visible:
                yield node
        children = list(node.iter_expressions())
        in_scope = visible
        for with_ in (child for child in children if isinstance(child, exp.With)):
            names = [cte.alias_or_name.lower() for cte in with_.expressions]
            recursive = bool(with_.args.get("recursive"))
            earlier = set(visible)
            for cte, name in zip(with_.expressions, names, strict=True):
                stack.append((cte, visible | set(names) if recursive else frozenset(earlier)))
                earlier.add(name)
            in_scope = in_scope | set(names)
        stack.extend((child, in_scope) for child in children if not isinstance(child, exp.With))


def _check_table(table: exp.Table, dialect: str, allowed_tables: frozenset[str] | None) -> None:
    name = table.name.lower()
    schema = table.db.lower() or None
    shown = f"{schema}.{name}" if schema else name
    if table.catalog:
        raise QueryRejected(
            f"database-qualified name {table.catalog}.{shown} is not allowed: "
            "write table or schema.table"
        )
    if is_catalog(schema, name):
        raise QueryRejected(
            f"system table {shown} is not allowed: use the list_tables and describe_tables "
            "tools to see the tables and their columns"
        )
    check_dialect_table(schema, name, dialect)
    if allowed_tables is not None and not _is_listed(schema, name, dialect, allowed_tables):
        raise QueryRejected(
            f"table {shown} is not in the allowed list: {', '.join(sorted(allowed_tables))}"
        )


def _is_listed(schema: str | None, name: str, dialect: str, allowed_tables: frozenset[str]) -> bool:
    default = DEFAULT_SCHEMAS.get(dialect)
    # `orders` in the list means the table a bare name reaches, i.e. the default schema's;
    # `sales.orders` allows exactly that one.
    if schema is None or schema == default:
        return name in allowed_tables or f"{default}.{name}" in allowed_tables
    return f"{schema}.{name}" in allowed_tables


def _describe_parse_error(exc: ParseError, dialect: str) -> str:
    details = exc.errors[0] if exc.errors else {}
    description = details.get("description") or _first_line(exc)
    where = ""
    if details.get("line") is not None:
        where = f" at line {details['line']}, column {details['col']}"
    return (
        f"the query could not be parsed as {dialect} SQL ({description}{where}); "
        "write one plain SELECT query"
    )


def _first_line(exc: Exception) -> str:
    # sqlglot underlines the bad token with terminal escape codes; the model needs none.
    text = str(exc).replace("\x1b[4m", "").replace("\x1b[0m", "")
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
