"""Hostile SQL sent as the model's tool calls: refused or stopped, and the database untouched."""

# Each case goes through the whole agent (scripted model → run_sql → guard → database), on
# a copy of the SQLite sample and on the sample loaded into a fresh PostgreSQL database.

from __future__ import annotations

import asyncio
import hashlib
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from psycopg import sql as pg_sql

from config import Settings
from react_agent.databases.base import QueryFailed
from react_agent.databases.sqlite.engine import SQLiteDatabase
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.build import content_digest
from react_agent.sample_data.dataset import TABLES
from react_agent.sample_data.load_postgres import load_into_postgres
from react_agent.service import AgentService, open_agent_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool, prompt_text

SQL_TIMEOUT = 1.0
HANG_GUARD = 30.0
"""Seconds after which a run counts as hung: a guard, not a measure. The expensive cases
would run for minutes or never end, so ending at all is the statement timeout's doing, and
the message each gets says so (assert_each_outcome)."""
BATCH = 16
"""Tool calls per model reply; they run side by side, so a batch costs one round."""

REFUSED, TIMEOUT, ROWS = "refused", "timeout", "rows"
FAILED = "failed"
"""The database itself ends the query with an error of its own (no rows)."""

# What a reason the model reads looks like: what is refused, and (mostly) why.
CLEAR_REASON = re.compile(
    r"^(.+ (is|are) not allowed|only one statement is allowed|the query could not be (parsed|read)"
    r"|table .+ is not in the allowed list)"
)


@dataclass(frozen=True)
class Case:
    """One query the model sends, and what must come of it (per dialect where they differ).

    `{out}` in the SQL is an empty world-writable directory (the PostgreSQL server runs as
    another user); relative file names land in the test's working directory.
    """

    sql: str
    reason: str | dict[str, str] = ""
    """Text the refusal reason must contain; empty: any clear reason."""
    expect: str | dict[str, str] = REFUSED

    def outcome(self, dialect: str) -> str:
        """Return what must happen in `dialect`."""
        return self.expect if isinstance(self.expect, str) else self.expect[dialect]

    def reason_in(self, dialect: str) -> str:
        """Return the text the refusal reason must contain in `dialect`."""
        return self.reason if isinstance(self.reason, str) else self.reason.get(dialect, "")


READ_ONLY = "is not allowed: the database is read-only"
NOT_PARSED = "could not be parsed"

