"""Docs that cannot drift: every page in the site's nav, the short pages stay short."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MAX_README_LINES = 200


def _nav_files(entries: list) -> list[str]:
    """Return the files a mkdocs nav names, at any depth."""
    files: list[str] = []
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            files.extend(_nav_files(value) if isinstance(value, list) else [value])
    return files


def test_every_page_of_docs_is_in_the_nav_and_every_nav_entry_exists():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    named = _nav_files(config["nav"])
    pages = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    assert sorted(set(pages) - set(named)) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(set(named) - set(pages)) == [], "nav entries without a page"
    assert len(named) == len(set(named)), "a page listed twice"


@pytest.mark.parametrize("readme", ["README.md", "bench/README.md"])
def test_the_readmes_stay_short(readme: str):
    lines = (ROOT / readme).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"{readme}: {len(lines)} lines (logs: bench/results/)"


def test_every_bench_results_file_is_listed_in_the_bench_readme():
    readme = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    logs = sorted(path.name for path in (ROOT / "bench" / "results").glob("*.md"))
    assert logs, "bench/results/ holds the run logs"
    assert [name for name in logs if f"results/{name}" not in readme] == []


def test_runtime_state_of_langgraph_dev_is_ignored():
    assert ".langgraph_api/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
