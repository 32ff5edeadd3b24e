"""`python -m app --print-config`: the settings in effect, secrets masked, and no server."""

from __future__ import annotations

import os
import subprocess
import sys

from config import Settings
from config.effective_settings import MASK
from tests.support.service_process import REPO_ROOT


def test_print_config_prints_every_setting_masks_secrets_and_exits(tmp_path):
    setting_names = {name.upper() for name in Settings.model_fields}
    env = {key: value for key, value in os.environ.items() if key.upper() not in setting_names}
    env.update(
        OPENAI_API_KEY="sk-do-not-print",
        CHECKPOINT_DATABASE_URL="postgresql://agent:hunter2@127.0.0.1:9/agent",
        LLM_MODEL="qwen-plus",
        # A taken port would not matter: nothing is bound.
        PORT="1",
    )
    finished = subprocess.run(
        [sys.executable, "-m", "app", "--print-config"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    assert {line.partition("=")[0] for line in lines} == setting_names
    assert "sk-do-not-print" not in finished.stdout + finished.stderr
    assert "hunter2" not in finished.stdout + finished.stderr
    assert f"OPENAI_API_KEY={MASK}" in lines
    assert f"CHECKPOINT_DATABASE_URL=postgresql://agent:{MASK}@127.0.0.1:9/agent" in lines
    assert "LLM_MODEL=qwen-plus" in lines
    assert "PORT=1" in lines
