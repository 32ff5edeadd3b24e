"""The `slow` classifier: what starts a process, a browser or a database server is slow."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.openai_stub import OpenAIStub
from tests.support.postgres import create_test_database
from tests.support.service_process import start_service_process
from tests.support.slow_tests import is_slow

ROOT = Path(__file__).resolve().parent.parent


def _item(
    function: Any = None,
    *,
    path: str = "tests/app/asking/test_example.py",
    fixtures: dict[str, Any] | None = None,
    param_id: str | None = None,
) -> Any:
    """Return what is_slow reads of a collected test, for a test written as `function`."""
    fixtures = fixtures or {}
    return SimpleNamespace(
        path=ROOT / path,
        fixturenames=list(fixtures),
        callspec=SimpleNamespace(params={"engine": param_id}) if param_id is not None else None,
        obj=function or (lambda: None),
        _fixtureinfo=SimpleNamespace(
            name2fixturedefs={
                **{name: [SimpleNamespace(func=f, params=None)] for name, f in fixtures.items()},
                "engine": [SimpleNamespace(func=_plain, params=("sqlite", param_id))],
            }
        ),
    )


def _runs_a_process() -> None:
    subprocess.run(["true"], check=True)


def _starts_the_service(tmp_path: Path) -> None:
    start_service_process(tmp_path)


def _helper_that_makes_a_database() -> str:
    return create_test_database("postgresql://postgres@127.0.0.1:5432/postgres")


def _calls_the_helper() -> None:
    _helper_that_makes_a_database()


def _uses_the_stub_in_process() -> None:
    with OpenAIStub():
        pass


def _plain() -> None:
    assert 1 + 1 == 2


@pytest.mark.parametrize(
    "item",
    [
        _item(path="tests/app/page/test_example.py"),
        _item(path="tests/app/scale_out/test_example.py"),
        _item(fixtures={"postgres_database": _plain}),
        _item(fixtures={"mysql_sample_url": _plain}),
        _item(fixtures={"browser": _plain}),
        _item(param_id="postgres"),
        _item(param_id="mysql-2"),
        _item(_runs_a_process),
        _item(_starts_the_service),
        _item(_calls_the_helper),
        _item(fixtures={"service": _runs_a_process}),
    ],
    ids=[
        "browser-pages",
        "scale-out",
        "postgres-fixture",
        "mysql-fixture",
        "browser-fixture",
        "postgres-param",
        "mysql-param",
        "subprocess",
        "service-process",
        "helper-through-helper",
        "fixture-runs-a-process",
    ],
)
def test_what_starts_a_process_a_browser_or_a_server_is_slow(item: Any):
    assert is_slow(item)


@pytest.mark.parametrize(
    "item",
    [
        _item(_plain),
        _item(_uses_the_stub_in_process, fixtures={"settings": _plain}),
        _item(param_id="sqlite"),
        _item(param_id="duckdb"),
    ],
    ids=["plain", "in-process-stub", "sqlite-param", "duckdb-param"],
)
def test_what_runs_in_process_is_quick(item: Any):
    assert not is_slow(item)


def test_the_marker_is_registered_and_set_at_collection(request: pytest.FixtureRequest):
    markers = request.config.getini("markers")
    assert any(marker.startswith("slow:") for marker in markers)
    assert request.node.get_closest_marker("slow") is None


async def _asks_for_postgres(store: str, request: Any) -> None:
    if store == "postgres":
        request.getfixturevalue("postgres_database")


def test_a_test_asking_for_a_server_by_name_is_slow_in_that_case_only():
    postgres = _item(_asks_for_postgres)
    postgres.callspec = SimpleNamespace(params={"store": "postgres"})
    sqlite = _item(_asks_for_postgres)
    sqlite.callspec = SimpleNamespace(params={"store": "sqlite"})
    assert is_slow(postgres)
    assert not is_slow(sqlite)
