"""The hostile corpus on MariaDB, DuckDB and ClickHouse (chdb): refused or stopped, untouched."""

# As in test_hostile_corpus.py, each case is a tool call of a scripted model through the
# whole agent (run_sql → guard → database), here with each dialect's own attacks added.

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import pytest

from config import Settings
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.sample_data.dataset import TABLES
from react_agent.service import AgentService, open_agent_service
from tests.react_agent.tools import test_hostile_corpus as shared
from tests.react_agent.tools.dialect_corpora import corpus
from tests.react_agent.tools.test_hostile_corpus import (
    BATCH,
    CLEAR_REASON,
    FAILED,
    HANG_GUARD,
    REFUSED,
    SQL_TIMEOUT,
    TIMEOUT,
    Case,
    Observed,
    assert_each_outcome,
    listing,
    run_sql_calls,
    tool_results_seen,
)
from tests.support.clickhouse import run_admin, sample_database
from tests.support.data_files import write_sample_folder
from tests.support.mysql import run_statements
from tests.support.scripted_model import ScriptedChatModel, answer

MYSQL_DATA_DIR = Path("/var/lib/mysql")
file_targets = shared.file_targets  # the fixture: an empty world-writable folder


@pytest.mark.parametrize("dialect", ["mysql", "duckdb", "clickhouse"])
def test_the_guard_alone_refuses_exactly_the_cases_expected_to_be_refused(dialect: str):
    for case in corpus(dialect):
        sql = case.sql.replace("{out}", "/nonexistent")
        if case.outcome(dialect) != REFUSED:
            assert check_query(sql, dialect, None) == sql
            continue
        with pytest.raises(QueryRejected) as refused:
            check_query(sql, dialect, None)
        assert CLEAR_REASON.match(refused.value.reason), f"{sql!r}: {refused.value.reason!r}"
        assert case.reason_in(dialect) in refused.value.reason, f"{sql!r}: {refused.value.reason!r}"


def test_a_quoted_executable_comment_is_data_not_sql():
    assert check_query("SELECT '/*!50000 SLEEP(5) */' AS s", "mysql", None)
    assert check_query("SELECT `/*!50000 x */` FROM regions", "mysql", None)
    # Inside a line comment MySQL would not run it, but the guard does not split hairs.
    with pytest.raises(QueryRejected, match="executable comments"):
        check_query("SELECT 1 AS a -- /*! not run */", "mysql", None)


async def run_cases(
    service: AgentService, model: ScriptedChatModel, cases: list[Case], dialect: str, out: Path
) -> list[Observed]:
    """Send every case as run_sql calls; check each run's bounds and counts."""
    slow = [case for case in cases if case.outcome(dialect) in (TIMEOUT, FAILED)]
    fast = [case for case in cases if case.outcome(dialect) not in (TIMEOUT, FAILED)]
    batches = [[case] for case in slow] + [fast[i : i + BATCH] for i in range(0, len(fast), BATCH)]
    observed: list[Observed] = []
    for number, batch in enumerate(batches):
        sqls = [case.sql.replace("{out}", str(out)) for case in batch]
        model.replies.extend([run_sql_calls(sqls), answer("done")])
        async with asyncio.timeout(HANG_GUARD):
            result = await service.runner.ask("try these", f"hostile:{dialect}:{number}")
        seen = tool_results_seen(model)
        refused = sum(case.outcome(dialect) == REFUSED for case in batch)
        assert result.answer == "done"
        assert result.sql_refusal_count == refused, sqls
        assert result.sql_execution_count == len(batch) - refused
        observed.extend(Observed(c, s, seen[s]) for c, s in zip(batch, sqls, strict=True))
    return observed


# ------------------------------------------------------------------ MariaDB


def mysql_fingerprint(url: str) -> dict[str, Any]:
    """Return what SQL could change: rows, schema, routines, accounts, server settings."""
    checksums = ", ".join(f"`{table.name}`" for table in TABLES)
    statements = {
        "checksums": f"CHECKSUM TABLE {checksums} EXTENDED",
        "counts": " UNION ALL ".join(
            f"SELECT '{table.name}', count(*) FROM `{table.name}`" for table in TABLES
        ),
        "tables": "SELECT table_name, table_type, table_comment FROM information_schema.tables "
        "WHERE table_schema = DATABASE() ORDER BY 1",
        "columns": "SELECT table_name, column_name, column_type FROM information_schema.columns "
        "WHERE table_schema = DATABASE() ORDER BY 1, 2",
        "routines": "SELECT routine_name FROM information_schema.routines "
        "WHERE routine_schema = DATABASE()",
        "triggers": "SELECT trigger_name FROM information_schema.triggers "
        "WHERE trigger_schema = DATABASE()",
        "accounts": "SELECT user, host FROM mysql.user ORDER BY 1, 2",
        "settings": "SELECT variable_name, variable_value FROM information_schema.global_variables "
        "WHERE variable_name IN ('READ_ONLY', 'MAX_CONNECTIONS', 'GENERAL_LOG', "
        "'MAX_STATEMENT_TIME', 'SQL_MODE') ORDER BY 1",
        "locks": "SELECT IS_USED_LOCK('x')",
    }
    results = asyncio.run(run_statements(url, *statements.values()))
    return dict(zip(statements, results, strict=True))


