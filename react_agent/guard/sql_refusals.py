"""What the SQL guard refuses by name: write and session statements, functions, catalogs."""

from __future__ import annotations

from sqlglot import exp

# Statements that change data, schema or permissions, with the keyword a reason names.
WRITE_STATEMENTS: dict[type[exp.Expression], str] = {
    exp.Insert: "INSERT",
    exp.Update: "UPDATE",
    exp.Delete: "DELETE",
    exp.Merge: "MERGE",
    exp.Create: "CREATE",
    exp.Drop: "DROP",
    exp.Alter: "ALTER",
    exp.TruncateTable: "TRUNCATE",
    exp.Copy: "COPY",
    exp.Grant: "GRANT",
    exp.Revoke: "REVOKE",
    exp.Comment: "COMMENT",
    exp.Analyze: "ANALYZE",
    exp.Refresh: "REFRESH",
    exp.LoadData: "LOAD DATA",
}
WRITE_KINDS = tuple(WRITE_STATEMENTS)
# Statements that change the session, the connection or the transaction instead.
SESSION_STATEMENTS: dict[type[exp.Expression], str] = {
    exp.Set: "SET",
    exp.Pragma: "PRAGMA",
    exp.Attach: "ATTACH",
    exp.Detach: "DETACH",
    exp.Transaction: "BEGIN",
    exp.Commit: "COMMIT",
    exp.Rollback: "ROLLBACK",
    exp.Use: "USE",
    exp.Kill: "KILL",
    exp.Execute: "EXECUTE",
    exp.Declare: "DECLARE",
    exp.Cache: "CACHE",
    exp.Uncache: "UNCACHE",
}

# Functions that sleep, touch files or the network, run SQL given as text, take locks,
# signal other sessions or change settings. Names are compared in lower case, in every
# dialect: a PostgreSQL name in a SQLite query fails anyway, so refusing it costs nothing.
REFUSED_FUNCTIONS = frozenset(
    {
        # PostgreSQL
        "set_config",
        "nextval",
        "setval",
        "loread",
        "lowrite",
        "ts_stat",  # runs the query given as its argument
        "ts_rewrite",
        "gin_clean_pending_list",
        # SQLite (extensions of the CLI and of some builds)
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "eval",
        "fts3_tokenizer",
        "zipfile",
        "fsdir",
        "lsdir",
        "dbstat",
        "sqlite_dbpage",
        "sqlite_dbdata",
        "sqlite_dbptr",
    }
)
# pg_* covers pg_sleep*, pg_read_file, pg_ls_dir, pg_stat_file, pg_terminate_backend,
# pg_cancel_backend, pg_reload_conf, pg_rotate_logfile, pg_advisory_*, pg_notify and the
# catalog lookups that would reveal tables outside the allowed list.
REFUSED_FUNCTION_PREFIXES = (
    "pg_",
    "lo_",
    "dblink",
    "txid_",
    "binary_upgrade_",
    "brin_",
    "sqlar_",
    "pragma_",
)
# query_to_xml, table_to_xml, cursor_to_xml, schema_to_xml, database_to_xml and their
# *_xmlschema variants read tables or run SQL named in a string.
REFUSED_FUNCTION_INFIXES = ("_to_xml",)
ALLOWED_PG_FUNCTIONS = frozenset(
    {
        "pg_typeof",
        "pg_size_pretty",
        "pg_size_bytes",
        "pg_column_size",
        "pg_input_is_valid",
        "pg_client_encoding",
    }
)

# Functions refused in one dialect only, as (names, prefixes): their names are ordinary
# elsewhere (SQLite's glob(), for one).
DIALECT_REFUSED_FUNCTIONS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "mysql": (
        frozenset(
            {
                "load_file",  # reads a server file
                "sleep",
                "benchmark",  # burns CPU for as long as it is told
                "get_lock",
                "release_lock",
                "release_all_locks",
                "is_free_lock",
                "is_used_lock",
                "master_pos_wait",
                "source_pos_wait",
                "master_gtid_wait",
                "wait_for_executed_gtid_set",
                "wait_until_sql_thread_after_gtids",
                "sys_exec",  # lib_mysqludf_sys, where installed
                "sys_eval",
                "lastval",
                "nextval",
                "setval",
            }
        ),
        ("sys.",),
    ),
    "duckdb": (
        frozenset(
            {
                "glob",  # lists files
                "query",  # runs SQL given as text
                "query_table",
                "getenv",
                "sniff_csv",
                "parquet_scan",
                "parquet_metadata",
                "parquet_schema",
                "parquet_file_metadata",
                "parquet_kv_metadata",
                "delta_scan",
                "from_csv_auto",
                "which_secret",
                "load_aws_credentials",
                "checkpoint",
                "force_checkpoint",
                "sqlite_scan",
                "sqlite_attach",
                "postgres_scan",
                "postgres_attach",
                "mysql_scan",
                "error",  # raises its argument as the error text: a value read out
            }
        ),
        ("read_", "iceberg_", "duckdb_", "pragma_"),
    ),
}

CATALOG_SCHEMAS = frozenset(
    {
        "pg_catalog",
        "information_schema",
        "pg_toast",
        # MySQL / MariaDB and DuckDB
        "mysql",
        "performance_schema",
        "sys",
        "system",
        "temp",
    }
)
CATALOG_TABLE_PREFIXES = ("pg_", "sqlite_", "pragma_", "duckdb_")
CATALOG_TABLES = frozenset({"dbstat"})


def statement_keyword(node: exp.Expression) -> str | None:
    """Return the keyword of a write or session statement (or command), else None."""
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    for kinds in (WRITE_STATEMENTS, SESSION_STATEMENTS):
        for kind, keyword in kinds.items():
            if isinstance(node, kind):
                return keyword
    return None


def is_refused_function(name: str) -> bool:
    """Whether the function (its lower-case name) may not be called."""
    if name in ALLOWED_PG_FUNCTIONS:
        return False
    return (
        name in REFUSED_FUNCTIONS
        or name.startswith(REFUSED_FUNCTION_PREFIXES)
        or any(infix in name for infix in REFUSED_FUNCTION_INFIXES)
    )


def is_catalog(schema: str | None, name: str) -> bool:
    """Whether the table is a system catalog (PostgreSQL's or SQLite's)."""
    if schema is not None and (
        schema in CATALOG_SCHEMAS or schema.startswith(("pg_temp", "pg_toast"))
    ):
        return True
    return name in CATALOG_TABLES or name.startswith(CATALOG_TABLE_PREFIXES)
