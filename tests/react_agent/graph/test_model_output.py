"""The repetition rule: loops of every shape are caught, real answers, tables and SQL never."""

from __future__ import annotations

import pytest

from react_agent.graph.model_output import RepetitionWatch, repeating

LOOPS = {
    "one word": "the " * 100,
    "one character": "好" * 300,
    "blank lines": "答案如下" + "\n" * 300,
    "a sentence": "华东地区的销售额最高。" * 30,
    "a sentence after a real start": "根据查询结果，" + "华东地区最高，其次是华南地区。" * 20,
    "a long paragraph": ("The total sales of the east region were the highest of all. " * 3 + "\n")
    * 12,
    "a line among changing ones": "".join(
        f"{i}. 华东地区的销售额最高\n华东地区的销售额最高\n" for i in range(20)
    ),
    "a tool call's arguments": '{"sql": "SELECT 1' + " UNION SELECT 1" * 40,
}

ANSWERS = {
    "short answer": "华东地区的销售额最高，为 1,234,567.89 元。",
    "markdown table": "| 地区 | 销售额 |\n| --- | --- |\n"
    + "".join(f"| 地区{i} | {1000 + 37 * i}.00 |\n" for i in range(60)),
    "numbered list": "\n".join(f"{i}. 门店 {i} 的订单数为 {i * 13 % 97}" for i in range(1, 80)),
    "sql": "SELECT r.region_name, SUM(o.total_amount) FROM orders o JOIN stores s ON "
    "s.store_id = o.store_id JOIN regions r ON r.region_id = s.region_id GROUP BY 1 ORDER BY 2",
    "a short separator": "结果\n" + "-" * 40 + "\n共 7 行",
    "csv of dates": "\n".join(
        f"2024-{m:02d}-{d:02d},{d * m}" for m in range(1, 13) for d in (1, 15)
    ),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_loop_is_caught(name: str):
    assert repeating(LOOPS[name])


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_real_answer_is_not(name: str):
    assert not repeating(ANSWERS[name])


def test_a_streamed_loop_is_caught_soon_after_it_starts():
    watch = RepetitionWatch()
    text = "根据查询结果，" + "销售额最高的是华东地区。" * 200
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    caught_at = next(n for n, piece in enumerate(pieces, 1) if watch.add(piece))
    seen = sum(len(p) for p in pieces[:caught_at])
    assert seen < 400 < len(text)
    assert watch.text() == text[:seen]


def test_a_streamed_real_answer_is_never_stopped():
    watch = RepetitionWatch()
    text = ANSWERS["markdown table"] + ANSWERS["numbered list"]
    assert not any(watch.add(text[i : i + 3]) for i in range(0, len(text), 3))