HOSTILE = [
    # --- destructive statements
    Case("DROP TABLE orders", f"DROP {READ_ONLY}"),
    Case("DELETE FROM orders", f"DELETE {READ_ONLY}"),
    Case("UPDATE orders SET total_amount = 0", f"UPDATE {READ_ONLY}"),
    Case("INSERT INTO regions (region_id, region_name) VALUES (99, 'x')", f"INSERT {READ_ONLY}"),
    Case("INSERT OR REPLACE INTO regions VALUES (1, 'x')", f"INSERT {READ_ONLY}"),
    Case(
        "REPLACE INTO regions VALUES (1, 'x')",
        {"sqlite": "REPLACE is not allowed", "postgres": NOT_PARSED},
    ),
    Case("TRUNCATE orders", f"TRUNCATE {READ_ONLY}"),
    Case("ALTER TABLE orders ADD COLUMN pwned INTEGER", f"ALTER {READ_ONLY}"),
    Case("CREATE TABLE pwned AS SELECT * FROM orders", f"CREATE {READ_ONLY}"),
    Case("CREATE INDEX pwned_idx ON orders (customer_id)", f"CREATE {READ_ONLY}"),
    Case("CREATE VIEW pwned AS SELECT 1", f"CREATE {READ_ONLY}"),
    Case(
        "MERGE INTO regions r USING regions s ON r.region_id = s.region_id "
        "WHEN MATCHED THEN DELETE",
        f"MERGE {READ_ONLY}",
    ),
    Case("GRANT ALL ON orders TO PUBLIC", f"GRANT {READ_ONLY}"),
    Case("COMMENT ON TABLE orders IS 'pwned'", f"COMMENT {READ_ONLY}"),
    Case("DROP DATABASE postgres", f"DROP {READ_ONLY}"),
    # --- several statements
    Case("SELECT 1; DROP TABLE orders", "only one statement"),
    Case("select region_name from regions;delete from orders", "only one statement"),
    Case("BEGIN; DELETE FROM orders; COMMIT", "only one statement"),
    Case("SELECT 1 /* ; */; DROP TABLE orders", "only one statement"),
    Case("SELECT 'a'';'; DROP TABLE orders -- '", "only one statement"),
    Case("SELECT $$x$$; DROP TABLE orders", "only one statement"),
    # --- writes hidden in CTEs and subqueries
    Case(
        "WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone",
        f"DELETE {READ_ONLY}",
    ),
    Case(
        "WITH x AS (UPDATE orders SET total_amount = 0 RETURNING 1) SELECT * FROM x",
        f"UPDATE {READ_ONLY}",
    ),
    Case(
        "WITH x AS (INSERT INTO regions VALUES (99, 'x') RETURNING *) SELECT * FROM x",
        f"INSERT {READ_ONLY}",
    ),
    Case("WITH x AS (SELECT 1) DELETE FROM orders", f"DELETE {READ_ONLY}"),
    Case(
        "SELECT * FROM (WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d) s",
        f"DELETE {READ_ONLY}",
    ),
    # --- comment, quoting, unicode and case tricks
    Case("/* just a comment */ DROP TABLE orders", f"DROP {READ_ONLY}"),
    Case("-- a comment\nDELETE FROM orders", f"DELETE {READ_ONLY}"),
    Case("DROP/**/TABLE/**/orders", f"DROP {READ_ONLY}"),
    Case("dRoP tAbLe OrDeRs", f"DROP {READ_ONLY}"),
    Case("DROP\u00a0TABLE orders", f"DROP {READ_ONLY}"),
    Case("ＤＲＯＰ TABLE orders", NOT_PARSED),
    Case("SEL\u200bECT 1; DROP TABLE orders", NOT_PARSED),
    Case(
        "SELECT 1 /* /* nested */ ; DROP TABLE orders; /* */",
        {"sqlite": "only one statement", "postgres": "could not be read"},
    ),
    Case(
        "DO $$ BEGIN DELETE FROM orders; END $$",
        {"sqlite": NOT_PARSED, "postgres": "DO is not allowed"},
    ),
    Case("SELECT PG_SLEEP(5)", "function pg_sleep is not allowed"),
    Case('SELECT "pg_sleep"(5)', "function pg_sleep is not allowed"),
    Case("SELECT pg_catalog.pg_sleep(5)", "function pg_sleep is not allowed"),
    Case(
        'SELECT U&"pg_\\0073leep"(5)',
        {"sqlite": "is not allowed", "postgres": "Unicode-escaped names"},
    ),
    # --- expensive queries: they reach the database and the statement timeout stops them
    Case(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        expect=TIMEOUT,
    ),
    Case(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT n FROM r ORDER BY n DESC LIMIT 1",
        expect=TIMEOUT,
    ),
    Case("SELECT count(*) FROM orders a, orders b, orders c", expect=TIMEOUT),
    Case("SELECT pg_sleep(30)", "function pg_sleep is not allowed"),
    # --- files, extensions and the network
    Case("SELECT load_extension('{out}/evil.so')", "function load_extension is not allowed"),
    Case("SELECT writefile('pwned.txt', 'owned')", "function writefile is not allowed"),
    Case("SELECT writefile('{out}/pwned.txt', 'owned')", "function writefile is not allowed"),
    Case("SELECT readfile('/etc/passwd')", "function readfile is not allowed"),
    Case("SELECT edit('x', 'vi')", "function edit is not allowed"),
    Case("SELECT * FROM fsdir('/')", "function fsdir is not allowed"),
    Case("SELECT * FROM zipfile('{out}/x.zip')", "function zipfile is not allowed"),
    Case("SELECT sqlar_uncompress(x'00', 1)", "function sqlar_uncompress is not allowed"),
    Case("SELECT fts3_tokenizer('simple')", "function fts3_tokenizer is not allowed"),
    Case("SELECT pg_read_file('/etc/passwd')", "function pg_read_file is not allowed"),
    Case("SELECT pg_read_binary_file('/etc/passwd')", "is not allowed"),
    Case("SELECT * FROM pg_ls_dir('.')", "function pg_ls_dir is not allowed"),
    Case("SELECT pg_stat_file('postgresql.conf')", "function pg_stat_file is not allowed"),
    Case("SELECT lo_import('/etc/passwd')", "function lo_import is not allowed"),
    Case("SELECT lo_export(lo_from_bytea(0, 'x'), '{out}/lo.bin')", "is not allowed"),
    Case(
        "SELECT * FROM dblink('host=evil.example', 'SELECT 1') AS t(x int)",
        "function dblink is not allowed",
    ),
    Case(
        "SELECT query_to_xml('DELETE FROM orders RETURNING *', true, true, '')",
        "function query_to_xml is not allowed",
    ),
    Case("SELECT table_to_xml('orders', true, true, '')", "function table_to_xml"),
    # --- other sessions, settings, locks and notifications
    Case("SELECT pg_terminate_backend(1)", "function pg_terminate_backend is not allowed"),
    Case("SELECT pg_cancel_backend(1)", "function pg_cancel_backend is not allowed"),
    Case("SELECT pg_reload_conf()", "function pg_reload_conf is not allowed"),
    Case("SELECT set_config('statement_timeout', '0', false)", "function set_config"),
    Case("SELECT pg_advisory_lock(42)", "function pg_advisory_lock is not allowed"),
    Case("SELECT pg_notify('ch', 'x')", "function pg_notify is not allowed"),
    Case("SELECT txid_current()", "function txid_current is not allowed"),
    Case("SELECT nextval('orders_order_id_seq')", "function nextval is not allowed"),
    # --- catalog probing
    Case("SELECT * FROM sqlite_master", "system table sqlite_master"),
    Case("SELECT sql FROM sqlite_schema", "system table sqlite_schema"),
    Case("SELECT * FROM main.sqlite_master", "system table main.sqlite_master"),
    Case("SELECT * FROM sqlite_temp_master", "system table sqlite_temp_master"),
    Case("SELECT * FROM pragma_table_info('orders')", "function pragma_table_info"),
    Case("SELECT usename, passwd FROM pg_shadow", "system table pg_shadow"),
    Case("SELECT * FROM pg_catalog.pg_authid", "system table pg_catalog.pg_authid"),
    Case("SELECT * FROM pg_stat_activity", "system table pg_stat_activity"),
    Case("SELECT * FROM information_schema.tables", "system table information_schema.tables"),
    Case("WITH t AS (SELECT * FROM pg_user) SELECT * FROM t", "system table pg_user"),
    # --- ATTACH, PRAGMA and maintenance
    Case("ATTACH DATABASE 'pwned.db' AS pwned", {"sqlite": "ATTACH is not allowed"}),
    Case("ATTACH '{out}/pwned.db' AS pwned", {"sqlite": "ATTACH is not allowed"}),
    Case("DETACH DATABASE main", {"sqlite": "DETACH is not allowed"}),
    Case("PRAGMA writable_schema = ON", {"sqlite": "PRAGMA is not allowed"}),
    Case("PRAGMA query_only = OFF", {"sqlite": "PRAGMA is not allowed"}),
    Case("VACUUM", "VACUUM is not allowed"),
    Case("VACUUM INTO '{out}/copy.db'", "VACUUM is not allowed"),
    Case("VACUUM INTO 'copy.db'", "VACUUM is not allowed"),
    Case("REINDEX", "REINDEX is not allowed"),
    Case("ANALYZE", "ANALYZE is not allowed"),
    # --- SELECT INTO and COPY
    Case("SELECT * INTO pwned FROM orders", "SELECT … INTO is not allowed"),
    Case("SELECT * INTO TEMP pwned FROM orders", "SELECT … INTO is not allowed"),
    Case("COPY orders TO '{out}/orders.csv'", f"COPY {READ_ONLY}"),
    Case("COPY (SELECT * FROM orders) TO PROGRAM 'touch {out}/pwned'", f"COPY {READ_ONLY}"),
    Case("COPY regions FROM '/etc/passwd'", f"COPY {READ_ONLY}"),
    # --- procedures, session commands, transactions, locks, notifications
    Case("CALL pwn()", "CALL is not allowed"),
    Case("SET statement_timeout = 0", "SET is not allowed"),
    Case("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", "SET is not allowed"),
    Case("RESET ALL", "RESET is not allowed"),
    Case(
        "LOCK TABLE orders IN ACCESS EXCLUSIVE MODE",
        {"sqlite": NOT_PARSED, "postgres": "LOCK is not allowed"},
    ),
    Case("NOTIFY ch", "NOTIFY is not allowed"),
    Case("NOTIFY ch, 'payload'", NOT_PARSED),
    Case("LISTEN ch", "LISTEN is not allowed"),
    Case("SELECT * FROM orders FOR UPDATE", "locking clauses"),
    Case("SELECT * FROM orders FOR SHARE NOWAIT", "locking clauses"),
    Case("BEGIN", "BEGIN is not allowed"),
    Case("COMMIT", "COMMIT is not allowed"),
    Case("EXPLAIN ANALYZE DELETE FROM orders", "EXPLAIN is not allowed"),
    Case("PREPARE p AS DELETE FROM orders", "PREPARE is not allowed"),
    Case("EXECUTE p", "EXECUTE is not allowed"),
    Case("CREATE EXTENSION dblink", "CREATE is not allowed"),
    Case("ALTER SYSTEM SET statement_timeout = 0", "ALTER is not allowed"),
    Case("LOAD 'plpython3u'", "LOAD is not allowed"),
    Case("CHECKPOINT", "CHECKPOINT is not allowed"),
    Case("DISCARD ALL", "DISCARD is not allowed"),
]

