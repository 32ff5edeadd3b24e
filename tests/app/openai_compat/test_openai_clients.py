"""Clients nobody here wrote, against /v1: the openai SDK, LangChain's ChatOpenAI, `llm`.

The service answers with the real ChatOpenAI path on the suite's stub server, which
reports token usage, so every figure checked here is the run's own sum of model calls.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import openai
import pytest
from langchain_openai import ChatOpenAI

from app.openai_compat.parameters import IGNORED_PARAMETERS
from tests.conftest import SAMPLE_QUESTION
from tests.support.live_server import running_service

MODEL = "sql-react-agent"
LLM_TIMEOUT = 120.0


def client(service) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"{service.base_url}/v1", api_key="unused", max_retries=0)


async def stub_usage_of_last_run(service) -> dict[str, int]:
    """Return the sync endpoint's own `react_agent_meta.usage` for the sample question."""
    status, body = await service.ask(question=SAMPLE_QUESTION)
    assert status == 200, body
    return body["data"]["react_agent_meta"]["usage"]


async def test_openai_sdk_gets_the_runs_usage_streamed_and_not(stub_settings):
    async with running_service(stub_settings) as service:
        expected = await stub_usage_of_last_run(service)
        completion = await client(service).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": SAMPLE_QUESTION}]
        )
        stream = await client(service).chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": SAMPLE_QUESTION}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [chunk async for chunk in stream]

    assert expected["total_tokens"] > 0
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
        expected["prompt_tokens"],
        expected["completion_tokens"],
        expected["total_tokens"],
    )
    last = chunks[-1]
    assert last.choices == [] and last.usage.total_tokens == expected["total_tokens"]
    assert last.usage.prompt_tokens == expected["prompt_tokens"]
    assert all(chunk.usage is None for chunk in chunks[:-1])
    assert chunks[-2].choices[0].finish_reason == "stop"


async def test_a_stream_without_include_usage_sends_no_usage_chunk(stub_settings):
    async with running_service(stub_settings) as service:
        stream = await client(service).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": SAMPLE_QUESTION}], stream=True
        )
        chunks = [chunk async for chunk in stream]
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(chunk.usage is None and chunk.choices for chunk in chunks)


async def test_langchain_chat_openai_reports_usage_metadata_on_invoke_and_stream(stub_settings):
    async with running_service(stub_settings) as service:
        expected = await stub_usage_of_last_run(service)
        chat = ChatOpenAI(
            model=MODEL,
            base_url=f"{service.base_url}/v1",
            api_key="unused",
            stream_usage=True,
            max_retries=0,
        )
        invoked = await chat.ainvoke(SAMPLE_QUESTION)
        summed = None
        async for chunk in chat.astream(SAMPLE_QUESTION):
            summed = chunk if summed is None else summed + chunk

    for message in (invoked, summed):
        assert message.usage_metadata is not None
        assert message.usage_metadata["input_tokens"] == expected["prompt_tokens"]
        assert message.usage_metadata["output_tokens"] == expected["completion_tokens"]
        assert message.usage_metadata["total_tokens"] == expected["total_tokens"] > 0
    assert "华东" in summed.content and "```sql" in invoked.content


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"n": 2}, "n"),
        (
            {"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]},
            "tools",
        ),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
        ({"logprobs": True}, "logprobs"),
        ({"functions": [{"name": "f", "parameters": {}}]}, "functions"),
    ],
)
async def test_parameters_the_route_cannot_honour_get_a_400_naming_them(
    service, model, extra, param
):
    with pytest.raises(openai.BadRequestError) as caught:
        await client(service).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "门店"}], extra_body=extra
        )
    error = caught.value.body
    assert error["param"] == param and error["code"] == "unsupported_parameter"
    assert param in error["message"]
    assert model.seen == []  # refused before any model call


