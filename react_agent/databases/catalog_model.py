"""The catalogue's dataclasses: what a data source says about its tables, and their JSON form."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

DEFAULT_MAX_DISTINCT = 200
"""Text columns with at most this many distinct values keep them (SCHEMA_VALUES_MAX_DISTINCT)."""
MAX_VALUE_CHARS = 100
"""Longer values are free text, not categories: a column holding one keeps no values."""


@dataclass(frozen=True)
class CatalogColumn:
    """One column: its type, whether it is in the primary key, its comment and values."""

    name: str
    type: str
    nullable: bool = True
    primary_key: bool = False
    comment: str | None = None
    values: tuple[str, ...] | None = None
    """The distinct values of a low-cardinality text column, sorted; None when not kept."""


@dataclass(frozen=True)
class ForeignKey:
    """A foreign key: `columns` of this table reference `ref_columns` of `ref_table`."""

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True)
class CatalogTable:
    """One table or view of the data source."""

    name: str
    columns: tuple[CatalogColumn, ...]
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    comment: str | None = None
    row_estimate: int | None = None
    kind: str = "table"
    """"table" or "view"."""

    def column(self, name: str) -> CatalogColumn | None:
        """Return the column called `name` (case-insensitive), or None."""
        wanted = name.lower()
        return next((c for c in self.columns if c.name.lower() == wanted), None)


@dataclass(frozen=True)
class Catalog:
    """Every table of one data source, as introspected at `built_at` (ISO UTC)."""

    dialect: str
    tables: tuple[CatalogTable, ...] = ()
    built_at: str = ""
    _by_name: dict[str, CatalogTable] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({table.name.lower(): table for table in self.tables})

    def table(self, name: str) -> CatalogTable | None:
        """Return the table called `name` (case-insensitive), or None."""
        return self._by_name.get(name.lower())

    @property
    def column_count(self) -> int:
        """How many columns all tables have together."""
        return sum(len(table.columns) for table in self.tables)

    def as_json(self) -> dict[str, Any]:
        """Return the catalogue as plain JSON data (what the memory database stores)."""
        return {
            "dialect": self.dialect,
            "built_at": self.built_at,
            "tables": [asdict(table) for table in self.tables],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Catalog:
        """Return the catalogue `as_json` produced."""
        return cls(
            data["dialect"],
            tuple(_table_from_json(table) for table in data.get("tables", [])),
            data.get("built_at", ""),
        )


def _table_from_json(data: dict[str, Any]) -> CatalogTable:
    columns = tuple(
        CatalogColumn(
            **{**c, "values": tuple(c["values"]) if c.get("values") is not None else None}
        )
        for c in data["columns"]
    )
    keys = tuple(
        ForeignKey(tuple(fk["columns"]), fk["ref_table"], tuple(fk["ref_columns"]))
        for fk in data.get("foreign_keys", [])
    )
    return CatalogTable(
        data["name"],
        columns,
        tuple(data.get("primary_key", ())),
        keys,
        data.get("comment"),
        data.get("row_estimate"),
        data.get("kind", "table"),
    )


def keeps_values(values: list[str], max_distinct: int) -> bool:
    """Whether a column's distinct values are few and short enough to keep as categories."""
    return 0 < len(values) <= max_distinct and all(len(v) <= MAX_VALUE_CHARS for v in values)
