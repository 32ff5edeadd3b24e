"""The OpenAPI document, and schemathesis fuzzing every documented operation against it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.service_process import start_service_process, start_stub_llm

MIN_GENERATED_CASES = 500
KEY = "schemathesis-key"
"""With API keys on, as deployed: every request (and the schema's own) carries the key."""
UNDOCUMENTED = {
    "/static/<path:filename>",
    "/embed/sql-agent-chat.js",
    "/openapi.json",
    "/docs",
    "/",
}


async def test_openapi_documents_every_api_route(service):
    spec = (await service.http.get("/openapi.json")).json()
    documented = {
        (method.upper(), re.sub(r"\{(\w+)\}", r"<\1>", path))
        for path, operations in spec["paths"].items()
        for method in operations
    }
    routed = {
        (method, rule.rule)
        for rule in service.app.url_map.iter_rules()
        if rule.rule not in UNDOCUMENTED
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert routed == documented
    assert (await service.http.get("/docs")).status_code == 200


async def test_stream_is_documented_as_event_stream_with_the_envelope_in_data(service):
    spec = (await service.http.get("/openapi.json")).json()
    for method in ("get", "post"):
        operation = spec["paths"]["/api/v0/ask_react_agent_stream"][method]
        event = operation["responses"]["200"]["content"]["text/event-stream"]["schema"]
        assert event["properties"]["data"]["contentMediaType"] == "application/json"
        line = operation["responses"]["200"]["content"]["application/x-ndjson"]["schema"]
        assert "ping" in line["description"] and len(line["oneOf"]) == 2
        assert "204" in operation["responses"] and "content" not in operation["responses"]["204"]
    sync = spec["paths"]["/api/v0/ask_react_agent"]["post"]
    assert set(sync["responses"]) >= {"200", "400", "409", "500", "503", "504"}
    assert "question" in str(sync["requestBody"])


def test_schemathesis_finds_no_server_error_and_no_schema_violation(tmp_path: Path):
    schemathesis = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert schemathesis, "schemathesis is in the dev extra: pip install -e '.[dev]'"
    with (
        start_stub_llm() as llm_url,
        start_service_process(
            {"OPENAI_BASE_URL": llm_url, "CHECKPOINT_DATABASE_URL": "memory", "API_KEYS": KEY},
            tmp_path,
        ) as base_url,
    ):
        assert httpx.get(f"{base_url}/health").status_code == 200
        assert httpx.get(f"{base_url}/openapi.json").status_code == 401
        result = subprocess.run(
            [
                schemathesis,
                "run",
                f"{base_url}/openapi.json",
                "--header",
                f"Authorization: Bearer {KEY}",
                # A new connection per request: a kept-alive one that sat idle past
                # Hypercorn's keep-alive timeout (5 s) while hypothesis generated data can be
                # closed just as the next request goes out on it, which schemathesis reports
                # as a network error ("Remote end closed connection without response").
                "--header",
                "Connection: close",
                "--checks",
                "not_a_server_error,response_schema_conformance,"
                "content_type_conformance,status_code_conformance",
                "--max-examples",
                "80",
                "--seed",
                "20261122",
                "--no-color",
                "--request-timeout",
                "30",
                # A data-generation check, not a finding about the API: under the bench
                # extra's schemathesis 4.15 most strings generated for the POST stream's two
                # free-form headers (Last-Event-ID, Accept) are not valid header values and
                # are filtered out, which fails hypothesis's health check.
                "--suppress-health-check=filter_too_much",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    generated = re.search(r"(\d+) generated, (\d+) passed", output)
    assert generated, output[-3000:]
    assert int(generated[1]) >= MIN_GENERATED_CASES and generated[1] == generated[2], output[-3000:]
