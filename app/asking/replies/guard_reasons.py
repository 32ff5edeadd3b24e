"""The SQL guard's reasons in a person's language (the model keeps reading the English ones)."""

from __future__ import annotations

import re

# English reason (as react_agent/guard/sql_guard.py words it) → its zh-CN sentence.
_ZH_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"^SELECT … INTO is not allowed"),
        "不允许 SELECT … INTO：它会建表，而数据库是只读的",
    ),
    (
        re.compile(r"^(?P<k>[A-Z][A-Z ]*) is not allowed: the database is read-only"),
        "不允许 {k}：数据库是只读的",
    ),
    (
        re.compile(r"^(?P<k>[A-Z][A-Z ]*) is not allowed: only (a single )?(a )?read-only SELECT"),
        "不允许 {k}：只能执行一条只读的 SELECT 查询",
    ),
    (re.compile(r"^function (?P<k>\S+) is not allowed"), "不允许使用函数 {k}"),
    (re.compile(r"^database-qualified name (?P<k>\S+) is not allowed"), "不允许跨数据库引用 {k}"),
    (re.compile(r"^system table (?P<k>\S+) is not allowed"), "不允许读取系统表 {k}"),
    (re.compile(r"^table (?P<k>\S+) is not in the allowed list"), "表 {k} 不在可查询的范围内"),
    (re.compile(r"^the query could not be (read|parsed) as"), "无法解析这条 SQL"),
)


def guard_reason_for_people(reason: str, lang: str) -> str:
    """Return the guard's `reason` in `lang` (zh-CN when a known reason, else as it is)."""
    if lang != "zh-CN":
        return reason
    for pattern, words in _ZH_REASONS:
        found = pattern.match(reason)
        if found:
            return words.format(**found.groupdict())
    return reason
