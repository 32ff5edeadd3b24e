"""The SQL guard on its own: each rule, in both dialects, and the harmless look-alikes."""

from __future__ import annotations

import pytest

from react_agent.guard.sql_guard import QueryRejected, check_query, is_table_allowed

DIALECTS = ["sqlite", "postgres"]
SAMPLE_TABLES = frozenset({"regions", "stores", "customers", "products", "orders", "order_items"})


def refusal(sql: str, dialect: str, allowed: frozenset[str] | None = None) -> str:
    with pytest.raises(QueryRejected) as refused:
        check_query(sql, dialect, allowed)
    assert refused.value.reason == str(refused.value)
    return refused.value.reason


# ------------------------------------------------------------------ what passes


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT region_name FROM regions",
        "SELECT count(*) FROM orders;",
        "SELECT count(*) FROM orders;  -- the total",
        "SELECT 'drop table orders' AS note",
        "SELECT 'DELETE FROM orders; --' AS s, 'it''s' AS t",
        "SELECT 1 AS delete_flag, 2 AS update_count, 3 AS insert_at",
        'SELECT region_name AS "DROP TABLE regions" FROM regions',
        "SELECT count(*) FROM orders /* ; DELETE FROM orders */",
        "SELECT count(*) FROM orders -- DROP TABLE orders",
        "WITH deleted AS (SELECT order_id FROM orders) SELECT count(*) FROM deleted",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 9) "
        "SELECT sum(n) FROM r",
        "SELECT region_id FROM regions UNION SELECT region_id FROM stores",
        "SELECT region_id FROM regions INTERSECT SELECT region_id FROM stores",
        "SELECT region_id FROM regions EXCEPT SELECT region_id FROM stores",
        "(SELECT region_id FROM regions)",
        "SELECT * FROM orders o JOIN order_items i ON i.order_id = o.order_id "
        "WHERE o.customer_id IN (SELECT customer_id FROM customers)",
        "SELECT upper('select * from sqlite_master') AS s",
        "SELECT count(*) OVER (PARTITION BY store_id) FROM orders",
    ],
)
def test_plain_selects_and_look_alikes_pass_unchanged(sql, dialect):
    assert check_query(sql, dialect, None) == sql
    assert check_query(sql, dialect, SAMPLE_TABLES) == sql


def test_dialect_specific_selects_pass():
    assert check_query("SELECT $$drop table x$$ AS s", "postgres", None)
    assert check_query("SELECT pg_typeof(1), current_setting('TimeZone')", "postgres", None)
    assert check_query("SELECT date_trunc('month', now())", "postgres", None)
    assert check_query("SELECT strftime('%Y', 'now'), randomblob(8)", "sqlite", None)
    # In SQLite this is the column E aliased by a string, not a second statement.
    assert check_query("SELECT E'\\''; DROP TABLE orders; --'", "sqlite", None)


# ------------------------------------------------------------------ one statement


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1; SELECT 2",
        "SELECT 1; DROP TABLE orders",
        "select 1;delete from orders",
        "SELECT 1 /* ; */; DROP TABLE orders",
        "SELECT 'a'';'; DROP TABLE orders -- '",
        "SELECT/**/1;DROP/**/TABLE orders",
    ],
)
def test_several_statements_are_refused(sql, dialect):
    assert refusal(sql, dialect).startswith("only one statement is allowed")


def test_postgres_comment_and_string_endings_match_the_server():
    # PostgreSQL ends a -- comment at a carriage return too, and a plain string at a
    # backslash-quote; reading them otherwise would hide the second statement.
    assert refusal("SELECT 1 --x\r; DROP TABLE orders", "postgres").startswith("only one")
    assert refusal("SELECT 'a\\'; DROP TABLE orders; --'", "postgres").startswith("only one")
    assert refusal("SELECT E'\\''; DROP TABLE orders; --'", "postgres").startswith("only one")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("sql", ["", "   ", "-- nothing", ";"])
def test_an_empty_query_is_refused(sql, dialect):
    assert refusal(sql, dialect).startswith("the query is empty")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "sql", ["SELEC 1", "SELECT (1", "ＳＥＬＥＣＴ 1", "SEL\u200bECT 1", "SELECT 'open"]
)
def test_a_query_that_does_not_parse_is_refused(sql, dialect):
    reason = refusal(sql, dialect)
    assert reason.startswith("the query could not be")
    assert "\x1b" not in reason and "write one plain SELECT query" in reason


