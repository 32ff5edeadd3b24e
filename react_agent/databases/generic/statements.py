"""A statement in the driver's own parameter style, and stopping one that runs too long."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger(__name__)


def driver_statement(
    sql: str, params: Mapping[str, Any] | None, paramstyle: str
) -> tuple[str, Any]:
    """Return the SQL and parameters as the driver reads them (DB-API `paramstyle`).

    The scope's placeholders come as sqlglot writes them in the dialect, `:name` or
    `%(name)s` or `$name`; their names carry a per-process prefix the model cannot write, so only
    they are replaced. With parameters, a `%` of the SQL is doubled for the `%` styles.
    """
    if not params:
        return sql, None
    names = "|".join(re.escape(name) for name in sorted(params, key=len, reverse=True))
    found = re.compile(rf"%\(({names})\)s|[:$]({names})\b")
    if paramstyle in ("pyformat", "format"):
        sql = re.sub(rf"%(?!\((?:{names})\)s)", "%%", sql)
    order: list[str] = []

    def placeholder(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        order.append(name)
        return {
            "named": f":{name}",
            "pyformat": f"%({name})s",
            "format": "%s",
            "qmark": "?",
            "numeric": f":{len(order)}",
            "numeric_dollar": f"${len(order)}",
        }.get(paramstyle, f":{name}")

    text = found.sub(placeholder, sql)
    if paramstyle in ("named", "pyformat"):
        return text, dict(params)
    return text, tuple(params[name] for name in order)


class RunningStatement:
    """The driver connection a statement runs on, so that another thread can stop it."""

    def __init__(self, sqlalchemy_name: str, kill_with: Any) -> None:
        self.sqlalchemy_name = sqlalchemy_name
        self.kill_with = kill_with
        """The engine whose fresh connection sends MySQL's KILL QUERY."""
        self.raw: Any = None
        self.cursor: Any = None
        self.cancelled = threading.Event()

    def cancel(self) -> None:
        """Stop the statement: the driver's cancel or interrupt, else KILL QUERY, else close.

        psycopg and oracledb cancel on the server, sqlite3 and DuckDB interrupt in the
        process; PyMySQL has neither, so KILL QUERY goes from a connection of its own;
        a driver with none of these has its connection closed under the statement.
        """
        self.cancelled.set()
        raw = self.raw
        if raw is None:
            return
        try:
            for owner, method in ((raw, "cancel"), (raw, "interrupt"), (self.cursor, "cancel")):
                if owner is not None and callable(getattr(owner, method, None)):
                    getattr(owner, method)()
                    return
            if self.sqlalchemy_name in ("mysql", "mariadb") and hasattr(raw, "thread_id"):
                self._kill_query(int(raw.thread_id()))
                return
            raw.close()
        except Exception as exc:  # the statement ended meanwhile, or the server is gone
            logger.info("could not cancel a statement: %s", exc)

    def _kill_query(self, thread_id: int) -> None:
        # A connection of its own, outside the pool: the pool may be all in use.
        dialect = self.kill_with.dialect
        cargs, cparams = dialect.create_connect_args(self.kill_with.url)
        connection = dialect.connect(*cargs, **cparams)
        try:
            connection.cursor().execute(f"KILL QUERY {thread_id}")
        finally:
            connection.close()
