"""The load generator's HTTP clients: room for every concurrent stream, no proxy."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import httpx

from bench.drivers.question import Question, Sample

REQUEST_TIMEOUT = 180.0
"""Seconds one question may take before the client gives up on it (counted as failed)."""


def new_client(concurrency: int, request_timeout: float = REQUEST_TIMEOUT) -> httpx.AsyncClient:
    """Return an HTTP client with room for every concurrent stream (and keep-alive)."""
    limits = httpx.Limits(
        max_connections=concurrency + 16, max_keepalive_connections=concurrency + 16
    )
    timeout = httpx.Timeout(request_timeout, connect=60.0)
    # trust_env=False: no proxy from the environment may sit between client and server.
    return httpx.AsyncClient(limits=limits, timeout=timeout, trust_env=False)


SHARD_CONNECTIONS = 32
"""Most connections per httpx client of the load generator. httpcore's connection pool
scans its requests and connections at every request and response, so its CPU grows with
the square of its size: 2,000 requests to the stub (2 s each) at once took 99 s through one
client of 2,000 connections, 31.6 s (p50) through clients of 400, 4.9 s through clients
of 25. Spreading the streams over small clients keeps the load generator from measuring
itself."""


@asynccontextmanager
async def sharded_question(
    make_ask: Callable[[httpx.AsyncClient], Question],
    concurrency: int,
    request_timeout: float = REQUEST_TIMEOUT,
) -> AsyncIterator[Question]:
    """Yield a question spread over clients of at most SHARD_CONNECTIONS connections.

    Worker `w` always asks through client `w % shards`, so no client has more than
    SHARD_CONNECTIONS questions in flight when workers are numbered from 0.
    """
    shards = max(1, math.ceil(concurrency / SHARD_CONNECTIONS))
    size = min(concurrency, SHARD_CONNECTIONS)
    async with AsyncExitStack() as stack:
        asks = [
            make_ask(await stack.enter_async_context(new_client(size, request_timeout)))
            for _ in range(shards)
        ]

        async def ask(index: int, worker: int) -> Sample:
            return await asks[worker % shards](index, worker)

        yield ask