LOOK_ALIKES = [
    Case("SELECT 'drop table orders' AS note", expect=ROWS),
    Case("SELECT 1 AS delete_flag, 2 AS update_count, 3 AS insert_at", expect=ROWS),
    Case('SELECT region_name AS "DROP TABLE regions" FROM regions', expect=ROWS),
    Case("SELECT count(*) AS n FROM orders -- DROP TABLE orders", expect=ROWS),
    Case("SELECT count(*) AS n FROM orders /* ; DELETE FROM orders */", expect=ROWS),
    Case("SELECT 'it''s; DROP TABLE orders; --' AS s", expect=ROWS),
    Case(
        "WITH deleted_orders AS (SELECT order_id FROM orders) "
        "SELECT count(*) AS n FROM deleted_orders",
        expect=ROWS,
    ),
    Case(
        "SELECT region_name FROM regions WHERE region_name <> 'insert into x' ORDER BY region_name",
        expect=ROWS,
    ),
    Case("SELECT count(*) AS copy_count FROM orders UNION ALL SELECT 1", expect=ROWS),
    Case(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) "
        "SELECT sum(n) AS total FROM r",
        expect=ROWS,
    ),
    Case("SELECT upper('select * from sqlite_master; vacuum') AS s", expect=ROWS),
]


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_the_guard_alone_refuses_exactly_the_cases_expected_to_be_refused(dialect: str):
    # The whole-agent runs below see refusals through the tools; this pins them on the guard.
    for case in HOSTILE + LOOK_ALIKES:
        sql = case.sql.replace("{out}", "/nonexistent")
        if case.outcome(dialect) != REFUSED:
            assert check_query(sql, dialect, None) == sql
            continue
        with pytest.raises(QueryRejected) as refused:
            check_query(sql, dialect, None)
        assert CLEAR_REASON.match(refused.value.reason), f"{sql!r}: {refused.value.reason!r}"
        assert case.reason_in(dialect) in refused.value.reason, f"{sql!r}: {refused.value.reason!r}"


# ------------------------------------------------------------------ running the corpus


@dataclass
class Observed:
    """One tool call of the corpus and what the model saw of it."""

    case: Case
    sql: str
    message: ToolMessage


async def run_corpus(
    service: AgentService, model: ScriptedChatModel, dialect: str, out: Path
) -> list[Observed]:
    """Send every case as run_sql calls and check each run's bounds and counts."""
    cases = HOSTILE + LOOK_ALIKES
    # Queries that reach the database for a while go one per run, so each one's wall
    # time is measured against the statement timeout on its own.
    slow = [case for case in cases if case.outcome(dialect) == TIMEOUT]
    fast = [case for case in cases if case.outcome(dialect) != TIMEOUT]
    batches = [[case] for case in slow] + [fast[i : i + BATCH] for i in range(0, len(fast), BATCH)]
    observed: list[Observed] = []
    for number, batch in enumerate(batches):
        sqls = [case.sql.replace("{out}", str(out)) for case in batch]
        model.replies.extend([run_sql_calls(sqls), answer("done")])
        async with asyncio.timeout(HANG_GUARD):
            result = await service.runner.ask("try these", f"hostile:{dialect}:{number}")
        seen = tool_results_seen(model)
        batch_observed = [
            Observed(case, sql, seen[sql]) for case, sql in zip(batch, sqls, strict=True)
        ]
        refused = sum(o.case.outcome(dialect) == REFUSED for o in batch_observed)
        assert result.answer == "done"
        assert result.sql_refusal_count == refused
        assert result.sql_execution_count == len(batch) - refused
        observed.extend(batch_observed)
    return observed


