"""Secrets set in the settings appear in no response and no log line, on any route."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import SecretStr

from config import Settings
from config.masking import MASK
from tests.support.live_server import running_service
from tests.support.mcp_client import http_session
from tests.support.openai_stub import OpenAIStub
from tests.support.sse import STREAM_PATH

DATA_PASSWORD = "tiger-data-pw"
MEMORY_PASSWORD = "memory-pw-9876"
LLM_URL_PASSWORD = "llm-url-pw-5555"
OPENAI_KEY = "sk-openai-secret-key-0001"
API_KEY = "admin-secret-key-123"
SECRETS = (DATA_PASSWORD, MEMORY_PASSWORD, LLM_URL_PASSWORD, OPENAI_KEY, API_KEY)

# psycopg echoes a URL it cannot parse whole, password included, in its error.
DATA_URL = f"postgresql://scott:{DATA_PASSWORD}@[unclosed/sales"
MEMORY_URL = f"postgresql://mem:{MEMORY_PASSWORD}@[unclosed/memory"


@pytest.fixture
def secret_settings(settings: Settings, stub: OpenAIStub) -> Settings:
    llm_url = stub.base_url.replace("http://", f"http://llm:{LLM_URL_PASSWORD}@")
    return settings.model_copy(
        update={
            "data_database_url": DATA_URL,
            "memory_database_url": MEMORY_URL,
            "openai_base_url": llm_url,
            "openai_api_key": SecretStr(OPENAI_KEY),
            "api_keys": SecretStr(f"{API_KEY}; other-key=alice"),
            "metrics": True,
            "llm_max_retries": 0,
        }
    )


async def test_no_response_nor_log_line_holds_a_secret(secret_settings: Settings, caplog):
    caplog.set_level(logging.DEBUG)
    auth = {"Authorization": f"Bearer {API_KEY}"}
    bodies: dict[str, str] = {}
    async with running_service(secret_settings) as service:
        http = service.http
        for path in ("/health", "/ready", "/api/v0/ready", "/v1/models", "/metrics", "/nope"):
            bodies[path] = (await http.get(path, headers=auth)).text
        ask = {"question": "How many orders?"}
        bodies["ask"] = (await http.post("/api/v0/ask_react_agent", json=ask, headers=auth)).text
        bodies["ask-bad"] = (
            await http.post("/api/v0/ask_react_agent", content=b"{", headers=auth)
        ).text
        stream = await http.post(STREAM_PATH, json=ask, params={"api_key": API_KEY})
        bodies["stream"] = stream.text
        chat = {"model": "m", "messages": [{"role": "user", "content": "How many orders?"}]}
        bodies["openai"] = (await http.post("/v1/chat/completions", json=chat, headers=auth)).text
        bodies["openai-stream"] = (
            await http.post("/v1/chat/completions", json={**chat, "stream": True}, headers=auth)
        ).text
        bodies["unauthorized"] = (await http.get("/v1/models")).text
        async with http_session(service.base_url, API_KEY) as session:
            for tool, arguments in (("ask_data", ask), ("list_tables", {})):
                result = await session.call_tool(tool, arguments)
                bodies[f"mcp-{tool}"] = result.model_dump_json()

    # The failures did come back, with the URL masked: the masking was on the path.
    ready = json.loads(bodies["/ready"])["data"]
    assert ready["error_type"] == "DATABASE_UNAVAILABLE"
    assert f"postgresql://scott:{MASK}@" in ready["error"]
    assert f"http://llm:{MASK}@" in bodies["/health"]
    assert json.loads(bodies["ask"])["success"] is False  # the run failed, with a message
    assert "DATABASE_UNAVAILABLE" in bodies["mcp-list_tables"]
    assert "degraded start" in caplog.text and "DATA_DATABASE_URL" in caplog.text
    for secret in SECRETS:
        for name, body in bodies.items():
            assert secret not in body, (name, secret)
        assert secret not in caplog.text, secret
