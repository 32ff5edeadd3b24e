"""A ClickHouse URL's client, the settings every query runs under, and what its errors mean."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import clickhouse_connect
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError, OperationalError

from react_agent.databases.base import QueryFailed, statement_timed_out
from react_agent.errors import ServiceError

# 159 TIMEOUT_EXCEEDED: max_execution_time; 394 QUERY_WAS_CANCELLED: a KILL QUERY.
_TIMEOUT_CODES = frozenset({159, 394})
_CODE = re.compile(r"Code: (\d+)\.")
_SECURE_PORTS = frozenset({443, 8443})


@dataclass(frozen=True)
class Target:
    """Where a URL points: the keywords of `clickhouse_connect.get_client`, and what to show."""

    options: dict[str, Any]
    shown: str
    """The URL without its password, for logs and errors."""
    embedded: bool


def target_from_url(url: str, *, connect_timeout: float) -> Target:
    """Return where a ClickHouse URL points.

    `clickhouse://user:pass@host:8123/db` is a server over HTTP (`clickhouse+https://`,
    `?secure=true` or port 8443 for HTTPS); `chdb:///folder?database=db` is the embedded
    chdb engine over a folder of its own (one folder per process, chdb's rule).
    """
    parts = urlsplit(url)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    scheme, _, driver = parts.scheme.lower().partition("+")
    database = unquote(parts.path.lstrip("/")) or query.get("database") or "default"
    if scheme == "chdb" or driver == "chdb":
        folder = unquote(parts.path) if not parts.netloc else unquote(parts.netloc + parts.path)
        database = query.get("database", "default")
        return Target(
            {"dsn": f"chdb://{folder}", "database": database}, f"chdb://{folder}", embedded=True
        )
    port = parts.port
    secure = (
        driver == "https"
        or query.get("secure", "").lower() in ("1", "true")
        or (port in _SECURE_PORTS)
    )
    host = parts.hostname or "localhost"
    options = {
        "host": host,
        "port": port or (8443 if secure else 8123),
        "username": unquote(parts.username or "default"),
        "password": unquote(parts.password or ""),
        "database": database,
        "secure": secure,
        "connect_timeout": connect_timeout,
        # One session per request: a client shared by threads may not hold a session.
        "autogenerate_session_id": False,
    }
    shown = f"{'https' if secure else 'http'}://{options['username']}@{host}:{options['port']}/"
    return Target(options, shown + database, embedded=False)


def connect(target: Target) -> Client:
    """Return a new client for `target` (it asks the server its version: it may raise)."""
    return clickhouse_connect.get_client(**target.options)


def query_settings(marker: str, timeout: float | None, *, row_limit: int | None = None) -> dict:
    """Return the settings of one query: read-only, its time limit, its marker for KILL QUERY.

    `readonly=2` refuses every write while still letting the client send its settings;
    the guard refuses a SETTINGS clause in the model's SQL, so none of these can be
    changed back by it. `query_id` tags the query on a server (HTTP); `log_comment` tags
    it on chdb too, which drops `query_id`: KILL QUERY looks for either.
    """
    settings: dict[str, Any] = {"readonly": 2, "query_id": marker, "log_comment": marker}
    if timeout is not None:
        settings["max_execution_time"] = max(timeout, 0.001)
        settings["timeout_overflow_mode"] = "throw"
    if row_limit is not None:
        # The server stops sending once this many rows are out (block-rounded): "break"
        # keeps the first rows instead of failing the query.
        settings["max_result_rows"] = row_limit
        settings["result_overflow_mode"] = "break"
    return settings


def new_marker() -> str:
    """Return a query's id: `query_id` and `log_comment` both carry it."""
    return f"sql-agent-{uuid.uuid4()}"


KILL_SQL = (
    "KILL QUERY WHERE query_id = {marker:String} OR Settings['log_comment'] = {marker:String}"
)


def kill(client: Client, marker: str, *, wait: bool) -> None:
    """Stop the query tagged `marker` on the server (`wait`: until it has stopped).

    A stream's query waits for its reader, so it is killed without waiting and then closed.
    """
    sql = f"{KILL_SQL} {'SYNC' if wait else 'ASYNC'}"
    client.query(sql, parameters={"marker": marker}, settings={"max_execution_time": 10})


_PLACEHOLDER = "{{{name}: }}"  # how sqlglot writes an untyped ClickHouse placeholder


def bindable(sql: str, params: Mapping[str, Any] | None) -> str:
    """Give each scope placeholder `{name: }` its ClickHouse type, from its value.

    The names carry a per-process prefix the model cannot write, so only the rewrite's
    placeholders change; the values travel as query parameters, never in the text.
    """
    for name, value in (params or {}).items():
        sql = sql.replace(_PLACEHOLDER.format(name=name), f"{{{name}:{_type_of(value)}}}")
    return sql


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, int):
        return "Int64"
    if isinstance(value, float):
        return "Float64"
    if isinstance(value, Decimal):
        return "Decimal(76, 20)"
    if isinstance(value, dt.datetime):
        return "DateTime64(6)"
    if isinstance(value, dt.date):
        return "Date32"
    return "String"


def error_code(exc: BaseException) -> int | None:
    """Return the ClickHouse error code a driver error names (`Code: 164.`), if any."""
    found = _CODE.search(str(exc))
    return int(found.group(1)) if found else None


def translate_error(
    exc: ClickHouseError,
    shown: str,
    timeout: float | None,
    statement: str | None,
) -> Exception:
    """Return what a driver error means: 503 unreachable, a timeout, or QueryFailed (redacted)."""
    code = error_code(exc)
    if code is None and isinstance(exc, OperationalError):
        return unavailable(shown, _connection_problem(str(exc)))
    if code in _TIMEOUT_CODES and timeout is not None:
        return statement_timed_out(timeout)
    return QueryFailed(_server_message(str(exc)), statement)


def unavailable(shown: str, problem: str) -> ServiceError:
    """Return the 503 for a ClickHouse data database that cannot be used."""
    return ServiceError(
        503,
        "DATABASE_UNAVAILABLE",
        f"ClickHouse data database {shown} unavailable: {problem}",
        can_retry=True,
    )


def _connection_problem(text: str) -> str:
    # urllib3 wraps the cause in two layers of retries and URLs; the cause is what helps.
    found = re.search(r"\[Errno \d+\] [^\"')]+", text)
    return found.group(0).strip() if found else _first_line(text)[:200]


def _server_message(text: str) -> str:
    # "…Code: 47. DB::Exception: Unknown identifier … (UNKNOWN_IDENTIFIER) (version …)"
    start = text.find("Code: ")
    message = text[start:] if start >= 0 else text
    # The code's number would be redacted as a value; the name in brackets says it.
    message = re.sub(r"^Code: \d+\.\s*", "", message)
    message = re.sub(r"\s*\(version [^)]*\)\.?", "", message)
    return _first_line(message.replace("DB::Exception: ", "")) or "query failed"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""
