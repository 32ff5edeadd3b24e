"""Turning on what the settings ask for: JSON logs, /metrics and its hooks, request spans."""

from __future__ import annotations

from typing import Any

from quart import Quart

from app.observability.log_redaction import install_log_redaction
from config import Settings
from config.masking import url_password

BARE_PASSWORD_MIN = 8
"""URL passwords this long are masked wherever they appear, not only inside their URL."""


def install_observability(app: Quart, settings: Settings) -> None:
    """Install the log format, metrics and tracing the settings turn on; nothing otherwise.

    What is off is not imported (prometheus-client, the OpenTelemetry SDK). Secrets are
    masked in every log line (app/observability/log_redaction), whatever the format.
    """
    secrets = configured_secrets(settings)
    if settings.log_format == "json":
        from app.observability.json_logs import use_json_logs

        use_json_logs(secrets)
    install_log_redaction(secrets)
    if settings.metrics:
        from app.observability.http_metrics import install_http_metrics

        install_http_metrics(app)
        if settings.metrics_port is None:
            from app.routes.operations import metrics

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
    """Return the secrets the settings hold (API keys, the LLM's key, the URLs' passwords)."""
    from app.http.auth import load_api_keys

    secrets = [key.secret.decode() for key in load_api_keys(settings).keys]
    if settings.openai_api_key is not None:
        secrets.append(settings.openai_api_key.get_secret_value())
    urls = (
        settings.data_database_url,
        settings.checkpoint_database_url,
        settings.memory_database_url,
        settings.openai_base_url,
        *data_source_urls(settings),
    )
    # Alone (outside their URL, which is masked whole) only the distinctive ones: a short
    # password such as "postgres" would mask every mention of the word.
    passwords = [password for password in map(url_password, urls) if password]
    return secrets + [password for password in passwords if len(password) >= BARE_PASSWORD_MIN]


def data_source_urls(settings: Settings) -> list[str]:
    """Return the URLs DATA_SOURCES names (none when it is unset or cannot be read)."""
    from react_agent.databases.federation.specs import parse_sources
    from react_agent.errors import ConfigurationError

    try:
        return [spec.url for spec in parse_sources(settings.data_sources or "")]
    except ConfigurationError:  # start-up stops on it with its own line
        return []
