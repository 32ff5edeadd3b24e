"""A scratch PostgreSQL database for the checkpointer comparison, dropped afterwards."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from bench.environment import log

POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


@contextmanager
def scratch_postgres(enabled: bool) -> Iterator[tuple[str | None, str | None]]:
    """Yield (url, None) of a new `bench_<random>` database, dropped on exit, or (None, why)."""
    if not enabled:
        yield None, "skipped (--skip-postgres)"
        return
    try:
        import psycopg
    except ImportError as exc:
        yield None, f"psycopg is not installed: {exc}"
        return
    name = f"bench_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        yield None, f"PostgreSQL at {POSTGRES_ADMIN_URL} is not usable: {exc}"
        return
    log(f"created scratch database {name}")
    try:
        yield POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}", None
    finally:
        try:
            with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            log(f"dropped scratch database {name}")
        except Exception as exc:
            log(f"could not drop scratch database {name}: {exc}")
