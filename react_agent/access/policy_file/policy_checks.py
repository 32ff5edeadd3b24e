"""Reading the policy's YAML nodes with their line numbers, and checking names against the data."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlglot
import yaml
from sqlglot import exp

from react_agent.access.scope import table_listed


class PolicyError(ValueError):
    """The policy file is wrong; the message names the file and line."""


class Spot:
    """A node of the policy's YAML with the file it came from, for errors naming the line."""

    def __init__(
        self,
        path: Path,
        node: yaml.Node | None,
        parent: Spot | None = None,
        key: yaml.Node | None = None,
    ) -> None:
        self.path = path
        self.node = node
        self.parent = parent
        self.key = key

    def error(self, message: str) -> PolicyError:
        """Return an error naming the line of this entry's key (or its nearest present parent)."""
        spot: Spot | None = self
        while spot is not None and spot.node is None:
            spot = spot.parent
        line = 1
        if spot is not None:
            mark = (spot.key or spot.node).start_mark  # type: ignore[union-attr]
            line = mark.line + 1
        return PolicyError(f"{self.path}:{line}: {message}")

    @property
    def value(self) -> Any:
        """The node as plain Python data (None when absent)."""
        if self.node is None:
            return None
        return yaml.SafeLoader("").construct_object(self.node, deep=True)

    def expect_mapping(self, what: str) -> None:
        """Raise unless the node is a mapping."""
        if not isinstance(self.node, yaml.MappingNode):
            raise self.error(f"{what} must be a mapping")

    def _pairs(self) -> list[tuple[str, yaml.Node, yaml.Node]]:
        if self.node is None:
            return []
        self.expect_mapping("this entry")
        assert isinstance(self.node, yaml.MappingNode)
        return [(str(key.value), key, value) for key, value in self.node.value]

    def refuse_unknown_keys(self, known: frozenset[str]) -> None:
        """Raise naming the line of the first key that is not in `known`."""
        assert isinstance(self.node, yaml.MappingNode)
        for key, _ in self.node.value:
            if str(key.value) not in known:
                raise Spot(self.path, key, self).error(
                    f"unknown key {key.value!r} (expected one of {', '.join(sorted(known))})"
                )

    def child(self, key: str, *, required: bool = False) -> Spot:
        """Return the value node of `key` (an absent Spot if missing, unless required)."""
        for name, key_node, node in self._pairs():
            if name == key:
                return Spot(self.path, node, self, key_node)
        if required:
            raise self.error(f"{key} is required")
        return Spot(self.path, None, self)

    def find(self, key: str) -> Spot:
        """Return the value node of `key`, compared without case."""
        for name, key_node, node in self._pairs():
            if name.lower() == key.lower():
                return Spot(self.path, node, self, key_node)
        return Spot(self.path, None, self)

    def items(self) -> list[tuple[str, Spot]]:
        """Return the mapping's keys and value nodes (none when absent)."""
        return [(name, Spot(self.path, node, self, key)) for name, key, node in self._pairs()]

    def names(self) -> list[str]:
        """Return a list of names in lower case (a single name counts as a list of one)."""
        value = self.value
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error("expected a list of names")
        return [v.lower() for v in value]

    def scalar_text(self) -> str:
        """Return the node's text; raise unless it is a string."""
        if not isinstance(self.value, str) or not self.value.strip():
            raise self.error("expected a non-empty string")
        return self.value

    def flag(self, *, default: bool) -> bool:
        """Return a true/false value."""
        value = self.value
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error("expected true or false")
        return value

    def mapping_value(self) -> dict[str, Any]:
        """Return a mapping as a dict (empty when absent)."""
        if self.node is None:
            return {}
        self.expect_mapping("this entry")
        return dict(self.value)


def parse_predicate(predicate: str, spot: Spot) -> exp.Expression:
    """Parse a row filter (dialect-neutral SQL with :placeholders) or raise naming its line."""
    try:
        return sqlglot.parse_one(predicate)
    except sqlglot.errors.ParseError as exc:
        raise spot.error(f"row filter is not valid SQL: {exc}") from exc


def predicate_placeholders(predicate: str, spot: Spot) -> set[str]:
    """Return the :names a row filter binds."""
    tree = parse_predicate(predicate, spot)
    names = set()
    for placeholder in tree.find_all(exp.Placeholder):
        if not placeholder.name:
            raise spot.error("row filter placeholders must be named (:name)")
        names.add(placeholder.name)
    return names


def check_catalog(top: Spot, roles: Mapping[str, Any], catalog: Mapping[str, list[str]]) -> None:
    """Raise at the first table or column a role names that the data database lacks."""
    roles_spot = top.child("roles")
    for name, role in roles.items():
        spot = roles_spot.find(name)
        for table in sorted(role.tables or ()):
            _need_table(spot.child("tables"), table, catalog)
        for key in ("deny_columns", "sensitive_columns"):
            for table, columns in getattr(role, key).items():
                column_spot = spot.child(key).find(table)
                _need_table(column_spot, table, catalog)
                for column in sorted(columns):
                    if column not in catalog[table]:
                        raise column_spot.error(f"unknown column {table}.{column}")
        for table, predicate in role.row_filters.items():
            filter_spot = spot.child("row_filters").find(table)
            _need_table(filter_spot, table, catalog)
            if role.tables is not None and not table_listed(role.tables, table):
                raise filter_spot.error(f"row filter on {table}, which role {name} cannot read")
            _check_predicate_columns(
                parse_predicate(predicate, filter_spot), table, catalog, filter_spot
            )


def _need_table(spot: Spot, table: str, catalog: Mapping[str, list[str]]) -> None:
    if table.endswith(".*") and any(name.startswith(table[:-1]) for name in catalog):
        return  # `source.*`: every table of a named source (DATA_SOURCES)
    if table not in catalog:
        raise spot.error(f"unknown table {table!r}")


def _check_predicate_columns(
    tree: exp.Expression, table: str, catalog: Mapping[str, list[str]], spot: Spot
) -> None:
    for source in tree.find_all(exp.Table):
        _need_table(spot, source.name.lower(), catalog)
    for column in tree.find_all(exp.Column):
        select = column.find_ancestor(exp.Select)
        tables = [table] if select is None else [t.name.lower() for t in _direct_tables(select)]
        known = {c for t in tables for c in catalog.get(t, [])}
        if column.name.lower() not in known:
            raise spot.error(f"unknown column {column.name!r} in the row filter on {table}")


def _direct_tables(select: exp.Select) -> list[exp.Table]:
    sources = [
        select.args.get("from_") or select.args.get("from"),
        *(select.args.get("joins") or []),
    ]
    return [s.this for s in sources if s is not None and isinstance(s.this, exp.Table)]
