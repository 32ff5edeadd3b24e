"""Settings of metrics, traces and structured logs (docs/observability.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings


class ObservabilitySettings(BaseSettings):
    """Prometheus metrics, OpenTelemetry traces and the log format; all off by default."""

    metrics: bool = Field(
        default=False,
        description="Serve Prometheus metrics at GET /metrics (METRICS=on).",
    )
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Serve /metrics on this port instead of the service's (no API key there).",
    )
    prometheus_multiproc_dir: str | None = Field(
        default=None,
        description=(
            "Directory where workers keep their metrics for /metrics to add up "
            "(several workers; a fresh temporary directory when unset)."
        ),
    )
    otel_exporter_otlp_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP collector base URL, e.g. http://127.0.0.1:4318 (turns traces on).",
    )
    otel_exporter_otlp_traces_endpoint: str | None = Field(
        default=None,
        description="Full OTLP/HTTP traces URL, when it is not the endpoint plus /v1/traces.",
    )
    otel_traces_exporter: str | None = Field(
        default=None,
        description="otlp or console turns traces on; none (or unset) keeps them off.",
    )
    otel_service_name: str = Field(
        default="sql-react-agent", description="service.name of the traces."
    )
    log_format: Literal["text", "json"] = Field(
        default="text", description="text, or json: one JSON object per log line."
    )
