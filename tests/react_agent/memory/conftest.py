"""Fixtures for the memory's tests: its database on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgres"])
def memory_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Return the URL of an empty memory database of each kind.

    The SQLite one is the file the `settings` fixture's memory defaults to.
    """
    if request.param == "postgres":
        return request.getfixturevalue("postgres_database")
    return f"sqlite:///{tmp_path / 'memory.db'}"
