"""A lasting trouble is one line when it starts, a reminder a minute, one line when over."""

from __future__ import annotations

import logging
import os

from react_agent.access.policy_file.policy_source import PolicySource
from react_agent.log_reminders import RepeatedWarnings, TroubleLog


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_repeated_trouble_is_one_line_then_a_reminder_a_minute(caplog):
    clock = Clock()
    troubles = TroubleLog(logging.getLogger("t.reminders"), remind_every=60.0, clock=clock)
    caplog.set_level(logging.INFO, "t.reminders")

    for _ in range(120):  # two a second for a minute
        troubles.trouble("db", "PostgreSQL is down")
        clock.now += 0.5
    troubles.trouble("db", "PostgreSQL is down")  # 60 s after the first line

    lines = [record.getMessage() for record in caplog.records]
    assert lines == [
        "PostgreSQL is down",
        "PostgreSQL is down (still; 120 times since the last line)",
    ]


def test_a_changed_text_is_written_at_once_and_the_end_once(caplog):
    clock = Clock()
    troubles = TroubleLog(logging.getLogger("t.reminders"), clock=clock)
    caplog.set_level(logging.INFO, "t.reminders")

    troubles.trouble("db", "refused")
    troubles.trouble("db", "timed out")
    troubles.over("db", "back")
    troubles.over("db", "back")
    troubles.over("never-in-trouble", "back")

    assert [r.getMessage() for r in caplog.records] == ["refused", "timed out", "back"]
    assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING", "INFO"]
    assert not troubles.in_trouble("db")


def test_a_librarys_repeated_warning_passes_once(caplog):
    library = logging.getLogger("t.library")
    quiet = RepeatedWarnings()
    library.addFilter(quiet)
    caplog.set_level(logging.INFO, "t.library")
    try:
        for _ in range(50):
            library.warning("error connecting in %r: %s", "pool-1", "connection refused")
        library.info("an info line always passes")
        library.info("an info line always passes")
    finally:
        library.removeFilter(quiet)

    assert [r.getMessage() for r in caplog.records] == [
        "error connecting in 'pool-1': connection refused",
        "an info line always passes",
        "an info line always passes",
    ]


def test_a_deleted_policy_file_is_one_warning_not_one_per_request(tmp_path, caplog):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text("default_role: r\nroles:\n  r:\n    tables: '*'\n", encoding="utf-8")
    source = PolicySource(policy_file)
    caplog.set_level(logging.INFO, "react_agent.access.policy_file.policy_source")

    os.remove(policy_file)
    policies = {id(source.current()) for _ in range(200)}  # 200 requests
    policy_file.write_text("default_role: r\nroles:\n  r:\n    tables: '*'\n", encoding="utf-8")
    source.current()

    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "unreadable" in warnings[0].getMessage()
    assert any("readable again" in r.getMessage() for r in caplog.records)
    assert len(policies) == 1  # the last policy kept meanwhile


def test_without_a_quiet_period_every_trouble_is_written(caplog):
    troubles = TroubleLog(logging.getLogger("t.reminders"), remind_every=0.0)
    caplog.set_level(logging.INFO, "t.reminders")
    for _ in range(3):
        troubles.trouble("k", "x")
    assert len(caplog.records) == 3
