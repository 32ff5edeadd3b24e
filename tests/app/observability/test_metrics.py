"""GET /metrics: Prometheus text that moves by exactly what each question did."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from langchain_core.messages import AIMessage
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from app.http.app_state import agent_service_of
from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import open_stream

SQL = "SELECT region_name FROM regions ORDER BY region_name"
MODEL = "gpt-4o-mini"  # the settings' model: the scripted answers name none
ASK_ROUTE = "/api/v0/ask_react_agent"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse_metrics(text: str) -> Samples:
    """Return every sample of a Prometheus exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def moved(before: Samples, after: Samples, prefix: str = "sqlagent_") -> dict[tuple, float]:
    """Return the samples (of counters, gauges and histogram counts) that changed."""
    changes = {}
    for key, value in after.items():
        name = key[0]
        if not name.startswith(prefix) or name.endswith(("_bucket", "_sum", "_created")):
            continue
        delta = value - before.get(key, 0.0)
        if delta:
            changes[(name, tuple(sorted(key[1])))] = delta
    return changes


async def scrape(service: ServiceClient) -> Samples:
    response = await service.http.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return parse_metrics(response.text)


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
async def service(settings: Settings, model: ScriptedChatModel) -> AsyncIterator[ServiceClient]:
    on = settings.model_copy(update={"metrics": True, "stream_resume_grace": 0.0})
    async with running_service(on, model=model) as client:
        yield client


def with_usage(
    message: AIMessage, prompt: int, completion: int, cached: int | None = None
) -> AIMessage:
    usage: dict = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached is not None:  # what ChatOpenAI makes of prompt_tokens_details.cached_tokens
        usage["input_token_details"] = {"cache_read": cached}
    return message.model_copy(update={"usage_metadata": usage})


async def test_a_completed_question_with_a_query_moves_exactly_its_counters(service, model):
    model.replies = [
        with_usage(call_tool("run_sql", sql=SQL), 100, 10),
        with_usage(answer("七个地区"), 150, 5),
    ]
    before = await scrape(service)
    status, _ = await service.ask(question="有哪些地区？", user_id="wang1")
    after = await scrape(service)

    assert status == 200
    changes = moved(before, after)
    # Checkpoint writes: one per step at least (their exact number is LangGraph's business).
    aput = ("sqlagent_checkpoint_write_duration_seconds_count", (("operation", "aput"),))
    assert changes.pop(aput) >= 7
    changes.pop(
        ("sqlagent_checkpoint_write_duration_seconds_count", (("operation", "aput_writes"),)), None
    )
    assert changes == {
        (
            "sqlagent_http_requests_total",
            (("method", "GET"), ("route", "/metrics"), ("status", "200")),
        ): 1,
        (
            "sqlagent_http_request_duration_seconds_count",
            (("method", "GET"), ("route", "/metrics")),
        ): 1,
        (
            "sqlagent_http_requests_total",
            (("method", "POST"), ("route", ASK_ROUTE), ("status", "200")),
        ): 1,
        (
            "sqlagent_http_request_duration_seconds_count",
            (("method", "POST"), ("route", ASK_ROUTE)),
        ): 1,
        ("sqlagent_runs_started_total", ()): 1,
        ("sqlagent_runs_finished_total", (("outcome", "completed"),)): 1,
        ("sqlagent_run_duration_seconds_count", (("outcome", "completed"),)): 1,
        ("sqlagent_model_calls_total", (("model", MODEL), ("outcome", "ok"))): 2,
        ("sqlagent_model_call_duration_seconds_count", (("model", MODEL),)): 2,
        ("sqlagent_model_tokens_total", (("kind", "prompt"), ("model", MODEL))): 250,
        ("sqlagent_model_tokens_total", (("kind", "completion"), ("model", MODEL))): 15,
        # The schema is in the prompt by default: its section is made once per question.
        ("sqlagent_schema_retrieval_duration_seconds_count", (("outcome", "ok"),)): 1,
        (
            "sqlagent_sql_queries_total",
            (("backend", "sqlite"), ("outcome", "ok"), ("reason", "")),
        ): 1,
        ("sqlagent_sql_query_duration_seconds_count", (("backend", "sqlite"),)): 1,
        ("sqlagent_sql_query_rows_count", (("backend", "sqlite"),)): 1,
    }
    rows = ("sqlagent_sql_query_rows_sum", frozenset({("backend", "sqlite")}))
    assert after[rows] - before.get(rows, 0) == 7
    assert after[("sqlagent_runs_active", frozenset())] == 0


