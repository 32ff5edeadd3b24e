"""What the semantic file (SEMANTIC_FILE) says: the business's words for the schema, as data."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class ColumnMeaning:
    """What the file says of a column: a description, synonyms, and words for its values."""

    description: str | None = None
    synonyms: tuple[str, ...] = ()
    value_synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Stored value → other words for it (`华东: [East China]`)."""


@dataclass(frozen=True)
class TableMeaning:
    """What the file says of a table and its columns."""

    description: str | None = None
    synonyms: tuple[str, ...] = ()
    columns: dict[str, ColumnMeaning] = field(default_factory=dict)


@dataclass(frozen=True)
class Metric:
    """A named measure: `销售额` is `SUM(orders.total_amount)`."""

    name: str
    sql: str
    description: str | None = None


@dataclass(frozen=True)
class JoinPath:
    """A join the foreign keys do not declare: `left` (table.column) = `right`."""

    left: str
    right: str
    description: str | None = None


@dataclass(frozen=True)
class Instruction:
    """A business rule for every question: `fiscal year starts in April`, maybe per table."""

    id: str
    text: str
    tables: tuple[str, ...] = ()
    """Applies only when the caller may read all of these (none: always)."""
    valid_from: date | None = None
    valid_to: date | None = None
    """Inclusive bounds of the dates the rule holds on (None: open)."""

    def holds_on(self, day: date) -> bool:
        """Whether the rule is in force on `day`."""
        return (self.valid_from is None or self.valid_from <= day) and (
            self.valid_to is None or day <= self.valid_to
        )

    def as_dict(self) -> dict[str, object]:
        """Return the rule as the file and the API write it (dates as YYYY-MM-DD)."""
        entry: dict[str, object] = {"id": self.id, "text": self.text}
        if self.tables:
            entry["tables"] = list(self.tables)
        if self.valid_from:
            entry["valid_from"] = self.valid_from.isoformat()
        if self.valid_to:
            entry["valid_to"] = self.valid_to.isoformat()
        return entry


@dataclass(frozen=True)
class Semantics:
    """The whole file; an empty one when no file is configured."""

    tables: dict[str, TableMeaning] = field(default_factory=dict)
    metrics: tuple[Metric, ...] = ()
    joins: tuple[JoinPath, ...] = ()
    hidden: frozenset[str] = frozenset()
    instructions: tuple[Instruction, ...] = ()


class SemanticFileError(ValueError):
    """The file is not valid YAML of the expected shape; each problem names its line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems
