"""The scripted LLM of the benchmark: the tests' OpenAI-compatible stub with a 3-call policy.

`python -m bench.stub --latency-ms 50 --calls 3` prints `OPENAI_BASE_URL=...` and serves until
SIGINT/SIGTERM. Every side of the benchmark talks to the same stub process, so every side
waits the same fixed latency for the same replies.

With `--calls 3` (the default) each question costs three model calls:

1. the question → a `list_tables` tool call,
2. the table list → a `run_sql` call with the stub's sales-per-region SQL,
3. the query result → a text answer quoting it.

With `--calls 2` it is the stub's own default policy (run_sql, then the answer).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType
from typing import Any

from tests.support.openai_stub import (
    DEFAULT_SALES_SQL,
    OpenAIStub,
    Reply,
    ToolCall,
    default_policy,
    message_text,
)

_QUOTE_CHARS = 300


def three_call_policy(body: dict[str, Any]) -> Reply:
    """list_tables, then run_sql, then the answer; counted from the last user message."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    tool_results = [m for m in messages[last_user + 1 :] if m.get("role") == "tool"]
    if not tool_results:
        return Reply(tool_calls=[ToolCall(name="list_tables", args={})])
    if len(tool_results) == 1:
        return Reply(tool_calls=[ToolCall(name="run_sql", args={"sql": DEFAULT_SALES_SQL})])
    return Reply(text="查询结果如下：" + message_text(tool_results[-1])[:_QUOTE_CHARS])


def main(argv: list[str] | None = None) -> int:
    """Serve the benchmark policy until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m bench.stub")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--calls", type=int, choices=(2, 3), default=3)
    args = parser.parse_args(argv)

    done = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    with OpenAIStub(latency=args.latency_ms / 1000, host="127.0.0.1", port=args.port) as stub:
        stub.default_policy = three_call_policy if args.calls == 3 else default_policy
        print(f"OPENAI_BASE_URL={stub.base_url}", flush=True)
        while not done.wait(0.5):
            # The stub keeps every request body; a long benchmark must not grow without bound.
            stub.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