async def test_cached_prompt_tokens_are_counted_and_reported_in_the_usage(service, model):
    model.replies = [
        with_usage(call_tool("run_sql", sql=SQL), 100, 10, cached=0),
        with_usage(answer("七个地区"), 150, 5, cached=96),
    ]
    before = await scrape(service)
    status, body = await service.ask(question="有哪些地区？", user_id="wang1")
    after = await scrape(service)

    assert status == 200
    assert body["data"]["react_agent_meta"]["usage"] == {
        "prompt_tokens": 250,
        "completion_tokens": 15,
        "total_tokens": 265,
        "cached_tokens": 96,
    }
    cached = ("sqlagent_model_tokens_total", frozenset({("kind", "cached"), ("model", MODEL)}))
    assert after[cached] - before.get(cached, 0) == 96


async def test_the_schema_retrieval_is_observed_once_per_question_of_two_model_calls(
    settings, model
):
    on = settings.model_copy(update={"metrics": True, "schema_prompt_budget": 12_000})
    model.replies = [call_tool("run_sql", sql=SQL), answer("七个地区"), answer("还是七个")]
    schema_count = (
        "sqlagent_schema_retrieval_duration_seconds_count",
        (("outcome", "ok"),),
    )
    async with running_service(on, model=model) as service:
        catalog = agent_service_of(service.app).catalog
        assert catalog is not None
        await catalog.wait_ready()
        before = await scrape(service)
        status, body = await service.ask(question="有哪些地区？", user_id="wang1")
        assert status == 200
        middle = await scrape(service)
        thread = body["data"]["conversation_id"]
        status, _ = await service.ask(question="再说一次", user_id="wang1", thread_id=thread)
        assert status == 200
        after = await scrape(service)

    first, second = moved(before, middle), moved(middle, after)
    assert first[("sqlagent_model_calls_total", (("model", MODEL), ("outcome", "ok")))] == 2
    assert first[schema_count] == 1
    assert second[schema_count] == 1
    assert [key for key in first if key[0].startswith("sqlagent_schema")] == [schema_count]
    seconds = ("sqlagent_schema_retrieval_duration_seconds_sum", frozenset({("outcome", "ok")}))
    assert 0 < middle[seconds] - before.get(seconds, 0.0) < 5


async def test_a_failed_question_counts_a_failed_run_and_a_failed_model_call(service, model):
    model.replies = [RuntimeError("the model broke")]
    before = await scrape(service)
    status, _ = await service.ask(question="有哪些地区？", user_id="wang1")
    after = await scrape(service)

    assert status == 500
    changes = moved(before, after)
    assert changes[("sqlagent_runs_finished_total", (("outcome", "failed"),))] == 1
    assert changes[("sqlagent_model_calls_total", (("model", MODEL), ("outcome", "error")))] == 1
    assert changes[("sqlagent_runs_started_total", ())] == 1
    assert not any(name == "sqlagent_sql_queries_total" for name, _ in changes)
    assert ("sqlagent_runs_finished_total", (("outcome", "completed"),)) not in changes
    http = ("method", "POST"), ("route", ASK_ROUTE), ("status", "500")
    assert changes[("sqlagent_http_requests_total", http)] == 1


async def test_a_refused_query_is_counted_with_its_reason(service, model):
    model.replies = [call_tool("run_sql", sql="DELETE FROM regions"), answer("不能删除")]
    before = await scrape(service)
    status, _ = await service.ask(question="删掉地区表", user_id="wang1")
    after = await scrape(service)

    assert status == 200
    changes = moved(before, after)
    refused = ("backend", "sqlite"), ("outcome", "refused"), ("reason", "write")
    assert changes[("sqlagent_sql_queries_total", refused)] == 1
    assert [key for key in changes if key[0] == "sqlagent_sql_queries_total"] == [
        ("sqlagent_sql_queries_total", refused)
    ]
    assert ("sqlagent_sql_query_rows_count", (("backend", "sqlite"),)) not in changes
    assert changes[("sqlagent_runs_finished_total", (("outcome", "completed"),))] == 1


