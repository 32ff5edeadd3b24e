"""What an actor may see and do, computed from the policy; immutable for a run's life."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


def table_listed(tables: frozenset[str], table: str) -> bool:
    """Whether `table` is in `tables`, by name or as `source.table` under a `source.*`."""
    name = table.lower()
    source, dot, _ = name.rpartition(".")
    return name in tables or (bool(dot) and f"{source}.*" in tables)


@dataclass(frozen=True)
class Quota:
    """Limits per user: questions per minute and model tokens per day (None: no limit)."""

    questions_per_minute: int | None = None
    tokens_per_day: int | None = None


@dataclass(frozen=True)
class Scope:
    """Readable tables, row filters, denied and sensitive columns, and what the role may do.

    Table and column names are lower case. `row_filters` maps a table to a predicate in
    SQL whose `:name` placeholders are bound from `parameters` (the actor's attributes),
    never pasted into the text.
    """

    tables: frozenset[str] | None = None
    """Tables the actor may read; None for every table."""
    row_filters: Mapping[str, str] = field(default_factory=dict)
    """Table → predicate every row read from it must satisfy."""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    """Values of the predicates' placeholders (also the PostgreSQL session settings)."""
    denied_columns: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Table → columns a query may not mention at all."""
    sensitive_columns: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Table → columns whose values never reach the model (it reads stable tokens)."""
    show_sql: bool = True
    """Whether the user may see SQL and tool arguments."""
    approve_sql: bool = False
    """Whether every query waits for a person's approval."""
    audit: bool = False
    """Whether the actor may read the audit trail."""
    quota: Quota = field(default_factory=Quota)
    """The actor's quotas."""
    db_role: str | None = None
    """PostgreSQL role queries run as (SET LOCAL ROLE), or None."""
    roles: tuple[str, ...] = ()
    """The policy roles this scope was computed from (for the audit)."""
    rewrite: bool = True
    """Whether the parse-tree rewrite runs (tests switch it off to test the database alone)."""

    @classmethod
    def allow_all(cls) -> Scope:
        """Return the scope of a service without a policy file: everything, as before."""
        return cls()

    @property
    def is_unrestricted(self) -> bool:
        """Whether queries need no rewrite: every table, no filters, no column rules."""
        return (
            self.tables is None
            and not self.row_filters
            and not any(self.denied_columns.values())
            and not any(self.sensitive_columns.values())
        )

    def can_read(self, table: str) -> bool:
        """Whether the actor may read `table` (any case; `source.*` lists a source's tables)."""
        return self.tables is None or table_listed(self.tables, table)

    def readable_columns(self, table: str, columns: Iterable[str]) -> list[str]:
        """Return the columns of `table` (in order) that the actor may read."""
        if not self.can_read(table):
            return []
        denied = self.denied_columns.get(table.lower(), frozenset())
        return [column for column in columns if column.lower() not in denied]

    def filters_rows(self, table: str) -> bool:
        """Whether the actor may read only some rows of `table`.

        A row filter says so; under a `db_role` the database's own row level security may
        filter any table, which the service cannot see, so every table counts as filtered.
        """
        return table.lower() in self.row_filters or self.db_role is not None

    def sensitive(self, table: str) -> frozenset[str]:
        """Return the sensitive columns of `table` (lower case)."""
        return self.sensitive_columns.get(table.lower(), frozenset())

    def to_dict(self) -> dict[str, Any]:
        """Return the scope as plain data, to store with a run (checkpoint, run record)."""
        return {
            "tables": sorted(self.tables) if self.tables is not None else None,
            "row_filters": dict(self.row_filters),
            "parameters": dict(self.parameters),
            "denied_columns": {t: sorted(c) for t, c in self.denied_columns.items()},
            "sensitive_columns": {t: sorted(c) for t, c in self.sensitive_columns.items()},
            "show_sql": self.show_sql,
            "approve_sql": self.approve_sql,
            "audit": self.audit,
            "quota": {
                "questions_per_minute": self.quota.questions_per_minute,
                "tokens_per_day": self.quota.tokens_per_day,
            },
            "db_role": self.db_role,
            "roles": list(self.roles),
            "rewrite": self.rewrite,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scope:
        """Rebuild a scope stored by `to_dict`."""
        tables = data.get("tables")
        return cls(
            tables=frozenset(tables) if tables is not None else None,
            row_filters=dict(data.get("row_filters") or {}),
            parameters=dict(data.get("parameters") or {}),
            denied_columns={t: frozenset(c) for t, c in (data.get("denied_columns") or {}).items()},
            sensitive_columns={
                t: frozenset(c) for t, c in (data.get("sensitive_columns") or {}).items()
            },
            show_sql=bool(data.get("show_sql", True)),
            approve_sql=bool(data.get("approve_sql", False)),
            audit=bool(data.get("audit", False)),
            quota=Quota(**(data.get("quota") or {})),
            db_role=data.get("db_role"),
            roles=tuple(data.get("roles") or ()),
            rewrite=bool(data.get("rewrite", True)),
        )
