"""Where a py-spy profile says the time goes: collapsed stacks to a short summary.

py-spy's `--format raw` writes one line per distinct stack, `frame;frame;...;leaf count`,
each frame `function (path:line)`. The summary gives the leaf ("self") time by library,
the top leaf functions, and the top frames by inclusive time (each frame counted once per
stack), all in percent of the samples.

`python -m bench.report.profile_summary bench/out/profile/service-c100.txt` prints it.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.measure.areas import AREAS, area_of

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<path>.*?)(?::(?P<line>\d+))?\)$")

CATEGORIES: list[tuple[str, tuple[str, ...]]] = [
    ("our code: react_agent", ("/react_agent/",)),
    ("our code: app (HTTP, SSE)", ("/app/", "/config/")),
    ("bench", ("/bench/",)),
    ("langgraph (pregel, channels, checkpoint)", ("/langgraph/",)),
    ("langgraph checkpoint sqlite", ("langgraph/checkpoint/sqlite",)),
    ("langchain_core (runnables, callbacks, messages)", ("/langchain_core/",)),
    ("langchain_openai", ("/langchain_openai/",)),
    ("openai SDK", ("/openai/",)),
    ("HTTP client (httpx, httpcore, anyio)", ("httpx", "httpcore", "/anyio/", "/h2/")),
    ("sqlglot (our SQL guard parses every query)", ("/sqlglot/",)),
    (
        "HTTP server (hypercorn, h11, quart, werkzeug)",
        ("hypercorn", "/h11/", "/quart/", "/werkzeug/", "/flask/"),
    ),
    ("pydantic", ("/pydantic/", "pydantic_core")),
    ("serialisation (json, ormsgpack)", ("/json/", "ormsgpack", "orjson")),
    ("sqlite (sqlite3, aiosqlite)", ("/sqlite3/", "aiosqlite")),
    ("logging", ("/logging/",)),
    ("asyncio event loop", ("/asyncio/",)),
    ("threads (threading, concurrent.futures)", ("threading.py", "/concurrent/")),
    (
        "copy, typing, dataclasses, uuid, inspect",
        ("copy.py", "typing.py", "dataclasses.py", "uuid.py", "inspect.py", "contextvars"),
    ),
]


def _parse(frame: str) -> tuple[str, str]:
    match = _FRAME.match(frame.strip())
    if not match:
        return frame.strip(), ""
    return match["func"], match["path"]


def _short(path: str) -> str:
    for marker in ("site-packages/", "/lib/python3."):
        if marker in path:
            tail = path.split(marker, 1)[1]
            return tail.split("/", 1)[1] if marker.startswith("/lib") and "/" in tail else tail
    for marker in ("/react_agent/", "/app/", "/bench/", "/config/"):
        if marker in path:
            return marker.strip("/") + "/" + path.split(marker, 1)[1]
    return path


def category(path: str) -> str:
    """Return the library a frame's file belongs to (the first matching category wins)."""
    path = "/" + path.lstrip("/")
    # The SQLite checkpointer is langgraph too; name it apart, it matters.
    if "langgraph/checkpoint/sqlite" in path:
        return "langgraph checkpoint sqlite"
    for name, markers in CATEGORIES:
        if any(marker in path for marker in markers):
            return name
    if path.startswith("<") or not path:
        return "other"
    return "other: " + _short(path).split("/")[0]


def component(paths: list[str]) -> str:
    """Return the area a stack belongs to (bench/report/areas.py, as cost_per_question)."""
    return area_of(paths)


def summarize_collapsed(
    text: str, top: int = 20, *, rate: float | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """Summarise collapsed stacks; percentages of all samples.

    With `rate` (samples per second) and `seconds`, also how much of the wall time the
    samples cover: with py-spy's `--gil`, how busy the GIL (the Python CPU) was.
    """
    by_component: Counter[str] = Counter()
    self_by_category: Counter[str] = Counter()
    self_by_function: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in text.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_parse(frame) for frame in stack.split(";") if frame]
        if not frames:
            continue
        total += count
        by_component[component([path for _, path in frames])] += count
        func, path = frames[-1]
        self_by_category[category(path)] += count
        self_by_function[f"{func} ({_short(path)})"] += count
        seen = set()
        for func, path in frames:
            key = f"{func} ({_short(path)})"
            if key not in seen:
                seen.add(key)
                inclusive[key] += count

    def pct(counter: Counter[str], limit: int) -> list[list[Any]]:
        return [[key, round(100 * n / total, 1)] for key, n in counter.most_common(limit)]

    if total == 0:
        return {"samples": 0}
    # Frames under (nearly) every stack say nothing: the event loop's own run methods.
    inclusive = Counter({k: n for k, n in inclusive.items() if n < 0.9 * total})
    summary: dict[str, Any] = {"samples": total}
    if rate and seconds:
        summary["samples_per_wall_second_pct"] = round(100 * total / (rate * seconds), 1)
    summary.update(
        {
            "by_component_pct": pct(by_component, len(AREAS) + 1),
            "self_by_library_pct": pct(self_by_category, 25),
            "self_top_functions_pct": pct(self_by_function, top),
            "inclusive_top_frames_pct": pct(inclusive, top + 10),
        }
    )
    return summary


def main(argv: list[str]) -> int:
    summary = summarize_collapsed(Path(argv[0]).read_text())
    print(json.dumps(summary, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
