"""Over HTTP, no error text anyone receives carries a customer's name or another region's row.

alice (region 1) asks; the scripted model sends SQL whose database errors would quote
values (JSON paths built from customer names and other regions' stores), then answers
with the last tool result it read. The answer, the stream's tool results and the
conversation's detail must name no customer and no store outside region 1, while still
saying what went wrong.
"""

from __future__ import annotations

import json
import sqlite3

from langchain_core.messages import BaseMessage

from react_agent.sample_data import SAMPLE_DB_PATH
from tests.app.access.test_access_policy import bearer, governed, model  # noqa: F401
from tests.support.scripted_model import answer, call_tool
from tests.support.sse import collect_stream

HOSTILE = [
    "SELECT json_extract('{}', customer_name) FROM customers",
    "SELECT * FROM customers WHERE customer_id = {out_customer} "
    "AND json_extract('{}', customer_name || city) IS NULL",
    "SELECT json_extract('{}', '$[' || store_name) FROM stores",
    "SELECT * FROM stores WHERE store_id = {out_store} AND json_extract('{}', store_name) IS NULL",
    "SELECT * FROM orders WHERE order_id = {out_order} "
    "AND json_extract('{}', status || total_amount) IS NULL",
    "SELECT c.customer_id FROM customers c JOIN stores s ON s.region_id = c.region_id "
    "AND json_extract('{}', c.customer_name || s.store_name) IS NULL",
]


def _forbidden() -> tuple[set[str], dict[str, int]]:
    """Return every customer name and every store name outside region 1, and ids outside."""
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        names = {row[0] for row in connection.execute("SELECT customer_name FROM customers")}
        stores = {
            row[0]
            for row in connection.execute("SELECT store_name FROM stores WHERE region_id <> 1")
        }
        ids = {
            "out_customer": connection.execute(
                "SELECT min(customer_id) FROM customers WHERE region_id <> 1"
            ).fetchone()[0],
            "out_store": connection.execute(
                "SELECT min(store_id) FROM stores WHERE region_id <> 1"
            ).fetchone()[0],
            "out_order": connection.execute(
                "SELECT min(order_id) FROM orders JOIN stores USING (store_id) WHERE region_id <> 1"
            ).fetchone()[0],
        }
    return names | stores, ids


def _echo_last_tool_result(messages: list[BaseMessage]):
    return answer(f"the database said: {messages[-1].content}")


async def test_errors_reach_the_model_stream_answer_and_detail_without_values(governed, model):  # noqa: F811
    forbidden, ids = _forbidden()
    statements = [sql.replace("{out_customer}", str(ids["out_customer"])) for sql in HOSTILE]
    statements = [
        sql.replace("{out_store}", str(ids["out_store"])).replace(
            "{out_order}", str(ids["out_order"])
        )
        for sql in statements
    ]
    for sql in statements:
        model.replies.extend([call_tool("run_sql", sql=sql), _echo_last_tool_result])
    seen = []
    for sql in statements:
        events = await collect_stream(
            governed.http,
            json={"question": "try this", "stream_tools": True},
            headers=bearer("alice"),
        )
        types = [event.type for event in events]
        assert "completed" in types, types
        completed = events[types.index("completed")].data
        detail = await governed.http.get(
            f"/api/v0/react/conversations/{completed['conversation_id']}",
            params={"include_tools": "true"},
            headers=bearer("alice"),
        )
        assert detail.status_code == 200, detail.text
        streamed = json.dumps([event.envelope for event in events], ensure_ascii=False)
        seen.append((sql, streamed, detail.text))
    model_read = "\n".join(str(m.content) for batch in model.seen for m in batch)
    errors = 0
    for sql, streamed, detail in seen:
        for surface, text in (("stream", streamed), ("detail", detail)):
            leaked = sorted(value for value in forbidden if value in text)
            assert leaked == [], f"{sql}: the {surface} carries {leaked[:3]}"
        errors += "JSON path error near" in streamed
    assert not [value for value in forbidden if value in model_read]
    assert errors >= 3, "the corpus should make SQLite raise (and say what went wrong)"
