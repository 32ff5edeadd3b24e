"""--print-config's lines: every value in effect, no secret shown."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from config import Settings
from config.effective_settings import MASK, effective_settings_lines, mask_url_password

HOSTILE_URLS = [
    # (value, secret that must not survive)
    ("postgresql://agent:hunter2@db:5432/agent", "hunter2"),
    ("postgresql+psycopg://agent:hun%40ter2@db/agent", "hun%40ter2"),
    ("postgresql://agent:p@ss@word@db/agent", "p@ss@word"),
    ("postgresql://agent:a/b/c@db/agent", "a/b/c"),
    ("postgresql://agent:has space@db/agent", "has space"),
    ("mysql://root:toor@[::1]:3306/test", "toor"),
    ("postgresql://:only-password@db/agent", "only-password"),
    ("host=db user=agent password=hunter2 dbname=agent", "hunter2"),
    ("postgresql://agent@db/agent?password=hunter2&sslmode=require", "hunter2"),
    ("PASSWORD=hunter2", "hunter2"),
]


@pytest.mark.parametrize(("value", "secret"), HOSTILE_URLS)
def test_url_passwords_are_masked(value, secret):
    masked = mask_url_password(value)
    assert secret not in masked
    assert MASK in masked


@pytest.mark.parametrize(
    "value",
    [
        "sqlite:///data/checkpoints.db",
        "postgresql://agent@db:5432/agent",
        "mysql://root@127.0.0.1:3306/test",
        "memory",
        "https://api.deepseek.com/v1",
        "Answer in the language of the question.",
    ],
)
def test_values_without_a_password_are_shown_as_they_are(value):
    assert mask_url_password(value) == value


def test_the_lines_show_every_setting_with_secrets_masked():
    settings = Settings(
        _env_file=None,
        openai_api_key=SecretStr("sk-very-secret"),
        api_keys=SecretStr("k1; k2=alice"),
        checkpoint_database_url="postgresql://agent:hunter2@db:5432/agent",
        llm_model="deepseek-chat",
    )
    lines = effective_settings_lines(settings)
    text = "\n".join(lines)
    assert len(lines) == len(Settings.model_fields)
    for secret in ("sk-very-secret", "k1", "hunter2"):
        assert secret not in text
    assert f"OPENAI_API_KEY={MASK}" in lines
    assert f"API_KEYS={MASK}" in lines
    assert f"CHECKPOINT_DATABASE_URL=postgresql://agent:{MASK}@db:5432/agent" in lines
    assert "LLM_MODEL=deepseek-chat" in lines
    assert "MEMORY=true" in lines


def test_an_unset_secret_is_shown_empty_not_masked():
    lines = effective_settings_lines(Settings(_env_file=None, openai_api_key=None))
    assert "OPENAI_API_KEY=" in lines
