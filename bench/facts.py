"""Facts about the run's machine and code: CPUs, memory, Python, package versions, commit."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from bench.environment import REPO

PACKAGES = (
    "langgraph",
    "langgraph-checkpoint",
    "langgraph-checkpoint-sqlite",
    "langgraph-checkpoint-postgres",
    "langgraph-api",
    "langgraph-cli",
    "langgraph-runtime-inmem",
    "langchain-core",
    "langchain-openai",
    "openai",
    "quart",
    "hypercorn",
    "flask",
    "werkzeug",
    "uvicorn",
    "starlette",
    "httpx",
    "aiosqlite",
    "psycopg",
    "psutil",
    "matplotlib",
)


def environment_facts() -> dict[str, Any]:
    """Return the date, the machine, the Python and package versions and the git commit."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    git: dict[str, Any] = {}
    try:
        git["commit"] = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
        git["uncommitted_files"] = len(status.splitlines())
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        import psutil

        memory_gib = round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:
        memory_gib = None
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "memory_gib": memory_gib,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "git": git,
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None
