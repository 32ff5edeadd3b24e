"""The sub-agent benchmark: both sides answer, and it reports wall time and prompt sizes."""

from __future__ import annotations

import re

from bench.agent.subagents import compare


async def test_the_delegating_parent_reads_a_smaller_prompt_once_parts_take_rounds():
    lines = await compare([3], latency=0.001, repeats=1)

    row = lines[-1]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[0] == "3"
    assert float(cells[1]) > 0 and float(cells[2]) > 0
    single, split = (int(re.match(r"\d+", cell).group()) for cell in cells[3:5])
    assert split < single