# ------------------------------------------------------------------ statement kinds


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "keyword"),
    [
        ("DROP TABLE orders", "DROP"),
        ("dRoP tAbLe OrDeRs", "DROP"),
        ("/* harmless */ DROP TABLE orders", "DROP"),
        ("-- note\nDELETE FROM orders", "DELETE"),
        ("DELETE FROM orders", "DELETE"),
        ("UPDATE orders SET total_amount = 0", "UPDATE"),
        ("INSERT INTO regions VALUES (99, 'x')", "INSERT"),
        ("INSERT OR REPLACE INTO regions VALUES (1, 'x')", "INSERT"),
        (
            "MERGE INTO regions r USING regions s ON r.region_id = s.region_id "
            "WHEN MATCHED THEN DELETE",
            "MERGE",
        ),
        ("TRUNCATE orders", "TRUNCATE"),
        ("ALTER TABLE orders ADD COLUMN pwned INT", "ALTER"),
        ("CREATE TABLE pwned AS SELECT * FROM orders", "CREATE"),
        ("CREATE INDEX pwned ON orders (customer_id)", "CREATE"),
        ("GRANT ALL ON orders TO PUBLIC", "GRANT"),
        ("COMMENT ON TABLE orders IS 'x'", "COMMENT"),
        ("COPY orders TO '/tmp/orders.csv'", "COPY"),
        ("WITH x AS (SELECT 1) DELETE FROM orders", "DELETE"),
    ],
)
def test_writes_are_refused_because_the_database_is_read_only(sql, keyword, dialect):
    assert refusal(sql, dialect) == f"{keyword} is not allowed: the database is read-only"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "keyword"),
    [
        ("SET statement_timeout = 0", "SET"),
        ("PRAGMA table_info(orders)", "PRAGMA"),
        ("VACUUM", "VACUUM"),
        ("VACUUM INTO '/tmp/copy.db'", "VACUUM"),
        ("REINDEX", "REINDEX"),
        ("BEGIN", "BEGIN"),
        ("ROLLBACK", "ROLLBACK"),
        ("EXPLAIN SELECT 1", "EXPLAIN"),
        ("CALL pwn()", "CALL"),
        ("LISTEN ch", "LISTEN"),
        ("NOTIFY ch", "NOTIFY"),
        ("RESET ALL", "RESET"),
        ("SAVEPOINT a", "SAVEPOINT"),
        ("CHECKPOINT", "CHECKPOINT"),
        ("VALUES (1)", "VALUES"),
        ("(VALUES (1))", "VALUES"),
        ("PREPARE p AS DELETE FROM orders", "PREPARE"),
        ("EXECUTE p", "EXECUTE"),
    ],
)
def test_statements_other_than_select_are_refused_by_name(sql, keyword, dialect):
    reason = refusal(sql, dialect)
    assert reason.startswith(f"{keyword} is not allowed: only a single read-only SELECT")


def test_dialect_specific_statements_are_refused():
    assert refusal("ATTACH 'x.db' AS x", "sqlite").startswith("ATTACH is not allowed")
    assert refusal("ATTACH DATABASE 'x.db' AS x", "sqlite").startswith("ATTACH is not allowed")
    assert refusal("DETACH DATABASE x", "sqlite").startswith("DETACH is not allowed")
    assert refusal("ANALYZE", "sqlite").startswith("ANALYZE is not allowed")
    assert refusal("PRAGMA writable_schema = ON", "sqlite").startswith("PRAGMA is not allowed")
    assert refusal("REPLACE INTO regions VALUES (1, 'x')", "sqlite").startswith("REPLACE is")
    assert refusal("DO $$ BEGIN DELETE FROM orders; END $$", "postgres").startswith("DO is")
    assert refusal("LOCK TABLE orders", "postgres").startswith("LOCK is not allowed")
    assert refusal("LOAD 'plpython3u'", "postgres").startswith("LOAD is not allowed")
    assert refusal("ALTER SYSTEM SET work_mem = '1TB'", "postgres").startswith("ALTER is")
    assert refusal("CREATE EXTENSION dblink", "postgres").startswith("CREATE is")
    assert refusal("REFRESH MATERIALIZED VIEW v", "postgres").startswith("REFRESH is")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "keyword"),
    [
        ("WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone", "DELETE"),
        ("WITH x AS (UPDATE orders SET total_amount = 0 RETURNING 1) SELECT * FROM x", "UPDATE"),
        ("WITH x AS (INSERT INTO regions VALUES (9, 'x') RETURNING *) SELECT * FROM x", "INSERT"),
        ("SELECT * FROM (WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d) s", "DELETE"),
        (
            "WITH a AS (SELECT 1), b AS (DELETE FROM orders RETURNING 1) "
            "SELECT * FROM a UNION ALL SELECT * FROM b",
            "DELETE",
        ),
    ],
)
def test_writes_hidden_in_ctes_and_subqueries_are_refused(sql, keyword, dialect):
    assert refusal(sql, dialect) == f"{keyword} is not allowed: the database is read-only"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "sql", ["SELECT * INTO pwned FROM orders", "SELECT * INTO TEMP pwned FROM orders"]
)
def test_select_into_is_refused(sql, dialect):
    assert refusal(sql, dialect).startswith("SELECT … INTO is not allowed")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM orders FOR UPDATE",
        "SELECT * FROM orders FOR SHARE NOWAIT",
        "SELECT * FROM orders FOR NO KEY UPDATE SKIP LOCKED",
    ],
)
def test_locking_clauses_are_refused(sql, dialect):
    assert refusal(sql, dialect).startswith("locking clauses (FOR UPDATE, FOR SHARE)")


