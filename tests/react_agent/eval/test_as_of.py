"""`python -m react_agent.eval --as-of DATE`: the run's prompts hold that day's instructions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from config import Settings
from react_agent.errors import ServiceError
from react_agent.eval.cli import parse_arguments, run_evaluation
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub

SAMPLE = Path(__file__).resolve().parents[3] / "config" / "semantic.sample.yaml"
RULES = """
instructions:
  - id: sales_old
    text: 销售额含已退款订单
    valid_to: 2024-03-31
  - id: sales_new
    text: 销售额只算已完成订单
    valid_from: 2024-04-01
"""


def system_prompts(stub: OpenAIStub) -> list[str]:
    """Return each request's stable system prompt, where the instructions are (#48)."""
    return [
        message["content"]
        for body in stub.requests
        for message in body["messages"][:1]
        if message["role"] == "system"
    ]


@pytest.mark.parametrize(
    ("as_of", "present", "absent"),
    [("2024-01-15", "sales_old", "sales_new"), ("2024-06-01", "sales_new", "sales_old")],
)
async def test_an_evaluation_as_of_a_date_uses_that_days_instructions(
    settings: Settings, tmp_path: Path, as_of: str, present: str, absent: str
):
    semantic = tmp_path / "semantic.yaml"
    semantic.write_text(SAMPLE.read_text(encoding="utf-8") + RULES, encoding="utf-8")
    golden = tmp_path / "golden.jsonl"
    line = {"id": "s1", "question": "各大区销售额", "gold_sql": DEFAULT_SALES_SQL, "lang": "zh"}
    golden.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    with OpenAIStub() as stub:
        configured = settings.model_copy(
            update={
                "openai_base_url": stub.base_url,
                "openai_api_key": SecretStr("test-key"),
                "llm_max_retries": 0,
                "memory": False,
                "semantic_file": semantic,
                "schema_prompt_budget": 12_000,
            }
        )
        arguments = parse_arguments([str(golden), "--out", str(tmp_path / "out"), "--as-of", as_of])
        status = await run_evaluation(arguments, configured)
        prompts = system_prompts(stub)
    assert status == 0 and prompts
    assert all(f"[{present}]" in p and f"[{absent}]" not in p for p in prompts)
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    assert report["passed"] == 1 and report["meta"]["as_of"] == as_of


async def test_as_of_over_http_is_refused(settings: Settings, tmp_path: Path):
    arguments = parse_arguments(["--url", "http://127.0.0.1:9", "--as-of", "2024-01-01"])
    with pytest.raises(ServiceError, match="in-process"):
        await run_evaluation(arguments, settings)
