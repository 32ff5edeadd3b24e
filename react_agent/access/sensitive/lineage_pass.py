"""The lineage pass itself: one walk over a query's scopes, labelling each output column.

A query level's FROM items are its sources, each with its columns' labels; an output's
label is the highest of what its expression reads (access/sensitive/lineage_labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from react_agent.access.scope import Scope
from react_agent.access.sensitive.lineage_labels import (
    CLEAN,
    LIST,
    MEASURES,
    VALUE,
    folds,
    has_query,
)
from react_agent.access.table_keys import table_key

PIVOT_REFUSAL = (
    "the query pivots on the sensitive column{s} {names}, which would make its values "
    "column names; pivot on another column, or GROUP BY it (its values then become tokens)"
)


class Refused(Exception):
    """Raised inside the pass when an output cannot be tokenised; its text is the reason."""


@dataclass
class _Source:
    """One FROM item as a query sees it: its columns' labels, in order when known."""

    labels: dict[str, int]
    order: list[str] | None
    rest: int = CLEAN
    """Label of a column not listed (a table function's, an unknown table's)."""

    def label(self, name: str) -> int:
        return self.labels.get(name, self.rest)

    def whole(self) -> int:
        return max([self.rest, *self.labels.values()])


@dataclass
class _Env:
    """The sources a query level sees, its CTEs, and the level around it (correlation)."""

    sources: dict[str, _Source] = field(default_factory=dict)
    ctes: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    outer: _Env | None = None
    aliases: dict[str, int] = field(default_factory=dict)
    """The select list's own aliases read so far (DuckDB and SQLite let later items use them)."""


