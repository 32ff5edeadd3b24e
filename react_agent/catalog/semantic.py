"""The semantic file (SEMANTIC_FILE): the business's words for the schema, checked against it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import sqlglot
import yaml
from sqlglot import exp
from sqlglot.errors import SqlglotError

from react_agent.databases.catalog_model import Catalog


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


_TABLE_KEYS = {"description", "synonyms", "columns"}
_COLUMN_KEYS = {"description", "synonyms", "values"}
_TOP_KEYS = {"tables", "metrics", "joins", "hidden", "instructions"}
_INSTRUCTION_KEYS = {"id", "text", "tables", "valid_from", "valid_to"}


_BOUNDS = ("valid_from", "valid_to")


class _Reader:
    """Turns the YAML node tree into Semantics, noting each problem with its line."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[str] = []
        self.lines: dict[str, int] = {}
        """`table`, `table.column`, `metric:name`, `join:n` → line, for checking names later."""

    def problem(self, node: yaml.Node, message: str) -> None:
        self.problems.append(f"{self.source}:{node.start_mark.line + 1}: {message}")

    def mapping(self, node: yaml.Node, what: str, keys: set[str] | None = None) -> dict:
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, f"{what} must be a mapping")
            return {}
        found = {}
        for key, value in node.value:
            if keys is not None and key.value not in keys:
                self.problem(
                    key, f"unknown key {key.value!r} in {what} ({', '.join(sorted(keys))})"
                )
                continue
            found[str(key.value)] = (key, value)
        return found

    def text(self, node: yaml.Node, what: str) -> str | None:
        if isinstance(node, yaml.ScalarNode) and node.value.strip():
            return node.value.strip()
        self.problem(node, f"{what} must be a non-empty string")
        return None

    def texts(self, node: yaml.Node, what: str) -> tuple[str, ...]:
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, f"{what} must be a list of strings")
            return ()
        return tuple(t for item in node.value if (t := self.text(item, what)) is not None)

    def column(self, node: yaml.Node, where: str) -> ColumnMeaning:
        fields = self.mapping(node, f"column {where}", _COLUMN_KEYS)
        values = {}
        if "values" in fields:
            for key, words in self.mapping(fields["values"][1], f"values of {where}").items():
                values[key] = self.texts(words[1], f"synonyms of value {key!r}")
        return ColumnMeaning(
            self.text(fields["description"][1], "description") if "description" in fields else None,
            self.texts(fields["synonyms"][1], "synonyms") if "synonyms" in fields else (),
            values,
        )

    def table(self, name: str, node: yaml.Node) -> TableMeaning:
        fields = self.mapping(node, f"table {name}", _TABLE_KEYS)
        columns = {}
        if "columns" in fields:
            for column, (key, value) in self.mapping(fields["columns"][1], "columns").items():
                self.lines[f"{name}.{column}".lower()] = key.start_mark.line + 1
                columns[column] = self.column(value, f"{name}.{column}")
        return TableMeaning(
            self.text(fields["description"][1], "description") if "description" in fields else None,
            self.texts(fields["synonyms"][1], "synonyms") if "synonyms" in fields else (),
            columns,
        )

    def read(self, root: yaml.Node | None) -> Semantics:
        if root is None:
            return Semantics()
        top = self.mapping(root, "the file", _TOP_KEYS)
        tables = {}
        for name, (key, value) in (
            self.mapping(top["tables"][1], "tables").items() if "tables" in top else ()
        ):
            self.lines[name.lower()] = key.start_mark.line + 1
            tables[name] = self.table(name, value)
        metrics = []
        for name, (key, value) in (
            self.mapping(top["metrics"][1], "metrics").items() if "metrics" in top else ()
        ):
            fields = self.mapping(value, f"metric {name}", {"sql", "description"})
            self.lines[f"metric:{name}"] = key.start_mark.line + 1
            sql = self.text(fields["sql"][1], "sql") if "sql" in fields else None
            if sql is None:
                self.problem(key, f"metric {name!r} needs sql")
                continue
            note = (
                self.text(fields["description"][1], "description")
                if "description" in fields
                else None
            )
            metrics.append(Metric(name, sql, note))
        joins = []
        if "joins" in top:
            node = top["joins"][1]
            for item in node.value if isinstance(node, yaml.SequenceNode) else ():
                fields = self.mapping(item, "join", {"left", "right", "description"})
                if "left" in fields and "right" in fields:
                    self.lines[f"join:{len(joins)}"] = item.start_mark.line + 1
                    left, right = (
                        self.text(fields["left"][1], "left"),
                        self.text(fields["right"][1], "right"),
                    )
                    note = (
                        self.text(fields["description"][1], "description")
                        if "description" in fields
                        else None
                    )
                    joins.append(JoinPath(left or "", right or "", note))
                else:
                    self.problem(item, "a join needs left and right (table.column each)")
        hidden = self.texts(top["hidden"][1], "hidden") if "hidden" in top else ()
        if "hidden" in top and isinstance(top["hidden"][1], yaml.SequenceNode):
            for item in top["hidden"][1].value:
                self.lines[f"hidden:{str(item.value).lower()}"] = item.start_mark.line + 1
        instructions = self.instructions(top["instructions"][1]) if "instructions" in top else ()
        return Semantics(
            tables,
            tuple(metrics),
            tuple(joins),
            frozenset(n.lower() for n in hidden),
            instructions,
        )

    def instructions(self, node: yaml.Node) -> tuple[Instruction, ...]:
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, "instructions must be a list")
            return ()
        found: list[Instruction] = []
        for item in node.value:
            fields = self.mapping(item, "instruction", _INSTRUCTION_KEYS)
            if "id" not in fields or "text" not in fields:
                self.problem(item, "an instruction needs id and text")
                continue
            ident = self.text(fields["id"][1], "id") or ""
            if any(known.id == ident for known in found):
                self.problem(item, f"instruction id {ident!r} is used twice")
            self.lines[f"instruction:{ident}"] = item.start_mark.line + 1
            tables = self.texts(fields["tables"][1], "tables") if "tables" in fields else ()
            bounds = [self.day(fields[k][1], k) if k in fields else None for k in _BOUNDS]
            found.append(
                Instruction(ident, self.text(fields["text"][1], "text") or "", tables, *bounds)
            )
        return tuple(found)

    def day(self, node: yaml.Node, what: str) -> date | None:
        try:
            return date.fromisoformat(str(node.value).strip())
        except (ValueError, TypeError):
            self.problem(node, f"{what} must be a date YYYY-MM-DD")
            return None


