"""What the SQL guard refuses in the engines beyond SQLite, PostgreSQL, MySQL and DuckDB.

ClickHouse, SQL Server, Oracle, Trino, Snowflake, BigQuery, Doris and StarRocks.

Each engine reaches files, the network, other servers or its own catalogue through
functions of its own; these are refused by name in that engine's dialect (a name that
is ordinary elsewhere stays allowed there). Table functions in FROM are refused in these
dialects unless they only generate rows (numbers(), generate_series(), …).
"""

from __future__ import annotations

from sqlglot import exp

MYSQL_FAMILY = frozenset("""mysql doris starrocks""".split())
"""Dialects of MySQL-protocol engines: executable comments, `db.table` of another database."""
QUALIFIED_IS_ANOTHER_DATABASE = MYSQL_FAMILY | {"clickhouse"}
"""Dialects where `x.table` names another database on the server (refused)."""

ENGINE_REFUSED_FUNCTIONS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "clickhouse": (
        frozenset(
            """file url urlcluster remote remotesecure cluster clusterallreplicas s3
            s3cluster gcs oss cosn hdfs hdfscluster azureblobstorage
            azureblobstoragecluster mysql postgresql mongodb redis odbc jdbc sqlite
            executable input merge view viewifpermitted dictionary loop iceberg
            icebergs3 deltalake hudi filecluster fuzzjson ytsaurus arrowflight
            prometheusquery timeseriesdata sleep sleepeachrow throwif getsetting
            getsettingordefault joinget joingetornull hascolumnintable catboostevaluate
            modelevaluate generateserialid getclienthttpheader globalvariable getmacro
            filesystemavailable filesystemcapacity filesystemunreserved addresstoline
            addresstolinewithinlines addresstosymbol demangle getserverport
            getoskernelversion currentprofiles showcertificate transactionid
            transactionlatestsnapshot getmergetreesetting""".split()
        ),
        ("dict", "__"),
    ),
    "tsql": (
        frozenset(
            """openrowset opendatasource openquery openxml openjson_file xp_cmdshell
            xp_dirtree xp_fileexist xp_regread xp_subdirs sp_oacreate sp_oamethod
            sp_executesql sp_configure fn_xe_file_target_read_file fn_trace_gettable
            fn_get_audit_file fn_dblog fn_dump_dblog has_perms_by_name is_srvrolemember""".split()
        ),
        ("xp_", "sp_"),
    ),
    "oracle": (
        frozenset(
            """httpuritype dburitype xdburitype uritype utl_http sys_context xmltype
            extractvalue dbms_xmlgen""".split()
        ),
        ("utl_", "dbms_", "owa_", "ctxsys.", "sys.", "xdb."),
    ),
    "trino": (frozenset("""query raw_query system.query""".split()), ("system.",)),
    "snowflake": (
        frozenset(
            """result_scan infer_schema validate external_function get_presigned_url
            build_scoped_file_url build_stage_file_url get_stage_location
            get_absolute_path get_relative_path last_query_id query_history
            query_history_by_session""".split()
        ),
        ("system$",),
    ),
    "bigquery": (frozenset("""external_query external_object_transform""".split()), ()),
    "doris": (
        frozenset(
            """local s3 hdfs http files frontends backends frontends_disks catalogs jobs
            tasks mv_infos partitions query workload_group sleep load_file""".split()
        ),
        (),
    ),
    "starrocks": (
        frozenset("""files s3 hdfs sleep load_file query get_query_profile""".split()),
        (),
    ),
}

# Table functions that only generate rows: the rest are refused in these dialects.
ROW_GENERATORS = frozenset(
    """numbers numbers_mt zeros zeros_mt generate_series generateseries range values null
    generaterandom sequence generator flatten split_to_table unnest explode
    explode_split explode_numbers""".split()
)
TABLE_FUNCTION_DIALECTS = frozenset(ENGINE_REFUSED_FUNCTIONS)

