"""The state of one benchmark run: its options, scratch directory, stub and results so far."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.measure.measured import Quiet


@dataclass
class BenchState:
    """What every phase of a run reads (options, places, the stub) and writes (results)."""

    args: argparse.Namespace
    scratch: Path
    log_dir: Path
    results: dict[str, Any] = field(default_factory=dict)
    stub_url: str = ""
    stub_pid: int = 0
    cleanup: ExitStack = field(default_factory=ExitStack)
    """What to undo when the run ends (e.g. scratch databases of the scale-out sides)."""
    databases: dict[str, str] = field(default_factory=dict)
    """Side → the name of its scratch PostgreSQL database, whose backends work for it."""
    quiet: Quiet = field(init=False)
    """How hard to try for undisturbed measurements."""

    def __post_init__(self) -> None:
        args = self.args
        self.quiet = Quiet(
            args.quiet_threshold, args.max_quiet_wait, args.retries, args.quiet_budget
        )

    @property
    def levels(self) -> dict[int, int]:
        """Concurrency → questions in the level."""
        return self.args.levels

    def llm_env(self) -> dict[str, str]:
        """Return the settings that point ChatOpenAI at the stub."""
        return {
            "OPENAI_BASE_URL": self.stub_url,
            "OPENAI_API_KEY": "bench-not-a-secret",
            "LLM_MODEL": "stub-model",
        }

    @property
    def langgraph_jobs(self) -> int:
        """`langgraph dev --n-jobs-per-worker`: the option, or the highest concurrency."""
        return self.args.langgraph_jobs or max(self.levels)
