"""Turning a folder of data files into DuckDB tables: CSV, TSV, Parquet, JSON lines, Excel."""

from __future__ import annotations

import csv
import datetime as dt
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from charset_normalizer import from_bytes
from python_calamine import CalamineWorkbook

TEXT_SUFFIXES = {".csv": ",", ".tsv": "\t", ".txt": None}
JSON_LINES_SUFFIXES = frozenset({".jsonl", ".ndjson"})
PARQUET_SUFFIXES = frozenset({".parquet", ".pq"})
EXCEL_SUFFIXES = frozenset({".xlsx", ".xlsm", ".xls", ".xlsb", ".ods"})
SUPPORTED_SUFFIXES = frozenset(
    {*TEXT_SUFFIXES, *JSON_LINES_SUFFIXES, *PARQUET_SUFFIXES, *EXCEL_SUFFIXES}
)
"""File kinds that become tables; other files in the folder are left alone."""

_SNIFF_BYTES = 1_000_000
_UNSAFE_NAME = re.compile(r"[\s\"`'.;/\\]+")


@dataclass(frozen=True)
class LoadedTable:
    """One table made from a file (or one sheet of a workbook)."""

    name: str
    source: str
    """The file name, and `#sheet` for a workbook's sheet."""


def table_name(stem: str) -> str:
    """Return the table name of a file stem: its own name, with quotes and spaces as `_`."""
    return _UNSAFE_NAME.sub("_", stem).strip("_") or "table"


def data_files(location: Path) -> list[Path]:
    """Return the supported files of a folder (not its subfolders), or the one file given."""
    if location.is_file():
        return [location] if location.suffix.lower() in SUPPORTED_SUFFIXES else []
    return sorted(
        path
        for path in location.iterdir()
        if path.is_file()
        and path.suffix.lower() in SUPPORTED_SUFFIXES
        and not path.name.startswith((".", "~$"))  # hidden files and Office lock files
    )


def text_encoding(path: Path) -> str:
    """Return the encoding of a text file: UTF-8, else GB18030 (GBK), else the best guess.

    GB18030 is tried before guessing because a short GBK file is often guessed as a
    Korean or Japanese code page, whose bytes it shares; text that is not GB18030
    rarely decodes as it (its trail bytes are never ASCII control or space).
    """
    head = path.read_bytes()[:_SNIFF_BYTES]
    for encoding in ("utf-8", "gb18030"):
        try:
            head.decode(encoding)
            return encoding
        except UnicodeDecodeError as exc:
            if len(head) == _SNIFF_BYTES and exc.start >= len(head) - 4:
                return encoding  # the sample cut a character in two
    best = from_bytes(head).best()
    return best.encoding if best is not None else "latin-1"


def load_files(connection: duckdb.DuckDBPyConnection, location: Path) -> list[LoadedTable]:
    """Create one table per file (per sheet for workbooks) in `connection`'s database.

    Text files that are not UTF-8 and Excel sheets are first written as UTF-8 CSV into a
    private temporary folder, so DuckDB's own reader infers the column types of all kinds.
    """
    loaded: list[LoadedTable] = []
    taken: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="duckdb-files-") as scratch:
        for path in data_files(location):
            for name, source, select in _table_sources(path, Path(scratch)):
                unique = _unique(name, taken)
                quoted = '"' + unique.replace('"', '""') + '"'
                connection.execute(f"CREATE TABLE {quoted} AS {select}")
                connection.execute(f"COMMENT ON TABLE {quoted} IS {_literal('from ' + source)}")
                loaded.append(LoadedTable(unique, source))
    return loaded


def _table_sources(path: Path, scratch: Path) -> Iterator[tuple[str, str, str]]:
    suffix = path.suffix.lower()
    if suffix in EXCEL_SUFFIXES:
        workbook = CalamineWorkbook.from_path(str(path))
        sheets = workbook.sheet_names
        for sheet in sheets:
            rows = workbook.get_sheet_by_name(sheet).to_python(skip_empty_area=True)
            if not rows:
                continue
            copy = scratch / f"{len(list(scratch.iterdir()))}.csv"
            _write_csv(copy, rows)
            name = path.stem if len(sheets) == 1 else f"{path.stem}_{sheet}"
            yield table_name(name), f"{path.name}#{sheet}", _read_csv(copy, ",")
    elif suffix in PARQUET_SUFFIXES:
        yield table_name(path.stem), path.name, f"SELECT * FROM read_parquet({_literal(path)})"
    elif suffix in JSON_LINES_SUFFIXES:
        yield (
            table_name(path.stem),
            path.name,
            f"SELECT * FROM read_json({_literal(path)}, format = 'newline_delimited')",
        )
    else:
        source = path
        encoding = text_encoding(path)
        if encoding != "utf-8":
            source = scratch / f"{len(list(scratch.iterdir()))}.csv"
            source.write_text(path.read_text(encoding=encoding), encoding="utf-8")
        yield table_name(path.stem), path.name, _read_csv(source, TEXT_SUFFIXES.get(suffix))


def _read_csv(path: Path, delimiter: str | None) -> str:
    options = f", delim = {_literal(delimiter)}" if delimiter else ""
    return f"SELECT * FROM read_csv({_literal(path)}, header = true{options})"


def _write_csv(path: Path, rows: list[list[Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        for row in rows:
            writer.writerow([_cell(value) for value in row])


def _cell(value: Any) -> Any:
    # Excel keeps every number as a float: 3.0 is the integer 3 to whoever typed it.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    return value


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 1
    while candidate.lower() in taken:
        number += 1
        candidate = f"{name}_{number}"
    taken.add(candidate.lower())
    return candidate


def _literal(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"
