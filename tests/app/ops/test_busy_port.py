"""A second `python -m app` on a port in use says so in one line, naming PORT."""

from __future__ import annotations

import errno
import socket
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from app.server.binding import address_problem, free_port_after
from config import Settings
from tests.support.service_process import (
    REPO_ROOT,
    health_status,
    service_environment,
    start_service_process,
    start_stub_llm,
)


def test_a_second_instance_on_a_busy_port_exits_with_one_line_naming_port(tmp_path):
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    with (
        start_stub_llm() as llm_url,
        start_service_process({"OPENAI_BASE_URL": llm_url}, first_dir) as base_url,
    ):
        port = urlsplit(base_url).port
        env = service_environment({"OPENAI_BASE_URL": llm_url, "PORT": str(port)}, second_dir)
        second = subprocess.run(
            [sys.executable, "-m", "app"],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 1
        output = (second.stdout + second.stderr).strip()
        assert "\n" not in output, output
        assert output.startswith(f"error: 127.0.0.1:{port} is already in use"), output
        assert "set PORT to a free port" in output
        assert "Traceback" not in output
        # The first instance never noticed.
        assert health_status(base_url) == 200


def test_the_suggested_port_is_free_and_not_the_taken_one():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        suggestion = free_port_after("127.0.0.1", port)
        assert suggestion is not None and suggestion > port
        with socket.create_server(("127.0.0.1", suggestion)):
            pass  # it really could be bound


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (errno.EADDRINUSE, "set PORT to a free port"),
        (errno.EACCES, "set PORT to one above 1023"),
        (errno.EADDRNOTAVAIL, "set HOST to an address of this machine"),
    ],
)
def test_each_bind_failure_names_the_setting_to_change(code, expected):
    settings = Settings(_env_file=None, host="127.0.0.1", port=8084)
    line = address_problem(settings, OSError(code, "reason"))
    assert expected in line and "127.0.0.1:8084" in line and "\n" not in line
