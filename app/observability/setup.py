"""Turning on what the settings ask for: JSON logs, /metrics and its hooks, request spans."""

from __future__ import annotations

from typing import Any

from quart import Quart

from config import Settings


def install_observability(app: Quart, settings: Settings) -> None:
    """Install the log format, metrics and tracing the settings turn on; nothing otherwise.

    What is off is not imported (prometheus-client, the OpenTelemetry SDK).
    """
    if settings.log_format == "json":
        from app.observability.json_logs import use_json_logs

        use_json_logs(configured_secrets(settings))
    if settings.metrics:
        from app.observability.http_metrics import install_http_metrics

        install_http_metrics(app)
        if settings.metrics_port is None:
            from app.routes import metrics

            app.register_blueprint(metrics.blueprint)
    if settings.otel_traces_exporter or settings.otel_exporter_otlp_endpoint:
        from react_agent.observability.tracing import configure_tracing, tracing_enabled

        if tracing_enabled(settings):
            from app.observability.http_tracing import install_http_tracing

            configure_tracing(settings)
            install_http_tracing(app)


def open_streams_gauge(settings: Settings) -> Any | None:
    """Return the gauge of open streams when metrics are on, else None."""
    if not settings.metrics:
        return None
    from react_agent.observability.metrics import process_metrics

    return process_metrics().streams_open


def configured_secrets(settings: Settings) -> list[str]:
    """Return the secrets the settings hold (API keys, the LLM's key), to mask in logs."""
    from app.auth import load_api_keys

    secrets = [key.secret.decode() for key in load_api_keys(settings).keys]
    if settings.openai_api_key is not None:
        secrets.append(settings.openai_api_key.get_secret_value())
    return secrets
