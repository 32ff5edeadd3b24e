"""PostgreSQL for tests: find or start a server and hand out throwaway databases."""

from __future__ import annotations

import atexit
import functools
import glob
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from config.masking import mask_url_password
from tests.support.requirements import skip_or_fail

DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
# Unset: probe DEFAULT_SERVER_URL. A URL: probe that instead. "none": probe nothing and go
# straight to a throwaway cluster (also how to exercise that path on a machine with a server).
SERVER_URL_ENV = "TEST_POSTGRES_URL"
# "1" turns "no PostgreSQL available" from a skip into a failure, e.g. in CI.
REQUIRE_ENV = "REQUIRE_POSTGRES"

_CONNECT_TIMEOUT_SECONDS = 3
_COMMAND_TIMEOUT_SECONDS = 120
_START_ATTEMPTS = 3  # a free port can be taken by someone else before the server binds it
# Root may not run initdb; these are tried in order to run the throwaway cluster as.
_UNPRIVILEGED_USERS = ("postgres", "nobody")

_created_databases: dict[str, str] = {}  # test database URL -> server URL it was created on


class _ClusterUnavailableError(Exception):
    """A throwaway cluster could not be started; the message says why."""


@dataclass(frozen=True)
class _Discovery:
    url: str | None
    notes: tuple[str, ...]  # what was tried and why it did not work, for skip messages


def postgres_server_url() -> str | None:
    """Return the URL of a PostgreSQL server tests may create databases on, or None.

    Tries, in order: the server named by `TEST_POSTGRES_URL` (or the local default
    `postgresql://postgres@127.0.0.1:5432/postgres` when unset; nothing when set to
    `none`), then a throwaway cluster started with `initdb`/`pg_ctl` and stopped at
    interpreter exit. The answer is computed once per process.
    """
    return _discover().url


def postgres_unavailable_reason() -> str:
    """Say what `postgres_server_url` tried that did not work (empty if its first try did)."""
    return "; ".join(_discover().notes)


@functools.cache
def _discover() -> _Discovery:
    notes: list[str] = []
    configured = os.environ.get(SERVER_URL_ENV, "").strip()
    if configured.lower() == "none":
        notes.append(f"{SERVER_URL_ENV}=none, so no running server was probed")
    else:
        url = configured or DEFAULT_SERVER_URL
        problem = _connection_problem(url)
        if problem is None:
            return _Discovery(url, ())
        notes.append(f"cannot connect to {_redacted(url)}: {problem}")
    try:
        return _Discovery(_start_throwaway_cluster(), tuple(notes))
    except _ClusterUnavailableError as error:
        notes.append(f"no throwaway cluster: {error}")
        return _Discovery(None, tuple(notes))


def _connection_problem(url: str) -> str | None:
    try:
        with psycopg.connect(url, connect_timeout=_CONNECT_TIMEOUT_SECONDS, autocommit=True):
            return None
    except psycopg.Error as error:
        return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _redacted(url: str) -> str:
    return mask_url_password(url)  # the service's one masking of URL passwords


# ------------------------------------------------------------------ throwaway cluster


def _postgres_bin_dir() -> Path | None:
    """Return a directory holding both initdb and pg_ctl: PATH first, then Debian's layout."""
    initdb = shutil.which("initdb")
    if initdb is not None:
        # Debian symlinks only some tools onto PATH; the real directory has them all.
        directory = Path(initdb).resolve().parent
        if (directory / "pg_ctl").exists():
            return directory
    candidates = glob.glob("/usr/lib/postgresql/*/bin")
    # Newest major version first; compare numerically so 10 sorts after 9.
    for candidate in sorted(candidates, key=_major_version, reverse=True):
        directory = Path(candidate)
        if (directory / "initdb").exists() and (directory / "pg_ctl").exists():
            return directory
    return None


def _major_version(bin_dir: str) -> tuple[int, str]:
    version = Path(bin_dir).parent.name
    return (int(version), version) if version.isdigit() else (-1, version)


def _unprivileged_user() -> pwd.struct_passwd | None:
    for name in _UNPRIVILEGED_USERS:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def _command_as(user: str | None, command: list[str]) -> list[str]:
    """Wrap `command` so it runs as `user` (None: as ourselves)."""
    if user is None:
        return command
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    if runuser is not None:
        return [runuser, "-u", user, "--", *command]
    su = shutil.which("su")
    if su is not None:
        return [su, user, "-s", "/bin/sh", "-c", shlex.join(command)]
    raise _ClusterUnavailableError(
        f"running as root, and neither runuser nor su is available to run initdb as {user}"
    )


