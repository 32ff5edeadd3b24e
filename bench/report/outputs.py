"""The benchmark's outputs: results.json, results.md (tables) and latency.png (plot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.report.markdown import markdown
from bench.report.plot import plot


def write_outputs(results: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write the three files; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "results.json"
    json_path.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    md_path = out_dir / "results.md"
    md_path.write_text(markdown(results))
    png_path = out_dir / "latency.png"
    try:
        plot(results, png_path)
    except Exception as exc:  # the numbers matter more than the picture
        print(f"bench: could not draw {png_path}: {exc}", flush=True)
    return [json_path, md_path, png_path]
