"""What a new policy gives anyone that the one in force does not: the loosenings of a reload."""

from __future__ import annotations

from react_agent.access.policy_file.policy import Policy
from react_agent.access.scope import Scope

UNLISTED = "\x00unlisted"
"""A user id no policy names: it stands for every user who gets the default_role."""


def loosenings(old: Policy, new: Policy) -> list[str]:
    """Return why `new` lets someone see or do more than `old` ([] when it does not).

    Compared user by user (every user either file names, and the users neither names, who
    get the default_role): a user the new file drops is a loosening whatever their new
    scope, since a file cut short drops users; otherwise their scopes are compared.
    """
    reasons = [
        f"user {user} removed (falls to default_role {new.default_role or 'none'})"
        for user in sorted(old.users.keys() - new.users.keys())
    ]
    for user in [*sorted(old.users.keys() | new.users.keys()), UNLISTED]:
        who = "users not listed" if user == UNLISTED else f"user {user}"
        before = old.scope_for(old.actor_for(user))
        after = new.scope_for(new.actor_for(user))
        reasons += [f"{who}: {reason}" for reason in scope_loosenings(before, after)]
    return reasons


def scope_loosenings(old: Scope, new: Scope) -> list[str]:
    """Return what `new` allows that `old` does not (tables, rows, columns, flags, quotas)."""
    reasons = []
    if old.tables is not None and new.tables is None:
        reasons.append("every table readable")
    elif old.tables is not None and new.tables is not None and new.tables - old.tables:
        reasons.append(f"tables added: {', '.join(sorted(new.tables - old.tables))}")
    ruled = set(old.row_filters) | set(old.denied_columns) | set(old.sensitive_columns)
    for table in sorted(t for t in ruled if old.can_read(t) and new.can_read(t)):
        reasons += _table_loosenings(old, new, table)
    if dict(new.parameters) != dict(old.parameters):
        reasons.append("attributes changed")
    reasons += _flag_loosenings(old, new)
    return reasons


def _table_loosenings(old: Scope, new: Scope, table: str) -> list[str]:
    reasons = []
    before, after = old.row_filters.get(table), new.row_filters.get(table)
    if before is not None and after is None:
        reasons.append(f"row filter on {table} removed")
    elif before is not None and after != before:
        reasons.append(f"row filter on {table} changed")
    for kind, attribute in (("denied", "denied_columns"), ("sensitive", "sensitive_columns")):
        freed = getattr(old, attribute).get(table, frozenset()) - getattr(new, attribute).get(
            table, frozenset()
        )
        if freed:
            reasons.append(f"no longer {kind}: {', '.join(f'{table}.{c}' for c in sorted(freed))}")
    return reasons


def _flag_loosenings(old: Scope, new: Scope) -> list[str]:
    reasons = []
    if new.show_sql and not old.show_sql:
        reasons.append("show_sql turned on")
    if old.approve_sql and not new.approve_sql:
        reasons.append("approve_sql turned off")
    if new.audit and not old.audit:
        reasons.append("audit reading granted")
    for name in ("questions_per_minute", "tokens_per_day"):
        before, after = getattr(old.quota, name), getattr(new.quota, name)
        if before is not None and (after is None or after > before):
            reasons.append(f"quota {name} raised")
    if new.db_role != old.db_role:
        reasons.append("db_role changed")
    return reasons
