"""Exceptions raised while answering become the ServiceError a client sees."""

from __future__ import annotations

import httpx
import openai
import psycopg
import pytest
from psycopg_pool import PoolTimeout

from react_agent.errors import ServiceError, classify_exception

LLM_URL = "http://llm.invalid/v1/chat/completions"


def llm_response(status: int) -> httpx.Response:
    """Return an LLM endpoint's HTTP response with `status`."""
    return httpx.Response(status, request=httpx.Request("POST", LLM_URL))


def status_error(error_class: type[openai.APIStatusError], status: int) -> openai.APIStatusError:
    """Return the error the OpenAI client raises for an answer with `status`."""
    return error_class(f"status {status}", response=llm_response(status), body=None)


@pytest.mark.parametrize(
    ("exc", "status", "error_type"),
    [
        (openai.APITimeoutError(request=httpx.Request("POST", LLM_URL)), 504, "LLM_TIMEOUT"),
        (TimeoutError("slow"), 504, "LLM_TIMEOUT"),
        (status_error(openai.RateLimitError, 429), 503, "LLM_RATE_LIMITED"),
        (status_error(openai.AuthenticationError, 401), 503, "LLM_AUTH_FAILED"),
        (status_error(openai.PermissionDeniedError, 403), 503, "LLM_AUTH_FAILED"),
        (
            openai.APIConnectionError(request=httpx.Request("POST", LLM_URL)),
            503,
            "LLM_UNAVAILABLE",
        ),
        (status_error(openai.InternalServerError, 502), 503, "LLM_UNAVAILABLE"),
        (status_error(openai.BadRequestError, 400), 503, "LLM_BAD_REQUEST"),
        (psycopg.OperationalError("server closed"), 503, "CHECKPOINTER_UNAVAILABLE"),
        (PoolTimeout("no connection"), 503, "CHECKPOINTER_UNAVAILABLE"),
        (KeyError("boom"), 500, "AGENT_FAILED"),
    ],
)
def test_each_kind_of_failure_gets_its_status_and_code_and_may_be_retried(exc, status, error_type):
    error = classify_exception(exc)

    assert (error.status, error.error_type) == (status, error_type)
    # The API promises can_retry on every 503 and 504; a 500 may be a passing fault too.
    assert error.can_retry is True


def test_a_service_error_passes_through_unchanged():
    original = ServiceError(409, "THREAD_BUSY", "busy")

    assert classify_exception(original) is original


def test_the_detail_names_the_llm_status_and_the_unexpected_exception():
    assert "HTTP 429" in classify_exception(status_error(openai.RateLimitError, 429)).detail
    assert classify_exception(KeyError("boom")).detail == "KeyError: 'boom'"
    assert "server closed" in classify_exception(psycopg.OperationalError("server closed")).detail


def test_asyncio_timeouts_count_as_model_timeouts():
    assert classify_exception(TimeoutError()).error_type == "LLM_TIMEOUT"
