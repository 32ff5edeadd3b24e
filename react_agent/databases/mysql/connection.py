"""MySQL and MariaDB connections: URL options, value types, time limits, grants, KILL QUERY."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import asyncmy
from asyncmy.constants import FIELD_TYPE
from asyncmy.converters import conversions

from react_agent.databases.mysql.families import time_limit_sql

logger = logging.getLogger(__name__)

MYSQL_SCHEMES = ("mysql", "mariadb", "tidb", "oceanbase", "doris", "starrocks")
"""URL schemes of this backend and its family (a `+driver` suffix such as mysql+asyncmy is
ignored)."""

# Privileges that read and nothing else; any other one held is reported at start-up.
_READ_PRIVILEGES = frozenset({"SELECT", "USAGE", "SHOW VIEW", "SHOW DATABASES"})
_GRANTED = re.compile(r"^GRANT (.+?) ON ", re.IGNORECASE)
_COLUMN_LIST = re.compile(r"\([^)]*\)")


def _bit_to_int(value: bytes | str) -> int:
    raw = value.encode("latin1") if isinstance(value, str) else value
    return int.from_bytes(raw, "big")


def _json_value(value: bytes | str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def _value_conversions() -> dict[Any, Any]:
    # BIT comes back as bytes and JSON (MySQL's own type) as text; as numbers and JSON
    # values they read the way PostgreSQL's bit-ish integers and jsonb do. Zero dates
    # ('0000-00-00') cannot be dates and stay the server's text.
    converted = dict(conversions)
    converted[FIELD_TYPE.BIT] = _bit_to_int
    converted[FIELD_TYPE.JSON] = _json_value
    return converted


def connect_options(url: str, *, connect_timeout: float) -> dict[str, Any]:
    """Return asyncmy's connection keywords for a `mysql://` or `mariadb://` URL.

    Args:
        url: `mysql://user:pass@host:port/db` (also `mariadb://`; `?unix_socket=/path`).
        connect_timeout: Seconds to wait for the server when connecting.

    """
    parts = urlsplit(url)
    if parts.scheme.split("+")[0].lower() not in MYSQL_SCHEMES:
        raise ValueError(f"not a URL of the MySQL family ({', '.join(MYSQL_SCHEMES)})")
    database = unquote(parts.path.lstrip("/"))
    if not database:
        raise ValueError("a MySQL data database URL must name the database: mysql://…/dbname")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    options: dict[str, Any] = {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 3306,
        "user": unquote(parts.username or "root"),
        "password": unquote(parts.password or ""),
        "db": database,
        "charset": "utf8mb4",
        "autocommit": True,
        "connect_timeout": max(1, round(connect_timeout)),
        "conv": _value_conversions(),
    }
    if "unix_socket" in query:
        options["unix_socket"] = query["unix_socket"]
    return options


def shown_url(options: dict[str, Any]) -> str:
    """Return where the database is, without the password, for messages."""
    return f"mysql://{options['user']}@{options['host']}:{options['port']}/{options['db']}"


def session_limits_sql(family: str, timeout: float | None, select_limit: int | None) -> str:
    """Return one SET giving the session a statement time limit and a top-level row cap.

    The time limit is the family's (mysql/families.time_limit_sql). `sql_select_limit`
    caps the rows of the outermost SELECT only, as a LIMIT would, without a rewrite that
    could lose an ORDER BY.
    """
    rows = str(select_limit) if select_limit is not None else "DEFAULT"
    return f"SET SESSION {time_limit_sql(family, timeout)}, sql_select_limit = {rows}"


def write_privileges(grant_lines: list[str]) -> list[str]:
    """Return the privileges beyond reading that `SHOW GRANTS` lines give, sorted."""
    held: set[str] = set()
    for line in grant_lines:
        match = _GRANTED.match(line.strip())
        if match is None:
            continue  # a role granted to the account; its own grants are shown apart
        privileges = _COLUMN_LIST.sub("", match.group(1))
        for privilege in privileges.split(","):
            name = " ".join(privilege.split()).upper()
            if name and name not in _READ_PRIVILEGES:
                held.add(name)
    return sorted(held)


async def warn_about_write_privileges(connection: Any, where: str) -> list[str]:
    """Log a warning when the account may change data; return what it may do beyond reading."""
    async with connection.cursor() as cursor:
        await cursor.execute("SHOW GRANTS")
        lines = [str(row[0]) for row in await cursor.fetchall()]
    held = write_privileges(lines)
    if held:
        logger.warning(
            "the MySQL account of %s holds privileges beyond reading (%s): queries run in "
            "read-only transactions, but a read-only account is safer (see docs/databases.md)",
            where,
            ", ".join(held),
        )
    return held


async def kill_query(options: dict[str, Any], thread_id: int) -> None:
    """Stop the statement running on connection `thread_id`, from a connection of its own."""
    try:
        connection = await asyncmy.connect(**options)
    except Exception as exc:  # the server is gone, and the query with it
        logger.info("could not connect to kill query %s: %s", thread_id, exc)
        return
    try:
        async with connection.cursor() as cursor:
            await cursor.execute(f"KILL QUERY {int(thread_id)}")
    except asyncmy.errors.Error as exc:
        # Unknown thread: the query ended (and its connection closed) before the KILL.
        logger.info("KILL QUERY %s: %s", thread_id, exc)
    finally:
        await connection.ensure_closed()


def bindable(sql: str, params: Mapping[str, Any] | None) -> tuple[Any, ...]:
    """Return execute()'s arguments: the SQL alone, or with the scope's `:name`s bound.

    The driver formats with `%`: with params, every `%` of the SQL is doubled and each
    `:name` of a parameter (names carry a per-process prefix the model cannot write)
    becomes `%(name)s`.
    """
    if not params:
        return (sql,)
    names = "|".join(re.escape(name) for name in sorted(params, key=len, reverse=True))
    text = re.sub(rf":({names})\b", r"%(\1)s", sql.replace("%", "%%"))
    return text, dict(params)
