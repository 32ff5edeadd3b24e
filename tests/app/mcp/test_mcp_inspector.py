"""The MCP server through a second real client: the MCP Inspector's CLI (npm), over HTTP.

Needs the Inspector from tests/clients/package-lock.json: `npm ci --prefix tests/clients`.
Without it the tests are skipped, unless REQUIRE_CLIENTS=1 (CI sets it): then they fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

from app.openai_compat.replies import usage_body
from tests.conftest import SAMPLE_QUESTION
from tests.support.live_server import running_service
from tests.support.requirements import skip_or_fail

CLIENTS_DIR = Path(__file__).resolve().parents[2] / "clients"
INSPECTOR = CLIENTS_DIR / "node_modules" / ".bin" / "mcp-inspector"
INSPECTOR_TIMEOUT = 120.0


def require_inspector() -> None:
    missing = None
    if not INSPECTOR.exists():
        missing = "the MCP Inspector is not installed in tests/clients/node_modules"
    elif shutil.which("node") is None:
        missing = "node is not on PATH"
    if missing is not None:
        missing += ": run `npm ci --prefix tests/clients`"
    skip_or_fail(missing, "REQUIRE_CLIENTS")


async def inspect(base_url: str, home: Path, *args: str) -> dict:
    """Run one `mcp-inspector --cli` call against the service's /mcp; return its JSON."""
    env = {**os.environ, "HOME": str(home), "MCP_CATALOG_PATH": str(home / "mcp.json")}
    process = await asyncio.create_subprocess_exec(
        str(INSPECTOR),
        "--cli",
        f"{base_url}/mcp",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), INSPECTOR_TIMEOUT)
    assert process.returncode == 0, err.decode()
    return json.loads(out)


async def test_inspector_lists_the_tools_and_reads_the_tables(settings, tmp_path):
    require_inspector()
    async with running_service(settings) as service:
        listed = await inspect(service.base_url, tmp_path, "--method", "tools/list")
        tables = await inspect(
            service.base_url, tmp_path, "--method", "tools/call", "--tool-name", "list_tables"
        )
        described = await inspect(
            service.base_url,
            tmp_path,
            *("--method", "tools/call", "--tool-name", "describe_table"),
            *("--tool-arg", "name=stores"),
        )
    assert {tool["name"] for tool in listed["tools"]} == {
        "ask_data",
        "answer_pending",
        "list_tables",
        "describe_table",
    }
    assert "stores" in tables["structuredContent"]["result"]
    columns = {column["name"] for column in described["structuredContent"]["columns"]}
    assert {"store_id", "region_id"} <= columns


async def test_inspector_asks_and_gets_the_answer_with_its_usage(stub_settings, tmp_path):
    require_inspector()
    async with running_service(stub_settings) as service:
        status, body = await service.ask(question=SAMPLE_QUESTION)
        asked = await inspect(
            service.base_url,
            tmp_path,
            *("--method", "tools/call", "--tool-name", "ask_data"),
            *("--tool-arg", f"question={SAMPLE_QUESTION}"),
        )
    assert status == 200, body
    result = asked["structuredContent"]
    assert "华东" in result["answer"] and result["sql"] == body["data"]["sql"]
    expected = body["data"]["react_agent_meta"]["usage"]
    assert result["usage"] == usage_body(expected) and expected["total_tokens"] > 0


async def test_inspector_lists_and_reads_resources_and_prompts(settings, tmp_path):
    require_inspector()
    async with running_service(settings) as service:
        url, home = service.base_url, tmp_path
        resources = await inspect(url, home, "--method", "resources/list")
        stores = await inspect(
            url, home, "--method", "resources/read", "--uri", "sqlagent://schema/stores"
        )
        prompts = await inspect(url, home, "--method", "prompts/list")
        prompt = await inspect(
            url,
            home,
            *("--method", "prompts/get", "--prompt-name", "explain_sql"),
            *("--prompt-args", "sql=SELECT city FROM stores"),
        )
    uris = {resource["uri"] for resource in resources["resources"]}
    assert {"sqlagent://schema", "sqlagent://schema/stores", "sqlagent://metrics"} <= uris
    described = json.loads(stores["contents"][0]["text"])
    assert "city" in [column["name"] for column in described["columns"]]
    assert {p["name"] for p in prompts["prompts"]} == {"ask_about_data", "explain_sql"}
    assert "SELECT city FROM stores" in prompt["messages"][0]["content"]["text"]
