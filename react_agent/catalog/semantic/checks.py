"""The semantic file checked against the database's catalogue, and loaded only when it holds."""

from __future__ import annotations

from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from react_agent.catalog.semantic.model import SemanticFileError, Semantics
from react_agent.catalog.semantic.parsing import parse_semantics
from react_agent.databases.catalog_model import Catalog


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
