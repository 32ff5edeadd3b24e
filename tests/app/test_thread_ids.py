"""ThreadIdClock: new conversation ids that never repeat and read as the time they were made."""

from __future__ import annotations

import itertools
import re
import time
from datetime import datetime

from app.thread_ids import ThreadIdClock

THREAD_ID = re.compile(r"^(?P<user>[^:]+):(?P<stamp>\d{14})(?P<ms>\d{3})$")


def test_a_new_thread_id_is_the_user_then_seventeen_digits_of_local_time():
    before = datetime.fromtimestamp(time.time() // 1)
    thread_id = ThreadIdClock().new_thread_id("wang1")
    after = datetime.fromtimestamp(time.time())
    match = THREAD_ID.match(thread_id)
    assert match is not None, thread_id
    assert match["user"] == "wang1"
    made = datetime.strptime(match["stamp"], "%Y%m%d%H%M%S")
    assert before <= made <= after


def test_stamps_strictly_increase_even_many_times_in_one_millisecond():
    clock = ThreadIdClock()
    stamps = [clock.next_ms() for _ in range(10_000)]
    assert all(later > earlier for earlier, later in itertools.pairwise(stamps))


def test_ids_made_in_a_burst_are_all_distinct_and_well_formed():
    clock = ThreadIdClock()
    ids = [clock.new_thread_id("amy") for _ in range(5_000)]
    assert len(set(ids)) == len(ids)
    assert all(THREAD_ID.match(thread_id) for thread_id in ids)


def test_the_stamp_never_runs_behind_the_clock():
    clock = ThreadIdClock()
    now_ms = time.time_ns() // 1_000_000
    assert clock.next_ms() >= now_ms
