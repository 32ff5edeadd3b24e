"""OSI (Apache Ossie) export and import of the semantic file, through the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from react_agent.catalog.osi import OSI_VERSION, OsiImport, semantics_to_yaml, to_osi
from react_agent.catalog.semantic.model import Instruction, JoinPath, Metric
from react_agent.catalog.semantic.parsing import parse_semantics

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "config" / "semantic.sample.yaml"
HAND_WRITTEN = """
version: "0.2.0.dev0"
semantic_model:
  - name: shop
    datasets:
      - name: order_facts
        source: analytics.public.orders
        primary_key: [order_id]
        description: One row per order
        ai_context: {synonyms: [sales]}
        fields:
          - name: amount
            expression: {dialects: [{dialect: ANSI_SQL, expression: total_amount}]}
            description: Order amount
            ai_context: {synonyms: [revenue]}
          - name: order_month
            expression:
              dialects: [{dialect: ANSI_SQL, expression: "date_trunc('month', order_date)"}]
      - name: shops
        source: analytics.public.stores
        fields:
          - name: store_id
            expression: {dialects: [{dialect: SNOWFLAKE, expression: store_id}]}
    relationships:
      - name: orders_to_stores
        from: order_facts
        to: shops
        from_columns: [store_id]
        to_columns: [store_id]
        ai_context: {instructions: each order belongs to one store}
    ai_context:
      instructions: Amounts are in CNY.
    metrics:
      - name: total_sales
        expression:
          dialects:
            - {dialect: SNOWFLAKE, expression: "SUM(order_facts.amount)"}
            - {dialect: ANSI_SQL, expression: "SUM(orders.total_amount)"}
        description: Sum of order amounts
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "react_agent.catalog.osi", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


RULES = """
instructions:
  - {id: fiscal_year, text: 财年从4月1日开始}
  - {id: sales, text: 销售额只算已完成订单, tables: [orders], valid_from: 2024-04-01}
"""


def test_the_sample_round_trips_through_osi(tmp_path):
    semantic = tmp_path / "semantic.yaml"
    semantic.write_text(SAMPLE.read_text(encoding="utf-8") + RULES, encoding="utf-8")
    original, _ = parse_semantics(semantic.read_text(encoding="utf-8"))
    assert len(original.instructions) == 2
    exported = run("export", "--semantic", str(semantic), "--out", str(tmp_path / "osi.yaml"))
    assert exported.returncode == 0, exported.stderr
    document = yaml.safe_load((tmp_path / "osi.yaml").read_text(encoding="utf-8"))
    assert document["version"] == OSI_VERSION
    model = document["semantic_model"][0]
    orders = next(d for d in model["datasets"] if d["name"] == "orders")
    status = next(f for f in orders["fields"] if f["name"] == "status")
    assert status["expression"] == {"dialects": [{"dialect": "ANSI_SQL", "expression": "status"}]}
    assert json.loads(status["custom_extensions"][0]["data"])["values"]["已退款"][0] == "refunded"
    assert model["relationships"][0]["from_columns"] == ["city"]
    assert model["ai_context"]["instructions"].startswith("财年从4月1日开始\n")
    imported = run("import", str(tmp_path / "osi.yaml"))
    assert imported.returncode == 0, imported.stderr
    assert imported.stderr == ""  # nothing of ours is lost on the way
    again, _ = parse_semantics(imported.stdout)
    assert again == original


def test_export_to_standard_output_is_the_same_document(tmp_path):
    original, _ = parse_semantics(SAMPLE.read_text(encoding="utf-8"))
    exported = run("export", "--semantic", str(SAMPLE))
    assert exported.returncode == 0, exported.stderr
    assert yaml.safe_load(exported.stdout) == to_osi(original)


def test_a_hand_written_osi_model_with_a_metric_and_a_relationship(tmp_path):
    source = tmp_path / "shop.osi.yaml"
    source.write_text(HAND_WRITTEN, encoding="utf-8")
    imported = run("import", str(source), "--out", str(tmp_path / "semantic.yaml"))
    assert imported.returncode == 0, imported.stderr
    semantics, _ = parse_semantics((tmp_path / "semantic.yaml").read_text(encoding="utf-8"))
    assert set(semantics.tables) == {"orders", "stores"}
    amount = semantics.tables["orders"].columns["total_amount"]
    assert amount.description == "Order amount" and amount.synonyms == ("revenue",)
    assert semantics.tables["orders"].synonyms == ("sales",)
    assert "store_id" in semantics.tables["stores"].columns  # the only dialect, SNOWFLAKE
    assert semantics.metrics == (
        Metric("total_sales", "SUM(orders.total_amount)", "Sum of order amounts"),
    )
    assert semantics.joins == (
        JoinPath("orders.store_id", "stores.store_id", "each order belongs to one store"),
    )
    assert semantics.instructions == (Instruction("shop_ai_context", "Amounts are in CNY."),)
    assert "order_month: a computed expression" in imported.stderr
    assert "keys" in imported.stderr


def test_a_file_that_is_not_osi_is_refused(tmp_path):
    source = tmp_path / "x.yaml"
    source.write_text("tables: {}\n", encoding="utf-8")
    result = run("import", str(source))
    assert result.returncode == 2 and "not an OSI document" in result.stderr
    reader = OsiImport()
    assert semantics_to_yaml(reader.read({"semantic_model": []})).startswith("tables: {}")