def parse_semantics(text: str, source: str = "semantic file") -> tuple[Semantics, dict[str, int]]:
    """Return the file's meanings and the line of each named thing.

    Raises:
        SemanticFileError: Bad YAML or a wrong shape; every problem names its line.

    """
    reader = _Reader(source)
    try:
        # libyaml's loader when present: the pure-Python one takes a minute on 15,000 columns.
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else 1
        raise SemanticFileError([f"{source}:{line}: {exc.problem or exc}"]) from exc
    semantics = reader.read(root)
    if reader.problems:
        raise SemanticFileError(reader.problems)
    return semantics, reader.lines


def check_semantics(
    semantics: Semantics, lines: dict[str, int], catalog: Catalog, source: str = "semantic file"
) -> list[str]:
    """Return the file's names the catalogue lacks and metrics that do not parse, with lines."""
    problems: list[str] = []

    def at(key: str, message: str) -> None:
        problems.append(f"{source}:{lines.get(key, 1)}: {message}")

    for name, meaning in semantics.tables.items():
        table = catalog.table(name)
        if table is None:
            at(name.lower(), f"no table {name!r} in the database")
            continue
        for column, column_meaning in meaning.columns.items():
            found = table.column(column)
            where = f"{name}.{column}".lower()
            if found is None:
                at(where, f"no column {column!r} in table {name!r}")
            elif column_meaning.value_synonyms and found.values is not None:
                unknown = sorted(set(column_meaning.value_synonyms) - set(found.values))
                if unknown:
                    at(where, f"values not found in {name}.{column}: {', '.join(unknown)}")
    for name in sorted(semantics.hidden):
        if catalog.table(name) is None:
            at(f"hidden:{name}", f"hidden table {name!r} is not in the database")
    for rule in semantics.instructions:
        for table in rule.tables:
            if catalog.table(table) is None:
                at(f"instruction:{rule.id}", f"instruction {rule.id!r}: no table {table!r}")
    for metric in semantics.metrics:
        for problem in _check_sql_names(metric.sql, catalog):
            at(f"metric:{metric.name}", f"metric {metric.name!r}: {problem}")
    for index, join in enumerate(semantics.joins):
        for side in (join.left, join.right):
            table, _, column = side.partition(".")
            found = catalog.table(table)
            if found is None or found.column(column) is None:
                at(f"join:{index}", f"join side {side!r} is not a table.column of the database")
    return problems


def _check_sql_names(sql: str, catalog: Catalog) -> list[str]:
    try:
        tree = sqlglot.parse_one(sql, read=catalog.dialect)
    except SqlglotError as exc:
        return [f"its sql does not parse: {str(exc).splitlines()[0]}"]
    problems = []
    for column in tree.find_all(exp.Column):
        if not column.table:
            continue
        table = catalog.table(column.table)
        if table is None:
            problems.append(f"no table {column.table!r}")
        elif table.column(column.name) is None:
            problems.append(f"no column {column.table}.{column.name}")
    return problems


def load_semantics(path: Path | None, catalog: Catalog) -> tuple[Semantics, list[str]]:
    """Read and check the file at `path` against `catalog`; with problems, apply none of it.

    Returns:
        The meanings (empty when there is no file or it has problems) and the problems.

    """
    if path is None:
        return Semantics(), []
    try:
        text = Path(path).read_text(encoding="utf-8")
        semantics, lines = parse_semantics(text, Path(path).name)
    except OSError as exc:
        return Semantics(), [f"{path}: cannot be read: {exc.strerror or exc}"]
    except SemanticFileError as exc:
        return Semantics(), exc.problems
    problems = check_semantics(semantics, lines, catalog, Path(path).name)
    return (Semantics(), problems) if problems else (semantics, [])
