import asyncio
from datetime import UTC, datetime

import pytest

from react_agent.access.scope import Quota, Scope
from react_agent.audit.database import open_ledger_database
from react_agent.audit.schema import SchemaOnce
from react_agent.errors import ServiceError
from react_agent.quotas.counters import QuotaCounters, windows_at
from react_agent.quotas.gate import QuotaLimits, Quotas
from react_agent.quotas.tally import TokenTally


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def quotas_on(database, clock, **limits) -> Quotas:
    return Quotas(QuotaCounters(database, clock), QuotaLimits(**limits), SchemaOnce(database))


def test_windows_end_at_the_next_minute_and_the_next_utc_midnight():
    windows = windows_at(datetime(2026, 3, 1, 23, 59, 20, 500_000, tzinfo=UTC))
    assert windows.minute == "2026-03-01T23:59" and windows.day == "2026-03-01"
    assert windows.minute_resets_in == 40  # 39.5 s, rounded up
    assert windows.day_resets_in == 40
    assert windows.minute_resets_at == "2026-03-02T00:00:00Z"


async def test_questions_over_the_minute_limit_get_429_with_retry_after(ledger_database):
    clock = Clock(datetime(2026, 3, 1, 10, 0, 45, tzinfo=UTC))
    quotas = quotas_on(ledger_database, clock, questions_per_minute=3)
    for _ in range(3):
        await quotas.admit("alice")
    with pytest.raises(ServiceError) as refused:
        await quotas.admit("alice")
    error = refused.value
    assert (error.status, error.error_type) == (429, "QUOTA_EXCEEDED")
    assert error.params["retry_after"] == 15 and error.can_retry
    await quotas.admit("bob")  # a limit per user
    await quotas.admit("alice", question=False)  # a resume is not a new question
    clock.now = datetime(2026, 3, 1, 10, 1, 0, tzinfo=UTC)
    await quotas.admit("alice")  # a new minute
    assert (await quotas.usage("alice"))["questions_this_minute"] == 1


async def test_tokens_of_the_day_stop_new_questions_until_midnight(ledger_database):
    clock = Clock(datetime(2026, 3, 1, 22, 0, 0, tzinfo=UTC))
    quotas = quotas_on(ledger_database, clock, tokens_per_day=1000)
    await quotas.admit("alice")
    await quotas.add_tokens("alice", 1001)
    with pytest.raises(ServiceError) as refused:
        await quotas.admit("alice")
    assert refused.value.params["retry_after"] == 2 * 3600
    assert refused.value.params["quota"] == "tokens_per_day"
    usage = await quotas.usage("alice")
    assert usage["tokens_today"] == 1001
    assert usage["limits"] == {"questions_per_minute": None, "tokens_per_day": 1000}
    assert usage["resets"]["tokens_per_day"] == "2026-03-02T00:00:00Z"
    clock.now = datetime(2026, 3, 2, 0, 0, 1, tzinfo=UTC)
    await quotas.admit("alice")


async def test_the_role_quota_wins_over_the_settings(ledger_database):
    clock = Clock(datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC))
    quotas = quotas_on(ledger_database, clock, questions_per_minute=100)
    scope = Scope(quota=Quota(questions_per_minute=1))
    await quotas.admit("carol", scope)
    with pytest.raises(ServiceError):
        await quotas.admit("carol", scope)
    assert QuotaLimits(5, 9).for_scope(Scope()) == QuotaLimits(5, 9)


async def test_two_processes_counting_together_take_exactly_the_limit(postgres_database):
    # Two pools stand for two workers: they share nothing but the database.
    first = await open_ledger_database(postgres_database)
    second = await open_ledger_database(postgres_database)
    clock = Clock(datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC))
    gates = [
        quotas_on(first, clock, questions_per_minute=25),
        quotas_on(second, clock, questions_per_minute=25),
    ]

    async def ask(n: int) -> bool:
        try:
            await gates[n % 2].admit("dave")
        except ServiceError:
            return False
        return True

    try:
        taken = await asyncio.gather(*(ask(n) for n in range(60)))
        assert sum(taken) == 25
        assert (await gates[1].usage("dave"))["questions_this_minute"] == 25
    finally:
        await first.aclose()
        await second.aclose()


async def test_pruning_keeps_today_and_yesterday(ledger_database):
    clock = Clock(datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC))
    counters = QuotaCounters(ledger_database, clock)
    for day in (27, 28):
        clock.now = datetime(2026, 2, day, 10, 0, 0, tzinfo=UTC)
        await counters.add_tokens("erin", 5)
    clock.now = datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC)
    await counters.add_tokens("erin", 7)
    assert await counters.prune() == 1  # the 27th; the 28th is yesterday
    assert (await counters.used("erin", counters.windows()))["tokens_per_day"] == 7


async def test_the_tally_adds_each_users_tokens_in_one_write(ledger_database):
    clock = Clock(datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC))
    quotas = quotas_on(ledger_database, clock, tokens_per_day=1000)
    tally = TokenTally(quotas)
    for tokens in (10, 20, 30):
        tally.add("fay", tokens)
    tally.add("gus", 5)
    tally.add("gus", 0)
    await tally.aclose()  # shutdown adds what is pending
    usage = await quotas.usage("fay")
    assert usage["tokens_today"] == 60
    assert (await quotas.usage("gus"))["tokens_today"] == 5
    assert not tally.pending
