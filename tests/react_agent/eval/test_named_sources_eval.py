"""An evaluation scores SQL on the data the service reads: named sources on two servers."""

from __future__ import annotations

import pytest

from config import Settings
from react_agent.eval.golden import GoldenQuestion
from react_agent.eval.sessions import evaluate_in_process, evaluate_over_http
from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.golden_model import GoldenScriptModel
from tests.support.live_server import running_service

QUESTIONS = [
    GoldenQuestion("orders", ("How many orders are there?",), "SELECT count(*) FROM sales.orders"),
    GoldenQuestion(
        "stores",
        ("Which stores are in region 1?",),
        "SELECT store_name FROM fin.stores WHERE region_id = 1",
    ),
    GoldenQuestion(
        "joined",
        ("How many orders did each region's stores take?",),
        "SELECT s.region_id, count(*) AS n FROM sales.orders o "
        "JOIN fin.stores s ON s.store_id = o.store_id GROUP BY 1 ORDER BY 1",
    ),
]
# Written on the wrong source's table, it reads the same rows: passes. Filtered, it does not.
MISTAKES = {
    "orders": "SELECT count(*) FROM sales.orders WHERE store_id > 1",
    "stores": "SELECT store_name FROM sales.stores WHERE region_id = 1",
}


@pytest.fixture
def named(settings: Settings, postgres_database: str, mysql_sample_url: str) -> Settings:
    """Give the settings of a service over DATA_SOURCES (sales on PostgreSQL, fin on MariaDB)."""
    load_into_postgres(postgres_database)
    return settings.model_copy(
        update={
            "memory": False,
            "data_database_url": None,
            "data_sources": f"sales={postgres_database};fin={mysql_sample_url}",
        }
    )


def outcomes(report: dict) -> dict[str, str | None]:
    return {q["id"]: None if q["passed"] else q["reason"] for q in report["questions"]}


async def test_over_http_the_gold_sql_is_scored_on_the_named_sources(named: Settings):
    model = GoldenScriptModel(questions=QUESTIONS, mistakes=MISTAKES)
    async with running_service(named, model=model) as service:
        report = await evaluate_over_http(
            QUESTIONS, named, url=service.base_url, concurrency=2, timeout=30.0
        )
    assert outcomes(report) == {"orders": "WRONG_VALUES", "stores": None, "joined": None}


async def test_in_process_the_gold_sql_is_scored_on_the_named_sources(named: Settings):
    model = GoldenScriptModel(questions=QUESTIONS, mistakes=MISTAKES)
    report = await evaluate_in_process(QUESTIONS, named, model=model, concurrency=2, timeout=30.0)
    assert outcomes(report) == {"orders": "WRONG_VALUES", "stores": None, "joined": None}
