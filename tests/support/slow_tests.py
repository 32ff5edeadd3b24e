"""Which tests are `slow`: those that start a process, a browser or a database server.

`tests/conftest.py` marks them at collection, so a new test classifies itself by what it
uses; `python -m pytest -m "not slow"` is the quick first run, plain `python -m pytest`
(and `.ci/run`) runs everything. A test is slow when any of these holds:

- a fixture it uses, at any depth, is named after a database server (`postgres`, `mysql`,
  `mariadb`) or a browser (`browser`, `chromium`);
- a parametrized fixture it uses takes a param named after one (`[postgres]`, `[mysql]`;
  a plain `parametrize` value, a SQL dialect's name for instance, does not count), or
  the test asks `request.getfixturevalue` for such a fixture (in the cases so named);
- its module is under one of SLOW_PATHS (the browser pages, the multi-process scale-out,
  newman);
- it, a fixture it uses, or a function of ours they call (followed through tests/)
  calls into a module of SLOW_MODULES (a `python -m app` or stdio MCP process, the bench's
  processes, a PostgreSQL cluster, MariaDB, Chromium) or names a call in SLOW_CALLS (a subprocess);
- it is marked `@pytest.mark.slow` by hand (load: thousands of requests, long corpora).

A test that none of these catches but costs over QUICK_CPU_SECONDS of CPU is named at the
end of the run (`CpuClock`), so it can be marked by hand.
"""

from __future__ import annotations

import inspect
import os
import types
from collections.abc import Iterable
from typing import Any

import pytest

SLOW_WORDS = ("postgres", "mysql", "mariadb", "browser", "chromium")
"""A fixture or parameter whose name holds one of these needs a server or a browser."""

SLOW_PATHS = ("tests/app/page/", "tests/app/scale_out/", "tests/postman/")
"""Folders whose every test drives Chromium, several processes or newman."""

SLOW_MODULES = (
    "subprocess",
    "playwright",
    "mcp.client.stdio",
    "bench.processes",
    "tests.support.service_process",
    "tests.support.held_runs",
    "tests.support.postgres",
    "tests.support.mysql",
    "tests.app.page.chat_page_support",
)
"""Calling anything defined in these starts a process, a browser or a database server."""

SLOW_CALLS = frozenset(
    {
        "create_subprocess_exec",
        "create_subprocess_shell",
        "Popen",
        "open_process",
        "async_playwright",
    }
)
"""Names whose call starts a process or a browser, whatever module they come from."""

QUICK_CPU_SECONDS = 3.0
"""A test of the quick run costing more CPU than this (setup and teardown in) is named."""

_FOLLOWED = "tests."  # functions of ours whose own calls are followed
_VERDICTS: dict[int, bool] = {}  # code object -> slow, once per session


def is_slow(item: pytest.Item) -> bool:
    """Whether `item` starts a process, a browser or a database server (see the module)."""
    path = item.path.as_posix()
    if any(f"/{folder}" in path for folder in SLOW_PATHS):
        return True
    if any(word in name for name in item.fixturenames for word in SLOW_WORDS):
        return True
    if any(word in value for value in _fixture_params(item) for word in SLOW_WORDS):
        return True
    if _asks_for_a_server(item):
        return True
    return any(_calls_slow(function, set()) for function in _functions(item))


def _asks_for_a_server(item: pytest.Item) -> bool:
    """Whether the test asks `request.getfixturevalue` for a server's fixture by name.

    Parametrized, only in the cases whose value names that server (`[postgres]`, not
    `[sqlite]`).
    """
    code = getattr(getattr(item, "obj", None), "__code__", None)
    if code is None or "getfixturevalue" not in set(_names(code)):
        return False
    if not any(word in text for text in _strings(code) for word in SLOW_WORDS):
        return False
    params = getattr(getattr(item, "callspec", None), "params", {})
    values = [str(value).lower() for value in params.values()]
    return not values or any(word in value for value in values for word in SLOW_WORDS)


def _fixture_params(item: pytest.Item) -> Iterable[str]:
    """Yield the params a parametrized fixture of `item` takes (not direct parametrize)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name, value in params.items():
        if any(getattr(d, "params", None) is not None for d in definitions.get(name, ())):
            yield str(value).lower()


def _functions(item: pytest.Item) -> Iterable[Any]:
    """Yield the test function and the functions of every fixture it uses."""
    function = getattr(item, "obj", None)
    if function is not None:
        yield function
    info = getattr(item, "_fixtureinfo", None)
    for definitions in getattr(info, "name2fixturedefs", {}).values():
        for definition in definitions:
            yield definition.func


def _calls_slow(function: Any, seen: set[int]) -> bool:
    """Whether `function`, or a function of ours it names, calls into a slow module."""
    function = inspect.unwrap(getattr(function, "__func__", function))
    code = getattr(function, "__code__", None)
    if code is None or id(code) in seen:
        return False
    seen.add(id(code))
    if id(code) not in _VERDICTS:
        _VERDICTS[id(code)] = _names_slow(code, getattr(function, "__globals__", {}), seen)
    return _VERDICTS[id(code)]


def _names_slow(code: types.CodeType, namespace: dict[str, Any], seen: set[int]) -> bool:
    for name in _names(code):
        if name in SLOW_CALLS:
            return True
        target = namespace.get(name)
        origin = _origin(target)
        if origin is None:
            continue
        if any(origin == module or origin.startswith(module + ".") for module in SLOW_MODULES):
            return True
        if not origin.startswith(_FOLLOWED):
            continue
        members = vars(target).values() if inspect.isclass(target) else [target]
        if any(_calls_slow(member, seen) for member in members):
            return True
    return False


def _names(code: types.CodeType) -> Iterable[str]:
    """Every global and attribute name `code` and the functions nested in it use."""
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _names(constant)


def _strings(code: types.CodeType) -> Iterable[str]:
    """Every string constant of `code` and of the functions nested in it."""
    for constant in code.co_consts:
        if isinstance(constant, str):
            yield constant
        elif isinstance(constant, types.CodeType):
            yield from _strings(constant)


def _origin(target: Any) -> str | None:
    """Return the module that defines `target` (or is it): a module, class or function."""
    if isinstance(target, types.ModuleType):
        return target.__name__
    if inspect.isclass(target) or inspect.isfunction(target) or inspect.ismethod(target):
        return getattr(target, "__module__", None)
    return None


class CpuClock:
    """The CPU each quick test costs this process and its children; the costly ones named."""

    def __init__(self) -> None:
        self.costly: list[tuple[float, str]] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None):
        """Time `item` in CPU seconds (not wall time: the machine may be shared)."""
        start = _cpu_seconds()
        yield
        spent = _cpu_seconds() - start
        if spent > QUICK_CPU_SECONDS and item.get_closest_marker("slow") is None:
            self.costly.append((spent, item.nodeid))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Name the quick tests that cost more than QUICK_CPU_SECONDS of CPU."""
        if not self.costly:
            return
        terminalreporter.section(f"quick tests over {QUICK_CPU_SECONDS:.0f} s of CPU")
        terminalreporter.line("mark them @pytest.mark.slow (tests/support/slow_tests.py):")
        for spent, nodeid in sorted(self.costly, reverse=True):
            terminalreporter.line(f"{spent:6.1f} s  {nodeid}")


def _cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system
