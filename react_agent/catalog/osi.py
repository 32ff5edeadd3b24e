"""The semantic file to and from Apache Ossie / OSI (Open Semantic Interchange) YAML.

`python -m react_agent.catalog.osi export [--semantic FILE] [--out FILE]` writes the
semantic file as an OSI model; `python -m react_agent.catalog.osi import FILE [--out FILE]`
writes an OSI model as a semantic file. docs/schema.md says what maps and what does not.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from react_agent.catalog.semantic.model import (
    ColumnMeaning,
    Instruction,
    JoinPath,
    Metric,
    Semantics,
    TableMeaning,
)
from react_agent.catalog.semantic.parsing import parse_semantics

OSI_VERSION = "0.2.0.dev0"
"""The version core-spec/ossie-schema.json (Apache Ossie) requires in `version`."""
VENDOR = "SQL_AGENT"
"""Our vendor name in `custom_extensions`: what OSI has no field for (value words, hidden)."""
DIALECT = "ANSI_SQL"
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def to_osi(semantics: Semantics, name: str = "sql_agent") -> dict[str, Any]:
    """Return the OSI document (version + one semantic model) of the semantic file."""
    datasets = [_dataset(table, meaning) for table, meaning in semantics.tables.items()]
    model: dict[str, Any] = {"name": name, "datasets": datasets}
    if semantics.joins:
        model["relationships"] = [_relationship(i, join) for i, join in enumerate(semantics.joins)]
    if semantics.metrics:
        model["metrics"] = [_metric(metric) for metric in semantics.metrics]
    ours: dict[str, Any] = {}
    if semantics.hidden:
        ours["hidden"] = sorted(semantics.hidden)
    if semantics.instructions:
        # Other tools read the rules' words; ids, tables and dates ride in our extension.
        model["ai_context"] = {"instructions": "\n".join(r.text for r in semantics.instructions)}
        ours["instructions"] = [rule.as_dict() for rule in semantics.instructions]
    if ours:
        model["custom_extensions"] = [_extension(ours)]
    return {"version": OSI_VERSION, "semantic_model": [model]}


def _expression(sql: str) -> dict[str, Any]:
    return {"dialects": [{"dialect": DIALECT, "expression": sql}]}


def _extension(data: dict[str, Any]) -> dict[str, str]:
    return {"vendor_name": VENDOR, "data": json.dumps(data, ensure_ascii=False)}


def _with_words(
    entry: dict[str, Any], description: str | None, synonyms: tuple[str, ...]
) -> dict[str, Any]:
    if description:
        entry["description"] = description
    if synonyms:
        entry["ai_context"] = {"synonyms": list(synonyms)}
    return entry


def _dataset(table: str, meaning: TableMeaning) -> dict[str, Any]:
    dataset = _with_words({"name": table, "source": table}, meaning.description, meaning.synonyms)
    fields = []
    for column, said in meaning.columns.items():
        field = _with_words(
            {"name": column, "expression": _expression(column)}, said.description, said.synonyms
        )
        if said.value_synonyms:
            values = {value: list(words) for value, words in said.value_synonyms.items()}
            field["custom_extensions"] = [_extension({"values": values})]
        fields.append(field)
    if fields:
        dataset["fields"] = fields
    return dataset


def _relationship(index: int, join: JoinPath) -> dict[str, Any]:
    left_table, _, left_column = join.left.partition(".")
    right_table, _, right_column = join.right.partition(".")
    relationship: dict[str, Any] = {
        "name": f"{left_table}_{left_column}_{right_table}_{right_column}",
        "from": left_table,
        "to": right_table,
        "from_columns": [left_column],
        "to_columns": [right_column],
    }
    if join.description:
        relationship["ai_context"] = join.description
    return relationship


def _metric(metric: Metric) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": metric.name, "expression": _expression(metric.sql)}
    if metric.description:
        entry["description"] = metric.description
    return entry


class OsiImport:
    """Reads an OSI document into Semantics, noting what it could not carry over."""

    def __init__(self) -> None:
        self.dropped: list[str] = []
        """What the document holds that the semantic file cannot (said on standard error)."""

    def read(self, document: dict[str, Any]) -> Semantics:
        """Return the Semantics of the document's semantic models (all merged)."""
        if not isinstance(document, dict) or not isinstance(document.get("semantic_model"), list):
            raise ValueError("not an OSI document: no semantic_model list")
        tables: dict[str, TableMeaning] = {}
        metrics: list[Metric] = []
        joins: list[JoinPath] = []
        hidden: set[str] = set()
        rules: list[Instruction] = []
        for model in document["semantic_model"]:
            sources = {}
            for dataset in model.get("datasets") or []:
                table = self._table_name(dataset)
                sources[dataset["name"]] = table
                tables[table] = self._table(dataset, table)
                for metric in dataset.get("metrics") or []:
                    metrics.append(self._metric(metric, f"dataset {dataset['name']}"))
            for relationship in model.get("relationships") or []:
                joins.extend(self._joins(relationship, sources))
            for metric in model.get("metrics") or []:
                metrics.append(self._metric(metric, "model"))
            ours = self._ours(model)
            hidden.update(ours.get("hidden", ()))
            rules.extend(self._instructions(model, ours))
        return Semantics(tables, tuple(metrics), tuple(joins), frozenset(hidden), tuple(rules))

    def _instructions(self, model: dict[str, Any], ours: dict[str, Any]) -> list[Instruction]:
        """Return our extension's instructions, else the model's ai_context instructions."""
        if ours.get("instructions"):
            return [_instruction(entry) for entry in ours["instructions"]]
        context = model.get("ai_context")
        text = context.get("instructions") if isinstance(context, dict) else context
        if isinstance(context, dict) and set(context) - {"instructions"}:
            self.dropped.append(f"model {model.get('name')}: ai_context synonyms/examples")
        if isinstance(text, str) and text.strip():
            return [Instruction(f"{model.get('name', 'osi')}_ai_context", text.strip())]
        return []

    def _ours(self, entry: dict[str, Any]) -> dict[str, Any]:
        """Return our own custom extension's data; other vendors' are noted as dropped."""
        data: dict[str, Any] = {}
        for extension in entry.get("custom_extensions") or []:
            if extension.get("vendor_name") == VENDOR:
                data.update(json.loads(extension.get("data") or "{}"))
            else:
                self.dropped.append(
                    f"{entry.get('name')}: {extension.get('vendor_name')} extension"
                )
        return data

    def _table_name(self, dataset: dict[str, Any]) -> str:
        # The source is `database.schema.table` (or a query): the semantic file names tables.
        source = str(dataset.get("source") or dataset["name"]).strip()
        if not _PLAIN_NAME.match(source.split(".")[-1]):
            self.dropped.append(f"dataset {dataset['name']}: source is a query, named by dataset")
            return dataset["name"]
        return source.split(".")[-1]

    def _table(self, dataset: dict[str, Any], table: str) -> TableMeaning:
        columns = {}
        for field in dataset.get("fields") or []:
            column = _sql(field.get("expression"))
            if column is None or not _PLAIN_NAME.match(column):
                self.dropped.append(f"field {table}.{field['name']}: a computed expression")
                continue
            values = self._ours(field).get("values") or {}
            columns[column] = ColumnMeaning(
                field.get("description"),
                _synonyms(field.get("ai_context")),
                {value: tuple(words) for value, words in values.items()},
            )
            if field.get("dimension") or field.get("datatype") or field.get("label"):
                self.dropped.append(f"field {table}.{field['name']}: dimension/datatype/label")
        if dataset.get("primary_key") or dataset.get("unique_keys"):
            self.dropped.append(f"dataset {dataset['name']}: keys (the database's are read)")
        return TableMeaning(
            dataset.get("description"), _synonyms(dataset.get("ai_context")), columns
        )

    def _metric(self, metric: dict[str, Any], where: str) -> Metric:
        sql = _sql(metric.get("expression"))
        if sql is None:
            raise ValueError(f"metric {metric.get('name')} ({where}) has no expression")
        return Metric(metric["name"], sql, metric.get("description"))

    def _joins(self, relationship: dict[str, Any], sources: dict[str, str]) -> list[JoinPath]:
        left = sources.get(relationship["from"], relationship["from"])
        right = sources.get(relationship["to"], relationship["to"])
        note = relationship.get("ai_context")
        if isinstance(note, dict):
            note = note.get("instructions")
        pairs = zip(relationship["from_columns"], relationship["to_columns"], strict=False)
        return [JoinPath(f"{left}.{a}", f"{right}.{b}", note or None) for a, b in pairs]


