"""Settings the service cannot open with, found before anything opens: one line each."""

from __future__ import annotations

from config import Settings
from react_agent.databases.federation.specs import parse_sources
from react_agent.databases.urls import database_kind
from react_agent.errors import ConfigurationError

SUPPORTED_KINDS = {
    "DATA_DATABASE_URL": (
        None,
        "sqlite:///file.db, postgresql://…, mysql://… (or mariadb://…, doris://…, "
        "opengauss://…, …), duckdb:///folder, clickhouse://…, chdb:///folder or a URL of an "
        "installed SQLAlchemy dialect",
    ),
    "CHECKPOINT_DATABASE_URL": (
        ("sqlite", "postgres", "memory"),
        "sqlite:///file.db, postgresql://… or memory",
    ),
    "MEMORY_DATABASE_URL": (
        ("sqlite", "postgres", "memory"),
        "sqlite:///file.db, postgresql://… or memory",
    ),
}
"""Each database setting: the kinds of database it may name (None: any the registry
opens), and how to write them."""


def check_database_urls(settings: Settings) -> None:
    """Raise for a database setting whose URL names a kind of database it cannot use.

    Raises:
        ConfigurationError: The first such setting, with the schemes it accepts (or, for
            a database whose driver is not installed, the extra to install).

    """
    given = {
        "DATA_DATABASE_URL": settings.data_database_url,
        "CHECKPOINT_DATABASE_URL": settings.checkpoint_database_url,
        "MEMORY_DATABASE_URL": settings.memory_database_url,
    }
    if settings.data_sources:
        check_data_sources(settings)
    for setting, url in given.items():
        if not url:
            continue
        kinds, spelled = SUPPORTED_KINDS[setting]
        engine = settings.data_engine if setting == "DATA_DATABASE_URL" else None
        try:
            kind = database_kind(url, engine)
        except ValueError:
            kind = None
        if kind is None or (kinds is not None and kind not in kinds):
            scheme = url.split(":", 1)[0] if ":" in url else url
            raise ConfigurationError(
                setting,
                f"{setting}: the scheme {scheme!r} is not supported; use {spelled}",
            )


def check_source_url(name: str, url: str) -> None:
    """Raise for a DATA_SOURCES entry whose URL names no data database kind.

    Raises:
        ConfigurationError: naming the source and the schemes DATA_DATABASE_URL accepts.

    """
    kinds, spelled = SUPPORTED_KINDS["DATA_DATABASE_URL"]
    try:
        kind = database_kind(url)
    except ValueError:
        kind = None
    if kind is None or (kinds is not None and kind not in kinds):
        scheme = url.split(":", 1)[0] if ":" in url else url
        raise ConfigurationError(
            "DATA_SOURCES",
            f"DATA_SOURCES: source {name}: the scheme {scheme!r} is not supported; use {spelled}",
        )


def check_data_sources(settings: Settings) -> None:
    """Raise for a DATA_SOURCES that cannot be read, or that is set beside DATA_DATABASE_URL.

    Raises:
        ConfigurationError: The first problem, naming the source where there is one.

    """
    if settings.data_database_url:
        raise ConfigurationError(
            "DATA_SOURCES",
            "DATA_SOURCES and DATA_DATABASE_URL are both set: keep one (a one-source "
            "DATA_SOURCES is `name=url`)",
        )
    for spec in parse_sources(settings.data_sources or ""):
        check_source_url(spec.name, spec.url)
