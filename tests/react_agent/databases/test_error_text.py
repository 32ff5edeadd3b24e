"""Database error texts lose their values and keep their kind, names and positions.

The messages are the engines' own (taken from PostgreSQL 15, MariaDB 10.11, SQLite 3.40 and
DuckDB), each with the statement that raised it; the value must be gone and the skeleton
the model repairs its SQL from must stay.
"""

from __future__ import annotations

import ast
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pytest

from react_agent.databases.base import QueryFailed, statement_timed_out
from react_agent.databases.error_text import REDACTED, redact_error

# (statement, the engine's message, the value it quotes, what must stay)
CARRIERS = {
    "postgres": [
        (
            "SELECT * FROM orders WHERE CAST(status || ':' || store_id AS int) = 1",
            'invalid input syntax for type integer: "已完成:30:1830.60"',
            "已完成",
            "invalid input syntax for type integer: ",
        ),
        (
            "SELECT has_schema_privilege(customer_name, 'usage') FROM customers",
            'schema "张海涛" does not exist',
            "张海涛",
            "does not exist",
        ),
        (
            "SELECT make_date(order_id, 13, 1) FROM orders",
            "date field value out of range: 2500-13-01",
            "2500",
            "date field value out of range",
        ),
        (
            "SELECT to_date(store_name, 'YYYY') FROM stores",
            'invalid value "广州天" for "YYYY"',
            "广州天",
            "invalid value",
        ),
        (
            "SELECT setseed(order_id) FROM orders",
            "setseed parameter 2500 is out of allowed range [-1,1]",
            "2500",
            "setseed parameter",
        ),
        (
            "SELECT CAST(customer_name AS int) FROM customers",
            'invalid input syntax for type integer: "O\'Brien"',
            "Brien",
            "for type integer",
        ),
    ],
    "mysql": [
        (
            "SELECT extractvalue(1, concat('~', (SELECT group_concat(store_name) FROM stores)))",
            "XPATH syntax error: '~广州天河店,深圳南山店'",
            "广州天河店",
            "XPATH syntax error: ",
        ),
        (
            "SELECT count(*), concat(customer_name, floor(rand(0) * 2)) x FROM customers "
            "GROUP BY x",
            "Duplicate entry '张美玲0' for key 'group_key'",
            "张美玲",
            "Duplicate entry",
        ),
        (
            "SELECT updatexml(1, concat('~', city), 1) FROM customers",
            "XPATH syntax error: '~Shanghai'",
            "Shanghai",
            "XPATH syntax error",
        ),
        (
            "SELECT CAST(city AS DECIMAL) FROM customers",
            "Truncated incorrect DECIMAL value: 'Hangzhou'",
            "Hangzhou",
            "Truncated incorrect DECIMAL value",
        ),
        (
            "SELECT exp(customer_id * 1000) FROM customers",
            "DOUBLE value is out of range in 'exp(`customers`.`customer_id` * 1000)'",
            "1000",
            "`customers`.`customer_id`",
        ),
    ],
    "sqlite": [
        (
            "SELECT json_extract('{}', customer_name) FROM customers",
            "JSON path error near '吴静怡'",
            "吴静怡",
            "JSON path error near",
        ),
        (
            "SELECT json_extract('{}', '$[' || city) FROM stores",
            "JSON path error near '[Suzhou'",
            "Suzhou",
            "JSON path error",
        ),
        (
            "SELECT json_extract('{}', name) FROM people",
            "bad JSON path: 'Alice Smith'",
            "Alice",
            "bad JSON path",
        ),
        (
            "SELECT json_extract('{}', status || total_amount) FROM orders",
            "JSON path error near '已完成1830.6'",
            "1830.6",
            "near",
        ),
        (
            "SELECT * FROM stores WHERE json_extract('{}', store_name) IS NULL",
            "JSON path error near 'Store \"7\"'",
            "Store",
            "JSON path error near",
        ),
    ],
    "duckdb": [
        (
            "SELECT CAST(customer_name AS int) FROM customers",
            "Conversion Error: Could not convert string 'name1' to INT32 when casting "
            "from source column customer_name",
            "name1",
            "when casting from source column customer_name",
        ),
        (
            "SELECT json_extract(customer_name, '$.a') FROM customers",
            "Invalid Input Error: Malformed JSON at byte 0 of input: invalid literal.  "
            'Input: "Alice"',
            "Alice",
            "Malformed JSON at byte 0",
        ),
        (
            "SELECT regexp_matches('a', '(' || store_name) FROM stores",
            "Invalid Input Error: missing ): (Downtown",
            "Downtown",
            "Invalid Input Error: missing ):",
        ),
        (
            "SELECT strptime(city, '%Y') FROM stores",
            'Invalid Input Error: Could not parse string "Hangzhou" according to format '
            'specifier "%Y"',
            "Hangzhou",
            "Could not parse string",
        ),
        (
            "SELECT make_date(2000 + order_id, 13, 1) FROM orders",
            "Conversion Error: Date out of range: 4500-13-1",
            "4500",
            "Conversion Error: Date out of range",
        ),
        (
            "SELECT CAST(order_id * 1000000000000 AS INT) FROM orders",
            "Conversion Error: Type INT64 with value 2500000000000000 can't be cast because "
            "the value is out of range for the destination type INT32",
            "2500000000000000",
            "can't be cast because the value is out of range for the destination type INT32",
        ),
    ],
}


