"""Run the Postman collection with newman against the real service in a subprocess.

Needs newman from postman/package-lock.json: `npm ci --prefix postman`. Without it the
test is skipped, unless REQUIRE_NEWMAN=1 (CI sets it), which makes it fail instead.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.requirements import skip_or_fail
from tests.support.service_process import REPO_ROOT, start_service_process, start_stub_llm

POSTMAN_DIR = REPO_ROOT / "postman"
NEWMAN = POSTMAN_DIR / "node_modules" / ".bin" / "newman"
COLLECTION = POSTMAN_DIR / "sql-react-agent.postman_collection.json"
ENVIRONMENT = POSTMAN_DIR / "local.postman_environment.json"

# A key the collection can look for: /health must never show it.
LLM_API_KEY = "sk-newman-secret-4b1d"
SERVICE_KEY = "newman-service-key-7c2e"
"""API_KEYS of the service under test; the collection sends it as a bearer token."""
NEWMAN_TIMEOUT = 300.0
REQUEST_TIMEOUT_MS = 60_000


def require_newman() -> None:
    """Skip (or fail, with REQUIRE_NEWMAN=1) when newman or node is not installed."""
    missing = None
    if not NEWMAN.exists():
        missing = "newman is not installed in postman/node_modules"
    elif shutil.which("node") is None:
        missing = "node is not on PATH"
    if missing is not None:
        missing += ": run `npm ci --prefix postman`"
    skip_or_fail(missing, "REQUIRE_NEWMAN")


def test_postman_collection_passes(tmp_path: Path) -> None:
    require_newman()
    semantic = tmp_path / "semantic.yaml"  # a copy: the instructions folder adds one to it
    semantic.write_bytes((REPO_ROOT / "config" / "semantic.sample.yaml").read_bytes())
    with (
        start_stub_llm() as llm_url,
        start_service_process(
            {
                "OPENAI_BASE_URL": llm_url,
                "OPENAI_API_KEY": LLM_API_KEY,
                "API_KEYS": SERVICE_KEY,
                "AUDIT": "on",  # the audit folder reads the records of the earlier questions
                "METRICS": "on",  # the observability folder reads /metrics
                "DATASETS_ENABLED": "true",
                "SEMANTIC_FILE": str(semantic),
            },
            tmp_path,
        ) as base_url,
    ):
        result = subprocess.run(
            [
                str(NEWMAN),
                "run",
                str(COLLECTION.relative_to(REPO_ROOT)),
                "-e",
                str(ENVIRONMENT.relative_to(REPO_ROOT)),
                "--env-var",
                f"baseUrl={base_url}",
                "--env-var",
                f"llmApiKey={LLM_API_KEY}",
                "--env-var",
                f"apiKey={SERVICE_KEY}",
                "--reporters",
                "cli",
                "--color",
                "off",
                "--timeout-request",
                str(REQUEST_TIMEOUT_MS),
            ],
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=NEWMAN_TIMEOUT,
            check=False,
        )
    if result.returncode != 0:
        output = result.stdout + result.stderr
        pytest.fail(f"newman exited with {result.returncode}:\n{output}", pytrace=False)