def run_sql_calls(sqls: list[str]) -> AIMessage:
    """Return one model reply calling run_sql once per query."""
    calls = [
        {"name": "run_sql", "args": {"sql": sql}, "id": f"hostile_{i}"}
        for i, sql in enumerate(sqls)
    ]
    return AIMessage(content="", tool_calls=calls)


def tool_results_seen(model: ScriptedChatModel) -> dict[str, ToolMessage]:
    """Return the tool results of the model's last prompt, by the SQL that was called."""
    prompt = model.seen[-1]
    calls = next(m for m in reversed(prompt) if isinstance(m, AIMessage) and m.tool_calls)
    sql_by_id = {call["id"]: call["args"]["sql"] for call in calls.tool_calls}
    results = [m for m in prompt if isinstance(m, ToolMessage) and m.tool_call_id in sql_by_id]
    assert len(results) == len(sql_by_id)
    return {sql_by_id[m.tool_call_id]: m for m in results}


def assert_each_outcome(observed: list[Observed], dialect: str) -> None:
    """Check that every case ended as its corpus entry says, with a clear message."""
    for item in observed:
        message, artifact = item.message, item.message.artifact
        outcome = item.case.outcome(dialect)
        if outcome == REFUSED:
            reason = artifact["reason"]
            assert message.status == "error", item.sql
            assert message.content == f"Error: query refused: {reason}", item.sql
            assert artifact["outcome"] == "refused" and artifact["sql"] == item.sql
            assert CLEAR_REASON.match(reason), f"{item.sql!r}: unclear reason {reason!r}"
            assert item.case.reason_in(dialect) in reason, f"{item.sql!r}: {reason!r}"
        elif outcome == TIMEOUT:
            assert message.status == "error" and artifact["outcome"] == "failed", item.sql
            assert "statement timeout" in message.content, f"{item.sql!r}: {message.content}"
        elif outcome == FAILED:
            assert message.status == "error" and artifact["outcome"] == "failed", item.sql
        else:
            assert message.status != "error", f"{item.sql!r}: {message.content}"
            assert artifact["outcome"] == "ok" and artifact["records"]["rows"], item.sql


# ------------------------------------------------------------------ places files could appear


@pytest.fixture
def file_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Give an empty directory anyone may write to, and run the test in another empty one.

    The directory is made world-writable so that PostgreSQL's server user could write
    there: if nothing appears, the guard stopped it, not the file permissions.
    """
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    out = Path(tempfile.mkdtemp(prefix="hostile-sql-"))
    out.chmod(0o777)
    try:
        yield out
    finally:
        shutil.rmtree(out, ignore_errors=True)


def listing(*directories: Path) -> dict[str, list[str]]:
    """Return the files below each directory, for before/after comparisons."""
    return {
        str(directory): sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))
        for directory in directories
    }


# ------------------------------------------------------------------ SQLite


def sqlite_fingerprint(path: Path) -> dict[str, Any]:
    """Return the file's bytes hash, its content digest and its schema."""
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        schema = connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()
    finally:
        connection.close()
    return {
        "bytes": hashlib.sha256(path.read_bytes()).hexdigest(),
        "content": content_digest(path),
        "schema": schema,
    }


async def test_hostile_corpus_against_sqlite_changes_nothing(
    settings: Settings, tmp_path: Path, file_targets: Path
):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    database = data_dir / "sales.db"
    shutil.copyfile(SAMPLE_DB_PATH, database)
    before = sqlite_fingerprint(database)
    files_before = listing(data_dir, file_targets, Path.cwd())
    model = ScriptedChatModel()
    overrides = {"data_database_url": f"sqlite:///{database}", "sql_timeout": SQL_TIMEOUT}

    async with open_agent_service(settings.model_copy(update=overrides), model=model) as service:
        assert service.runner is not None, service.problems
        observed = await run_corpus(service, model, "sqlite", file_targets)

    assert_each_outcome(observed, "sqlite")
    assert sqlite_fingerprint(database) == before
    assert listing(data_dir, file_targets, Path.cwd()) == files_before


