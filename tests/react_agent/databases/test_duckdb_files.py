"""The DuckDB files backend: a folder of files as read-only tables, timed and cancellable."""

from __future__ import annotations

import asyncio
from pathlib import Path

import duckdb
import pytest

from react_agent.databases.base import QueryFailed
from react_agent.databases.duckdb.file_tables import text_encoding
from react_agent.databases.duckdb.files import DuckDBFiles
from react_agent.errors import ServiceError
from tests.support.data_files import make_data_folder

RUNAWAY = "SELECT count(*) AS n FROM range(10000000000) r WHERE hash(r.range) % 7 = 3"
HANG_GUARD = 30.0
"""Seconds after which a query that should have been stopped counts as hung; not a measure."""


def listing(*folders: Path) -> dict[str, list[str]]:
    """Return every file below each folder, for before/after comparisons."""
    return {str(f): sorted(str(p.relative_to(f)) for p in f.rglob("*")) for f in folders}


@pytest.fixture
async def files(tmp_path: Path):
    folder = make_data_folder(tmp_path / "data")
    database = await DuckDBFiles.open(f"duckdb:///{folder}", memory_limit="256MB", threads=1)
    yield database
    await database.aclose()


async def test_each_file_and_sheet_becomes_a_typed_table(files):
    assert await files.list_tables() == [
        "events",
        "numbers",
        "pairs",
        "people",
        "报表_明细",
        "报表_汇总",
        "销售",
    ]
    infos = {info.name: info for info in await files.describe_tables(await files.list_tables())}
    assert infos["销售"].columns == [("地区", "VARCHAR"), ("销售额", "DOUBLE"), ("日期", "DATE")]
    assert infos["销售"].comment == "from 销售.csv" and infos["销售"].row_count == 3
    assert infos["报表_汇总"].columns == [("产品", "VARCHAR"), ("数量", "BIGINT"), ("日期", "DATE")]
    assert infos["报表_汇总"].comment == "from 报表.xlsx#汇总"
    assert infos["people"].columns[1:] == [("age", "BIGINT"), ("joined", "DATE")]
    assert infos["events"].row_count == 2 and infos["numbers"].row_count == 5


async def test_a_gbk_csv_and_an_excel_sheet_answer_in_chinese(files):
    sales = await files.run_query(
        "SELECT 地区, sum(销售额) AS 合计 FROM 销售 GROUP BY 地区 ORDER BY 地区",
        row_limit=10,
        timeout=5,
    )
    assert sales.rows == [{"地区": "华东", "合计": 150.5}, {"地区": "华南", "合计": 200.0}]
    sheet = await files.run_query(
        'SELECT 产品, 数量, 日期 FROM "报表_汇总" ORDER BY 数量 DESC', row_limit=1, timeout=5
    )
    assert sheet.rows == [{"产品": "香蕉", "数量": 5, "日期": "2024-05-02"}]
    assert sheet.is_limited and sheet.total_row_count == 2


def test_encodings_are_detected(tmp_path: Path):
    gbk, utf8 = tmp_path / "gbk.csv", tmp_path / "utf8.csv"
    gbk.write_bytes("名称,数量\n苹果,1\n".encode("gbk"))
    utf8.write_text("名称,数量\n苹果,1\n", encoding="utf-8")
    assert (text_encoding(gbk), text_encoding(utf8)) == ("gb18030", "utf-8")


async def test_the_engine_reaches_no_file_and_changes_nothing(files, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("secret\nhunter2\n")
    before = listing(tmp_path)
    attempts = {
        f"SELECT * FROM read_csv('{outside}/secret.csv')": "file system operations are disabled",
        "SELECT * FROM read_csv('/etc/passwd')": "file system operations are disabled",
        f"SELECT * FROM read_csv('{tmp_path}/data/people.csv')": "disabled",
        f"COPY people TO '{outside}/copy.csv'": "disabled",
        f"ATTACH '{outside}/x.duckdb' AS x": "disabled",
        "INSTALL httpfs": "disabled",
        "LOAD httpfs": "disabled",
        "SELECT * FROM read_csv('https://example.com/x.csv')": "disabled",
        "SET enable_external_access = true": "locked",
        "CREATE TABLE pwned AS SELECT 1": "read-only",
        "DROP TABLE people": "read-only",
    }
    for sql, expected in attempts.items():
        with pytest.raises(QueryFailed) as failed:
            await files.run_query(sql, row_limit=5, timeout=5)
        assert expected in str(failed.value), (sql, str(failed.value))
    assert listing(tmp_path) == before
    people = await files.run_query("SELECT count(*) AS n FROM people", row_limit=5, timeout=5)
    assert people.rows == [{"n": 2}]


async def test_a_runaway_scan_stops_at_the_time_limit(files):
    # Ten billion rows: hours of work, so ending at all is the time limit's doing.
    async with asyncio.timeout(HANG_GUARD):
        with pytest.raises(QueryFailed) as failed:
            await files.run_query(RUNAWAY, row_limit=5, timeout=0.5)
    assert str(failed.value) == "query stopped: it ran longer than the 0.5 s statement timeout"


async def test_a_cancelled_query_is_interrupted_before_the_caller_goes_on(files):
    task = asyncio.create_task(files.run_query(RUNAWAY, row_limit=5, timeout=60))
    # run_query hands the work to a thread at once; one loop turn later it is running.
    await asyncio.sleep(0)
    task.cancel()
    # Without the interrupt the scan would go on for hours and the guard would fail.
    async with asyncio.timeout(HANG_GUARD):
        with pytest.raises(asyncio.CancelledError):
            await task
        await files.aclose()  # nothing still runs on the connection: it closes at once
    with pytest.raises(duckdb.ConnectionException):
        files.connection.execute("SELECT 1")


async def test_an_export_stream_reads_every_row_in_batches(files):
    async with files.open_row_stream("SELECT * FROM range(2500)", max_rows=2200, timeout=5) as s:
        sizes = [len(batch) async for batch in s.batches]
    assert s.columns == ["range"] and sizes == [1000, 1000, 200]


async def test_one_file_or_a_duckdb_database_can_be_the_source(tmp_path: Path):
    folder = make_data_folder(tmp_path / "data")
    single = await DuckDBFiles.open(f"duckdb:///{folder / '报表.xlsx'}")
    assert await single.list_tables() == ["报表_明细", "报表_汇总"]
    await single.aclose()
    path = tmp_path / "own.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute("CREATE TABLE t AS SELECT 42 AS answer")
    own = await DuckDBFiles.open(f"duckdb:///{path}")
    assert (await own.run_query("SELECT * FROM t", row_limit=2, timeout=5)).rows == [{"answer": 42}]
    with pytest.raises(QueryFailed, match="read-only"):
        await own.run_query("DELETE FROM t", row_limit=2, timeout=5)
    await own.aclose()


async def test_a_missing_folder_is_a_503(tmp_path: Path):
    with pytest.raises(ServiceError) as failed:
        await DuckDBFiles.open(f"duckdb:///{tmp_path / 'nope'}")
    assert failed.value.status == 503
