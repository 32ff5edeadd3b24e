"""Database URLs: which kind a URL names, and the file of a SQLite one."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from react_agent.databases.registry import engine_for


def sqlite_path_from_url(url: str) -> Path:
    """Return the file of a `sqlite:///relative.db` or `sqlite:////absolute.db` URL."""
    parts = urlsplit(url)
    if parts.scheme != "sqlite" or parts.netloc:
        raise ValueError(f"not a sqlite:/// URL: {url!r}")
    path = unquote(parts.path)
    # sqlite:///data.db has path "/data.db" (relative); sqlite:////abs.db has "//abs.db".
    return Path(path[1:]) if path.startswith("/") else Path(path)


def database_kind(url: str, engine: str | None = None) -> str:
    """Return "memory" or the registry's kind of a database URL ("sqlite", "generic", …).

    `engine="generic"` (DATA_ENGINE) makes every URL the generic engine's.
    """
    if url.strip().lower() == "memory":
        return "memory"
    return engine_for(url, engine).kind