async def test_sqlite_connection_alone_refuses_what_the_guard_would(tmp_path: Path):
    # The second layer, without the guard: SQLite's authorizer and limits.
    database = SQLiteDatabase(SAMPLE_DB_PATH)
    attempts = {
        f"ATTACH '{tmp_path / 'attached.db'}' AS x": "not authorized",
        f"VACUUM INTO '{tmp_path / 'copy.db'}'": "not authorized",
        "PRAGMA query_only = OFF": "not authorized",
        "PRAGMA table_info(orders)": "not authorized",
        "SELECT * FROM pragma_table_info('orders')": "not authorized",
        "DELETE FROM orders": "not authorized",
        "BEGIN": "not authorized",
        "SELECT load_extension('x')": "load_extension",
        "SELECT sql FROM sqlite_master": "prohibited",
        "SELECT length(randomblob(200000000))": "too big",
    }
    for sql, expected in attempts.items():
        with pytest.raises(QueryFailed) as failed:
            await database.run_query(sql, row_limit=10, timeout=SQL_TIMEOUT)
        assert expected in str(failed.value), sql
    with pytest.raises(QueryFailed, match="not authorized"):
        await database.explain("PRAGMA writable_schema = ON", timeout=SQL_TIMEOUT)
    # Both would create their file even on a read-only connection without the authorizer.
    assert listing(tmp_path) == {str(tmp_path): []}
    result = await database.run_query(
        "SELECT count(*) AS n FROM orders", row_limit=10, timeout=SQL_TIMEOUT
    )
    assert result.rows == [{"n": 4000}]


async def test_sqlite_runaway_recursive_cte_ends_at_the_statement_timeout():
    database = SQLiteDatabase(SAMPLE_DB_PATH)
    runaway = (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    )
    started = time.monotonic()
    # The query never ends by itself: that it ends at all is the timeout's doing.
    async with asyncio.timeout(HANG_GUARD):
        with pytest.raises(QueryFailed) as failed:
            await database.run_query(runaway, row_limit=10, timeout=0.5)
    assert str(failed.value) == "query stopped: it ran longer than the 0.5 s statement timeout"
    assert time.monotonic() - started >= 0.5  # not before it: a bound load cannot break


async def test_allowed_tables_limit_what_the_tools_show_and_run(settings: Settings, tmp_path: Path):
    model = ScriptedChatModel()
    # No schema in the prompt: the model lists the tables itself (SCHEMA_PROMPT_BUDGET=0).
    overrides = {"sql_allowed_tables": "Orders, regions", "schema_prompt_budget": 0}
    async with open_agent_service(settings.model_copy(update=overrides), model=model) as service:
        assert service.tables == ["orders", "regions"]
        model.replies = [
            call_tool("list_tables"),
            call_tool("describe_tables", table_names=["orders", "customers", "sqlite_master"]),
            call_tool("check_sql", sql="SELECT * FROM customers"),
            call_tool("run_sql", sql="SELECT count(*) AS n FROM customers"),
            call_tool("run_sql", sql="SELECT count(*) AS n FROM orders"),
            answer("4000"),
        ]
        result = await service.runner.ask("how many customers?", "allowed:1")

    texts = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert "orders (" in texts[0].content and "regions (" in texts[0].content
    assert "customers" not in texts[0].content
    assert "total_amount" in texts[1].content
    assert "Not in the allowed tables: customers, sqlite_master" in texts[1].content
    refused_reason = "table customers is not in the allowed list: orders, regions"
    assert texts[2].content == f"Error: query refused: {refused_reason}"
    assert texts[2].status == "error" and texts[2].artifact["outcome"] == "refused"
    assert texts[3].content == f"Error: query refused: {refused_reason}"
    assert texts[4].artifact["records"]["rows"] == [{"n": 4000}]
    assert result.sql == "SELECT count(*) AS n FROM orders"
    assert result.sql_refusal_count == 2 and result.sql_execution_count == 1
    assert "Tables: orders, regions" in prompt_text(model.seen[0])


