"""Where the benchmark lives, its log line, and the clean environment of every process it starts.

Telemetry is off in every child (LangSmith, langgraph-cli analytics, PyPI version checks,
OpenTelemetry) and the service's own settings are dropped, so a developer's shell or
`.env` cannot change what is measured.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH_DIR = REPO / "bench"
PYTHON = sys.executable

TELEMETRY_OFF = {
    # LangSmith tracing off, whatever the caller's environment says.
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    # Should anything try anyway, it reaches a closed loopback port, not the internet.
    "LANGSMITH_ENDPOINT": "http://127.0.0.1:9",
    "LANGCHAIN_ENDPOINT": "http://127.0.0.1:9",
    # langgraph-cli posts each command to an analytics endpoint unless this is "1".
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    # langgraph-api checks PyPI for a newer version at start-up unless this is set.
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "OTEL_SDK_DISABLED": "true",
    "DO_NOT_TRACK": "1",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}
DROPPED_ENV = (
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGGRAPH_CLOUD_LICENSE_KEY",
    "LANGSMITH_CONTROL_PLANE_API_KEY",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


def log(message: str) -> None:
    """Print one timestamped line of the benchmark's progress."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """Return the caller's environment less the service's settings, telemetry off, + `extra`.

    Every setting the service reads is dropped first, so a developer's shell or `.env`
    cannot change what is measured (subprocesses also run outside the repo, where there
    is no `.env`).
    """
    from config import Settings

    settings_vars = {name.upper() for name in Settings.model_fields}
    env = {
        key: value
        for key, value in os.environ.items()
        if key.upper() not in settings_vars and key not in DROPPED_ENV
    }
    env.update(TELEMETRY_OFF)
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env
