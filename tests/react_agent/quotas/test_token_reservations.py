"""Token reservations: a run holds tokens of the day while it runs, atomically on both kinds."""

import asyncio
from datetime import UTC, datetime

import pytest

from react_agent.audit.database import open_ledger_database
from react_agent.audit.schema import SchemaOnce
from react_agent.errors import ServiceError
from react_agent.quotas.counters import RESERVED, QuotaCounters
from react_agent.quotas.gate import QuotaLimits, Quotas
from react_agent.quotas.reservations import HELD_RETRY_AFTER, reserve_tokens
from react_agent.quotas.tally import TokenTally

NOW = datetime(2026, 3, 1, 22, 0, 0, tzinfo=UTC)


def quotas_on(database, *, tokens_per_day: int, reserve: int) -> Quotas:
    return Quotas(
        QuotaCounters(database, lambda: NOW),
        QuotaLimits(tokens_per_day=tokens_per_day),
        SchemaOnce(database),
        token_reserve=reserve,
    )


async def reserved(quotas: Quotas, user: str) -> int:
    rows = await quotas.counters.database.fetch_all(
        "SELECT amount FROM quota_counters WHERE user_id = ? AND kind = ?", [user, RESERVED]
    )
    return sum(int(row["amount"]) for row in rows)


async def test_runs_hold_tokens_until_used_plus_held_reach_the_limit(ledger_database):
    quotas = quotas_on(ledger_database, tokens_per_day=1000, reserve=400)
    tally = TokenTally(quotas)
    held = [await reserve_tokens(quotas, tally, "alice", None) for _ in range(3)]
    assert all(h is not None for h in held)  # 0, 400 and 800 held: each under 1000
    with pytest.raises(ServiceError) as refused:
        await reserve_tokens(quotas, tally, "alice", None)
    assert refused.value.status == 429 and refused.value.error_type == "QUOTA_EXCEEDED"
    assert refused.value.params["retry_after"] == HELD_RETRY_AFTER
    assert await reserve_tokens(quotas, tally, "bob", None) is not None  # per user
    tally.add("alice", 150)  # the first run's real tokens, then its end
    held[0].release()
    held[0].release()  # once only
    assert await reserve_tokens(quotas, tally, "alice", None) is not None  # flushed, then held
    assert (await quotas.usage("alice"))["tokens_today"] == 150
    assert await reserved(quotas, "alice") == 1200


async def test_a_spent_day_refuses_until_midnight_and_no_quota_holds_nothing(ledger_database):
    quotas = quotas_on(ledger_database, tokens_per_day=1000, reserve=400)
    tally = TokenTally(quotas)
    await quotas.add_tokens("carol", 1000)
    with pytest.raises(ServiceError) as refused:
        await reserve_tokens(quotas, tally, "carol", None)
    assert refused.value.params["retry_after"] == 2 * 3600  # the end of the UTC day
    assert await reserved(quotas, "carol") == 0
    unlimited = quotas_on(ledger_database, tokens_per_day=0, reserve=400)
    assert await reserve_tokens(unlimited, TokenTally(unlimited), "carol", None) is None


async def test_a_release_waits_for_the_users_tokens_to_be_counted(ledger_database):
    quotas = quotas_on(ledger_database, tokens_per_day=1000, reserve=400)
    tally = TokenTally(quotas)
    held = await reserve_tokens(quotas, tally, "dan", None)
    assert held is not None
    tally.add("dan", 90)
    held.release()
    assert tally.owes("dan")
    await tally.flush()
    assert not tally.owes("dan")
    assert (await quotas.usage("dan"))["tokens_today"] == 90
    assert await reserved(quotas, "dan") == 0


async def test_two_processes_hold_exactly_what_fits(postgres_database):
    # Two pools stand for two workers: they share nothing but the database.
    pools = [await open_ledger_database(postgres_database) for _ in range(2)]
    gates = [quotas_on(pool, tokens_per_day=1000, reserve=100) for pool in pools]
    tallies = [TokenTally(gate) for gate in gates]

    async def ask(n: int) -> bool:
        try:
            return await reserve_tokens(gates[n % 2], tallies[n % 2], "erin", None) is not None
        except ServiceError:
            return False

    try:
        taken = await asyncio.gather(*(ask(n) for n in range(40)))
        assert sum(taken) == 10  # 0, 100, … 900 held: the tenth is the last under 1000
        assert await reserved(gates[0], "erin") == 1000
    finally:
        for pool in pools:
            await pool.aclose()
