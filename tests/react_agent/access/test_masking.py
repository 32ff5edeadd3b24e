"""Sensitive values: which result columns carry them, and their tokens at the model boundary."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.scoping.rewrite import apply_scope
from react_agent.access.sensitive.masking import mask_for_model, token_for
from tests.react_agent.access.conftest import POLICY_FILE
from tests.react_agent.access.test_policy_file import CATALOG


@pytest.fixture(scope="module")
def east():
    policy = load_policy(POLICY_FILE, CATALOG)
    return policy.scope_for(policy.actor_for("alice"))


@pytest.mark.parametrize(
    ("sql", "sensitive"),
    [
        ("SELECT customer_name, city FROM customers", {0}),
        ("SELECT * FROM customers", {1}),
        ("SELECT upper(customer_name) AS who FROM customers", {0}),
        ("WITH t AS (SELECT customer_name AS n FROM customers) SELECT n AS m FROM t", {0}),
        ("SELECT count(DISTINCT customer_name) AS people FROM customers", set()),
        ("SELECT c.customer_name, count(*) AS n FROM customers c GROUP BY 1", {0}),
        ("SELECT store_name FROM stores", set()),
    ],
)
def test_result_columns_carrying_a_sensitive_column_are_found(east, sql, sensitive):
    marked = apply_scope(sql, "sqlite", east, CATALOG).sensitive_positions
    assert set(marked) == sensitive


def _result(tool_call_id: str, names: list[str]) -> ToolMessage:
    rows = [{"customer_id": i, "customer_name": name} for i, name in enumerate(names)]
    return ToolMessage(
        content="\n".join(
            f'{{"customer_id": {r["customer_id"]}, "customer_name": "{r["customer_name"]}"}}'
            for r in rows
        ),
        tool_call_id=tool_call_id,
        artifact={"sensitive_columns": ["customer_name"], "records": {"rows": rows}},
    )


def test_every_message_the_model_reads_gets_tokens_and_the_state_keeps_values():
    direct = _result("call_1", ["王小明", "李华"])
    nested = ToolMessage(  # a delegate result: its sub-agents' results inside
        content="sub-agent 1 found 张伟",
        tool_call_id="call_2",
        artifact={"results": [_result("x", ["张伟"]).artifact]},
    )
    state = [HumanMessage("who?"), AIMessage(""), direct, nested]
    prompt = SystemMessage("history: 李华 bought twice")
    shown = mask_for_model([prompt, *state], state)
    text = "\n".join(str(m.content) for m in shown)
    for name in ("王小明", "李华", "张伟"):
        assert name not in text
        assert token_for("customer_name", name) in text
    assert "王小明" in direct.content  # the state itself is untouched
    assert token_for("customer_name", "李华") == token_for("customer_name", "李华")
    assert token_for("customer_name", "李华") != token_for("customer_name", "王小明")


def test_without_sensitive_results_the_messages_go_as_they_are():
    state = [HumanMessage("q"), ToolMessage(content="3 rows", tool_call_id="c", artifact={})]
    assert mask_for_model(state, state) == state
