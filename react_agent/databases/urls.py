"""Database URLs: which kind a URL names, and the file of a SQLite one."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit


def sqlite_path_from_url(url: str) -> Path:
    """Return the file of a `sqlite:///relative.db` or `sqlite:////absolute.db` URL."""
    parts = urlsplit(url)
    if parts.scheme != "sqlite" or parts.netloc:
        raise ValueError(f"not a sqlite:/// URL: {url!r}")
    path = unquote(parts.path)
    # sqlite:///data.db has path "/data.db" (relative); sqlite:////abs.db has "//abs.db".
    return Path(path[1:]) if path.startswith("/") else Path(path)


def database_kind(url: str) -> str:
    """Return "sqlite", "postgres", "mysql", "duckdb" or "memory" for a database URL."""
    # Not urlsplit: a URL it cannot parse (an unclosed `[`) still has a kind to report.
    scheme = url.split(":", 1)[0].split("+")[0].strip().lower() if ":" in url else ""
    if url.strip().lower() == "memory":
        return "memory"
    if scheme == "sqlite":
        return "sqlite"
    if scheme in ("postgresql", "postgres"):
        return "postgres"
    if scheme in ("mysql", "mariadb"):
        return "mysql"
    if scheme == "duckdb":
        return "duckdb"
    # The scheme only: the URL may hold a password.
    raise ValueError(
        f"unsupported database URL scheme {scheme!r}: use sqlite:///file.db, postgresql://…, "
        "mysql://… or duckdb:///folder"
    )