def mysql_database_folder(url: str) -> Path:
    """Return the server's folder of the URL's database (relative OUTFILEs land there)."""
    return MYSQL_DATA_DIR / url.rsplit("/", 1)[1]


def test_hostile_corpus_against_mariadb_changes_nothing(
    settings: Settings, mysql_sample_url: str, file_targets: Path
):
    before = mysql_fingerprint(mysql_sample_url)
    folders = [file_targets, Path.cwd()]
    if mysql_database_folder(mysql_sample_url).is_dir():
        folders.append(mysql_database_folder(mysql_sample_url))
    files_before = listing(*folders)
    model = ScriptedChatModel()
    overrides = {"data_database_url": mysql_sample_url, "sql_timeout": SQL_TIMEOUT}

    async def run() -> list[Observed]:
        async with open_agent_service(settings.model_copy(update=overrides), model=model) as svc:
            assert svc.runner is not None, svc.problems
            return await run_cases(svc, model, corpus("mysql"), "mysql", file_targets)

    observed = asyncio.run(run())
    assert_each_outcome(observed, "mysql")
    assert mysql_fingerprint(mysql_sample_url) == before
    assert listing(*folders) == files_before
    [busy] = asyncio.run(
        run_statements(
            mysql_sample_url,
            "SELECT id, info FROM information_schema.processlist "
            "WHERE db = DATABASE() AND id <> CONNECTION_ID() AND command <> 'Sleep'",
        )
    )
    assert busy == []  # no query of the corpus still runs


# ------------------------------------------------------------------ DuckDB


def folder_digest(folder: Path) -> dict[str, str]:
    """Return each file's SHA-256 below `folder`."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


async def test_hostile_corpus_against_duckdb_files_changes_nothing(
    settings: Settings, tmp_path: Path, file_targets: Path
):
    folder = write_sample_folder(tmp_path / "files")
    before = folder_digest(folder)
    files_before = listing(folder, file_targets, Path.cwd())
    model = ScriptedChatModel()
    overrides = {"data_database_url": f"duckdb:///{folder}", "sql_timeout": SQL_TIMEOUT}

    async with open_agent_service(settings.model_copy(update=overrides), model=model) as service:
        assert service.runner is not None, service.problems
        observed = await run_cases(service, model, corpus("duckdb"), "duckdb", file_targets)

    assert_each_outcome(observed, "duckdb")
    assert folder_digest(folder) == before
    assert listing(folder, file_targets, Path.cwd()) == files_before


# ------------------------------------------------------------------ ClickHouse (chdb)


def clickhouse_fingerprint(url: str) -> dict[str, Any]:
    """Return each table's row count and content hash, the tables and the databases."""
    database = url.rsplit("=", 1)[1]
    tables = run_admin(
        f"SELECT name, engine FROM system.tables WHERE database = '{database}' ORDER BY name"
    )[0]
    contents = run_admin(
        *(
            f"SELECT count(), groupBitXor(cityHash64(*)) FROM `{database}`.`{t.name}`"
            for t in TABLES
        )
    )
    databases = run_admin("SELECT name FROM system.databases ORDER BY name")[0]
    return {"tables": tables, "contents": contents, "own": database in str(databases)}


@pytest.mark.slow  # a long corpus through the whole agent (tests/support/slow_tests.py)
async def test_hostile_corpus_against_clickhouse_changes_nothing(
    settings: Settings, file_targets: Path
):
    model = ScriptedChatModel()
    with sample_database() as url:
        before = clickhouse_fingerprint(url)
        files_before = listing(file_targets, Path.cwd())
        overrides = {"data_database_url": url, "sql_timeout": SQL_TIMEOUT}
        async with open_agent_service(settings.model_copy(update=overrides), model=model) as svc:
            assert svc.runner is not None, svc.problems
            observed = await run_cases(svc, model, corpus("clickhouse"), "clickhouse", file_targets)
        assert_each_outcome(observed, "clickhouse")
        assert clickhouse_fingerprint(url) == before
        assert listing(file_targets, Path.cwd()) == files_before
        [busy] = run_admin(
            "SELECT query FROM system.processes WHERE query NOT LIKE '%system.processes%'"
        )
        assert busy == []  # no query of the corpus still runs
