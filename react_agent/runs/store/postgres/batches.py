"""Run events stored in batches: events and ends that come while writes are under way go as one."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from react_agent.databases.postgres_json import dumps
from react_agent.databases.postgres_pool import is_connection_failure
from react_agent.group_writes import settle
from react_agent.runs.store.events import FINISHED, RUNNING, Payload, RunRecord
from react_agent.runs.store.postgres.notifications import EVENTS_CHANNEL
from react_agent.runs.store.postgres.tables import RunTables

logger = logging.getLogger(__name__)

MAX_WRITES_IN_FLIGHT = 1
"""Batches written at once, each on a pooled connection of its own.

Below this many, an event is written at once, alone; beyond it, the events that come
while the writes are under way wait for the next one and go in it together: one
statement and one commit for many runs' events, which under load costs the process and
PostgreSQL a fraction of an INSERT each. One, as for the checkpoint batches
(conversations/postgres_checkpoint_batches): four sent more, smaller statements.
"""

_EVENTS_AND_ENDS = (
    "stored AS (INSERT INTO run_events (run_id, seq, thread_id, payload)"
    " SELECT run_id, seq, thread_id, payload::json"
    " FROM unnest(%b::text[], %b::integer[], %b::text[], %b::text[])"
    " AS event(run_id, seq, thread_id, payload) ON CONFLICT DO NOTHING),"
    f" ended AS (UPDATE runs SET status = '{FINISHED}', updated_at = now()"
    f" WHERE run_id = ANY(%b::text[]) AND status = '{RUNNING}')"
    f" SELECT pg_notify('{EVENTS_CHANNEL}', run_id) FROM unnest(%b::text[]) AS notified(run_id)"
)
INSERT_EVENTS = "WITH " + _EVENTS_AND_ENDS
"""One statement for a batch: its events, the runs it ends, then a notice for each run
followed elsewhere or ended (a follower elsewhere may have come too late to be heard of).

The arrays go in binary (`%b`): psycopg quotes every element of a text-format array with
a regular expression, which cost a one-event batch 52 µs of CPU to dump, 15 µs in binary.
"""

RUN_COLUMNS = ("run_id", "thread_id", "user_id", "lang", "status", "owner", "trace_parent")
"""The columns of a `runs` row a batch stores with its run's first event."""

INSERT_RUNS_AND_EVENTS = (
    f"WITH opened AS (INSERT INTO runs ({', '.join(RUN_COLUMNS)})"
    f" SELECT * FROM unnest({', '.join(['%b::text[]'] * len(RUN_COLUMNS))})"
    " ON CONFLICT (run_id) DO NOTHING), " + _EVENTS_AND_ENDS
)
"""INSERT_EVENTS, storing first the rows of the runs whose first event it holds.

The foreign key of run_events is checked at the end of the statement, so the events of
a run whose row the same statement inserts pass. ON CONFLICT: a batch whose connection
broke after its commit is sent again with its rows.
"""


def run_row(record: RunRecord, status: str) -> tuple[str | None, ...]:
    """Return the run's `runs` row, in the order of RUN_COLUMNS."""
    return (
        record.run_id,
        record.thread_id,
        record.user_id,
        record.lang,
        status,
        record.owner,
        record.trace_parent,
    )


@dataclass(slots=True)
class _Event:
    run_id: str
    seq: int
    thread_id: str
    payload: str | None
    """The envelope as JSON text, stored as it is (a `json` column keeps its key order);
    None for the end of a run (`EventBatches.end`), which stores no event."""
    notify: bool
    stored: asyncio.Future[None]
    row: tuple[str | None, ...] | None = None
    """The run's `runs` row (RUN_COLUMNS), to store with this event: its first one."""


