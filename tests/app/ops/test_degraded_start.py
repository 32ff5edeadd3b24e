"""A degraded start says what is missing at start-up; a setting to change is never 'retry'."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from config import Settings
from react_agent.errors import ConfigurationError
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer


def degraded_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "degraded start" in r.getMessage()]


async def test_a_missing_sqlite_file_is_a_setting_to_change_everywhere(
    settings: Settings, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    missing = settings.model_copy(
        update={"data_database_url": f"sqlite:///{tmp_path / 'no-such.db'}"}
    )
    async with running_service(missing, model=ScriptedChatModel(default=answer("x"))) as service:
        ready = (await service.http.get("/ready")).json()
        health = (await service.http.get("/health")).json()
        status, body = await service.ask(question="How many orders?")

    for envelope in (ready, health, body):
        data = envelope["data"]
        assert data["error_type"] == "CONFIGURATION_ERROR" and data["can_retry"] is False
        assert "DATA_DATABASE_URL" in data["error"] and "no-such.db" in data["error"]
        assert "DATA_DATABASE_URL" in envelope["message"]  # what to configure, localized
        assert "稍后重试" not in envelope["message"]
    assert status == 503
    lines = degraded_lines(caplog)
    assert len(lines) == 1 and "DATA_DATABASE_URL" in lines[0]


async def test_no_llm_is_one_line_at_start_up_naming_the_settings(settings: Settings, caplog):
    caplog.set_level(logging.INFO)
    async with running_service(settings) as service:
        ready = (await service.http.get("/ready")).json()

    assert ready["data"]["error_type"] == "LLM_NOT_CONFIGURED"
    assert ready["data"]["can_retry"] is False
    lines = degraded_lines(caplog)
    assert len(lines) == 1
    assert "OPENAI_API_KEY" in lines[0] and "OPENAI_BASE_URL" in lines[0]


async def test_a_data_database_without_tables_is_one_line(settings: Settings, tmp_path, caplog):
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    caplog.set_level(logging.INFO)
    no_tables = settings.model_copy(update={"data_database_url": f"sqlite:///{empty}"})
    async with running_service(no_tables, model=ScriptedChatModel(default=answer("x"))):
        pass

    lines = degraded_lines(caplog)
    assert len(lines) == 1
    assert "DATA_DATABASE_URL" in lines[0] and "no tables" in lines[0]


async def test_a_complete_start_says_nothing_degraded(settings: Settings, caplog):
    caplog.set_level(logging.INFO)
    async with running_service(settings, model=ScriptedChatModel(default=answer("x"))):
        pass
    assert degraded_lines(caplog) == []


async def test_a_missing_duckdb_folder_is_a_setting_to_change(settings: Settings, tmp_path):
    missing = settings.model_copy(
        update={"data_database_url": f"duckdb:///{tmp_path / 'no-such-folder'}"}
    )
    async with running_service(missing, model=ScriptedChatModel(default=answer("x"))) as service:
        ready = (await service.http.get("/ready")).json()["data"]

    assert ready["error_type"] == "CONFIGURATION_ERROR" and ready["can_retry"] is False
    assert "DATA_DATABASE_URL" in ready["error"] and "no-such-folder" in ready["error"]


async def test_a_wrong_setting_raises_at_start_up_in_process_too(settings: Settings, tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text("default_role: r\nroles:\n  r: {tabels: [orders]}\n", encoding="utf-8")
    wrong = settings.model_copy(update={"policy_file": policy})
    with pytest.raises(ConfigurationError, match=r"POLICY_FILE .*policy.yaml:3"):
        async with running_service(wrong, model=ScriptedChatModel(default=answer("x"))):
            pass
