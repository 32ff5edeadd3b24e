"""The stack's floor serves, over real HTTP, the frames the service's stream driver reads."""

from __future__ import annotations

import os
from pathlib import Path

from bench.drivers.http_client import new_client
from bench.drivers.service import service_stream
from bench.environment import PYTHON
from bench.processes import Processes, free_port, wait_for_http

REPO = Path(__file__).resolve().parents[2]


async def test_the_floor_holds_a_stream_the_service_driver_counts_as_completed(
    tmp_path: Path,
) -> None:
    port = free_port()
    argv = [PYTHON, "-m", "bench.peers.stack_floor", "--port", str(port), "--hold-ms", "30"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with Processes(tmp_path / "logs") as procs:
        child = procs.start("stack_floor", argv, env=env, cwd=tmp_path)
        base = f"http://127.0.0.1:{port}"
        wait_for_http(child, base + "/health", 60)
        async with new_client(2) as client:
            ask = service_stream(client, base)
            samples = [await ask(i, i) for i in range(2)]

    for sample in samples:
        assert sample.ok, sample.error
        assert sample.started is not None and sample.first_node is not None
        # Held for the model calls' time (30 ms in all; timers may round by a millisecond)
        # after `started`.
        assert sample.total - sample.started >= 0.025
