"""The guard's reasons as people read them: zh-CN sentences, English left as it is."""

from __future__ import annotations

import pytest

from app.asking.replies.guard_reasons import guard_reason_for_people
from react_agent.guard.sql_guard import QueryRejected, check_query


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("DELETE FROM regions", "不允许 DELETE"),
        ("DROP TABLE regions", "不允许 DROP"),
        ("SELECT * FROM sqlite_master", "不允许读取系统表"),
        ("SELEC nonsense ((", "无法解析这条 SQL"),
    ],
)
def test_the_guards_own_refusals_read_as_chinese_sentences(sql: str, expected: str) -> None:
    with pytest.raises(QueryRejected) as refused:
        check_query(sql, "sqlite", None)
    reason = str(refused.value)

    assert guard_reason_for_people(reason, "zh-CN").startswith(expected), reason
    assert guard_reason_for_people(reason, "en-US") == reason


def test_an_unknown_reason_is_left_as_it_is() -> None:
    assert guard_reason_for_people("something new", "zh-CN") == "something new"
