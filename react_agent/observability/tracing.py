"""OpenTelemetry's tracer provider, set up once per process (imported only when traces are on)."""

from __future__ import annotations

import logging
import threading

from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
)

from config import Settings

logger = logging.getLogger(__name__)

TRACER_NAME = "react_agent"
TRACES_PATH = "/v1/traces"
"""Added to OTEL_EXPORTER_OTLP_ENDPOINT, as the OTLP/HTTP specification says."""

_configured = threading.Lock()
_done = False


def tracing_enabled(settings: Settings) -> bool:
    """Return whether traces are on: an exporter or an OTLP endpoint is configured."""
    exporter = (settings.otel_traces_exporter or "").strip().lower()
    if exporter == "none":
        return False
    return bool(exporter or settings.otel_exporter_otlp_endpoint)


def configure_tracing(settings: Settings) -> None:
    """Install a tracer provider exporting as the settings say; once per process.

    A provider installed before (a test's, with an in-memory exporter) is kept, and
    gets the configured exporter added beside its own.
    """
    global _done
    with _configured:
        if _done:
            return
        _done = True
        current = trace.get_tracer_provider()
        if isinstance(current, TracerProvider):
            provider = current
        else:
            resource = Resource.create({SERVICE_NAME: settings.otel_service_name})
            provider = TracerProvider(resource=resource)
            trace.set_tracer_provider(provider)
        exporter = _exporter(settings)
        if exporter is not None:
            provider.add_span_processor(BatchSpanProcessor(exporter))


def flush_traces(timeout_ms: int = 10_000) -> bool:
    """Export every finished span now; False when they did not all go out in time."""
    provider = trace.get_tracer_provider()
    return not isinstance(provider, TracerProvider) or provider.force_flush(timeout_ms)


def tracer() -> trace.Tracer:
    """Return the service's tracer."""
    return trace.get_tracer(TRACER_NAME)


def _exporter(settings: Settings) -> SpanExporter | None:
    kind = (settings.otel_traces_exporter or "otlp").strip().lower()
    if kind == "console":
        return ConsoleSpanExporter()
    if kind != "otlp":
        logger.warning("OTEL_TRACES_EXPORTER=%s is not supported (otlp, console, none)", kind)
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    endpoint = settings.otel_exporter_otlp_traces_endpoint
    if endpoint is None and settings.otel_exporter_otlp_endpoint:
        endpoint = settings.otel_exporter_otlp_endpoint.rstrip("/") + TRACES_PATH
    # With no endpoint at all, the exporter's default (localhost:4318) applies.
    return OTLPSpanExporter(endpoint=endpoint) if endpoint else OTLPSpanExporter()
