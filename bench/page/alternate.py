"""Two checkouts' pages measured in alternation, one round each in turn, pooled per checkout.

    PYTHONPATH=. python -m bench.page.alternate --before /path/to/old/checkout --rounds 3 \
        --out bench/results/52-page.json

Each round runs `bench.page.frames` (this checkout's script) in a fresh process with
PYTHONPATH at one checkout, so that checkout's app and page are served; rounds alternate
before, after, before, ... so the machine's load falls on both alike. The pooled figures of
each side (`frames.summarise`) go to `--out` as the runs "before" and "after", which
`bench.page.figure` draws. A benchmark: it reports, never fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.page.frames import summarise

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]


def one_round(checkout: Path, label: str, out: Path) -> dict[str, Any]:
    """Run one round of the frames script against `checkout`; return its raw result."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, str(HERE.parent / "frames.py"), "--label", label, "--rounds", "1"]
    subprocess.run([*command, "--out", str(out)], env=env, check=True, cwd=ROOT)
    return next(r for r in json.loads(out.read_text()) if r["label"] == label)


def as_round(result: dict[str, Any]) -> dict[str, Any]:
    """Turn one run's summary back into the round `summarise` pools."""
    return {
        "first_screen_s": result["first_screen_s"],
        "frames": result["frame_ms"],
        "frames_while_drawing": result.get("drawing_frame_ms", []),
        "page_height_px": result["page_height_px"],
        "load": result["load_average"][0],
    }


def main() -> None:
    """Alternate the two checkouts' rounds and write each side's pooled figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the baseline checkout")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout measured")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/52-page.json"))
    options = parser.parse_args()
    raw = Path(tempfile.mkdtemp(prefix="page-alternate-")) / "rounds.json"
    sides: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for n in range(options.rounds):
        for side in ("before", "after"):
            checkout = options.before if side == "before" else options.after
            sides[side].append(as_round(one_round(checkout, f"{side}-{n}", raw)))
    runs = []
    for side, rounds in sides.items():
        loads = [r["load"] for r in rounds]
        runs.append({"label": side, "load_average": [max(loads)], **summarise(rounds)})
    options.out.write_text(json.dumps(runs, ensure_ascii=False, indent=1) + "\n")
    for run in runs:
        print(json.dumps({k: v for k, v in run.items() if not k.endswith("frame_ms")}))


if __name__ == "__main__":
    main()
