import asyncio
from datetime import UTC, datetime, timedelta

from react_agent.audit.database import open_ledger_database
from react_agent.audit.records import AuditRecord, audit_time
from react_agent.audit.schema import create_ledger_schema
from react_agent.audit.store import AuditFilter, AuditStore
from react_agent.audit.writer import AuditWriter

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def record(n: int, **fields) -> AuditRecord:
    values = {
        "at": audit_time(T0 + timedelta(minutes=n)),
        "user_id": "alice" if n % 2 else "bob",
        "outcome": "ok",
        "model_sql": f"SELECT {n} FROM orders",
        "tables": ("orders",),
        "row_count": n,
    }
    values.update(fields)
    return AuditRecord(**values)


async def test_records_come_back_newest_first_with_every_field(ledger_database):
    store = AuditStore(ledger_database)
    first = record(
        1,
        key_id="k-1",
        roles=("analyst",),
        thread_id="alice:1",
        run_id="r1",
        question="q?",
        run_sql="SELECT 1 FROM orders WHERE x",
        duration_ms=7,
        subagent="s1",
        kind="check",
    )
    await store.insert([first, record(2)])
    page = await store.search(AuditFilter(), page=1, page_size=10)
    assert page.total_count == 2
    assert [r["row_count"] for r in page.records] == [2, 1]
    got = page.records[1]
    assert got == {
        "record_id": first.record_id,
        "at": first.at,
        "key_id": "k-1",
        "user_id": "alice",
        "roles": ["analyst"],
        "thread_id": "alice:1",
        "run_id": "r1",
        "question": "q?",
        "model_sql": "SELECT 1 FROM orders",
        "run_sql": "SELECT 1 FROM orders WHERE x",
        "tables": ["orders"],
        "row_count": 1,
        "duration_ms": 7,
        "outcome": "ok",
        "reason": None,
        "subagent": "s1",
        "kind": "check",
    }
    assert page.records[0]["kind"] == "run"  # the default


async def test_a_batch_written_twice_is_stored_once(ledger_database):
    store = AuditStore(ledger_database)
    batch = [record(n) for n in range(5)]
    await store.insert(batch)
    await store.insert(batch)
    assert await store.count() == 5


async def test_filters_by_user_time_outcome_and_whole_table_name(ledger_database):
    store = AuditStore(ledger_database)
    await store.insert(
        [
            record(1),
            record(2, outcome="refused", reason="table not allowed", tables=("order_items",)),
            record(3, tables=("orders", "stores")),
            record(4, tables=("orderXitems",)),
        ]
    )

    async def rows(**where) -> list[int]:
        page = await store.search(AuditFilter(**where), page=1, page_size=100)
        return sorted(r["row_count"] for r in page.records)

    assert await rows(user_id="alice") == [1, 3]
    assert await rows(outcome="refused") == [2]
    assert await rows(table="order_items") == [2]  # "_" is not a wildcard
    assert await rows(table="stores") == [3]
    assert await rows(
        since=audit_time(T0 + timedelta(minutes=2)), until=audit_time(T0 + timedelta(minutes=4))
    ) == [2, 3]


async def test_pages_split_the_matches_in_order(ledger_database):
    store = AuditStore(ledger_database)
    await store.insert([record(n) for n in range(7)])
    pages = [await store.search(AuditFilter(), page=p, page_size=3) for p in (1, 2, 3)]
    assert [[r["row_count"] for r in page.records] for page in pages] == [[6, 5, 4], [3, 2, 1], [0]]
    assert {page.total_count for page in pages} == {7}


async def test_the_writer_writes_every_submitted_record_without_the_caller_waiting(
    ledger_database,
):
    store = AuditStore(ledger_database)
    writer = AuditWriter(store, flush_seconds=0.05, batch_size=64)
    writer.start()
    for n in range(1000):
        writer.submit(record(n))
    assert len(writer.pending) == 1000  # submit queued them; nothing was awaited
    await writer.aclose()  # graceful shutdown writes what is still queued
    assert await store.count() == 1000
    assert writer.pending == type(writer.pending)()


async def test_a_batch_that_fails_stays_queued_and_is_written_later(tmp_path):
    url = f"sqlite:///{tmp_path / 'later.db'}"
    database = await open_ledger_database(url)
    store = AuditStore(database)
    writer = AuditWriter(store, flush_seconds=0.05)
    writer.submit(record(1))
    try:
        await writer.flush()  # the table does not exist yet
    except Exception as exc:
        assert "audit_records" in str(exc)
    else:
        raise AssertionError("the write should have failed")
    assert len(writer.pending) == 1
    await create_ledger_schema(database)
    assert await writer.flush() == 1
    assert await store.count() == 1
    await database.aclose()


async def test_retention_deletes_only_records_older_than_it(ledger_database):
    store = AuditStore(ledger_database)
    now = datetime.now(UTC)
    old = record(1, at=audit_time(now - timedelta(days=31)))
    recent = record(2, at=audit_time(now - timedelta(days=29)))
    await store.insert([old, recent])
    assert await AuditWriter(store, retention_days=30).prune() == 1
    page = await store.search(AuditFilter(), page=1, page_size=10)
    assert [r["record_id"] for r in page.records] == [recent.record_id]
    assert await AuditWriter(store, retention_days=0).prune() == 0


async def test_concurrent_submitters_lose_nothing(ledger_database):
    store = AuditStore(ledger_database)
    writer = AuditWriter(store, flush_seconds=0.01, batch_size=50)
    writer.start()

    async def submit_many(base: int) -> None:
        for n in range(100):
            writer.submit(record(base + n))
            await asyncio.sleep(0)

    await asyncio.gather(*(submit_many(1000 * k) for k in range(10)))
    await writer.aclose()
    assert await store.count() == 1000


async def test_a_version_one_trail_gains_the_kind_column_and_keeps_its_records(tmp_path):
    from dataclasses import replace

    from react_agent.audit.schema import MIGRATIONS

    database = await open_ledger_database(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        first_only = replace(
            MIGRATIONS, versions={d: v[:1] for d, v in MIGRATIONS.versions.items()}
        )
        assert await database.migrate(first_only) == 1
        await database.execute(
            "INSERT INTO audit_records (record_id, at, user_id, roles, tables, outcome) "
            "VALUES ('old', '2026-01-01T00:00:00.000000Z', 'alice', '[]', '[]', 'ok')"
        )
        await create_ledger_schema(database)
        store = AuditStore(database)
        await store.insert([record(1, kind="export")])
        page = await store.search(AuditFilter(), page=1, page_size=10)
        assert [(r["record_id"], r["kind"]) for r in page.records][1] == ("old", "run")
        assert page.records[0]["kind"] == "export"
    finally:
        await database.aclose()
