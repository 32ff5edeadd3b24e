"""A policy reload never fails open: a file cut short is not applied, a tightening is at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.policy_file.policy_checks import PolicyError
from react_agent.access.policy_file.policy_diff import loosenings
from react_agent.access.policy_file.policy_source import PolicySource, require_known_users
from tests.react_agent.access.conftest import POLICY_FILE
from tests.react_agent.access.test_policy_file import CATALOG


class Clock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


TOP = ("users", "default_role", "roles")


def roles_first(text: str) -> str:
    """Return the sample policy reordered as roles, default_role, users (same rules)."""
    users, default, roles = (text.index(f"\n{key}:") + 1 for key in TOP)
    return text[:users] + text[roles:] + text[default:roles] + text[users:default]


SAMPLE = POLICY_FILE.read_text("utf-8")
ROLES_FIRST = roles_first(SAMPLE)


def rewrite(path: Path, text: str, generation: int) -> None:
    """Write `text` with a modification time of its own, whatever the clock's resolution."""
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(generation, generation * 10**9))


def cut_points(text: str) -> list[int]:
    """Every line end, and the middle of every line of the users part."""
    ends = [n + 1 for n, char in enumerate(text) if char == "\n"][:-1]
    users = text.index("\nusers:")
    middles = [
        (start + end) // 2 for start, end in zip([0, *ends], ends, strict=False) if start > users
    ]
    return sorted(set(ends + middles))


def scope_of(source: PolicySource, user: str):
    return source.scope_for(source.actor_for(user))


@pytest.mark.parametrize(
    ("text", "loosening_cuts"), [(ROLES_FIRST, 5), (SAMPLE, 0)], ids=["roles-first", "users-first"]
)
def test_a_file_cut_anywhere_never_loosens_the_policy_in_force(tmp_path, text, loosening_cuts):
    path = tmp_path / "policy.yaml"
    full = load_policy(_write(tmp_path, text), CATALOG)
    alice = full.scope_for(full.actor_for("alice"))
    assert alice.row_filters and alice.parameters == {"region_id": 1}
    kept = 0
    for generation, cut in enumerate(cut_points(text), start=2):
        part = text[:cut]
        rewrite(path, text, 1)
        source = PolicySource(path, CATALOG, clock=Clock())
        rewrite(path, part, generation)
        now = source.current()
        after = now.scope_for(now.actor_for("alice"))
        # The oracle: alice reads no table more, no row more, no column more than before.
        assert after.tables is not None and after.tables <= alice.tables, part
        assert after.parameters == alice.parameters, part
        for table in after.tables:
            assert after.row_filters.get(table) == alice.row_filters.get(table), part
            assert after.denied_columns.get(table, frozenset()) >= alice.denied_columns.get(
                table, frozenset()
            ), part
        if source.status.status == "stale":
            assert "last good policy kept" in (source.status.reason or ""), part
        try:
            cut_policy = load_policy(_write(tmp_path, part), CATALOG)
        except PolicyError:
            assert source.status.status == "stale", part
            continue
        if loosenings(full, cut_policy):  # parses, and would give someone more
            kept += 1
            assert source.status.status == "stale" and "loosens the policy" in source.status.reason
            assert source.current().users == full.users, part
    assert kept >= loosening_cuts, kept  # with roles first: five cuts and more that loosen


def _write(tmp_path: Path, text: str) -> Path:
    probe = tmp_path / "probe.yaml"
    probe.write_text(text, encoding="utf-8")
    return probe


def test_the_cut_after_default_role_would_give_alice_every_region(tmp_path):
    """The hole itself: a prefix that parses and drops alice's entry (she falls to support)."""
    part = ROLES_FIRST[: ROLES_FIRST.index("\nusers:") + 1]
    policy = load_policy(_write(tmp_path, part), CATALOG)
    assert not policy.scope_for(policy.actor_for("alice")).row_filters  # every region
    reasons = loosenings(load_policy(POLICY_FILE, CATALOG), policy)
    assert any(reason.startswith("user alice removed") for reason in reasons), reasons


