"""`python -m app`: serve with Hypercorn on HOST:PORT, in one process or N workers."""

from __future__ import annotations

import argparse
import logging
import sys

from app.observability.metrics_processes import prepare_worker_metrics, serve_metrics_port
from app.server.binding import AddressUnavailable
from app.server.serving import hypercorn_config, run_event_loop, serve_forever
from app.server.workers import refusal_for_workers, serve_workers
from config import Settings
from config.effective_settings import effective_settings_lines


def main(argv: list[str] | None = None) -> int:
    """Read the settings (and `--workers N`) and serve with one or N processes."""
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    parser.add_argument(
        "--workers", type=int, help="processes serving HOST:PORT (default: WORKERS, or 1)"
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print the settings in effect (secrets masked) and exit",
    )
    args = parser.parse_args(argv)
    settings = Settings()
    if args.workers is not None:
        settings = settings.model_copy(update={"workers": args.workers})
    if args.print_config:
        print("\n".join(effective_settings_lines(settings)))
        return 0
    refusal = refusal_for_workers(settings)
    if refusal is not None:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    prepare_worker_metrics(settings)  # before any worker starts and imports the metrics
    serve_metrics_port(settings)
    try:
        if settings.workers <= 1:
            run_event_loop(serve_forever(settings))
            return 0
        logging.basicConfig(level=settings.log_level.upper())
        return serve_workers(settings, hypercorn_config(settings))
    except AddressUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