def _instruction(entry: dict[str, Any]) -> Instruction:
    bounds = [entry.get(k) for k in ("valid_from", "valid_to")]
    return Instruction(
        str(entry["id"]),
        str(entry["text"]),
        tuple(entry.get("tables") or ()),
        *(date.fromisoformat(str(b)) if b else None for b in bounds),
    )


def _sql(expression: Any) -> str | None:
    """Return the ANSI_SQL expression, else the first dialect's; None without one."""
    dialects = (expression or {}).get("dialects") or []
    chosen = next((d for d in dialects if d.get("dialect") == DIALECT), None)
    chosen = chosen or (dialects[0] if dialects else None)
    return str(chosen["expression"]).strip() if chosen else None


def _synonyms(context: Any) -> tuple[str, ...]:
    if isinstance(context, dict):
        return tuple(str(word) for word in context.get("synonyms") or ())
    return ()


def semantics_to_yaml(semantics: Semantics) -> str:
    """Return the semantic file's YAML text for `semantics` (what parse_semantics reads)."""
    tables: dict[str, Any] = {}
    for name, meaning in semantics.tables.items():
        table: dict[str, Any] = {}
        if meaning.description:
            table["description"] = meaning.description
        if meaning.synonyms:
            table["synonyms"] = list(meaning.synonyms)
        columns = {}
        for column, said in meaning.columns.items():
            entry: dict[str, Any] = {}
            if said.description:
                entry["description"] = said.description
            if said.synonyms:
                entry["synonyms"] = list(said.synonyms)
            if said.value_synonyms:
                entry["values"] = {v: list(words) for v, words in said.value_synonyms.items()}
            columns[column] = entry
        if columns:
            table["columns"] = columns
        tables[name] = table
    document: dict[str, Any] = {"tables": tables}
    if semantics.metrics:
        document["metrics"] = {
            m.name: {"sql": m.sql, **({"description": m.description} if m.description else {})}
            for m in semantics.metrics
        }
    if semantics.joins:
        document["joins"] = [
            {
                "left": j.left,
                "right": j.right,
                **({"description": j.description} if j.description else {}),
            }
            for j in semantics.joins
        ]
    if semantics.hidden:
        document["hidden"] = sorted(semantics.hidden)
    if semantics.instructions:
        document["instructions"] = [rule.as_dict() for rule in semantics.instructions]
    return yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=100)


