"""The policy file: read, merged into scopes, each mistake named with its line, read again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from react_agent.access.policy_file.policy import load_policy
from react_agent.access.policy_file.policy_checks import PolicyError
from react_agent.access.policy_file.policy_source import PolicySource
from react_agent.access.scope import Scope
from tests.react_agent.access.conftest import POLICY_FILE

CATALOG = {
    "regions": ["region_id", "region_name"],
    "stores": ["store_id", "store_name", "region_id", "city", "opened_on"],
    "products": ["product_id", "product_name", "category", "unit_price", "unit_cost"],
    "customers": ["customer_id", "customer_name", "region_id", "city"],
    "orders": ["order_id", "customer_id", "store_id", "order_date", "total_amount"],
    "order_items": ["order_item_id", "order_id", "product_id", "quantity", "line_amount"],
}

GOOD = """\
users:
  alice: {roles: [east_analyst], attributes: {region_id: 1}}
  bob: {roles: [support]}
default_role: support
roles:
  east_analyst:
    tables: [orders, stores]
    row_filters:
      stores: "region_id = :region_id"
  support:
    tables: [products]
    deny_columns: {products: [unit_cost]}
    show_sql: false
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_sample_policy_checks_out_against_the_sample_tables():
    policy = load_policy(POLICY_FILE, CATALOG)
    assert set(policy.roles) == {"east_analyst", "support", "admin"}
    scope = policy.scope_for(policy.actor_for("alice", "key-1"))
    assert scope.parameters == {"region_id": 1} and "orders" in scope.row_filters
    assert scope.denied_columns == {"products": frozenset({"unit_cost"})}
    assert policy.scope_for(policy.actor_for("root")).tables is None


def test_unlisted_users_get_the_default_role_and_no_attributes(tmp_path):
    policy = load_policy(write(tmp_path, GOOD), CATALOG)
    actor = policy.actor_for("zed", "key-9")
    assert actor.roles == ("support",) and actor.attributes == {} and actor.key_id == "key-9"
    scope = policy.scope_for(actor)
    assert scope.can_read("products") and not scope.can_read("orders") and not scope.show_sql
    assert scope.readable_columns("products", ["product_id", "unit_cost"]) == ["product_id"]


def test_a_scope_survives_being_stored_and_read_back():
    policy = load_policy(POLICY_FILE, CATALOG)
    scope = policy.scope_for(policy.actor_for("alice"))
    assert Scope.from_dict(scope.to_dict()) == scope
    assert Scope.from_dict(Scope.allow_all().to_dict()) == Scope.allow_all()


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("tables: [orders, stores]", "tables: [orders, shops]", 7, "unknown table 'shops'"),
        ('stores: "region_id = :region_id"', 'stores: "area = :region_id"', 9, "'area'"),
        ('stores: "region_id = :region_id"', 'stores: "region_id = :area"', 9, ":area"),
        ("[unit_cost]", "[unit_price, cost]", 12, "unknown column products.cost"),
        ("roles: [support]}", "roles: [helpdesk]}", 3, "unknown role 'helpdesk'"),
        ("default_role: support", "default_role: viewer", 4, "default_role 'viewer'"),
        ("    show_sql: false", "    show_sql: maybe", 13, "true or false"),
        ("    show_sql: false", "    show_everything: true", 13, "unknown key 'show_everything'"),
        ('stores: "region_id = :region_id"', 'stores: "region_id = ("', 9, "not valid SQL"),
        ("    tables: [orders, stores]\n", "", 6, "tables is required"),
    ],
)
def test_a_wrong_policy_names_its_line(tmp_path, old, new, line, message):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(PolicyError) as caught:
        load_policy(path, CATALOG)
    assert str(caught.value).startswith(f"{path}:{line}: "), str(caught.value)
    assert message in str(caught.value)


def test_broken_yaml_is_a_policy_error(tmp_path):
    with pytest.raises(PolicyError, match="not valid YAML"):
        load_policy(write(tmp_path, "roles: [a\n"), CATALOG)


def test_a_changed_file_is_read_again_and_a_broken_one_keeps_the_last_policy(tmp_path):
    path = write(tmp_path, GOOD)
    source = PolicySource(path, CATALOG, settle_seconds=0)  # loosenings wait: test_policy_reload
    before = source.scope_for(source.actor_for("bob"))
    assert before.tables == frozenset({"products"})
    path.write_text(GOOD.replace("tables: [products]", "tables: [products, orders]"), "utf-8")
    os.utime(path, ns=(1, 10**18))  # a different mtime, whatever the clock's resolution
    after = source.scope_for(source.actor_for("bob"))
    assert after.tables == frozenset({"products", "orders"})
    assert before.tables == frozenset({"products"})  # a scope already handed out stays
    path.write_text(GOOD.replace("tables: [products]", "tables: [nope]"), "utf-8")
    os.utime(path, ns=(1, 2 * 10**18))
    assert source.scope_for(source.actor_for("bob")) == after
