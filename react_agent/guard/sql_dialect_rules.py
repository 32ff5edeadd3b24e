"""What the SQL guard refuses in one dialect only: MySQL's and DuckDB's own ways out.

The other engines' rules are in engine_rules; the functions here route to them.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from react_agent.guard.engine_rules import (
    MYSQL_FAMILY,
    RuleBroken,
    check_engine_node,
    check_engine_table,
    is_refused_in_engine,
)
from react_agent.guard.sql_refusals import DIALECT_REFUSED_FUNCTIONS

# MySQL runs the text of /*! … */ and MariaDB that of /*M! … */ as SQL, while sqlglot
# reads both as comments: a SLEEP() or LOAD_FILE() inside would pass the tree's checks.
_EXECUTABLE_COMMENT = re.compile(r"/\*M?!", re.IGNORECASE)
# DuckDB reads `FROM 'file.csv'` and `FROM 'https://…'` as a scan of that file.
_FILE_LIKE_NAME = re.compile(r"[/\\:*?]|\.[a-z0-9]{1,8}$", re.IGNORECASE)


DialectRuleBroken = RuleBroken
"""A dialect-only rule refused the query; the message is the reason for the model."""


def check_dialect_text(sql: str, dialect: str) -> None:
    """Refuse what hides outside the tokens: MySQL's (and its family's) executable comments."""
    if dialect not in MYSQL_FAMILY:
        return
    tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    # Only the gaps between tokens hold comments; string literals are tokens, so a
    # '/*!' inside quotes is data and passes.
    previous_end = -1
    for token in [*tokens, None]:
        start = len(sql) if token is None else token.start
        if _EXECUTABLE_COMMENT.search(sql, previous_end + 1, start):
            raise DialectRuleBroken(
                "executable comments (/*! … */) are not allowed: write the SQL plainly"
            )
        if token is not None:
            previous_end = token.end


def check_dialect_node(node: exp.Expression, dialect: str) -> None:
    """Refuse one parse-tree node that only this dialect makes dangerous."""
    check_engine_node(node, dialect)
    if dialect in MYSQL_FAMILY:
        if isinstance(node, exp.PropertyEQ):
            raise DialectRuleBroken(
                "user variables assigned with := are not allowed: compute the value in the query"
            )
        if isinstance(node, exp.SessionParameter):
            raise DialectRuleBroken(
                f"system variables (@@{node.name}) are not allowed: query the data tables"
            )
    if (
        dialect == "duckdb"
        and isinstance(node, exp.Table)
        and isinstance(node.this, exp.Identifier)
    ):
        if node.this.quoted and _FILE_LIKE_NAME.search(node.name):
            raise DialectRuleBroken(
                f"reading files or URLs ({node.name!r}) is not allowed: query the tables "
                "that list_tables shows"
            )


def check_dialect_table(schema: str | None, name: str, dialect: str) -> None:
    """Refuse a table reference this dialect does not allow."""
    # In MySQL and ClickHouse another database on the same server is out of reach,
    # whatever the account may read; other engines keep their catalogues apart.
    check_engine_table(schema, name, dialect)


def is_refused_in_dialect(name: str, dialect: str) -> bool:
    """Whether the function (its lower-case name) may not be called in `dialect`."""
    refused = DIALECT_REFUSED_FUNCTIONS.get(dialect)
    if refused is None:
        return is_refused_in_engine(name, dialect)
    names, prefixes = refused
    return name in names or name.startswith(prefixes)