async def test_ignored_sampling_parameters_still_get_an_answer(service, model):
    from tests.support.scripted_model import answer

    model.replies = [answer("好的。")]
    completion = await client(service).chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "你好"}],
        temperature=1.5,
        max_tokens=5,
        stop=["x"],
        n=1,
        response_format={"type": "text"},
        tool_choice="none",
    )
    assert completion.choices[0].message.content == "好的。"
    assert completion.usage.total_tokens == 0  # the scripted model reports no tokens


# --- the `llm` command-line tool -------------------------------------------------------


def llm_command() -> list[str]:
    path = shutil.which("llm", path=str(Path(sys.executable).parent)) or shutil.which("llm")
    if path is None:
        pytest.fail("the `llm` CLI is not installed (it is in the dev extra)")
    return [path]


async def run_llm(home: Path, *args: str) -> str:
    env = {**os.environ, "LLM_USER_PATH": str(home), "OPENAI_API_KEY": "unused"}
    process = await asyncio.create_subprocess_exec(
        *llm_command(),
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), LLM_TIMEOUT)
    assert process.returncode == 0, err.decode()
    return out.decode()


def configure_llm(home: Path, base_url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "extra-openai-models.yaml").write_text(
        f'- model_id: sql-agent\n  model_name: {MODEL}\n  api_base: "{base_url}/v1"\n',
        encoding="utf-8",
    )


def logged_usage(home: Path) -> list[tuple[int | None, int | None]]:
    """Return the tokens `llm` logged per answer (its `turns` table, llm 0.36)."""
    with sqlite3.connect(home / "logs.db") as db:
        return db.execute("SELECT input_tokens, output_tokens FROM turns ORDER BY id").fetchall()


async def test_llm_cli_answers_streamed_and_not_and_continues_with_c(stub_settings, tmp_path):
    home = tmp_path / "llm"
    async with running_service(stub_settings) as service:
        configure_llm(home, service.base_url)
        not_streamed = await run_llm(home, "-m", "sql-agent", "--no-stream", SAMPLE_QUESTION)
        streamed = await run_llm(home, "-m", "sql-agent", "新的问题：" + SAMPLE_QUESTION)
        follow_up = await run_llm(home, "-c", "再说一遍华东的数字")
        listed = await service.http.get("/api/v0/react/users/guest/conversations")

    for text in (not_streamed, streamed, follow_up):
        assert "```sql" in text and "华东" in text
    conversations = listed.json()["data"]["conversations"]
    assert len(conversations) == 2  # -c continued the second conversation, not a third
    continued = next(c for c in conversations if c["last_message"] == "再说一遍华东的数字")
    assert continued["conversation_title"].startswith("新的问题")
    usage = logged_usage(home)
    assert len(usage) == 3 and all(inputs and outputs for inputs, outputs in usage), usage


async def test_history_with_different_questions_starts_a_new_conversation(stub_settings):
    async with running_service(stub_settings) as service:
        first = await client(service).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": SAMPLE_QUESTION}]
        )
        reply = first.choices[0].message.content
        same = await client(service).chat.completions.create(
            model=MODEL,
            messages=[
                {"role": "user", "content": SAMPLE_QUESTION},
                {"role": "assistant", "content": reply},
                {"role": "user", "content": "华东呢"},
            ],
        )
        other = await client(service).chat.completions.create(
            model=MODEL,
            messages=[
                {"role": "user", "content": "一个别的问题"},
                {"role": "assistant", "content": reply},
                {"role": "user", "content": "华东呢"},
            ],
        )
    first_id = first.model_extra["conversation_id"]
    assert same.model_extra["conversation_id"] == first_id
    assert other.model_extra["conversation_id"] != first_id


@pytest.mark.parametrize("name", IGNORED_PARAMETERS)
async def test_each_documented_ignored_parameter_is_accepted(service, model, name):
    from tests.support.scripted_model import answer

    model.replies = [answer("好的。")]
    value = ["x"] if name == "stop" else ({} if name == "logit_bias" else 1)
    completion = await client(service).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "你好"}], extra_body={name: value}
    )
    assert completion.choices[0].message.content == "好的。"
