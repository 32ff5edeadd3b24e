"""The policy file (POLICY_FILE, YAML): users, roles and their rules, read and checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from react_agent.access.actor import Actor
from react_agent.access.policy_file.policy_checks import (
    PolicyError,
    Spot,
    check_catalog,
    predicate_placeholders,
)
from react_agent.access.scope import Quota, Scope, table_listed

ROLE_KEYS = frozenset(
    {
        "tables",
        "row_filters",
        "deny_columns",
        "sensitive_columns",
        "show_sql",
        "approve_sql",
        "quota",
        "audit",
        "db_role",
    }
)
TOP_KEYS = frozenset({"users", "default_role", "roles"})


@dataclass(frozen=True)
class Role:
    """One role's rules, names in lower case."""

    name: str
    tables: frozenset[str] | None
    row_filters: Mapping[str, str] = field(default_factory=dict)
    deny_columns: Mapping[str, frozenset[str]] = field(default_factory=dict)
    sensitive_columns: Mapping[str, frozenset[str]] = field(default_factory=dict)
    show_sql: bool = True
    approve_sql: bool = False
    quota: Quota = field(default_factory=Quota)
    audit: bool = False
    db_role: str | None = None


@dataclass(frozen=True)
class User:
    """A user the policy names: roles and attributes."""

    roles: tuple[str, ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Policy:
    """The whole policy file, checked."""

    users: Mapping[str, User]
    roles: Mapping[str, Role]
    default_role: str | None = None

    def reads_audit(self) -> bool:
        """Whether a role may read the audit trail (the service keeps one then)."""
        return any(role.audit for role in self.roles.values())

    def sets_quotas(self) -> bool:
        """Whether a role has a quota (the service keeps the counters then)."""
        return any(
            role.quota.questions_per_minute or role.quota.tokens_per_day
            for role in self.roles.values()
        )

    def sensitive_columns(self) -> frozenset[str]:
        """Return every `table.column` any role marks sensitive (lower case)."""
        return frozenset(
            f"{table}.{column}"
            for role in self.roles.values()
            for table, columns in role.sensitive_columns.items()
            for column in columns
        )

    def actor_for(self, user_id: str, key_id: str | None = None) -> Actor:
        """Return the actor of `user_id`: its roles and attributes, or the default role."""
        user = self.users.get(user_id)
        if user is None:
            roles = (self.default_role,) if self.default_role else ()
            return Actor(user_id, key_id, roles, {})
        return Actor(user_id, key_id, user.roles, dict(user.attributes))

    def scope_for(self, actor: Actor) -> Scope:
        """Return what `actor` may see: its roles' rules merged (see merge_roles)."""
        return merge_roles([self.roles[name] for name in actor.roles], actor.attributes)


def merge_roles(roles: list[Role], attributes: Mapping[str, Any]) -> Scope:
    """Merge roles into one scope: a table any role reads is readable, with the loosest rule.

    A table read without a filter by one role is unfiltered; filters of several roles are
    ORed; a column is denied (or sensitive) only if every role reading the table says so;
    flags are the most permissive, quotas the largest, db_role the first named.
    """
    if not roles:
        return Scope(tables=frozenset(), show_sql=False, roles=())
    every_table = any(role.tables is None for role in roles)
    tables = None if every_table else frozenset().union(*(r.tables or () for r in roles))
    filters: dict[str, str] = {}
    for table in _mentioned_tables(roles):
        readers = [r for r in roles if r.tables is None or table_listed(r.tables, table)]
        if readers and all(table in r.row_filters for r in readers):
            filters[table] = " OR ".join(f"({r.row_filters[table]})" for r in readers)
    return Scope(
        tables=tables,
        row_filters=filters,
        parameters=dict(attributes),
        denied_columns=_common_columns(roles, "deny_columns"),
        sensitive_columns=_common_columns(roles, "sensitive_columns"),
        show_sql=any(r.show_sql for r in roles),
        approve_sql=all(r.approve_sql for r in roles),
        audit=any(r.audit for r in roles),
        quota=Quota(
            _largest(r.quota.questions_per_minute for r in roles),
            _largest(r.quota.tokens_per_day for r in roles),
        ),
        db_role=next((r.db_role for r in roles if r.db_role), None),
        roles=tuple(r.name for r in roles),
    )


def _mentioned_tables(roles: list[Role]) -> set[str]:
    names: set[str] = set()
    for role in roles:
        names |= set(role.tables or ()) | set(role.row_filters)
        names |= set(role.deny_columns) | set(role.sensitive_columns)
    return names


def _common_columns(roles: list[Role], attribute: str) -> dict[str, frozenset[str]]:
    result: dict[str, frozenset[str]] = {}
    for table in _mentioned_tables(roles):
        readers = [r for r in roles if r.tables is None or table_listed(r.tables, table)]
        sets = [getattr(r, attribute).get(table, frozenset()) for r in readers]
        common = frozenset.intersection(*sets) if sets else frozenset()
        if common:
            result[table] = common
    return result


def _largest(values: Any) -> int | None:
    known = list(values)
    return None if any(v is None for v in known) else max(known, default=None)


def load_policy(path: Path, catalog: Mapping[str, list[str]] | None = None) -> Policy:
    """Read and check the policy file; with `catalog` (table → columns) check names too.

    Raises:
        PolicyError: The file is unreadable or wrong; the message names the file's line.

    """
    return parse_policy(path.read_text(encoding="utf-8"), path, catalog)


def parse_policy(text: str, path: Path, catalog: Mapping[str, list[str]] | None = None) -> Policy:
    """Check the policy `text` read from `path` (named in errors); see load_policy."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise PolicyError(_yaml_problem(path, exc)) from exc
    top = Spot(path, root)
    top.expect_mapping("the policy")
    top.refuse_unknown_keys(TOP_KEYS)
    roles = {
        name.lower(): _read_role(name.lower(), spot)
        for name, spot in top.child("roles", required=True).items()
    }
    users = {name: _read_user(spot, roles) for name, spot in top.child("users").items()}
    default_spot = top.child("default_role")
    default_role = default_spot.scalar_text() if default_spot.node is not None else None
    if default_role is not None and default_role.lower() not in roles:
        raise default_spot.error(f"default_role {default_role!r} is not a role of roles:")
    policy = Policy(users, roles, default_role.lower() if default_role else None)
    _check_placeholders(policy, top)
    if catalog is not None:
        check_catalog(top, roles, {t.lower(): [c.lower() for c in cs] for t, cs in catalog.items()})
    return policy


def _read_role(name: str, spot: Spot) -> Role:
    spot.expect_mapping(f"role {name}")
    spot.refuse_unknown_keys(ROLE_KEYS)
    tables_spot = spot.child("tables")
    if tables_spot.node is None:
        raise spot.error(f"role {name}: tables is required ('*' or a list)")
    tables = None if tables_spot.value == "*" else frozenset(tables_spot.names())
    quota = spot.child("quota").mapping_value()
    return Role(
        name=name,
        tables=tables,
        row_filters={t.lower(): s.scalar_text() for t, s in spot.child("row_filters").items()},
        deny_columns={
            t.lower(): frozenset(s.names()) for t, s in spot.child("deny_columns").items()
        },
        sensitive_columns={
            t.lower(): frozenset(s.names()) for t, s in spot.child("sensitive_columns").items()
        },
        show_sql=spot.child("show_sql").flag(default=True),
        approve_sql=spot.child("approve_sql").flag(default=False),
        quota=Quota(quota.get("questions_per_minute"), quota.get("tokens_per_day")),
        audit=spot.child("audit").flag(default=False),
        db_role=spot.child("db_role").value,
    )


def _read_user(spot: Spot, roles: Mapping[str, Role]) -> User:
    spot.expect_mapping("a user")
    spot.refuse_unknown_keys(frozenset({"roles", "attributes"}))
    roles_spot = spot.child("roles")
    names = tuple(roles_spot.names())
    for role in names:
        if role not in roles:
            raise roles_spot.error(f"unknown role {role!r} (roles: {', '.join(sorted(roles))})")
    return User(names, spot.child("attributes").mapping_value())


def _check_placeholders(policy: Policy, top: Spot) -> None:
    """Every :name in a role's filters must be an attribute of every user holding the role."""
    roles_spot = top.child("roles", required=True)
    for role_name, role in policy.roles.items():
        for table, predicate in role.row_filters.items():
            spot = roles_spot.find(role_name).child("row_filters").find(table)
            needed = predicate_placeholders(predicate, spot)
            holders = {u: user for u, user in policy.users.items() if role_name in user.roles}
            for user_id, user in holders.items():
                missing = needed - set(user.attributes)
                if missing:
                    raise spot.error(
                        f"placeholder :{sorted(missing)[0]} of role {role_name}'s filter on "
                        f"{table} is not an attribute of user {user_id}"
                    )
            if needed and policy.default_role == role_name:
                raise spot.error(
                    f"role {role_name} is the default_role, whose users have no attributes, "
                    f"but its filter on {table} needs :{sorted(needed)[0]}"
                )


def _yaml_problem(path: Path, exc: yaml.YAMLError) -> str:
    """Return the YAML error in one line, with the file's line and column where known."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    return " ".join(f"{where}: not valid YAML: {problem}".split())
