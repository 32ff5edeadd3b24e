"""The engines a data URL may name: one entry per engine, keyed by the URL's scheme.

A new engine is one package under databases/ with an `open_url(url, *, file_options,
pool_options)` function and one `Engine` line here (docs/databases.md has the recipe).
Engines are imported only when a URL asks for one, so a missing driver stops only its own.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Engine:
    """One engine: its kind (reported by /health), URL schemes, package and SQL dialect."""

    kind: str
    schemes: tuple[str, ...]
    package: str
    """The package under react_agent.databases whose `open_url` opens it."""
    dialect: str
    """The sqlglot dialect the guard, the scope rewrite and the lint read its SQL in."""


ENGINES: tuple[Engine, ...] = (
    Engine("sqlite", ("sqlite",), "sqlite", "sqlite"),
    Engine("postgres", ("postgresql", "postgres"), "postgres", "postgres"),
    Engine("mysql", ("mysql", "mariadb"), "mysql", "mysql"),
    Engine("duckdb", ("duckdb",), "duckdb", "duckdb"),
    Engine("clickhouse", ("clickhouse", "chdb"), "clickhouse", "clickhouse"),
)


def url_scheme(url: str) -> str:
    """Return a URL's scheme without its driver (`mysql+asyncmy` → `mysql`), lower-cased."""
    # Not urlsplit: a URL it cannot parse (an unclosed `[`) still has a scheme to report.
    return url.split(":", 1)[0].split("+")[0].strip().lower() if ":" in url else ""


def engine_for(url: str) -> Engine:
    """Return the engine whose scheme `url` has; ValueError naming the supported ones."""
    scheme = url_scheme(url)
    for engine in ENGINES:
        if scheme in engine.schemes:
            return engine
    known = ", ".join(f"{s}://" for engine in ENGINES for s in engine.schemes)
    # The scheme only: the URL may hold a password.
    raise ValueError(f"unsupported database URL scheme {scheme!r}: use one of {known}")


def opener(engine: Engine) -> Callable[..., Awaitable[Any]]:
    """Return the engine package's `open_url`, imported now."""
    module = importlib.import_module(f"react_agent.databases.{engine.package}")
    return module.open_url
