"""RUNS_MAX_ACTIVE=auto, the default: a limit sized from the cores, raised while they idle."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from config import Settings
from react_agent.errors import ServiceError
from react_agent.runs.admission.auto import (
    ADAPT_INTERVAL,
    BUSY_SHARE,
    RUNS_PER_CORE,
    AutoLimit,
    max_active_runs,
    usable_cores,
)
from react_agent.runs.admission.queue import Admission
from react_agent.service import open_agent_service
from tests.support.scripted_model import ScriptedChatModel, answer


def test_auto_is_the_default_and_any_case_of_it_is_read(tmp_path):
    assert Settings(_env_file=None, data_dir=tmp_path).runs_max_active == "auto"
    assert Settings(_env_file=None, data_dir=tmp_path, runs_max_active="AUTO").runs_max_active == (
        "auto"
    )


@pytest.mark.parametrize(("value", "expected"), [("12", 12), ("0", 0), (7, 7)])
def test_a_count_is_read_as_a_count(tmp_path, value, expected):
    assert Settings(_env_file=None, data_dir=tmp_path, runs_max_active=value).runs_max_active == (
        expected
    )


@pytest.mark.parametrize("value", ["-1", -3, "many"])
def test_a_negative_count_or_another_word_is_refused(tmp_path, value):
    with pytest.raises(ValidationError, match="runs_max_active"):
        Settings(_env_file=None, data_dir=tmp_path, runs_max_active=value)


def test_auto_gives_each_core_its_runs_and_a_count_is_kept():
    assert max_active_runs("auto", cores=2) == 2 * RUNS_PER_CORE
    assert max_active_runs("auto", cores=1) == RUNS_PER_CORE
    assert max_active_runs(5) == 5
    assert max_active_runs(0) == 0  # no limit


async def test_the_default_service_limits_its_runs_by_its_cores(settings):
    async with open_agent_service(
        settings, model=ScriptedChatModel(replies=[answer("4000")])
    ) as service:
        admission = service.require_runner().admission
    assert admission is not None
    assert admission.max_active == RUNS_PER_CORE * usable_cores() > 0


class FakeClocks:
    """Wall and CPU seconds a test moves by hand."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def spend(self, seconds: float, cpu_share: float) -> None:
        self.wall += seconds
        self.cpu += seconds * cpu_share


def _auto(start: int, clocks: FakeClocks) -> tuple[Admission, AutoLimit]:
    admission = Admission(start, max_queued=100)
    limit = AutoLimit(admission, cpu_clock=lambda: clocks.cpu, clock=lambda: clocks.wall)
    return admission, limit


async def test_waiting_runs_are_let_in_while_the_cpu_has_room():
    clocks = FakeClocks()
    admission, limit = _auto(2, clocks)
    tickets = [admission.reserve() for _ in range(6)]
    assert [t.waiting for t in tickets] == [False, False, True, True, True, True]

    clocks.spend(ADAPT_INTERVAL, cpu_share=0.2)  # the runs wait for a slow model
    limit.adapt()
    assert admission.max_active == 4 and [t.waiting for t in tickets].count(True) == 2
    clocks.spend(ADAPT_INTERVAL, cpu_share=0.2)
    limit.adapt()
    assert admission.max_active == 8 and not any(t.waiting for t in tickets)


async def test_a_busy_process_keeps_its_runs_waiting_and_its_limit_goes_back():
    clocks = FakeClocks()
    admission, limit = _auto(2, clocks)
    tickets = [admission.reserve() for _ in range(4)]
    admission.max_active = 8  # raised earlier, when the CPU had room

    clocks.spend(ADAPT_INTERVAL, cpu_share=BUSY_SHARE + 0.1)
    limit.adapt()
    assert admission.max_active == 6
    for _ in range(5):
        clocks.spend(ADAPT_INTERVAL, cpu_share=1.0)
        limit.adapt()
    assert admission.max_active == 2  # never below where it started
    for ticket in tickets:
        ticket.release()
    assert admission.active == 0 and not admission.queue


async def test_a_lowered_limit_holds_the_queue_until_runs_end_below_it():
    admission = Admission(3, max_queued=10)
    running = [admission.reserve() for _ in range(3)]
    waiting = admission.reserve()
    admission.max_active = 1

    running[0].release()
    running[1].release()
    assert waiting.waiting and admission.active == 1
    running[2].release()
    assert not waiting.waiting and admission.active == 1


async def test_a_burst_beyond_the_queue_lets_the_oldest_in_instead_of_refusing():
    clocks = FakeClocks()
    admission = Admission(2, max_queued=3)
    AutoLimit(admission, cpu_clock=lambda: clocks.cpu, clock=lambda: clocks.wall)
    tickets = [admission.reserve() for _ in range(8)]

    assert [t.waiting for t in tickets] == [False] * 5 + [True] * 3
    assert admission.max_active == 5 and len(admission.queue) == 3


async def test_a_fixed_limit_still_refuses_beyond_its_queue():
    admission = Admission(2, max_queued=3)
    for _ in range(5):
        admission.reserve()
    with pytest.raises(ServiceError) as refused:
        admission.reserve()
    assert refused.value.error_type == "QUEUE_FULL"


async def test_a_full_queue_lets_one_in_even_after_the_limit_was_lowered():
    clocks = FakeClocks()
    admission = Admission(2, max_queued=2)
    AutoLimit(admission, cpu_clock=lambda: clocks.cpu, clock=lambda: clocks.wall)
    admission.max_active = 6
    tickets = [admission.reserve() for _ in range(8)]
    admission.max_active = 2  # lowered while the process was busy; six still run

    newcomer = admission.reserve()

    assert admission.active == 7 and not tickets[6].waiting
    assert newcomer.waiting and len(admission.queue) == 2