def _join_entry(join: JoinPath) -> dict[str, str]:
    entry = {"left": join.left, "right": join.right}
    if join.description:
        entry["description"] = join.description
    return entry


def main(argv: list[str] | None = None) -> int:
    """Run `export` or `import`; write to --out or standard output; 2 on a bad file."""
    parser = argparse.ArgumentParser(prog="python -m react_agent.catalog.osi")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="the semantic file as an OSI model")
    export.add_argument("--semantic", type=Path, help="the semantic file (default SEMANTIC_FILE)")
    export.add_argument("--name", default="sql_agent", help="the OSI model's name")
    export.add_argument("--out", type=Path)
    imported = commands.add_parser("import", help="an OSI model as a semantic file")
    imported.add_argument("file", type=Path)
    imported.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "export":
            path = args.semantic or _configured_semantic_file()
            semantics, _ = parse_semantics(path.read_text(encoding="utf-8"), path.name)
            text = yaml.safe_dump(
                to_osi(semantics, args.name), allow_unicode=True, sort_keys=False, width=100
            )
        else:
            reader = OsiImport()
            document = yaml.safe_load(args.file.read_text(encoding="utf-8"))
            text = semantics_to_yaml(reader.read(document))
            for note in reader.dropped:
                print(f"not carried over: {note}", file=sys.stderr)
    except (OSError, ValueError, KeyError, yaml.YAMLError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _configured_semantic_file() -> Path:
    from config import Settings

    path = Settings().semantic_file
    if path is None:
        raise ValueError("no --semantic FILE and SEMANTIC_FILE is not set")
    return Path(path)


if __name__ == "__main__":
    raise SystemExit(main())