async def test_refusals_are_counted_per_question(sample_service):
    service, model = sample_service
    model.replies = [
        call_tool("run_sql", sql="DROP TABLE orders"),
        answer("no"),
        call_tool("run_sql", sql="SELECT 1 AS one"),
        answer("one"),
    ]
    first = await service.runner.ask("drop it", "count:1")
    second = await service.runner.ask("one?", "count:1")
    assert first.sql_refusal_count == 1 and first.sql_execution_count == 0
    assert second.sql_refusal_count == 0 and second.sql_execution_count == 1


# ------------------------------------------------------------------ PostgreSQL


@pytest.fixture
def postgres_sample_url(request: pytest.FixtureRequest) -> str:
    """Give a fresh PostgreSQL database holding the sample data."""
    url: str = request.getfixturevalue("postgres_database")
    load_into_postgres(url)
    return url


def postgres_fingerprint(url: str) -> dict[str, Any]:
    """Return row counts, content hashes, schema, objects and settings that SQL could change."""
    with psycopg.connect(url, autocommit=True) as connection:
        tables = {}
        for table in TABLES:
            name = pg_sql.Identifier(table.name)
            key = pg_sql.Identifier(table.primary_key)
            tables[table.name] = connection.execute(
                pg_sql.SQL(
                    "SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t.{}), '')) "
                    "FROM {} t"
                ).format(key, name)
            ).fetchone()

        def rows(query: str) -> list[tuple[Any, ...]]:
            return connection.execute(query).fetchall()

        user_schemas = (
            "NOT IN ('pg_catalog', 'information_schema') AND {0} NOT LIKE 'pg_toast%' "
            "AND {0} NOT LIKE 'pg_temp%'"
        )
        return {
            "tables": tables,
            "columns": rows(
                "SELECT table_schema, table_name, column_name, data_type "
                "FROM information_schema.columns WHERE table_schema "
                + user_schemas.format("table_schema")
                + " ORDER BY 1, 2, 3"
            ),
            "relations": rows(
                "SELECT n.nspname, c.relname, c.relkind FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname "
                + user_schemas.format("n.nspname")
                + " ORDER BY 1, 2"
            ),
            "functions": rows(
                "SELECT n.nspname, p.proname FROM pg_proc p "
                "JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
            ),
            "comments": rows(
                "SELECT objoid::regclass::text, objsubid, description FROM pg_description "
                "WHERE classoid = 'pg_class'::regclass ORDER BY 1, 2"
            ),
            "large_objects": rows("SELECT count(*) FROM pg_largeobject_metadata"),
            "extensions": rows("SELECT extname FROM pg_extension ORDER BY 1"),
            # Server-wide lists change as other tests create databases and roles, so only
            # what this test's SQL could have touched is compared.
            "own_role": rows("SELECT * FROM pg_roles WHERE rolname = current_user"),
            "databases": rows(
                "SELECT datname FROM pg_database "
                "WHERE datname IN (current_database(), 'postgres') ORDER BY 1"
            ),
            "auto_conf": rows(
                "SELECT name, setting FROM pg_file_settings "
                "WHERE sourcefile LIKE '%postgresql.auto.conf' ORDER BY 1"
            ),
        }


def busy_sessions(url: str) -> list[tuple[Any, ...]]:
    """Return other sessions on the database that are running something or hold locks."""
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute(
            "SELECT pid, state, query FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND (state <> 'idle' OR pid IN (SELECT pid FROM pg_locks "
            "WHERE locktype = 'advisory'))"
        ).fetchall()


async def test_hostile_corpus_against_postgres_changes_nothing(
    settings: Settings, postgres_sample_url: str, file_targets: Path
):
    before = postgres_fingerprint(postgres_sample_url)
    files_before = listing(file_targets, Path.cwd())
    model = ScriptedChatModel()
    overrides = {"data_database_url": postgres_sample_url, "sql_timeout": SQL_TIMEOUT}

    async with open_agent_service(settings.model_copy(update=overrides), model=model) as service:
        assert service.runner is not None, service.problems
        observed = await run_corpus(service, model, "postgres", file_targets)
        assert busy_sessions(postgres_sample_url) == []  # nothing left running

    assert_each_outcome(observed, "postgres")
    assert postgres_fingerprint(postgres_sample_url) == before
    assert listing(file_targets, Path.cwd()) == files_before
