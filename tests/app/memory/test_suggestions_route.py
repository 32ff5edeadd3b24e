"""GET /api/v0/suggestions: stored examples' questions first, then the sample's starters."""

from __future__ import annotations

import pytest

from config.sample_questions import sample_questions
from tests.support.live_server import running_service

EXAMPLES = [
    ("华东地区的销售额是多少", "SELECT SUM(o.total_amount) FROM orders o"),
    ("每个会员等级有多少会员", "SELECT member_level, COUNT(*) FROM customers GROUP BY 1"),
    ("华东地区每个月的订单数", "SELECT substr(order_date, 1, 7), COUNT(*) FROM orders GROUP BY 1"),
    ("商品的进价是多少", "SELECT product_name, unit_cost FROM products"),
]


async def store_examples(service) -> None:
    items = [
        {"training_data_type": "sql", "question": question, "sql": sql}
        for question, sql in EXAMPLES
    ]
    response = await service.http.post("/api/v0/training_data/create", json={"data": items})
    assert response.status_code == 200, response.text


async def suggested(service, **params) -> list[dict]:
    response = await service.http.get("/api/v0/suggestions", params=params)
    assert response.status_code == 200, response.text
    return response.json()["data"]["suggestions"]


async def test_a_new_install_suggests_the_sample_starters_in_the_language(service):
    zh = await suggested(service)
    en = await suggested(service, lang="en-US", limit=3)
    assert [s["question"] for s in zh] == sample_questions("zh-CN")
    assert [s["question"] for s in en] == sample_questions("en-US")[:3]
    assert {s["source"] for s in zh + en} == {"sample"}


async def test_stored_examples_come_first_and_follow_ups_are_the_nearest_others(service):
    await store_examples(service)

    starters = await suggested(service, limit=20)
    follow_ups = await suggested(service, after="华东地区的销售额是多少", limit=2)

    memory = [s["question"] for s in starters if s["source"] == "memory"]
    assert set(memory) == {question for question, _ in EXAMPLES}
    assert starters[: len(memory)] == [{"question": q, "source": "memory"} for q in memory]
    assert follow_ups[0]["question"] == "华东地区每个月的订单数"
    assert "华东地区的销售额是多少" not in [s["question"] for s in follow_ups]


async def test_an_example_reading_a_table_the_caller_may_not_read_is_never_suggested(
    settings, model
):
    allowed = settings.model_copy(update={"sql_allowed_tables": "orders,customers"})
    async with running_service(allowed, model=model) as service:
        await store_examples(service)
        questions = [s["question"] for s in await suggested(service, limit=20)]
    assert "商品的进价是多少" not in questions  # reads products
    assert "华东地区的销售额是多少" in questions and "每个会员等级有多少会员" in questions


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 21}, {"after": "x" * 2001}])
async def test_bad_queries_get_a_400_in_the_envelope(service, params):
    response = await service.http.get("/api/v0/suggestions", params=params)
    assert response.status_code == 400 and response.json()["success"] is False