class EventBatches:
    """Stores run events, each acknowledged once it is in PostgreSQL.

    A run's events come one at a time (each stored before the next is sent), so a batch
    holds at most one event per run and a run's events are stored in order; its end is
    queued once its last event is stored, so it goes in a later batch. A batch that
    PostgreSQL refuses for a reason other than a lost connection is written again one
    event at a time, so one bad event costs the others nothing.

    Args:
        tables: The run store's statements on its pool.
        max_in_flight: Batches written at once (MAX_WRITES_IN_FLIGHT).

    """

    def __init__(self, tables: RunTables, max_in_flight: int = MAX_WRITES_IN_FLIGHT) -> None:
        self.tables = tables
        self.max_in_flight = max_in_flight
        self.statements = 0
        """Statements written so far (fewer than the events, under load)."""
        self._pending: list[_Event] = []
        self._writers: set[asyncio.Task[None]] = set()
        self._closed = False

    async def store(
        self,
        run_id: str,
        seq: int,
        thread_id: str,
        payload: Payload,
        *,
        notify: bool,
        row: tuple[str | None, ...] | None = None,
    ) -> None:
        """Return once the event is stored (and, if `notify`, its run's followers told).

        `row` is the run's `runs` row (RUN_COLUMNS), stored with the event when given:
        the caller gives it with the run's first event, and again with the next one
        until one was stored.

        Raises:
            ServiceError: PostgreSQL could not store it (503 CHECKPOINTER_UNAVAILABLE).

        """
        event = _Event(run_id, seq, thread_id, dumps(payload), notify, _future(), row)
        await self._queue(event)

    async def end(self, run_id: str, row: tuple[str | None, ...] | None = None) -> None:
        """Return once the run is marked finished and its followers everywhere are told.

        Called after its last event is stored: under load it shares a batch's statement
        with other runs' events instead of taking one of its own. `row`: the run's row,
        finished already, for a run none of whose events could be stored.

        Raises:
            ServiceError: PostgreSQL could not store it (503 CHECKPOINTER_UNAVAILABLE).

        """
        await self._queue(_Event(run_id, 0, "", None, True, _future(), row))

    async def _queue(self, event: _Event) -> None:
        if self._closed:
            event.stored.cancel()  # as the events still waiting when it closed
        else:
            self._pending.append(event)
            self._start_writer()
        await event.stored

    def _start_writer(self) -> None:
        if len(self._writers) < self.max_in_flight and self._pending and not self._closed:
            writer = asyncio.create_task(self._write_pending(), name="run-event-batches")
            self._writers.add(writer)
            writer.add_done_callback(self._writer_done)

    def _writer_done(self, writer: asyncio.Task[None]) -> None:
        # A writer that found nothing left ends, but is counted until this runs: an event
        # queued meanwhile (its caller woken before this) would otherwise wait for good.
        self._writers.discard(writer)
        self._start_writer()

    async def aclose(self) -> None:
        """Stop writing; the events still waiting are cancelled."""
        self._closed = True
        for writer in list(self._writers):
            writer.cancel()
        await asyncio.gather(*self._writers, return_exceptions=True)
        for event in self._pending:
            event.stored.cancel()
        self._pending.clear()

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await self._write_batch(batch)
            except BaseException:
                for event in batch:
                    event.stored.cancel()  # no-op for those already settled
                raise

    async def _write_batch(self, batch: list[_Event]) -> None:
        try:
            await self._write(batch)
        except Exception as exc:
            if len(batch) > 1 and not is_connection_failure(exc.__cause__ or exc):
                logger.warning("%d run events failed together (%s): one by one", len(batch), exc)
                for event in batch:
                    await self._write_batch([event])
                return
            settle((event.stored for event in batch), exc)
        else:
            settle((event.stored for event in batch), None)

    async def _write(self, batch: list[_Event]) -> None:
        self.statements += 1
        events = [event for event in batch if event.payload is not None]
        notified = list(dict.fromkeys(event.run_id for event in batch if event.notify))
        params = [
            [event.run_id for event in events],
            [event.seq for event in events],
            [event.thread_id for event in events],
            [event.payload for event in events],
            [event.run_id for event in batch if event.payload is None],
            notified,
        ]
        rows = [event.row for event in batch if event.row is not None]
        if rows:
            columns = [list(column) for column in zip(*rows, strict=True)]
            await self.tables.execute(INSERT_RUNS_AND_EVENTS, (*columns, *params))
        else:
            await self.tables.execute(INSERT_EVENTS, tuple(params))


def _future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()
