"""The slow-model level's parts that run without a benchmark: options, FD counting, limits."""

from __future__ import annotations

import os
import resource
import socket
import tempfile

import pytest

from bench.measure.fds import fd_breakdown, raise_open_files_limit, tree_fds
from bench.options import FULL_RUNS_MAX_ACTIVE, FULL_SLOW_STREAMS, parse_args


def test_the_full_form_has_the_slow_level_and_one_admission_side_the_quick_form_neither() -> None:
    full = parse_args([])
    quick = parse_args(["--quick"])

    assert (full.slow_streams, full.runs_max_active) == (FULL_SLOW_STREAMS, [FULL_RUNS_MAX_ACTIVE])
    assert (quick.slow_streams, quick.runs_max_active) == (0, [])


def test_runs_max_active_limits_are_sorted_without_duplicates_or_zero() -> None:
    args = parse_args(["--quick", "--runs-max-active", "64,16,0,16"])

    assert args.runs_max_active == [16, 64]


def test_slow_only_needs_streams() -> None:
    with pytest.raises(SystemExit):
        parse_args(["--slow-only", "--slow-streams", "0"])


def test_tree_fds_counts_files_this_process_opens() -> None:
    with tempfile.TemporaryFile() as a, tempfile.TemporaryFile() as b:
        before = tree_fds(os.getpid())
        extra = [os.dup(a.fileno()), os.dup(b.fileno()), os.dup(a.fileno())]
        try:
            assert tree_fds(os.getpid()) == before + 3
        finally:
            for fd in extra:
                os.close(fd)


def test_fd_breakdown_tells_client_connections_from_model_connections() -> None:
    with (
        socket.create_server(("127.0.0.1", 0)) as server,
        socket.create_server(("127.0.0.1", 0)) as model,
    ):
        server_port, model_port = server.getsockname()[1], model.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", server_port))
        accepted, _ = server.accept()
        to_model = socket.create_connection(("127.0.0.1", model_port))
        try:
            kinds = fd_breakdown(os.getpid(), server_port, model_port)
        finally:
            for sock in (client, accepted, to_model):
                sock.close()

    # Accepted on the server's port: a client connection; dialled to the model's port: a
    # model connection; the listeners and the client's own end are other sockets.
    assert kinds["client_connections"] == 1
    assert kinds["model_connections"] == 1
    assert kinds["other_sockets"] >= 3


def test_the_open_files_limit_is_raised_within_the_hard_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        wanted = soft + 10 if hard == resource.RLIM_INFINITY else min(soft + 10, hard)
        assert raise_open_files_limit(wanted) >= wanted
        assert raise_open_files_limit(soft) >= wanted  # never lowered
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
