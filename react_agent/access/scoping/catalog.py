"""The data's tables and columns, read once per database, for the rewrite and the policy's checks.

One TableColumns serves every asker, and askers read different databases: the service's
router sends a conversation bound to an upload to that dataset (alone, or as `mine` beside
the named sources), the others to the shared data. The columns are therefore kept per
database the asker reaches, never the first asker's for everyone.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Hashable

from react_agent.databases.base import ForwardingDatabase, SQLDatabase
from react_agent.databases.federation.sources import NamedSources

KEPT = 32
"""Databases whose columns are kept at once; the least recently asked about goes first."""


def reached(database: SQLDatabase) -> SQLDatabase:
    """Return the database a call on `database` reaches now, through routers and gates."""
    while isinstance(database, ForwardingDatabase):
        database = database.source
    return database


def columns_key(database: SQLDatabase) -> Hashable:
    """Return what identifies the tables a call on `database` reaches now: the cache's key.

    Named sources are their open members (a run's view with `mine` differs from the shared
    sources by that one); a source that opens again after it was down is a new member,
    read anew. Anything else is the open database itself (a dataset updated in place is
    opened again: a new object).
    """
    target = reached(database)
    if isinstance(target, NamedSources):
        return tuple((name, member.database) for name, member in target.members.items())
    return target


class TableColumns:
    """Lower-case table name → its columns as the database spells them, read on first use.

    Args:
        database: The database asked when `get` is given none (the service's router).

    """

    def __init__(self, database: SQLDatabase) -> None:
        self.database = database
        self._columns: OrderedDict[Hashable, dict[str, list[str]]] = OrderedDict()
        self._lock = asyncio.Lock()

    async def get(self, database: SQLDatabase | None = None) -> dict[str, list[str]]:
        """Return every table's (and view's) columns of the database the asker reads.

        Args:
            database: The asker's database (an export's dataset); None: this one's, as the
                router sends the current run.

        """
        asked = database if database is not None else self.database  # read through it
        key = columns_key(asked)
        columns = self._columns.get(key)
        if columns is None:
            async with self._lock:
                columns = self._columns.get(key)
                if columns is None:
                    infos = await asked.describe_tables(await asked.list_tables())
                    columns = {
                        info.name.lower(): [name for name, _ in info.columns] for info in infos
                    }
                    self._columns[key] = columns
                    while len(self._columns) > KEPT:
                        self._columns.popitem(last=False)
        if key in self._columns:
            self._columns.move_to_end(key)
        return columns
