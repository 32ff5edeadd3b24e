"""What a test needs from the machine: skipped without it, failed instead under REQUIRE_*=1."""

from __future__ import annotations

import os

import pytest


def skip_or_fail(missing: str | None, require_env: str) -> None:
    """Return if nothing is `missing`; else skip the test, or fail it when `require_env` is 1.

    CI sets the REQUIRE_* variables, so that a server or tool it was meant to have fails
    the run instead of leaving its tests skipped.
    """
    if missing is None:
        return
    if os.environ.get(require_env) == "1":
        pytest.fail(f"{missing}, but {require_env}=1", pytrace=False)
    pytest.skip(f"{missing}; set {require_env}=1 to make this a failure")
