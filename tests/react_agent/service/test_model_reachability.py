"""ModelReachability: what a model call's end says about the LLM server, and what it does not."""

from __future__ import annotations

import httpx
import openai

from react_agent.errors import classify_exception
from react_agent.runs.events.listeners import ModelCalled
from react_agent.runs.run import Run
from react_agent.service.model_reachability import ModelReachability

REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
RUN = Run("wang1:t1", "zh-CN")


def status_error(status: int) -> openai.APIStatusError:
    response = httpx.Response(status, request=REQUEST, json={"error": {"message": "no"}})
    return openai.APIStatusError("no", response=response, body=None)


def answered() -> ModelCalled:
    return ModelCalled(model="gpt-4o-mini", outcome="ok", seconds=0.2)


def failed(error: BaseException) -> ModelCalled:
    """Return a failed call's event, classified as react_agent.runs.events.listener_reports does."""
    problem = classify_exception(error)
    return ModelCalled(
        model="gpt-4o-mini",
        outcome="error",
        seconds=0.2,
        error_type=problem.error_type,
        error=problem.detail,
    )


def test_nothing_is_known_before_the_first_call():
    assert ModelReachability().report() == {
        "ok": None,
        "last_call": None,
        "calls": 0,
        "failures": 0,
    }


def test_an_unreachable_server_then_an_answer_is_reachable_again():
    outcomes = ModelReachability()
    outcomes.on_run_event(RUN, failed(openai.APIConnectionError(request=REQUEST)))
    report = outcomes.report()
    assert report["ok"] is False and report["last_call"]["error_type"] == "LLM_UNAVAILABLE"
    outcomes.on_run_event(RUN, answered())
    report = outcomes.report()
    assert report["ok"] is True and report["last_call"]["ok"] is True
    assert report["calls"] == 2 and report["failures"] == 1
    assert "error_type" not in report["last_call"]


def test_a_refused_call_is_a_failure_of_a_reachable_server():
    outcomes = ModelReachability()
    outcomes.on_run_event(RUN, failed(status_error(400)))
    assert outcomes.report()["ok"] is True
    assert outcomes.report()["last_call"]["error_type"] == "LLM_BAD_REQUEST"
    outcomes.on_run_event(RUN, failed(status_error(502)))
    assert outcomes.report()["ok"] is False


def test_a_cancelled_call_a_bug_of_ours_or_another_event_says_nothing_about_the_server():
    outcomes = ModelReachability()
    outcomes.on_run_event(RUN, answered())
    outcomes.on_run_event(RUN, ModelCalled(model="gpt-4o-mini", outcome="cancelled", seconds=1))
    outcomes.on_run_event(RUN, failed(KeyError("ours")))
    outcomes.on_run_event(RUN, object())
    report = outcomes.report()
    assert report["ok"] is True and report["calls"] == 1 and report["failures"] == 0