# ------------------------------------------------------------------ functions


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "name"),
    [
        ("SELECT pg_sleep(10)", "pg_sleep"),
        ("SELECT PG_SLEEP(10)", "pg_sleep"),
        ('SELECT "pg_sleep"(10)', "pg_sleep"),
        ("SELECT pg_catalog.pg_sleep(10)", "pg_sleep"),
        ("SELECT pg_sleep_for('1 hour')", "pg_sleep_for"),
        ("SELECT count(*) FROM orders WHERE pg_sleep(1) IS NULL", "pg_sleep"),
        ("SELECT * FROM orders, pg_sleep(10)", "pg_sleep"),
        ("SELECT (SELECT pg_sleep(10))", "pg_sleep"),
        ("SELECT pg_read_file('/etc/passwd')", "pg_read_file"),
        ("SELECT pg_read_binary_file('/etc/passwd')", "pg_read_binary_file"),
        ("SELECT * FROM pg_ls_dir('.')", "pg_ls_dir"),
        ("SELECT pg_stat_file('postgresql.conf')", "pg_stat_file"),
        ("SELECT lo_import('/etc/passwd')", "lo_import"),
        ("SELECT lo_export(1, '/tmp/x')", "lo_export"),
        ("SELECT * FROM dblink('host=x', 'SELECT 1') AS t(x int)", "dblink"),
        ("SELECT dblink_exec('host=x', 'DROP TABLE orders')", "dblink_exec"),
        ("SELECT pg_terminate_backend(1)", "pg_terminate_backend"),
        ("SELECT pg_cancel_backend(1)", "pg_cancel_backend"),
        ("SELECT pg_reload_conf()", "pg_reload_conf"),
        ("SELECT pg_rotate_logfile()", "pg_rotate_logfile"),
        ("SELECT set_config('statement_timeout', '0', false)", "set_config"),
        ("SELECT pg_advisory_lock(1)", "pg_advisory_lock"),
        ("SELECT pg_try_advisory_xact_lock(1)", "pg_try_advisory_xact_lock"),
        ("SELECT txid_current()", "txid_current"),
        ("SELECT pg_notify('ch', 'x')", "pg_notify"),
        ("SELECT query_to_xml('DELETE FROM orders', true, true, '')", "query_to_xml"),
        ("SELECT table_to_xml('secrets', true, true, '')", "table_to_xml"),
        ("SELECT nextval('orders_order_id_seq')", "nextval"),
        ("SELECT load_extension('evil.so')", "load_extension"),
        ("SELECT writefile('x.txt', 'owned')", "writefile"),
        ("SELECT readfile('/etc/passwd')", "readfile"),
        ("SELECT fts3_tokenizer('simple')", "fts3_tokenizer"),
        ("SELECT edit('x', 'vi')", "edit"),
        ("SELECT * FROM zipfile('x.zip')", "zipfile"),
        ("SELECT * FROM fsdir('/')", "fsdir"),
        ("SELECT sqlar_compress('x')", "sqlar_compress"),
        ("SELECT * FROM pragma_table_info('orders')", "pragma_table_info"),
    ],
)
def test_dangerous_functions_are_refused_by_name_anywhere(sql, name, dialect):
    assert refusal(sql, dialect) == f"function {name} is not allowed"


def test_postgres_only_function_call_forms_are_refused():
    assert refusal("SELECT * FROM ROWS FROM (pg_sleep(1))", "postgres").startswith("function")
    assert refusal("SELECT pg_sleep(VARIADIC ARRAY[1])", "postgres").startswith("function")
    assert refusal(
        "SELECT count(*) FILTER (WHERE pg_sleep(1) IS NULL) FROM orders", "postgres"
    ).startswith("function pg_sleep")


def test_postgres_unicode_escaped_names_are_refused():
    reason = refusal('SELECT U&"pg_\\0073leep"(5)', "postgres")
    assert reason.startswith('Unicode-escaped names (U&"…") are not allowed')
    assert refusal('SELECT * FROM U&"s\\0065crets"', "postgres").startswith("the query could")
    # Unicode-escaped string values are only values.
    assert check_query("SELECT U&'\\0041' AS a", "postgres", None)


