"""LOG_FORMAT=json: `python -m app` writes one JSON object per line, with ids, and no secret."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import httpx

from app.observability.json_logs import JsonLogFormatter
from react_agent.log_context import LOG_IDS, bind_log_ids
from tests.support.otlp_receiver import otlp_receiver
from tests.support.service_process import start_service_process, start_stub_llm

API_KEY = "sk-obs-test-api-key-7f3a9c"
LLM_KEY = "sk-llm-secret-4b1e8d"
THREAD = "wang1:20250131103000101"


def test_every_line_is_json_with_the_runs_ids_and_no_secret(tmp_path: Path):
    with (
        otlp_receiver() as receiver,
        start_stub_llm() as llm_url,
        start_service_process(
            {
                "OPENAI_BASE_URL": llm_url,
                "OPENAI_API_KEY": LLM_KEY,
                "API_KEYS": API_KEY,
                "LOG_FORMAT": "json",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            },
            tmp_path,
        ) as base_url,
    ):
        with httpx.Client(base_url=base_url, timeout=60) as client:
            asked = client.post(
                "/api/v0/ask_react_agent",
                json={"question": "每个地区的销售额是多少", "thread_id": THREAD},
                headers={"Authorization": f"Bearer {API_KEY}"},
            )
            # A browser's EventSource puts the key in the query, which the access log prints.
            streamed = client.get(
                "/api/v0/ask_react_agent_stream",
                params={"question": "再说一遍", "thread_id": THREAD, "api_key": API_KEY},
            )
    assert asked.status_code == 200 and streamed.status_code == 200
    trace_id = asked.json()["data"]["react_agent_meta"]["trace_id"]

    (log_path,) = tmp_path.glob("service-*.log")
    text = log_path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert lines, "the service wrote no log line"
    for line in lines:
        assert {"time", "level", "logger", "message"} <= line.keys()
    assert API_KEY not in text and LLM_KEY not in text
    ended = [line for line in lines if line["message"].startswith("run ended")]
    assert len(ended) == 2
    assert ended[0]["message"] == "run ended: answered"
    assert {line["thread_id"] for line in ended} == {THREAD}
    assert {line["user_id"] for line in ended} == {"wang1"}
    assert len({line["run_id"] for line in ended}) == 2
    assert ended[0]["trace_id"] == trace_id
    # The access log's line of a request is written in its context: it has its ids too.
    (access,) = [line for line in lines if "POST /api/v0/ask_react_agent " in line["message"]]
    assert access["logger"] == "hypercorn.access"
    assert (access["trace_id"], access["user_id"]) == (trace_id, "wang1")


def test_the_json_format_masks_query_keys_and_configured_secrets_even_in_tracebacks():
    formatter = JsonLogFormatter([API_KEY, LLM_KEY])
    logger = logging.getLogger("tests.json_logs")
    try:
        raise ValueError(f"bad key {LLM_KEY}")
    except ValueError:
        record = logger.makeRecord(
            logger.name,
            logging.ERROR,
            __file__,
            1,
            "GET /x?api_key=%s&q=1 with %s",
            ("anything-in-the-query", API_KEY),
            sys.exc_info(),
        )
    token = LOG_IDS.set(None)
    try:
        bind_log_ids(run_id="r1", user_id=None)
        line = json.loads(formatter.format(record))
    finally:
        LOG_IDS.reset(token)

    assert line["message"] == "GET /x?api_key=***&q=1 with ***"
    assert LLM_KEY not in line["exception"] and "bad key ***" in line["exception"]
    assert line["level"] == "ERROR" and line["logger"] == "tests.json_logs"
    assert line["run_id"] == "r1" and "user_id" not in line
