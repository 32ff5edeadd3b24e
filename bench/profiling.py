"""`--profile`: py-spy on the service through one extra, unmeasured level."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path
from typing import Any

from bench.drivers.http_client import new_client
from bench.drivers.service import service_stream
from bench.environment import BENCH_DIR, PYTHON, REPO
from bench.measure.closed_loop import run_level
from bench.measure.stats import summarize
from bench.processes import Child
from bench.report.profile_summary import summarize_collapsed
from bench.state import BenchState

PROFILE_RATE = 100
"""py-spy samples per second."""


def profile(state: BenchState, child: Child, base: str) -> dict[str, Any]:
    """py-spy the service through one extra level at --profile-concurrency (not measured)."""
    py_spy = shutil.which("py-spy", path=str(Path(PYTHON).parent)) or shutil.which("py-spy")
    if py_spy is None:
        return {"unavailable": "py-spy is not installed (pip install py-spy)"}
    concurrency = state.args.profile_concurrency
    seconds = state.args.profile_seconds
    out_dir = BENCH_DIR / "out" / "profile"
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = out_dir / f"service-c{concurrency}.txt"
    svg = out_dir / f"service-c{concurrency}.svg"
    seen: dict[str, Any] = {}
    recorder = _Recorder(py_spy, child.pid, seconds, raw, svg)
    asyncio.run(_load_and_profile(base, concurrency, seconds, recorder, seen))
    if not raw.is_file():
        return {"unavailable": f"py-spy wrote nothing: {seen.get('py_spy_stderr')}"}
    summary = summarize_collapsed(raw.read_text(), rate=PROFILE_RATE, seconds=seconds)
    return {
        "concurrency": concurrency,
        "seconds": seconds,
        "mode": "py-spy record --gil --nonblocking: samples of the thread holding the GIL; "
        "samples_per_wall_second_pct is how busy the GIL was",
        "collapsed_stacks": _shown(raw),
        "flamegraph": _shown(svg),
        "throughput_while_profiled_qps": seen.get("levels"),
        **summary,
    }


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


class _Recorder:
    """Two py-spy samplers side by side: collapsed stacks for the summary, a flame graph."""

    def __init__(self, py_spy: str, pid: int, seconds: int, raw: Path, svg: Path) -> None:
        self.py_spy, self.pid, self.seconds = py_spy, pid, seconds
        self.outputs = (("raw", raw), ("flamegraph", svg))

    async def start(self) -> list[asyncio.subprocess.Process]:
        # --gil: only the thread holding the GIL is sampled, which is where the event
        # loop's Python CPU goes (py-spy's idle detection is not reliable here, so
        # all-thread samples would count waiting threads as busy).
        return [
            await asyncio.create_subprocess_exec(
                self.py_spy,
                "record",
                "--pid",
                str(self.pid),
                "--rate",
                str(PROFILE_RATE),
                "--gil",
                "--nonblocking",
                "--full-filenames",
                "--format",
                fmt,
                "--output",
                str(path),
                "--duration",
                str(self.seconds),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            for fmt, path in self.outputs
        ]


async def _load_and_profile(
    base: str, concurrency: int, seconds: int, recorder: _Recorder, seen: dict[str, Any]
) -> None:
    total = concurrency * 3
    async with new_client(concurrency) as client:
        ask = service_stream(client, base)
        recorders = await recorder.start()
        try:
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                # Questions still running at the deadline are cancelled: this level is
                # not measured, only profiled.
                samples, wall, _ = await run_level(ask, concurrency, total, left)
                seen.setdefault("levels", []).append(summarize(samples, wall)["throughput_qps"])
        finally:
            for process in recorders:
                try:
                    _, err = await asyncio.wait_for(process.communicate(), 60)
                    seen["py_spy_stderr"] = err.decode(errors="replace")[-500:]
                except TimeoutError:
                    process.kill()
                    await process.wait()