async def test_a_cancelled_stream_counts_a_cancelled_run_and_closes_its_stream(service, model):
    model.replies = [answer("never sent")]
    entered = asyncio.Event()
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released
    before = await scrape(service)
    thread = "wang1:20250131103000042"
    async with open_stream(service.http, json={"question": "q", "thread_id": thread}) as (
        _,
        events,
    ):
        started = await anext(events)
        await entered.wait()
        during = await scrape(service)
        run_id = started.id.partition(":")[0]
        cancel = f"/api/v0/react/runs/{run_id}/cancel"
        assert (await service.http.post(cancel, json={"user_id": "wang1"})).status_code == 200
        rest = [event async for event in events]
    assert rest[-2].data["error_type"] == "RUN_CANCELLED"
    after = await scrape(service)

    assert during[("sqlagent_runs_active", frozenset())] == 1
    assert during[("sqlagent_streams_open", frozenset())] == 1
    assert after[("sqlagent_runs_active", frozenset())] == 0
    assert after[("sqlagent_streams_open", frozenset())] == 0
    changes = moved(before, after)
    assert changes[("sqlagent_runs_finished_total", (("outcome", "cancelled"),))] == 1
    assert (
        changes[("sqlagent_model_calls_total", (("model", MODEL), ("outcome", "cancelled")))] == 1
    )
    assert not any(
        key[0] == "sqlagent_runs_finished_total"
        and key != ("sqlagent_runs_finished_total", (("outcome", "cancelled"),))
        for key in changes
    )


async def test_metrics_need_an_api_key_when_keys_are_on(settings, model):
    on = settings.model_copy(update={"metrics": True, "api_keys": SecretStr("s3cret-key")})
    async with running_service(on, model=model) as client:
        refused = await client.http.get("/metrics")
        allowed = await client.http.get("/metrics", headers={"Authorization": "Bearer s3cret-key"})
    assert refused.status_code == 401
    assert allowed.status_code == 200 and "sqlagent_http_requests_total" in allowed.text


async def test_without_metrics_there_is_no_metrics_route(settings, model):
    async with running_service(settings, model=model) as client:
        response = await client.http.get("/metrics")
    assert response.status_code == 404


async def test_a_question_beyond_the_queue_is_counted_as_an_admission_rejection(settings, model):
    model.replies = [answer("第一个"), answer("第二个")]
    model.gates[0], model.entered[0] = asyncio.Event(), asyncio.Event()
    on = settings.model_copy(update={"metrics": True, "runs_max_active": 1, "runs_max_queued": 1})
    async with running_service(on, model=model) as client:
        before = await scrape(client)
        first = asyncio.create_task(client.ask(question="一", user_id="wang1"))
        await model.entered[0].wait()  # the one slot is taken
        async with open_stream(client.http, json={"question": "二", "thread_id": "w2:1"}) as (
            _,
            second,
        ):
            shown = [await anext(second), await anext(second)]
            assert shown[1].data["node"] == "__queued__"  # the queue's one place is taken
            status, body = await client.ask(question="三", user_id="wang3")
            during = await scrape(client)
            model.gates[0].set()
            rest = [event async for event in second]
        assert (await first)[0] == 200 and rest[-2].type == "completed"
        after = await scrape(client)

    assert status == 503 and body["data"]["error_type"] == "QUEUE_FULL"
    assert during[("sqlagent_runs_active", frozenset())] == 1
    assert during[("sqlagent_runs_queued", frozenset())] == 1
    changes = moved(before, after)
    assert changes[("sqlagent_admission_rejections_total", (("reason", "queue_full"),))] == 1
    assert changes[("sqlagent_runs_started_total", ())] == 2  # the refused one never ran
    assert changes[("sqlagent_runs_finished_total", (("outcome", "completed"),))] == 2
    assert after[("sqlagent_runs_queued", frozenset())] == 0