def _run(command: list[str], *, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=_COMMAND_TIMEOUT_SECONDS,
        check=False,
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _start_throwaway_cluster() -> str:
    """Initialise and start a private cluster; return its URL. Cleanup runs at exit."""
    cluster = start_restartable_cluster()
    atexit.register(cluster.destroy)
    return cluster.url


def _init_cluster() -> tuple[Path, Path, Path, str | None]:
    """Run initdb in a new temporary directory; return (bin dir, base, data dir, OS user)."""
    bin_dir = _postgres_bin_dir()
    if bin_dir is None:
        raise _ClusterUnavailableError(
            "initdb and pg_ctl are neither on PATH nor in /usr/lib/postgresql/*/bin"
        )
    user: str | None = None
    base = Path(tempfile.mkdtemp(prefix="pytest-postgres-"))
    try:
        if os.geteuid() == 0:  # initdb refuses to run as root
            account = _unprivileged_user()
            if account is None:
                raise _ClusterUnavailableError(
                    "running as root and none of the users "
                    f"{', '.join(_UNPRIVILEGED_USERS)} exists to run initdb as"
                )
            user = account.pw_name
            os.chown(base, account.pw_uid, account.pw_gid)
        data_dir = base / "data"
        initdb = _run(
            _command_as(
                user,
                [
                    str(bin_dir / "initdb"),
                    f"--pgdata={data_dir}",
                    "--username=postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-sync",  # the cluster is thrown away, durability is pointless
                ],
            ),
            cwd=base,
        )
        if initdb.returncode != 0:
            raise _ClusterUnavailableError(
                f"initdb failed (exit {initdb.returncode}): {initdb.stderr.strip()[-500:]}"
            )
    except (OSError, subprocess.SubprocessError) as error:  # e.g. a hung initdb timing out
        shutil.rmtree(base, ignore_errors=True)
        raise _ClusterUnavailableError(f"{type(error).__name__}: {error}") from error
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    return bin_dir, base, data_dir, user


def _pg_ctl_start(
    bin_dir: Path, data_dir: Path, base: Path, user: str | None, port: int
) -> subprocess.CompletedProcess[str]:
    server_options = " ".join(
        [
            "-c listen_addresses=127.0.0.1",
            f"-c port={port}",
            # Keep the socket private to this cluster instead of the shared /var/run dir.
            f"-c unix_socket_directories={shlex.quote(str(base))}",
            "-c fsync=off",
            "-c synchronous_commit=off",
            "-c full_page_writes=off",
        ]
    )
    return _run(
        _command_as(
            user,
            [
                str(bin_dir / "pg_ctl"),
                "start",
                f"--pgdata={data_dir}",
                f"--log={base / 'postgres.log'}",
                f"--options={server_options}",
                "--wait",  # pg_ctl itself polls until the server accepts connections
                "--timeout=60",
            ],
        ),
        cwd=base,
    )


def _start_server(bin_dir: Path, data_dir: Path, base: Path, user: str | None) -> str:
    log_file = base / "postgres.log"
    failure = ""
    for _ in range(_START_ATTEMPTS):
        port = _free_port()
        start = _pg_ctl_start(bin_dir, data_dir, base, user, port)
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        if start.returncode == 0:
            problem = _connection_problem(url)
            if problem is None:
                return url
            failure = f"server started but refuses connections: {problem}"
            _stop_server(bin_dir, data_dir, base, user)
        else:
            failure = (
                f"pg_ctl start failed (exit {start.returncode}): "
                f"{start.stderr.strip()[-300:]} log: {_tail(log_file)}"
            )
    raise _ClusterUnavailableError(failure)


def _stop_server(bin_dir: Path, data_dir: Path, base: Path, user: str | None) -> None:
    command = [str(bin_dir / "pg_ctl"), "stop", f"--pgdata={data_dir}", "--mode=immediate"]
    try:
        _run(_command_as(user, command), cwd=base)
    except (OSError, subprocess.SubprocessError, _ClusterUnavailableError):
        pass  # best effort: the process is exiting and the directory goes next anyway


def _stop_cluster(bin_dir: Path, data_dir: Path, base: Path, user: str | None) -> None:
    _stop_server(bin_dir, data_dir, base, user)
    shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------ a cluster to stop and start


class RestartableCluster:
    """A private cluster a test may stop and start again on the same port.

    For fault tests only: the machine's own server is never stopped.

    Args:
        bin_dir: Directory of pg_ctl.
        data_dir: The cluster's data directory.
        base: The temporary directory holding it (and its socket and log).
        user: The OS user the server runs as (None: this process's).
        port: The TCP port on 127.0.0.1 it listens on.

    """

    def __init__(
        self, bin_dir: Path, data_dir: Path, base: Path, user: str | None, port: int
    ) -> None:
        self.bin_dir = bin_dir
        self.data_dir = data_dir
        self.base = base
        self.user = user
        self.port = port

    @property
    def url(self) -> str:
        """The URL of the cluster's `postgres` database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        result = _pg_ctl_start(self.bin_dir, self.data_dir, self.base, self.user, self.port)
        if result.returncode != 0:
            raise RuntimeError(
                f"pg_ctl start failed (exit {result.returncode}): {result.stderr.strip()[-300:]} "
                f"log: {_tail(self.base / 'postgres.log')}"
            )

    def stop(self) -> None:
        """Stop the server the way an operator restarting it would (sessions are ended)."""
        command = [str(self.bin_dir / "pg_ctl"), "stop", f"--pgdata={self.data_dir}"]
        result = _run(_command_as(self.user, [*command, "--mode=fast", "--wait"]), cwd=self.base)
        if result.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed: {result.stderr.strip()[-300:]}")

    def destroy(self) -> None:
        """Stop the server if it runs and delete the cluster."""
        _stop_cluster(self.bin_dir, self.data_dir, self.base, self.user)


def unreachable_postgres_url() -> str:
    """Return a PostgreSQL URL on a local port that nothing listens on."""
    return f"postgresql://postgres@127.0.0.1:{_free_port()}/postgres"


def start_restartable_cluster() -> RestartableCluster:
    """Initialise and start a private cluster the caller may stop, start and must destroy."""
    bin_dir, base, data_dir, user = _init_cluster()
    try:
        url = _start_server(bin_dir, data_dir, base, user)
    except (OSError, subprocess.SubprocessError) as error:  # e.g. a hung pg_ctl timing out
        shutil.rmtree(base, ignore_errors=True)
        raise _ClusterUnavailableError(f"{type(error).__name__}: {error}") from error
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    port = urlsplit(url).port
    assert port is not None
    return RestartableCluster(bin_dir, data_dir, base, user, port)


# ------------------------------------------------------------------ per-test databases


def _with_database(url: str, database: str) -> str:
    """Return `url` pointing at `database` instead, keeping host, user and options."""
    if "://" in url:
        return urlunsplit(urlsplit(url)._replace(path="/" + quote(database)))
    return make_conninfo(url, dbname=database)


def create_test_database(server_url: str, *, icu_locale: str | None = None) -> str:
    """Create a fresh, uniquely named database on the server and return its URL.

    The database is UTF-8 with the C collation, so Chinese text round-trips and
    ORDER BY results are the same on every machine.

    Args:
        server_url: URL of a database on the server, as from `postgres_server_url`.
        icu_locale: Sort text by this ICU locale instead (e.g. "en-US", as many real
            databases do); needs PostgreSQL 15 built with ICU.

    """
    name = f"t_{uuid.uuid4().hex[:12]}"
    collation = sql.SQL("LC_COLLATE 'C' LC_CTYPE 'C'")
    if icu_locale:
        collation = sql.SQL("LOCALE_PROVIDER icu ICU_LOCALE {} LOCALE 'C'").format(
            sql.Literal(icu_locale)
        )
    with psycopg.connect(
        server_url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_SECONDS
    ) as connection:
        connection.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8' {}").format(
                sql.Identifier(name), collation
            )
        )
    url = _with_database(server_url, name)
    _created_databases[url] = server_url
    return url


def drop_test_database(url: str) -> None:
    """Drop a database made by `create_test_database`, closing any connections still open.

    Args:
        url: The URL `create_test_database` returned.

    """
    name = conninfo_to_dict(url)["dbname"]
    # A database cannot be dropped from inside itself; go through the server's own database.
    maintenance_url = _created_databases.pop(url, None) or _with_database(url, "postgres")
    with psycopg.connect(
        maintenance_url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_SECONDS
    ) as connection:
        # FORCE (PostgreSQL 13+) disconnects sessions a test forgot to close.
        force = sql.SQL(" WITH (FORCE)" if connection.info.server_version >= 130000 else "")
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {}{}").format(sql.Identifier(str(name)), force)
        )


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """Give the URL of a PostgreSQL server; skip the test when none is available.

    With `REQUIRE_POSTGRES=1` a missing server fails the test instead of skipping it.
    """
    url = postgres_server_url()
    if url is None:
        skip_or_fail(f"PostgreSQL is not available ({postgres_unavailable_reason()})", REQUIRE_ENV)
    return url


@pytest.fixture
def restartable_postgres() -> Iterator[RestartableCluster]:
    """Give a private cluster the test may stop and start; skip when none can be made.

    With `REQUIRE_POSTGRES=1` a cluster that cannot be made fails the test instead.
    """
    try:
        cluster = start_restartable_cluster()
    except _ClusterUnavailableError as error:
        skip_or_fail(f"no PostgreSQL cluster to restart: {error}", REQUIRE_ENV)
    try:
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture
def postgres_database(postgres_url: str) -> Iterator[str]:
    """Give the URL of a fresh empty database, dropped again after the test."""
    url = create_test_database(postgres_url)
    try:
        yield url
    finally:
        drop_test_database(url)