CATALOG_SCHEMAS_BY_DIALECT = {
    "oracle": frozenset(
        """sys system ctxsys mdsys xdb outln dbsnmp audsys lbacsys ordsys wmsys olapsys
        appqossys""".split()
    ),
    "trino": frozenset("""system information_schema jmx runtime""".split()),
    "snowflake": frozenset("""account_usage organization_usage data_sharing_usage""".split()),
    "doris": frozenset("""__internal_schema information_schema mysql""".split()),
    "starrocks": frozenset("""_statistics_ information_schema sys""".split()),
}
CATALOG_TABLE_PREFIXES_BY_DIALECT = {
    "oracle": ("dba_", "all_", "cdb_", "v$", "gv$", "v_$", "gv_$", "x$"),
}
CATALOG_TABLES_BY_DIALECT = {
    # SQL Server's compatibility views, readable without a schema.
    "tsql": frozenset(
        """sysobjects syscolumns sysdatabases syslogins sysusers sysprocesses syscomments
        sysindexes sysservers sysxlogins sysfiles sysconfigures sysmessages syslocks
        sysperfinfo sysremotelogins sysoledbusers""".split()
    ),
    "oracle": frozenset(
        """user_tables user_tab_columns user_objects user_views user_source user_users
        user_role_privs user_sys_privs user_tab_privs user_db_links user_constraints
        user_indexes user_synonyms tab cat col dictionary dict""".split()
    ),
}


class RuleBroken(Exception):
    """A dialect's or an engine's own rule refused the query; the message is the reason."""


def is_refused_in_engine(name: str, dialect: str) -> bool:
    """Whether the function (lower-case, maybe `package.name`) may not be called in `dialect`."""
    refused = ENGINE_REFUSED_FUNCTIONS.get(dialect)
    if refused is None:
        return False
    names, prefixes = refused
    return name in names or name.startswith(prefixes) or name.split(".")[-1] in names


def check_engine_node(node: exp.Expression, dialect: str) -> None:
    """Refuse one parse-tree node that only this engine makes dangerous."""
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Dot):
        # server.database.schema.table (SQL Server's linked servers, and the like).
        raise RuleBroken(
            f"database-qualified name {node.sql(dialect=dialect)} is not allowed: write table "
            "or schema.table"
        )
    if dialect not in TABLE_FUNCTION_DIALECTS:
        return
    if isinstance(node, exp.Select) and dialect == "clickhouse":
        if node.args.get("settings"):
            raise RuleBroken(
                "SETTINGS clauses are not allowed: the service sets the query's limits"
            )
        if node.args.get("format"):
            raise RuleBroken("FORMAT clauses are not allowed: results come as rows")
    if isinstance(node, exp.Func) and isinstance(node.parent, exp.Dot):
        qualified = f"{node.parent.this.sql(dialect=dialect)}.{_name(node)}".lower()
        if is_refused_in_engine(qualified, dialect) or is_refused_in_engine(
            qualified.split(".")[0], dialect
        ):
            raise RuleBroken(f"function {qualified} is not allowed")
    if isinstance(node, exp.Table):
        _check_table_node(node, dialect)


def _check_table_node(table: exp.Table, dialect: str) -> None:
    if isinstance(table.this, exp.Func):
        function = table.this
        # Trino's TABLE(system.query(…)) and Snowflake's TABLE(f(…)): the inner one counts.
        inner = [n for n in function.find_all(exp.Anonymous) if n is not function]
        name = _name(inner[0] if inner and _name(function) == "table" else function)
        if name not in ROW_GENERATORS:
            raise RuleBroken(
                f"table function {name} is not allowed: query the tables that list_tables shows"
            )
    alias = table.args.get("alias")
    if dialect == "clickhouse" and alias is not None and alias.columns:
        # How sqlglot reads `dictionary('d')` and the like: a call, not a table.
        raise RuleBroken(f"table function {table.name} is not allowed: query the tables shown")
    if dialect == "snowflake" and table.name.startswith("@"):
        raise RuleBroken(
            f"reading stages ({table.name}) is not allowed: query the tables that list_tables shows"
        )
    parts = [part.name.lower() for part in table.parts]
    if any("information_schema" in part for part in parts):
        raise RuleBroken(
            f"system table {table.sql(dialect=dialect)} is not allowed: use the list_tables and "
            "describe_tables tools"
        )


def check_engine_table(schema: str | None, name: str, dialect: str) -> None:
    """Refuse a table reference this engine keeps its catalogue or other databases in."""
    shown = f"{schema}.{name}" if schema else name
    if dialect in QUALIFIED_IS_ANOTHER_DATABASE and schema is not None:
        raise RuleBroken(
            f"database-qualified name {shown} is not allowed: write the bare table name"
        )
    if (
        (schema is not None and schema in CATALOG_SCHEMAS_BY_DIALECT.get(dialect, ()))
        or name.startswith(CATALOG_TABLE_PREFIXES_BY_DIALECT.get(dialect, ("\0",)))
        or name in CATALOG_TABLES_BY_DIALECT.get(dialect, ())
    ):
        raise RuleBroken(
            f"system table {shown} is not allowed: use the list_tables and describe_tables tools"
        )


def _name(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if isinstance(node, exp.Func):
        return node.sql_names()[0].lower()
    return node.name.lower()
