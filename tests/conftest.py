"""Fixtures shared by the whole suite."""

from __future__ import annotations

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
from tests.support.sample_databases import sample_database  # noqa: F401

SAMPLE_QUESTION = "每个地区的销售额是多少"


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
