"""`python -m app` with a wrong setting exits with one line naming it, never half-started."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.service_process import READY_TIMEOUT, REPO_ROOT, service_environment

CONCURRENT_STARTS = 3
"""Processes started at once: more only share the same cores."""

POLICY_UNKNOWN_KEY = "default_role: r\nroles:\n  r:\n    tables: [orders]\n    tabels: [stores]\n"
POLICY_MISSING_COLUMN = (
    "default_role: r\nroles:\n  r:\n    tables: [orders]\n"
    '    row_filters:\n      orders: "no_such_column = 1"\n'
)
POLICY_INVALID_YAML = "default_role: r\nroles: [unclosed\n"


@dataclass(frozen=True)
class BadStart:
    """One wrong setting: the environment it takes, the setting and words its line names."""

    env: dict[str, str]
    setting: str
    names: tuple[str, ...] = ()
    policy: str | None = None
    secret: str | None = None


BAD_STARTS = {
    "policy-unknown-key": BadStart(
        {}, "POLICY_FILE", ("policy.yaml:5", "tabels"), POLICY_UNKNOWN_KEY
    ),
    "policy-missing-column": BadStart(
        {}, "POLICY_FILE", ("policy.yaml:6", "no_such_column"), POLICY_MISSING_COLUMN
    ),
    "policy-invalid-yaml": BadStart(
        {}, "POLICY_FILE", ("policy.yaml:", "not valid YAML"), POLICY_INVALID_YAML
    ),
    "policy-missing-file": BadStart({"POLICY_FILE": "no-such-policy.yaml"}, "POLICY_FILE"),
    "policy-without-api-keys": BadStart(
        {},
        "POLICY_FILE",
        ("API_KEYS", "AUTH_TRUSTED_GATEWAY=true"),
        (REPO_ROOT / "config" / "policy.sample.yaml").read_text(encoding="utf-8"),
    ),
    "port-not-a-number": BadStart({"PORT": "abc"}, "PORT", ("abc",)),
    "api-keys-file-missing": BadStart({"API_KEYS_FILE": "no-such-keys.txt"}, "API_KEYS_FILE"),
    "data-url-unsupported-scheme": BadStart(
        {"DATA_DATABASE_URL": "nosuchdb://scott:tiger@db.example:1521/orcl"},
        "DATA_DATABASE_URL",
        ("nosuchdb", "postgresql://"),
        secret="tiger",
    ),
    "data-url-driver-missing": BadStart(
        {"DATA_DATABASE_URL": "oracle+oracledb://scott:tiger@db.example:1521/orcl"},
        "DATA_DATABASE_URL",
        ("oracle://", 'pip install ".[oracle]"'),
        secret="tiger",
    ),
    "checkpoint-url-unsupported-scheme": BadStart(
        {"CHECKPOINT_DATABASE_URL": "mysql://app:hunter2@db/x"},
        "CHECKPOINT_DATABASE_URL",
        ("mysql",),
        secret="hunter2",
    ),
    "api-key-forgotten": BadStart({"API_KEYS": "=alice,bob"}, "API_KEYS", ("before '='",)),
    "api-keys-joined-by-comma": BadStart(
        {"API_KEYS": "key-one-secret,key-two-secret"}, "API_KEYS", ("comma",), "key-one-secret"
    ),
    "timeout-negative": BadStart({"LLM_TIMEOUT": "-1"}, "LLM_TIMEOUT"),
}


@dataclass(frozen=True)
class Outcome:
    returncode: int
    stderr: str
    stdout: str


def start(bad: BadStart, folder: Path) -> subprocess.Popen[str]:
    """Start `python -m app` with one wrong setting (and a configured LLM, never called)."""
    folder.mkdir()
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", **bad.env}
    if bad.policy is not None:
        (folder / "policy.yaml").write_text(bad.policy, encoding="utf-8")
        env["POLICY_FILE"] = str(folder / "policy.yaml")
    return subprocess.Popen(
        [sys.executable, "-m", "app"],
        cwd=REPO_ROOT,
        env=service_environment(env, folder),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> Outcome:
    """Wait for the process to exit on its own; kill it (and fail) if it keeps serving."""
    try:
        stdout, stderr = process.communicate(timeout=READY_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        pytest.fail(f"still running after {READY_TIMEOUT:g} s (half-started?): {stderr[-2000:]}")
    return Outcome(process.returncode, stderr, stdout)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Start the bad starts a few at a time (each mostly waits on imports); how each ended."""
    root = tmp_path_factory.mktemp("bad-starts")
    with ThreadPoolExecutor(max_workers=CONCURRENT_STARTS) as pool:
        ended = pool.map(lambda name: finish(start(BAD_STARTS[name], root / name)), BAD_STARTS)
        return dict(zip(BAD_STARTS, ended, strict=True))


@pytest.mark.parametrize("name", list(BAD_STARTS))
def test_a_wrong_setting_stops_the_start_with_one_line_naming_it(
    outcomes: dict[str, Outcome], name: str
) -> None:
    bad, outcome = BAD_STARTS[name], outcomes[name]

    assert outcome.returncode == 2, outcome.stderr
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith(f"error: {bad.setting}"), lines[0]
    for word in bad.names:
        assert word in lines[0]
    assert "Traceback" not in outcome.stderr and "Running on" not in outcome.stderr
    if bad.secret is not None:
        assert bad.secret not in outcome.stderr + outcome.stdout


def test_the_traceback_comes_only_at_the_debug_log_level(tmp_path: Path) -> None:
    bad = BAD_STARTS["policy-unknown-key"]
    debug = BadStart({"LOG_LEVEL": "DEBUG"}, bad.setting, policy=bad.policy)

    outcome = finish(start(debug, tmp_path / "debug"))

    assert outcome.returncode == 2
    assert "Traceback" in outcome.stderr
    assert outcome.stderr.strip().splitlines()[-1].startswith("error: POLICY_FILE")


def test_every_worker_failing_to_open_is_one_line_from_the_supervisor(
    postgres_database: str, tmp_path: Path
) -> None:
    bad = BAD_STARTS["policy-unknown-key"]
    workers = BadStart(
        {"WORKERS": "2", "CHECKPOINT_DATABASE_URL": postgres_database},
        bad.setting,
        policy=bad.policy,
    )

    outcome = finish(start(workers, tmp_path / "workers"))

    assert outcome.returncode == 2, outcome.stderr
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: POLICY_FILE"), outcome.stderr


def test_a_misspelt_setting_is_named_on_the_console_with_the_one_it_meant(tmp_path: Path) -> None:
    misspelt = BadStart({"POLICY_FLIE": "policy.yaml", "API_KEYS": "=alice"}, "API_KEYS")

    outcome = finish(start(misspelt, tmp_path / "misspelt"))

    assert outcome.returncode == 2
    assert outcome.stderr.strip().splitlines() == [
        "warning: POLICY_FLIE (in the environment) is not a setting; did you mean POLICY_FILE?",
        "error: API_KEYS line 1, entry 1: no key before '=' (write key=alice,bob) "
        "(docs/api-keys.md)",
    ]