class LineagePass:
    """One lineage pass over a query under a scope."""

    def __init__(self, scope: Scope, columns_of: Mapping[str, Sequence[str]]) -> None:
        self.scope = scope
        self.columns_of = columns_of

    def query(self, node: exp.Expression, outer: _Env | None) -> list[tuple[str, int]]:
        """Return a query's outputs: (lower-case name, label) in order."""
        while isinstance(node, exp.Subquery | exp.Paren):
            node = node.this
        env = _Env(outer=outer, ctes=dict(outer.ctes) if outer else {})
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            for cte in with_.expressions:
                self._cte(cte, env, bool(with_.args.get("recursive")))
        if isinstance(node, exp.SetOperation):
            left = self.query(node.left, env)
            right = self.query(node.right, env)
            return [
                (name, max(label, right[i][1] if i < len(right) else CLEAN))
                for i, (name, label) in enumerate(left)
            ]
        if isinstance(node, exp.Pivot):  # DuckDB's PIVOT t ON c USING agg, as a subquery
            self._add_source(node.this, env)
            source = next(iter(env.sources.values()), _Source({}, None))
            if any(self.expr(on, env) for on in node.expressions):
                raise Refused(PIVOT_REFUSAL)
            return [("*", source.whole())]
        if not isinstance(node, exp.Select):
            return [("", self.expr(node, env))]  # VALUES, a table function as a query
        for source in _from_items(node):
            self._add_source(source, env)
        outputs: list[tuple[str, int]] = []
        for item in node.expressions:
            outputs.extend(self._projection(item, env))
        return outputs

    def _cte(self, cte: exp.CTE, env: _Env, recursive: bool) -> None:
        name = cte.alias_or_name.lower()
        env.ctes.pop(name, None)
        outputs = self.query(cte.this, env)
        for _ in range(3 if recursive else 0):  # a recursive CTE reads itself: to a fixpoint
            env.ctes[name] = _renamed(outputs, cte.args.get("alias"))
            again = self.query(cte.this, env)
            if again == outputs:
                break
            outputs = [(n, max(a, b[1])) for (n, a), b in zip(outputs, again, strict=False)]
        env.ctes[name] = _renamed(outputs, cte.args.get("alias"))

    def _add_source(self, item: exp.Expression, env: _Env) -> None:
        self._add_plain_source(item, env)
        pivots = item.args.get("pivots")
        if not pivots:
            return
        name = next(reversed(env.sources))
        source = env.sources[name]
        for pivot in pivots:
            ons = [f.this if isinstance(f, exp.In) else f for f in pivot.args.get("fields") or ()]
            if not pivot.args.get("unpivot") and any(
                isinstance(on, exp.Column) and source.label(on.name.lower()) for on in ons
            ):
                raise Refused(PIVOT_REFUSAL)
        # Pivoted or unpivoted columns are new: each may carry any of the source's values.
        alias = pivots[-1].args.get("alias")
        env.sources[alias.name.lower() if alias is not None else name] = _Source(
            {}, None, rest=source.whole()
        )

    def _add_plain_source(self, item: exp.Expression, env: _Env) -> None:
        alias_node = item.args.get("alias")
        alias = item.alias_or_name.lower() if alias_node is None else alias_node.name.lower()
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
            name = table_key(item)
            if not item.db and name in env.ctes:
                outputs = env.ctes[name]
            else:
                sensitive = self.scope.sensitive(name)
                known = self.columns_of.get(name)
                if known is None:
                    env.sources[alias or name] = _Source({c: VALUE for c in sensitive}, None)
                    return
                outputs = [(c.lower(), VALUE if c.lower() in sensitive else CLEAN) for c in known]
            outputs = _renamed(outputs, alias_node)
            env.sources[alias or name] = _Source(dict(outputs[::-1]), [n for n, _ in outputs])
        elif isinstance(item, exp.Subquery):
            outputs = _renamed(self.query(item, env), alias_node)
            env.sources[alias] = _Source(dict(outputs[::-1]), [n for n, _ in outputs])
        else:  # a table function (unnest, json_each, generate_series…), LATERAL, VALUES
            label = self.expr(item.this if isinstance(item, exp.Lateral) else item, env)
            names = alias_node.columns if alias_node is not None else []
            labels = {c.name.lower(): label for c in names}
            env.sources[alias] = _Source(labels, list(labels) or None, rest=label)

    def _projection(self, item: exp.Expression, env: _Env) -> list[tuple[str, int]]:
        star = item if isinstance(item, exp.Star) else None
        if isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            star = item
        if star is not None:
            return self._star(star, env)
        if item.find(exp.Columns) is not None:  # DuckDB COLUMNS(regex): columns unknown
            return [("*", max([self.expr(item, env), *(s.whole() for s in env.sources.values())]))]
        label = self.expr(item, env)
        name = item.alias_or_name.lower()
        if name:
            env.aliases.setdefault(name, label)
        return [(name, label)]

    def _star(self, star: exp.Expression, env: _Env) -> list[tuple[str, int]]:
        table = star.table.lower() if isinstance(star, exp.Column) else ""
        sources = [env.sources[table]] if table in env.sources else list(env.sources.values())
        outputs: list[tuple[str, int]] = []
        for source in sources:
            if source.order is None:  # columns unknown: one output standing for them all
                outputs.append(("*", source.whole()))
            else:
                outputs.extend((name, source.labels[name]) for name in source.order)
        return outputs

    def expr(self, node: exp.Expression, env: _Env) -> int:
        """Return the label of an expression's value."""
        if isinstance(node, MEASURES) or isinstance(node, exp.Literal | exp.Null):
            return CLEAN
        if isinstance(node, exp.Column):
            return self._column(node, env)
        if isinstance(node, exp.PositionalColumn):  # DuckDB #2: the FROM's second column
            columns = self._star(exp.Star(), env)
            number = node.this.to_py() if isinstance(node.this, exp.Literal) else 0
            if isinstance(number, int) and 0 < number <= len(columns):
                if all(name != "*" for name, _ in columns):
                    return columns[number - 1][1]
            return max([CLEAN, *(label for _, label in columns)])
        if isinstance(node, exp.Subquery | exp.Select | exp.SetOperation):
            labels = [label for _, label in self.query(node, env)]
            return max(labels, default=CLEAN)
        if isinstance(node, exp.Window):
            return self.expr(node.this, env)
        if isinstance(node, exp.Case):
            parts = [i.args.get("true") for i in node.args.get("ifs") or ()]
            return self._most([*parts, node.args.get("default")], env)
        if isinstance(node, exp.If):
            return self._most([node.args.get("true"), node.args.get("false")], env)
        if isinstance(node, exp.Ordered):
            return self.expr(node.this, env)
        label = self._most(list(node.iter_expressions()), env)
        if label and (folds(node) or (isinstance(node, exp.Array) and has_query(node))):
            return LIST
        return label

    def _most(self, nodes: Sequence[exp.Expression | None], env: _Env) -> int:
        best = CLEAN
        for node in nodes:
            if node is not None:
                best = max(best, self.expr(node, env))
                if best == LIST:
                    return best
        return best

    def _column(self, column: exp.Column, env: _Env) -> int:
        name, table = column.name.lower(), column.table.lower()
        level: _Env | None = env
        while level is not None:
            if table:
                if table in level.sources:
                    source = level.sources[table]
                    return (
                        source.whole()
                        if isinstance(column.this, exp.Star)
                        else (source.label(name))
                    )
            else:
                holders = [s for s in level.sources.values() if name in s.labels]
                if holders:
                    return max(s.label(name) for s in holders)
                if name in level.aliases:
                    return level.aliases[name]
                if name in level.sources:  # a whole-row reference: row_to_json(c), c::text
                    return level.sources[name].whole()
                rests = [s.rest for s in level.sources.values()]
                if any(rests):
                    return max(rests)
            level = level.outer
        return CLEAN


def _renamed(outputs: list[tuple[str, int]], alias: exp.Expression | None) -> list[tuple[str, int]]:
    """Return outputs renamed by an alias's column list (`AS t(a, b)`), position by position."""
    names = [c.name.lower() for c in alias.columns] if alias is not None else []
    if not names:
        return outputs
    return [(names[i] if i < len(names) else n, label) for i, (n, label) in enumerate(outputs)]


def _from_items(select: exp.Select) -> list[exp.Expression]:
    items: list[exp.Expression] = []
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is not None:
        items.append(from_.this)
        items.extend(from_.expressions or ())
    for join in select.args.get("joins") or ():
        items.append(join.this)
    for lateral in select.args.get("laterals") or ():
        items.append(lateral)
    return items
