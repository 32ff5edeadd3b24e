"""tests/support/requirements: a missing server or tool skips a test, or fails it in CI."""

from __future__ import annotations

import pytest

from tests.support.requirements import skip_or_fail

ENV = "REQUIRE_SOMETHING_FOR_THIS_TEST"


def test_nothing_missing_lets_the_test_go_on(monkeypatch):
    monkeypatch.setenv(ENV, "1")
    assert skip_or_fail(None, ENV) is None


def test_something_missing_skips_and_says_how_to_make_it_a_failure(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        skip_or_fail("the widget is not installed", ENV)
    assert str(skipped.value) == f"the widget is not installed; set {ENV}=1 to make this a failure"


@pytest.mark.parametrize("value", ["0", ""])
def test_only_one_turns_the_skip_into_a_failure(monkeypatch, value):
    monkeypatch.setenv(ENV, value)
    with pytest.raises(pytest.skip.Exception):
        skip_or_fail("the widget is not installed", ENV)


def test_something_missing_fails_when_it_is_required(monkeypatch):
    monkeypatch.setenv(ENV, "1")
    with pytest.raises(pytest.fail.Exception) as failed:
        skip_or_fail("the widget is not installed", ENV)
    assert str(failed.value) == f"the widget is not installed, but {ENV}=1"
