"""ModelCallOutcomes: what a model call's end says about the LLM server, and what it does not."""

from __future__ import annotations

import asyncio

import httpx
import openai

from react_agent.graph.model_calls import ModelCallOutcomes

REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")


def status_error(status: int) -> openai.APIStatusError:
    response = httpx.Response(status, request=REQUEST, json={"error": {"message": "no"}})
    return openai.APIStatusError("no", response=response, body=None)


def test_nothing_is_known_before_the_first_call():
    assert ModelCallOutcomes().report() == {
        "ok": None,
        "last_call": None,
        "calls": 0,
        "failures": 0,
    }


def test_an_unreachable_server_then_an_answer_is_reachable_again():
    outcomes = ModelCallOutcomes()
    outcomes.on_llm_error(openai.APIConnectionError(request=REQUEST))
    report = outcomes.report()
    assert report["ok"] is False and report["last_call"]["error_type"] == "LLM_UNAVAILABLE"
    outcomes.on_llm_end(response=None)
    report = outcomes.report()
    assert report["ok"] is True and report["last_call"]["ok"] is True
    assert report["calls"] == 2 and report["failures"] == 1
    assert "error_type" not in report["last_call"]


def test_a_refused_call_is_a_failure_of_a_reachable_server():
    outcomes = ModelCallOutcomes()
    outcomes.on_llm_error(status_error(400))
    assert outcomes.report()["ok"] is True
    assert outcomes.report()["last_call"]["error_type"] == "LLM_BAD_REQUEST"
    outcomes.on_llm_error(status_error(502))
    assert outcomes.report()["ok"] is False


def test_a_cancelled_call_or_a_bug_of_ours_says_nothing_about_the_server():
    outcomes = ModelCallOutcomes()
    outcomes.on_llm_end(response=None)
    outcomes.on_llm_error(asyncio.CancelledError())
    outcomes.on_llm_error(KeyError("ours"))
    report = outcomes.report()
    assert report["ok"] is True and report["calls"] == 1 and report["failures"] == 0
