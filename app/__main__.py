"""`python -m app`: serve with Hypercorn on HOST:PORT, in one process or N workers."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback

from pydantic import ValidationError

from app.observability.metrics_processes import prepare_worker_metrics, serve_metrics_port
from app.server.binding import AddressUnavailable
from app.server.opening import StartupFailure
from app.server.serving import hypercorn_config, run_event_loop, serve_forever
from app.server.workers import WorkerStartupFailure, refusal_for_workers, serve_workers
from config import Settings
from config.effective_settings import effective_settings_lines
from config.setting_problems import misspelt_settings, validation_problem
from react_agent.errors import ConfigurationError

CONFIGURATION_EXIT = 2
"""The exit status of a wrong setting (as argparse's for a wrong argument)."""
STARTUP_EXIT = 1
"""The exit status of any other failure to start (a taken port, a crash while opening)."""


def main(argv: list[str] | None = None) -> int:
    """Read the settings (and `--workers N`) and serve with one or N processes.

    Any failure to start is one line on stderr and a non-zero exit: 2 for a setting, 1
    otherwise; with LOG_LEVEL=debug the traceback comes before it.
    """
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
    try:
        settings = Settings()
    except ValidationError as exc:
        return refuse(validation_problem(exc, Settings), CONFIGURATION_EXIT, exc)
    if args.workers is not None:
        settings = settings.model_copy(update={"workers": args.workers})
    if args.print_config:
        print("\n".join(effective_settings_lines(settings)))
        return 0
    refusal = refusal_for_workers(settings)
    if refusal is not None:
        return refuse(refusal, CONFIGURATION_EXIT)
    for warning in misspelt_settings(os.environ, Settings):
        print(f"warning: {warning}", file=sys.stderr)
    try:
        prepare_worker_metrics(settings)  # before any worker starts and imports the metrics
        serve_metrics_port(settings)
        if settings.workers <= 1:
            run_event_loop(serve_forever(settings))
            return 0
        logging.basicConfig(level=settings.log_level.upper())
        return serve_workers(settings, hypercorn_config(settings))
    except ConfigurationError as exc:
        return refuse(exc.detail, CONFIGURATION_EXIT, exc, settings)
    except (AddressUnavailable, StartupFailure) as exc:
        return refuse(str(exc), STARTUP_EXIT, exc, settings)
    except WorkerStartupFailure as exc:
        return refuse(exc.line, exc.exit_code)


def refuse(
    line: str,
    exit_code: int,
    error: BaseException | None = None,
    settings: Settings | None = None,
) -> int:
    """Print why the service does not start, in one line (the traceback first at debug)."""
    level = settings.log_level if settings is not None else os.environ.get("LOG_LEVEL", "")
    if error is not None and level.lower() == "debug":
        traceback.print_exception(error, file=sys.stderr)
    print(f"error: {' '.join(line.split())}", file=sys.stderr)  # one line, whatever it holds
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
