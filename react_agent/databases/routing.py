"""Which data source a question runs on: the service's database, or the asker's dataset.

The tools hold one database object for the life of the process; this router is that
object when datasets are on. A request that names a dataset sets the source in a context
variable before its run starts; the runner carries it into the run's fresh context, and
every task the run starts (tool calls, sub-agents) inherits it, so the question runs on
the dataset while others do not.
"""

from __future__ import annotations

from contextvars import ContextVar

from react_agent.databases.base import ForwardingDatabase, SQLDatabase

_chosen: ContextVar[SQLDatabase | None] = ContextVar("chosen_data_source", default=None)


def run_on(source: SQLDatabase | None) -> None:
    """Make `source` the data source of the current task and the tasks it starts."""
    _chosen.set(source)


def chosen_source() -> SQLDatabase | None:
    """Return the data source chosen in the current context, if any."""
    return _chosen.get()


class DataSourceRouter(ForwardingDatabase):
    """An SQLDatabase that forwards each call to the chosen source, else the default one.

    Args:
        default: The service's data database.

    """

    def __init__(self, default: SQLDatabase) -> None:
        self.default = default

    @property
    def source(self) -> SQLDatabase:
        """Return the source of the current run."""
        return _chosen.get() or self.default

    async def ping(self, *args: object) -> None:
        """Ping the service's own database (what /health reports)."""
        await self.default.ping(*args)

    async def aclose(self) -> None:
        """Close the service's own database (datasets are closed by their cache)."""
        await self.default.aclose()
