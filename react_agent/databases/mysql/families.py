"""The MySQL-wire family: which server answers, and how each is limited and kept read-only.

The URL's scheme names the family (`doris://`, `starrocks://`, `tidb://`, `oceanbase://`,
`mysql://`, `mariadb://`), but the server's own greeting wins where it names itself
(MariaDB, TiDB and OceanBase write their name in the version they send; Doris and
StarRocks send a bare MySQL version). Versions are only searched for a name, never parsed
as numbers: compatible servers write what they like there.
"""

from __future__ import annotations

SELF_NAMING = ("mariadb", "tidb", "oceanbase")
"""Servers that write their name in the handshake's version string."""
WITHOUT_READ_ONLY_TRANSACTIONS = frozenset({"doris", "starrocks"})
"""Their transactions are for loading data: the guard alone keeps statements read-only."""


def server_family(server_version: str, declared: str) -> str:
    """Return the family whose rules apply: the server's own name, else the URL's scheme."""
    version = server_version.lower()
    named = next((name for name in SELF_NAMING if name in version), None)
    if named is not None:
        return named
    return declared if declared in WITHOUT_READ_ONLY_TRANSACTIONS else "mysql"


def time_limit_sql(family: str, timeout: float | None) -> str:
    """Return the session variable that stops a statement after `timeout` s (0: no limit).

    MariaDB counts seconds; MySQL and TiDB milliseconds (`MAX_EXECUTION_TIME`, SELECT
    only, which is all that runs); OceanBase microseconds (`ob_query_timeout`, where 0
    is not "none": a day stands for it); Doris and StarRocks whole seconds
    (`query_timeout`).
    """
    if family == "mariadb":
        return f"max_statement_time = {timeout:.3f}" if timeout else "max_statement_time = 0"
    if family == "oceanbase":
        return f"ob_query_timeout = {round((timeout or 86_400) * 1_000_000)}"
    if family in WITHOUT_READ_ONLY_TRANSACTIONS:
        return f"query_timeout = {max(1, round(timeout)) if timeout else 86_400}"
    return f"MAX_EXECUTION_TIME = {max(1, round(timeout * 1000)) if timeout else 0}"
