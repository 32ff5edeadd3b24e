"""The stricter of two scopes: what a paused question may do when it resumes.

A question parked at approval stored the scope it started with; the policy may have
changed since. Its resume runs under both: only tables both allow, every row filter of
either (ANDed), every denied or sensitive column of either, the narrower flags. A
predicate's placeholders of the stored scope are renamed so that both scopes' values
stay bound (the same attribute may have changed: region 1 then region 2 reads nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import sqlglot
from sqlglot import exp

from react_agent.access.scope import Scope

STORED_PREFIX = "paused_"
"""Prefix of the stored scope's placeholders in a combined filter."""


def stricter_scope(stored: Scope, current: Scope) -> Scope:
    """Return the scope that allows only what both `stored` and `current` allow."""
    tables = _common_tables(stored.tables, current.tables)
    filters = dict(current.row_filters)
    for table, predicate in stored.row_filters.items():
        renamed = _renamed_placeholders(predicate)
        filters[table] = f"({filters[table]}) AND ({renamed})" if table in filters else renamed
    parameters = {
        **current.parameters,
        **{STORED_PREFIX + name: value for name, value in stored.parameters.items()},
    }
    return Scope(
        tables=tables,
        row_filters=filters,
        parameters=parameters,
        denied_columns=_union(stored.denied_columns, current.denied_columns),
        sensitive_columns=_union(stored.sensitive_columns, current.sensitive_columns),
        show_sql=stored.show_sql and current.show_sql,
        approve_sql=stored.approve_sql or current.approve_sql,
        audit=stored.audit and current.audit,
        quota=current.quota,
        db_role=current.db_role or stored.db_role,
        roles=tuple(dict.fromkeys((*current.roles, *stored.roles))),
        rewrite=stored.rewrite or current.rewrite,
    )


def allows_nothing(scope: Scope) -> bool:
    """Whether `scope` reads no table at all (the policy gives its actor no role)."""
    return scope.tables is not None and not scope.tables


def _common_tables(
    first: frozenset[str] | None, second: frozenset[str] | None
) -> frozenset[str] | None:
    if first is None:
        return second
    if second is None:
        return first
    return first & second


def _union(
    first: Mapping[str, frozenset[str]], second: Mapping[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    merged = {table: frozenset(columns) for table, columns in first.items()}
    for table, columns in second.items():
        merged[table] = merged.get(table, frozenset()) | columns
    return merged


@lru_cache(maxsize=256)
def _renamed_placeholders(predicate: str) -> str:
    """Return `predicate` with each `:name` written `:paused_name` (as the rewrite reads it)."""
    condition = sqlglot.parse_one(predicate)
    for placeholder in condition.find_all(exp.Placeholder):
        placeholder.set("this", STORED_PREFIX + placeholder.name)
    return condition.sql()
