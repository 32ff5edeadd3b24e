"""Fixtures of the observability tests: the process's tracer provider and an OTLP receiver.

A process has one global tracer provider, so it is set once per session with an
in-memory exporter (for the spans' details), and the service adds its OTLP exporter
to it, aimed at one receiver started for the session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.otlp_receiver import OTLPReceiver, otlp_receiver
from tests.support.scripted_model import ScriptedChatModel


@pytest.fixture(scope="session")
def span_exporter() -> InMemorySpanExporter:
    """Return the in-memory exporter of the process's tracer provider (set here, once)."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


@pytest.fixture(scope="session")
def receiver() -> Iterator[OTLPReceiver]:
    """Run the OTLP/HTTP receiver the service exports to, for the whole session."""
    with otlp_receiver() as running:
        yield running
        provider = trace.get_tracer_provider()
        if isinstance(provider, TracerProvider):
            provider.force_flush(10_000)  # nothing left to send once the receiver is gone


@pytest.fixture
def traced_settings(
    settings: Settings, receiver: OTLPReceiver, span_exporter: InMemorySpanExporter
) -> Settings:
    """Return settings with traces on, exported to the receiver; the exporter emptied."""
    span_exporter.clear()
    return settings.model_copy(
        update={"otel_exporter_otlp_endpoint": receiver.url, "stream_resume_grace": 0.0}
    )


@pytest.fixture
def model() -> ScriptedChatModel:
    """Return an empty scripted model; each test writes its script."""
    return ScriptedChatModel()


@pytest.fixture
async def traced(
    traced_settings: Settings, model: ScriptedChatModel
) -> AsyncIterator[ServiceClient]:
    """Yield the service with traces on, served over real HTTP."""
    async with running_service(traced_settings, model=model) as client:
        yield client


def flush_spans() -> None:
    """Export every finished span now (the OTLP exporter batches them)."""
    provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider)
    assert provider.force_flush(10_000)