def test_a_loosening_applies_once_the_same_content_was_read_settle_seconds_apart(tmp_path):
    path = tmp_path / "policy.yaml"
    rewrite(path, SAMPLE, 1)
    clock = Clock()
    source = PolicySource(path, CATALOG, clock=clock, settle_seconds=5)
    looser = SAMPLE.replace("    deny_columns: {products: [unit_cost]}\n", "", 1)
    rewrite(path, looser, 2)
    assert "unit_cost" in scope_of(source, "alice").denied_columns["products"]
    assert "no longer denied: products.unit_cost" in (source.status.reason or "")
    clock.now = 4.9
    assert "products" in scope_of(source, "alice").denied_columns  # not yet
    rewrite(path, looser + "# still writing\n", 3)  # the content changed: the wait restarts
    clock.now = 6.0
    assert "products" in scope_of(source, "alice").denied_columns
    clock.now = 10.9
    assert "products" in scope_of(source, "alice").denied_columns
    clock.now = 11.0  # unchanged for 5 s since it was first read at 6.0
    assert "products" not in scope_of(source, "alice").denied_columns
    assert source.status.status == "current" and source.status.reason is None


def test_a_complete_tightening_applies_at_once(tmp_path):
    path = tmp_path / "policy.yaml"
    rewrite(path, SAMPLE, 1)
    source = PolicySource(path, CATALOG, clock=Clock())
    tighter = SAMPLE.replace(
        "    tables: [orders, order_items, stores, regions, products, customers]",
        "    tables: [orders, order_items, stores, regions, customers]",
    ).replace(
        "    deny_columns: {products: [unit_cost]}\n"
        "    sensitive_columns: {customers: [customer_name]}   #",
        "    deny_columns: {orders: [total_amount]}\n"
        "    sensitive_columns: {customers: [customer_name, city]}   #",
    )
    assert tighter.count("total_amount") == 1 and tighter.count("customer_name, city") == 1
    assert loosenings(BASE, load_policy(_write(tmp_path, tighter), CATALOG)) == []
    rewrite(path, tighter, 2)
    alice = scope_of(source, "alice")
    assert not alice.can_read("products")
    assert alice.denied_columns["orders"] == frozenset({"total_amount"})
    assert alice.sensitive_columns["customers"] == frozenset({"customer_name", "city"})
    assert source.status.status == "current"


BASE = load_policy(POLICY_FILE, CATALOG)


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("alice: {roles: [east_analyst]", "alice: {roles: [east_analyst, admin]", "every table"),
        ("support:\n    tables: [orders,", "support:\n    tables: [order_lines, orders,", "tables"),
        ('      stores:    "region_id = :region_id"\n', "", "row filter on stores removed"),
        ('stores:    "region_id = :region_id"', 'stores:    "region_id >= :region_id"', "changed"),
        ("    deny_columns: {products: [unit_cost]}\n    sensitive", "    sensitive", "denied"),
        ("  bob:   {roles: [support]}\n", "", "user bob removed"),
        ("default_role: support", "default_role: admin", "users not listed: every table"),
        ("show_sql: false", "show_sql: true", "show_sql turned on"),
        ("tokens_per_day: 100000", "tokens_per_day: 900000", "quota tokens_per_day raised"),
        ("attributes: {region_id: 1}", "attributes: {region_id: 2}", "attributes changed"),
    ],
)
def test_every_kind_of_loosening_is_named(tmp_path, old, new, reason):
    assert old in SAMPLE
    changed = load_policy(_write(tmp_path, SAMPLE.replace(old, new, 1)))
    reasons = loosenings(BASE, changed)
    assert any(reason in r for r in reasons), reasons
    assert loosenings(changed, changed) == []


def test_a_policy_without_keys_or_a_trusted_gateway_is_refused():
    with pytest.raises(PolicyError) as caught:
        require_known_users(POLICY_FILE, keys_set=False, trusted_gateway=False)
    message = str(caught.value)
    assert all(name in message for name in ("POLICY_FILE", "API_KEYS", "AUTH_TRUSTED_GATEWAY"))
    require_known_users(POLICY_FILE, keys_set=True, trusted_gateway=False)
    require_known_users(POLICY_FILE, keys_set=False, trusted_gateway=True)