# ------------------------------------------------------------------ tables


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("allowed", [None, SAMPLE_TABLES])
@pytest.mark.parametrize(
    ("sql", "shown"),
    [
        ("SELECT * FROM sqlite_master", "sqlite_master"),
        ("SELECT sql FROM sqlite_schema", "sqlite_schema"),
        ("SELECT * FROM sqlite_temp_master", "sqlite_temp_master"),
        ('SELECT * FROM "SQLITE_MASTER"', "sqlite_master"),
        ("SELECT * FROM main.sqlite_master", "main.sqlite_master"),
        ("SELECT * FROM pg_catalog.pg_authid", "pg_catalog.pg_authid"),
        ("SELECT usename, passwd FROM pg_shadow", "pg_shadow"),
        ("SELECT * FROM pg_stat_activity", "pg_stat_activity"),
        ("SELECT * FROM information_schema.tables", "information_schema.tables"),
        ("SELECT * FROM orders WHERE customer_id IN (SELECT oid FROM pg_class)", "pg_class"),
        ("WITH t AS (SELECT * FROM pg_user) SELECT * FROM t", "pg_user"),
    ],
)
def test_system_catalogs_are_refused_in_every_mode(sql, shown, dialect, allowed):
    reason = refusal(sql, dialect, allowed)
    assert reason.startswith(f"system table {shown} is not allowed")
    assert "list_tables and describe_tables" in reason


@pytest.mark.parametrize("dialect", DIALECTS)
def test_tables_outside_the_allowed_list_are_refused_with_the_list(dialect):
    allowed = frozenset({"orders", "regions"})
    assert refusal("SELECT * FROM customers", dialect, allowed) == (
        "table customers is not in the allowed list: orders, regions"
    )
    assert refusal(
        "SELECT * FROM orders WHERE customer_id IN (SELECT customer_id FROM customers)",
        dialect,
        allowed,
    ).startswith("table customers is not in the allowed list")
    assert refusal("SELECT * FROM other.orders", dialect, allowed).startswith(
        "table other.orders is not in the allowed list"
    )
    assert refusal("SELECT * FROM db.public.orders", dialect, allowed).startswith(
        "database-qualified name"
    )
    # In "all" mode any table that is not a system catalog may be named.
    assert check_query("SELECT * FROM customers", dialect, None)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_allowed_names_match_case_insensitively_and_in_the_default_schema(dialect):
    allowed = frozenset({"orders", "public.regions"})
    default = {"sqlite": "main", "postgres": "public"}[dialect]
    for sql in [
        "SELECT * FROM ORDERS",
        'SELECT * FROM "Orders"',
        f"SELECT * FROM {default}.orders",
        f"SELECT * FROM {default.upper()}.Orders",
    ]:
        assert check_query(sql, dialect, allowed) == sql
    if dialect == "postgres":
        assert check_query("SELECT * FROM regions", dialect, allowed)
        assert check_query("SELECT * FROM public.regions", dialect, allowed)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_cte_names_are_not_tables_but_only_within_their_scope(dialect):
    allowed = frozenset({"orders"})
    assert check_query("WITH secrets AS (SELECT 1 AS x) SELECT * FROM secrets", dialect, allowed)
    assert check_query(
        "WITH a AS (SELECT 1 AS x), b AS (SELECT * FROM a) SELECT * FROM b", dialect, allowed
    )
    assert check_query(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
        "SELECT * FROM r",
        dialect,
        allowed,
    )
    # A CTE in a subquery does not hide a real table of the same name elsewhere.
    assert refusal(
        "SELECT * FROM secrets, (WITH secrets AS (SELECT 1) SELECT * FROM secrets) x",
        dialect,
        allowed,
    ).startswith("table secrets is not in the allowed list")
    # Without RECURSIVE, a CTE's own body reads the real table of that name.
    assert refusal(
        "WITH secrets AS (SELECT * FROM secrets) SELECT * FROM secrets", dialect, allowed
    ).startswith("table secrets is not in the allowed list")
    # A schema-qualified name is always a real table.
    assert refusal(
        "WITH secrets AS (SELECT 1) SELECT * FROM other.secrets", dialect, allowed
    ).startswith("table other.secrets is not in the allowed list")


@pytest.mark.parametrize(
    ("name", "allowed", "expected"),
    [
        ("orders", None, True),
        ("sqlite_sequence", None, False),
        ("pg_stat_activity", None, False),
        ("information_schema.tables", None, False),
        ("orders", frozenset({"orders"}), True),
        ("Orders", frozenset({"orders"}), True),
        ("customers", frozenset({"orders"}), False),
        ("public.orders", frozenset({"orders"}), True),
        ("sales.orders", frozenset({"orders"}), False),
        ("sales.orders", frozenset({"sales.orders"}), True),
    ],
)
def test_is_table_allowed_decides_what_the_tools_show(name, allowed, expected):
    assert is_table_allowed(name, "postgres", allowed) is expected
