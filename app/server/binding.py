"""Binding HOST:PORT before anything starts, so a taken port is one line, not a traceback."""

from __future__ import annotations

import errno
import socket

from hypercorn.config import Config, Sockets

from config import Settings


class AddressUnavailable(Exception):
    """HOST:PORT cannot be listened on; the message says which setting to change."""


def bind_sockets(settings: Settings, config: Config) -> Sockets:
    """Bind Hypercorn's listening sockets now, before the app (pools, agent) starts.

    Hypercorn binds only after the app's start-up, and a failure there unwinds the
    half-started app into a long traceback; binding first fails at once, with nothing to
    close.

    Raises:
        AddressUnavailable: The address is taken, or cannot be used on this machine.

    """
    try:
        return config.create_sockets()
    except OSError as exc:
        raise AddressUnavailable(address_problem(settings, exc)) from exc


def address_problem(settings: Settings, exc: OSError) -> str:
    """Return the one line that says why HOST:PORT cannot be used and what to set."""
    where = f"{settings.host}:{settings.port}"
    if exc.errno == errno.EADDRINUSE:
        other = free_port_after(settings.host, settings.port)
        example = f", e.g. PORT={other} python -m app" if other is not None else ""
        return (
            f"{where} is already in use (another instance of the service?); "
            f"set PORT to a free port{example}"
        )
    if exc.errno == errno.EACCES:
        return f"not allowed to listen on {where}; set PORT to one above 1023"
    reason = exc.strerror or str(exc)
    return f"cannot listen on {where} ({reason}); set HOST to an address of this machine"


def free_port_after(host: str, port: int, tries: int = 20) -> int | None:
    """Return the first port after `port` that `host` can bind now, or None within `tries`."""
    for candidate in range(port + 1, min(port + 1 + tries, 65536)):
        try:
            with socket.create_server((host, candidate)):
                return candidate
        except OSError:
            continue
    return None
