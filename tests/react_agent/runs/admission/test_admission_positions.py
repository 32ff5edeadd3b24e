"""Telling waiting runs their places: a few events per run however long the queue."""

from __future__ import annotations

import asyncio
from collections import defaultdict

from react_agent.runs.admission.queue import CLOSE_PLACES, Admission

WAITING = 1000


async def test_a_draining_queue_tells_each_run_few_places_in_order():
    admission = Admission(max_active=1, max_queued=10 * WAITING)
    running = admission.reserve()
    told: dict[int, list[int]] = defaultdict(list)
    last_told = asyncio.Event()
    tickets = []
    for n in range(WAITING):
        ticket = admission.reserve()

        def on_position(position: int, n: int = n) -> None:
            told[n].append(position)
            if n == WAITING - 1 and position <= CLOSE_PLACES:
                last_told.set()

        ticket.on_position = on_position
        ticket.tell(admission.position(ticket))
        tickets.append(ticket)
    assert [told[n] for n in (0, 1, WAITING - 1)] == [[1], [2], [WAITING]]

    running.release()  # the runs get their slot and end at once, but for the last few
    for ticket in tickets[: WAITING - CLOSE_PLACES - 1]:
        assert not ticket.waiting
        ticket.release()
    await asyncio.wait_for(last_told.wait(), timeout=30)

    still_waiting = tickets[WAITING - CLOSE_PLACES :]
    assert [admission.position(t) for t in still_waiting] == list(range(1, CLOSE_PLACES + 1))
    assert [told[n][-1] for n in range(WAITING - CLOSE_PLACES, WAITING)] == list(
        range(1, CLOSE_PLACES + 1)
    )
    # Each run was told its place when queued and at most once per pass since: not at
    # each of the 990 slots freed (which would be ~500,000 events).
    assert sum(len(places) for places in told.values()) <= 2 * WAITING
    assert all(places == sorted(places, reverse=True) for places in told.values())