@pytest.mark.parametrize("engine", sorted(CARRIERS))
def test_each_engines_quoted_and_unquoted_values_are_redacted(engine: str):
    cases = CARRIERS[engine]
    assert len(cases) >= 5
    for statement, message, value, kept in cases:
        redacted = redact_error(message, statement)
        assert value not in redacted, (message, redacted)
        assert kept in redacted, (message, redacted)
        assert REDACTED in redacted
        assert redact_error(redacted, statement) == redacted  # settled: redacting again is a no-op


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("SELECT regoin_id FROM customers", 'column "regoin_id" does not exist'),
        ("SELECT 1 FORM customers", 'syntax error at or near "FORM"'),
        ("SELECT * FROM ordres", 'relation "ordres" does not exist'),
        ("SELECT regoin FROM stores", "no such column: regoin"),
        ("SELECT `regoin` FROM stores", "Unknown column 'regoin' in 'field list'"),
        (
            "SELECT * FROM orders WHERE",
            "Parser Error: syntax error at end of input at position 26",
        ),
        (
            "SELECT json_extract(a, b) FROM t",
            "Syntax error in JSON path in argument 2 to function 'json_extract' at position 1",
        ),
    ],
)
def test_names_from_the_statement_and_positions_stay_for_the_model_to_repair(
    statement: str, message: str
):
    assert redact_error(message, statement) == message


def test_a_value_equal_to_a_string_literal_of_the_statement_is_still_redacted():
    statement = "SELECT * FROM customers WHERE city = 'Alice' AND CAST(customer_name AS int) = 1"
    assert redact_error('invalid input syntax for type integer: "Alice"', statement) == (
        'invalid input syntax for type integer: "…"'
    )


def test_query_failed_redacts_unless_the_text_is_the_services_own():
    assert str(QueryFailed('schema "张海涛" does not exist', "SELECT 1")) == (
        'schema "…" does not exist'
    )
    assert "30 s statement timeout" in str(statement_timed_out(30))


def test_real_engine_errors_come_out_of_the_backends_redacted():
    """The messages above are the engines' own: check two of them against the engines."""
    with sqlite3.connect(":memory:") as connection, pytest.raises(sqlite3.Error) as raised:
        connection.execute("SELECT json_extract('{}', '吴静怡')")
    assert "吴静怡" in str(raised.value)
    assert "吴静怡" not in redact_error(str(raised.value), "SELECT json_extract('{}', x)")
    with duckdb.connect() as connection, pytest.raises(duckdb.Error) as failed:
        connection.execute("SELECT CAST('name1' AS INT)")
    assert "name1" not in redact_error(str(failed.value).splitlines()[0], "SELECT CAST(x AS INT)")


def parse_source(text: str) -> ast.Module:
    """Parse `text`, again on a fresh thread if CPython 3.11's parser state is off.

    In one whole-suite run, CPython 3.11.7 raised "AST constructor recursion depth
    mismatch" here (SystemError: its parser's own state, not the source, which parses
    alone); a parse on a fresh thread reads it.
    """
    try:
        return ast.parse(text)
    except SystemError:
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(ast.parse, text).result()


def test_only_the_services_own_literal_texts_skip_the_redaction():
    """Every QueryFailed(…, ours=True) in the code base is built from our own literal text."""
    root = Path(__file__).resolve().parents[3] / "react_agent"
    ours = []
    for path in root.rglob("*.py"):
        for node in ast.walk(parse_source(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "QueryFailed"):
                continue
            if not any(k.arg == "ours" for k in node.keywords):
                continue
            text = node.args[0]
            ours.append(path.relative_to(root).as_posix())
            literal = isinstance(text, ast.Constant) or (
                isinstance(text, ast.JoinedStr)
                and all(
                    isinstance(part, ast.Constant) or ast.unparse(part.value) == "timeout"
                    for part in text.values
                )
            )
            assert literal, (
                f"{path}:{node.lineno}: a text that skips the redaction: {ast.unparse(text)}"
            )
    assert sorted(set(ours)) == [
        "databases/base.py",
        "databases/federation/statements.py",
        "databases/sqlite/engine.py",
    ]
