"""Several input faults of one request, reported together as one 400 error."""

from __future__ import annotations

from react_agent.errors import ServiceError


class InputFaults(ServiceError):
    """A 400 for every fault found in a request; the first one gives the code and message.

    Args:
        faults: The faults, in the order the request's fields are checked (at least one).

    """

    def __init__(self, faults: list[ServiceError]) -> None:
        first = faults[0]
        super().__init__(
            400,
            first.error_type,
            "; ".join(fault.detail for fault in faults),
            can_retry=first.can_retry,
            **first.params,
        )
        self.faults = faults


def raise_faults(faults: list[ServiceError]) -> None:
    """Raise the one fault found, or all of them together; return when there are none."""
    if len(faults) == 1:
        raise faults[0]
    if faults:
        raise InputFaults(faults)
