"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from config import Settings
from tests.support.mysql import (  # noqa: F401
    mysql_database,
    mysql_sample_url,
    mysql_server_url,
)
from tests.support.postgres import (  # noqa: F401
    postgres_database,
    postgres_url,
    restartable_postgres,
)
from tests.support.sample_databases import (  # noqa: F401
    engine_database,
    every_engine_sample,
    sample_database,
    sample_on_engine,
)
from tests.support.slow_tests import CpuClock, is_slow

SAMPLE_QUESTION = "每个地区的销售额是多少"

# The suite's scripts count each model call: ANSWER_CANDIDATES=auto (the service's default)
# would add calls to any script whose answer it doubts. Its own tests turn it on
# (tests/react_agent/results/test_candidates.py); a test's environment may still set it.
os.environ.setdefault("ANSWER_CANDIDATES", "off")


@pytest.fixture(autouse=True)
def fresh_openai_http_clients():
    """Give each test langchain-openai's shared httpx clients anew.

    langchain-openai caches one async client per base URL and timeout for the process;
    a test's stub server whose port the OS hands out again would get a client whose
    pooled connections belong to an earlier test's closed event loop ("Event loop is
    closed" on the first model call). A service process has one loop, so only tests meet it.
    """
    yield
    from langchain_openai.chat_models import _client_utils

    for cached in ("_cached_async_httpx_client", "_cached_sync_httpx_client"):
        clear = getattr(getattr(_client_utils, cached, None), "cache_clear", None)
        if clear is not None:
            clear()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Return settings for one test: no .env, checkpoints in a temp dir, the sample data."""
    return Settings(
        _env_file=None,
        data_dir=tmp_path,
        checkpoint_database_url=f"sqlite:///{tmp_path / 'checkpoints.db'}",
        openai_api_key=None,
        openai_base_url=None,
        run_timeout=30,
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` every test that starts a process, a browser or a database server."""
    slow = pytest.mark.slow
    for item in items:
        if is_slow(item):
            item.add_marker(slow)


def pytest_configure(config: pytest.Config) -> None:
    """Name, at the end, the tests not marked slow that cost seconds of CPU."""
    config.pluginmanager.register(CpuClock(), "quick_cpu_clock")
