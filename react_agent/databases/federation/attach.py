"""How DuckDB attaches each kind of source read-only, and its scanners loaded from files.

The scanners (postgres, mysql, sqlite) come from the `duckdb-extension-*` packages, which
ship each extension as a file: it is loaded from there, never downloaded. DuckDB takes an
extension's name from its file name, so each is linked under the name it was built with.
"""

from __future__ import annotations

import importlib.util
import tempfile
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from react_agent.databases.registry import engine_for
from react_agent.databases.urls import sqlite_path_from_url

SCANNERS = {"postgres": "postgres", "mysql": "mysql", "sqlite": "sqlite"}
"""Engine kind → the duckdb-extension-* package (and DuckDB extension) that attaches it."""


class CannotAttach(Exception):
    """A source DuckDB cannot attach: its engine has no scanner, or the scanner is missing."""


@cache
def scanner_file(extension: str) -> Path:
    """Return the scanner's file, linked as `<name>_scanner.duckdb_extension`, as LOAD wants."""
    spec = importlib.util.find_spec(f"duckdb_extension_{extension}")
    found = (
        sorted(Path(spec.origin).parent.glob(f"extensions/*/{extension}.duckdb_extension"))
        if spec is not None and spec.origin
        else []
    )
    if not found:
        raise CannotAttach(
            f"the {extension} scanner is not installed: pip install duckdb-extension-{extension}"
        )
    link = (
        Path(tempfile.mkdtemp(prefix="duckdb-scanners-")) / f"{extension}_scanner.duckdb_extension"
    )
    link.symlink_to(found[-1])
    return link


def attach_statements(name: str, url: str, *, file_path: Path | None = None) -> list[str]:
    """Return the statements that attach the source `name` at `url` read-only, LOAD first.

    Args:
        name: The source's name, the catalogue its tables are read from in DuckDB.
        url: The source's URL.
        file_path: For a DuckDB files source, the database file it was built into.

    """
    kind = engine_for(url).kind
    if kind == "duckdb":
        if file_path is None:
            raise CannotAttach(f"source {name}: its DuckDB file is not built")
        return [f"ATTACH {_literal(str(file_path))} AS {name} (READ_ONLY)"]
    extension = SCANNERS.get(kind)
    if extension is None:
        raise CannotAttach(f"source {name}: DuckDB cannot attach a {kind} database")
    load = f"LOAD {_literal(str(scanner_file(extension)))}"
    if kind == "mysql":
        # A secret, not a key=value string: any password passes whole (spaces, quotes).
        return [
            load,
            _mysql_secret(name, url),
            f"ATTACH '' AS {name} (TYPE mysql, SECRET {name}_source, READ_ONLY)",
        ]
    target = _postgres(url) if kind == "postgres" else _sqlite(url)
    return [load, f"ATTACH {_literal(target)} AS {name} (TYPE {extension}, READ_ONLY)"]


def _postgres(url: str) -> str:
    # libpq reads the URL as it is; the driver suffix (postgresql+psycopg) it would not.
    scheme, rest = url.split(":", 1)
    return "postgresql:" + rest if "+" in scheme else url


def _mysql_secret(name: str, url: str) -> str:
    parts = urlsplit(url)
    fields = {
        "HOST": parts.hostname or "127.0.0.1",
        "PORT": parts.port or 3306,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "DATABASE": unquote(parts.path.lstrip("/")),
    }
    options = ", ".join(
        f"{key} {value if isinstance(value, int) else _literal(value)}"
        for key, value in fields.items()
    )
    return f"CREATE TEMPORARY SECRET {name}_source (TYPE mysql, {options})"


def _sqlite(url: str) -> str:
    return str(sqlite_path_from_url(url).resolve())


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
