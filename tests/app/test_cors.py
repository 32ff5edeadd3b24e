"""EMBED_ORIGINS: CORS for the embedded chat's script, modules and routes, other origins refused."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from pydantic import SecretStr, ValidationError

from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel, answer
from tests.support.sse import STREAM_PATH

KEY = "cors-key-0123456789"
PORTAL = "https://portal.example.com"
OTHER = "https://evil.example.net"
PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}
JAVASCRIPT_TYPES = ("text/javascript", "application/javascript")
"""What a browser runs as a module script (it refuses other types)."""
CHAT_PATHS = [
    "/embed/sql-agent-chat.js",
    "/static/sql_agent_chat.js",
    "/static/turn.js",
    "/static/index.html",
    "/static/vendor/marked/marked.umd.js",
]


CHAT_ROUTES = [
    STREAM_PATH,
    "/api/v0/react/runs/0123abcd/cancel",
    "/api/v0/react/conversations/mei:20250131103000001",
    "/api/v0/react/status/mei%3A20250131103000001",
]
"""The routes the chat calls: ask and resume, stop, and a conversation read back on a reload."""


@pytest.fixture
async def embedding(settings: Settings) -> AsyncIterator[ServiceClient]:
    keyed = settings.model_copy(
        update={
            "api_keys": SecretStr(KEY),
            "embed_origins": PORTAL,  # as validated: model_copy does not validate
            "stream_resume_grace": 0.0,
        }
    )
    async with running_service(keyed, model=ScriptedChatModel(default=answer("7"))) as client:
        yield client


async def test_the_component_script_is_a_module_at_a_stable_url_that_needs_no_key(embedding):
    response = await embedding.http.get("/embed/sql-agent-chat.js")
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] in JAVASCRIPT_TYPES
    assert 'customElements.define("sql-agent-chat"' in response.text
    assert response.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("path", CHAT_PATHS)
async def test_the_chats_files_allow_a_listed_origin_and_no_other(embedding, path):
    listed = await embedding.http.get(path, headers={"Origin": PORTAL})
    assert listed.status_code == 200
    assert listed.headers["access-control-allow-origin"] == PORTAL
    assert "Origin" in listed.headers["vary"]
    other = await embedding.http.get(path, headers={"Origin": OTHER})
    assert other.status_code == 200  # served, but no browser on that site may use it
    assert "access-control-allow-origin" not in other.headers
    assert "access-control-allow-origin" not in (await embedding.http.get(path)).headers


@pytest.mark.parametrize("path", CHAT_ROUTES)
async def test_a_preflight_from_a_listed_origin_is_answered_before_the_key_check(embedding, path):
    response = await embedding.http.options(path, headers={"Origin": PORTAL, **PREFLIGHT})
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == PORTAL
    assert response.headers["access-control-allow-methods"] == "GET, POST"
    allowed = response.headers["access-control-allow-headers"].lower()
    assert {"authorization", "content-type", "last-event-id"} <= set(allowed.split(", "))


@pytest.mark.parametrize("path", CHAT_ROUTES)
async def test_a_preflight_from_another_origin_is_refused(embedding, path):
    response = await embedding.http.options(path, headers={"Origin": OTHER, **PREFLIGHT})
    assert response.status_code == 403
    assert response.json()["data"]["error_type"] == "ORIGIN_NOT_ALLOWED"
    assert OTHER in response.json()["message"]
    assert "access-control-allow-origin" not in response.headers


async def test_routes_the_chat_does_not_call_get_no_cors_even_for_a_listed_origin(embedding):
    headers = {"Origin": PORTAL, "Authorization": f"Bearer {KEY}"}
    whoami = await embedding.http.get("/api/v0/whoami", headers=headers)
    assert whoami.status_code == 200
    assert "access-control-allow-origin" not in whoami.headers
    preflight = await embedding.http.options(
        "/api/v0/ask_react_agent", headers={"Origin": PORTAL, **PREFLIGHT}
    )
    assert "access-control-allow-origin" not in preflight.headers


async def test_the_stream_answers_a_listed_origin_with_its_header_and_still_needs_the_key(
    embedding,
):
    body = {"question": "几个地区？", "user_id": "mei"}
    refused = await embedding.http.post(STREAM_PATH, json=body, headers={"Origin": PORTAL})
    assert refused.status_code == 401
    # Readable by the component, which then says the key is wrong.
    assert refused.headers["access-control-allow-origin"] == PORTAL
    headers = {"Origin": PORTAL, "Authorization": f"Bearer {KEY}"}
    async with embedding.http.stream("POST", STREAM_PATH, json=body, headers=headers) as stream:
        text = (await stream.aread()).decode()
    assert stream.headers["access-control-allow-origin"] == PORTAL
    assert '"type":"completed"' in text and '"type":"end"' in text


async def test_a_conversation_read_back_answers_a_listed_origin_and_still_needs_the_key(
    embedding,
):
    keyed = {"Authorization": f"Bearer {KEY}"}
    asked = await embedding.http.post(
        "/api/v0/ask_react_agent", json={"question": "几个地区？", "user_id": "mei"}, headers=keyed
    )
    thread_id = asked.json()["data"]["conversation_id"]
    reads = [f"/api/v0/react/conversations/{thread_id}", f"/api/v0/react/status/{thread_id}"]
    for path in reads:
        refused = await embedding.http.get(path, headers={"Origin": PORTAL})
        assert refused.status_code == 401
        assert refused.headers["access-control-allow-origin"] == PORTAL
        read = await embedding.http.get(path, headers={"Origin": PORTAL, **keyed})
        assert read.status_code == 200, read.text
        assert read.headers["access-control-allow-origin"] == PORTAL
        assert read.json()["data"]["thread_id"] == thread_id
    # Only reads: a browser on the portal may not rename or delete the conversation.
    preflight = await embedding.http.options(
        reads[0], headers={"Origin": PORTAL, "Access-Control-Request-Method": "DELETE"}
    )
    allowed = preflight.headers["access-control-allow-methods"]
    assert "DELETE" not in allowed and "PATCH" not in allowed


async def test_with_no_embed_origins_every_origin_is_refused(settings: Settings):
    assert settings.embed_origin_set == frozenset()
    async with running_service(settings, model=ScriptedChatModel()) as client:
        script = await client.http.get("/embed/sql-agent-chat.js", headers={"Origin": PORTAL})
        assert "access-control-allow-origin" not in script.headers
        preflight = await client.http.options(STREAM_PATH, headers={"Origin": PORTAL, **PREFLIGHT})
        assert preflight.status_code == 403


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("https://Portal.Example.com", "https://portal.example.com"),
        ("https://portal.example.com:443/", "https://portal.example.com"),
        ("http://127.0.0.1:8090, http://[::1]:80", "http://127.0.0.1:8090 http://[::1]"),
        ("  ", ""),
    ],
)
def test_embed_origins_are_kept_as_a_browser_writes_its_origin(given, kept):
    assert Settings(_env_file=None, embed_origins=given).embed_origins == kept


@pytest.mark.parametrize(
    "given",
    [
        "*",
        "portal.example.com",
        "https://portal.example.com/app",
        "ftp://x.example",
        "https://a:b@x",
    ],
)
def test_a_value_that_is_not_an_origin_is_refused_naming_it(given):
    with pytest.raises(ValidationError, match="is not an origin"):
        Settings(_env_file=None, embed_origins=given)
