"""Settings the service cannot open with, found before anything opens: one line each."""

from __future__ import annotations

from config import Settings
from react_agent.databases.urls import database_kind
from react_agent.errors import ConfigurationError

SUPPORTED_KINDS = {
    "DATA_DATABASE_URL": (
        None,
        "sqlite:///file.db, postgresql://…, mysql://… (or mariadb://…, doris://…, "
        "opengauss://…, …), duckdb:///folder or a URL of an installed SQLAlchemy dialect",
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
