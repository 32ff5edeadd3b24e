"""Ranking blocks for a query: Chinese bigrams, English words, table names and result ids."""

from __future__ import annotations

from react_agent.history.search import rank_blocks, terms


def block(turn: int, question: str, sql: str, tables: list[str], result_id: str) -> dict:
    """Return a block with one query."""
    return {
        "block_id": f"turn-{turn}",
        "turn": turn,
        "question": question,
        "queries": [{"sql": sql, "result_id": result_id, "rows": 1}],
        "tables": tables,
        "columns": [],
        "summary": "",
    }


BLOCKS = [
    block(1, "每个地区的销售额是多少", "SELECT region_name FROM regions", ["regions"], "call_a1"),
    block(
        2,
        "How many customers signed up in 2024?",
        "SELECT COUNT(*) FROM customers",
        ["customers"],
        "call_b2",
    ),
    block(3, "最畅销的商品有哪些", "SELECT product_name FROM products", ["products"], "call_c3"),
    block(
        4, "Which store had the most orders?", "SELECT store_id FROM orders", ["orders"], "call_d4"
    ),
]


def ranked_turns(query: str, limit: int = 3) -> list[int]:
    """Return the turns of the blocks found for `query`, best first."""
    return [found["turn"] for _, found in rank_blocks(query, BLOCKS, {}, limit)]


def test_terms_are_cjk_bigrams_and_latin_words_with_their_parts():
    assert terms("地区销售 order_items.qty") == [
        "地区",
        "区销",
        "销售",
        "order_items.qty",
        "order",
        "items",
        "qty",
    ]
    assert terms("量") == ["量"]


def test_a_chinese_query_finds_its_block_first():
    assert ranked_turns("上次问的地区销售额")[0] == 1
    assert ranked_turns("畅销商品")[0] == 3


def test_an_english_query_finds_its_block_first():
    assert ranked_turns("customers who signed up")[0] == 2
    assert ranked_turns("the store with most orders")[0] == 4


def test_a_table_name_or_a_result_id_finds_its_block():
    assert ranked_turns("products")[0] == 3
    assert ranked_turns("call_d4")[0] == 4


def test_a_query_matching_nothing_finds_nothing():
    assert ranked_turns("weather tomorrow") == []
    assert ranked_turns("") == []
