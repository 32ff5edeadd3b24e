"""The load generator's HTTP client: room for every concurrent stream, no proxy."""

from __future__ import annotations

import httpx

REQUEST_TIMEOUT = 180.0
"""Seconds one question may take before the client gives up on it (counted as failed)."""


def new_client(concurrency: int) -> httpx.AsyncClient:
    """Return an HTTP client with room for every concurrent stream (and keep-alive)."""
    limits = httpx.Limits(
        max_connections=concurrency + 16, max_keepalive_connections=concurrency + 16
    )
    timeout = httpx.Timeout(REQUEST_TIMEOUT, connect=60.0)
    # trust_env=False: no proxy from the environment may sit between client and server.
    return httpx.AsyncClient(limits=limits, timeout=timeout, trust_env=False)
