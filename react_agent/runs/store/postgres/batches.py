"""Run events stored in batches: events and ends that come while writes are under way go as one."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from react_agent.group_writes import settle
from react_agent.runs.store.events import FINISHED, RUNNING, Payload, RunRecord
from react_agent.runs.store.postgres.notifications import EVENTS_CHANNEL
from react_agent.runs.store.postgres.tables import refused
from react_agent.storage.postgres_batches import Share, SourceBatch, StatementBatches
from react_agent.storage.postgres_json import dumps

RUN_COLUMNS = ("run_id", "thread_id", "user_id", "lang", "status", "owner", "trace_parent")
"""The columns of a `runs` row a batch stores with its run's first event."""

INSERT_RUNS = (
    f"INSERT INTO runs ({', '.join(RUN_COLUMNS)})"
    f" SELECT * FROM unnest({', '.join(['%b::text[]'] * len(RUN_COLUMNS))})"
    " ON CONFLICT (run_id) DO NOTHING"
)
"""The rows of the runs whose first event the batch holds, stored before them.

The foreign key of run_events is checked at the end of the statement, so the events of
a run whose row the same statement inserts pass. ON CONFLICT: a batch whose connection
broke after its commit is sent again with its rows.
"""
INSERT_EVENTS = (
    "INSERT INTO run_events (run_id, seq, thread_id, payload)"
    " SELECT run_id, seq, thread_id, payload::json"
    " FROM unnest(%b::text[], %b::integer[], %b::text[], %b::text[])"
    " AS event(run_id, seq, thread_id, payload) ON CONFLICT DO NOTHING"
)
"""The batch's events.

The arrays go in binary (`%b`): psycopg quotes every element of a text-format array with
a regular expression, which cost a one-event batch 52 µs of CPU to dump, 15 µs in binary.
"""
END_RUNS = (
    f"UPDATE runs SET status = '{FINISHED}', updated_at = now()"
    f" WHERE run_id = ANY(%b::text[]) AND status = '{RUNNING}'"
)
"""The runs the batch ends."""
NOTIFY = f"SELECT pg_notify('{EVENTS_CHANNEL}', run_id) FROM unnest(%b::text[]) AS notified(run_id)"
"""A notice for each run followed elsewhere or ended (a follower elsewhere may have come
too late to be heard of)."""


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


@dataclass(slots=True)
class _Batch:
    """Events and ends given to one statement."""

    events: list[_Event]
    conninfo: str
    kind: str = "run events"

    def share(self) -> Share:
        stored = [event for event in self.events if event.payload is not None]
        ctes, params = [], []
        rows = [event.row for event in self.events if event.row is not None]
        if rows:
            ctes.append(INSERT_RUNS)
            params += [list(column) for column in zip(*rows, strict=True)]
        ctes += [INSERT_EVENTS, END_RUNS]
        params += [
            [event.run_id for event in stored],
            [event.seq for event in stored],
            [event.thread_id for event in stored],
            [event.payload for event in stored],
            [event.run_id for event in self.events if event.payload is None],
        ]
        notified = list(dict.fromkeys(event.run_id for event in self.events if event.notify))
        return Share(ctes, params, NOTIFY, [notified])

    def split(self) -> list[SourceBatch]:
        if len(self.events) == 1:
            return []
        return [_Batch([event], self.conninfo) for event in self.events]

    def settle(self, error: Exception | None) -> None:
        settle(
            (event.stored for event in self.events),
            None if error is None else refused(self.conninfo, error),
        )

    def cancel(self) -> None:
        for event in self.events:
            event.stored.cancel()  # no-op for those already settled


class EventBatches:
    """Keeps run events for the statement writer, each acknowledged once it is in PostgreSQL.

    A run's events come one at a time (each stored before the next is sent), so a batch
    holds at most one event per run and a run's events are stored in order; its end is
    queued once its last event is stored, so it goes in a later batch. The writer
    (storage/postgres_batches) sends them with the checkpoint writes that wait with
    them, one statement and one commit for all.

    Args:
        writer: The process's statement writer (the checkpointer's, or the store's own).
        conninfo: Its database, named in the 503 a client gets when it cannot be used.

    """

    def __init__(self, writer: StatementBatches, conninfo: str) -> None:
        self.writer = writer
        self.conninfo = conninfo
        self._pending: list[_Event] = []
        self._closed = False
        writer.add(self)

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
            self.writer.wake()
        await event.stored

    def waiting(self) -> bool:
        """Whether events wait for the writer."""
        return bool(self._pending)

    def take(self) -> SourceBatch | None:
        """Return the events waiting, all of them."""
        if not self._pending:
            return None
        batch, self._pending = self._pending, []
        return _Batch(batch, self.conninfo)

    async def aclose(self) -> None:
        """Stop taking events; those still waiting are cancelled."""
        self._closed = True
        for event in self._pending:
            event.stored.cancel()
        self._pending.clear()


def _future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()
