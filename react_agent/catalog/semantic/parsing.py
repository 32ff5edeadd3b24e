"""Reading the semantic file's YAML into its meanings, each problem named with its line."""

from __future__ import annotations

from datetime import date

import yaml

from react_agent.catalog.semantic.model import (
    ColumnMeaning,
    Instruction,
    JoinPath,
    Metric,
    SemanticFileError,
    Semantics,
    TableMeaning,
)

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
