"""Queries that carry customer names through expressions, per class and per engine.

Each entry is (class, SQL). A TOKENS entry must run and reach the model with tokens only; a
FOLDED entry must be refused (SENSITIVE_VALUES_FOLDED), since no per-value token can stand
for several names folded into one value. Each class has at least five variants on each
engine where its functions exist (MariaDB has no `||` concatenation, alias column lists on
derived tables nor arrays; SQLite no arrays).
"""

from __future__ import annotations

TOKENS, FOLDED = "tokens", "folded"

_PORTABLE = {
    "function": [
        "SELECT upper(customer_name) AS n FROM customers",
        "SELECT lower(customer_name) FROM customers",
        "SELECT trim(customer_name) AS t, customer_id FROM customers",
        "SELECT replace(customer_name, 'x', 'y') FROM customers",
        "SELECT substr(customer_name, 1) AS s FROM customers ORDER BY customer_id",
        "SELECT max(customer_name) AS top, region_id FROM customers GROUP BY region_id",
    ],
    "concat": [
        "SELECT concat(customer_name, '') AS n FROM customers",
        "SELECT concat('<', customer_name, '>') FROM customers",
        "SELECT concat(city, ':', customer_name) AS who FROM customers",
        "SELECT concat(customer_id, customer_name) FROM customers",
        "SELECT concat(upper(customer_name), '!') AS n FROM customers",
    ],
    "coalesce_cast_case": [
        "SELECT coalesce(customer_name, 'none') AS n FROM customers",
        "SELECT CAST(customer_name AS CHAR(40)) AS n FROM customers",
        "SELECT CASE WHEN customer_id > 0 THEN customer_name END AS n FROM customers",
        "SELECT CASE WHEN customer_id < 0 THEN 'x' ELSE customer_name END FROM customers",
        "SELECT nullif(customer_name, 'nobody') AS n FROM customers",
    ],
    "subquery": [
        "SELECT (SELECT customer_name FROM customers ORDER BY customer_id LIMIT 1) AS n",
        "SELECT o.order_id, (SELECT c.customer_name FROM customers c "
        "WHERE c.customer_id = o.customer_id) AS who FROM orders o",
        "SELECT n FROM (SELECT customer_name AS n FROM customers) AS s",
        "SELECT s.* FROM (SELECT customer_id, customer_name FROM customers) AS s",
        "SELECT x FROM (SELECT upper(customer_name) AS x FROM customers) s WHERE x IS NOT NULL",
    ],
    "cte": [
        "WITH t AS (SELECT customer_name AS n FROM customers) SELECT n FROM t",
        "WITH t(a, b) AS (SELECT customer_id, customer_name FROM customers) SELECT b, a FROM t",
        "WITH t AS (SELECT * FROM customers) SELECT t.* FROM t",
        "WITH t AS (SELECT customer_name FROM customers), u AS (SELECT customer_name AS m "
        "FROM t) SELECT m FROM u",
        "WITH t(a) AS (SELECT customer_name FROM customers) SELECT lower(a) AS z FROM t",
    ],
    "union": [
        "SELECT city FROM stores UNION SELECT customer_name FROM customers",
        "SELECT customer_name FROM customers UNION ALL SELECT 'x'",
        "SELECT 'x' AS n UNION SELECT upper(customer_name) FROM customers",
        "SELECT region_id, city FROM customers UNION SELECT region_id, customer_name "
        "FROM customers",
        "SELECT n FROM (SELECT store_name AS n FROM stores UNION ALL "
        "SELECT customer_name FROM customers) AS u",
    ],
    "star": [
        "SELECT * FROM customers",
        "SELECT c.* FROM customers c WHERE c.customer_id < 50",
        "SELECT * FROM customers JOIN orders USING (customer_id)",
        "SELECT * FROM customers NATURAL JOIN regions",
        "SELECT o.*, c.* FROM orders o JOIN customers c ON c.customer_id = o.customer_id",
    ],
    "count": [  # counted, not shown: allowed, and no name in it anyway
        "SELECT count(customer_name) AS c FROM customers",
        "SELECT count(DISTINCT customer_name) AS c FROM customers",
        "SELECT region_id, count(DISTINCT customer_name) FROM customers GROUP BY region_id",
        "SELECT customer_id FROM customers WHERE customer_name LIKE '%a%'",
        "SELECT length(customer_name) AS l FROM customers",
    ],
}
_PIPES = [
    "SELECT customer_name || '' AS n FROM customers",
    "SELECT '<' || customer_name || '>' FROM customers",
    "SELECT city || customer_name AS who FROM customers",
    "SELECT customer_id || ':' || customer_name FROM customers",
    "SELECT upper(customer_name) || '!' AS n FROM customers",
]
_ALIAS_LISTS = [
    "SELECT b FROM (SELECT customer_id, customer_name FROM customers) AS t(a, b)",
    "SELECT t.* FROM (SELECT customer_name FROM customers) AS t(a)",
    "SELECT t.b FROM customers AS t(a, b, c, d)",
    "SELECT b AS n FROM customers AS t(a, b)",
    "SELECT upper(t.b) FROM (SELECT customer_id, customer_name FROM customers) t(a, b)",
]
_ARRAY_FOLDS = [
    "SELECT array_agg(customer_name) AS a FROM customers",
    "SELECT unnest(array_agg(customer_name)) AS n FROM customers",
    "SELECT region_id, array_agg(customer_name ORDER BY customer_name) FROM customers "
    "GROUP BY region_id",
    "SELECT string_agg(customer_name, ',') AS s FROM customers",
    "SELECT string_agg(DISTINCT customer_name, ';') FROM customers GROUP BY region_id",
    "SELECT n FROM (SELECT string_agg(customer_name, ',') AS n FROM customers) s",
]

FOLDS = {
    "sqlite": [
        "SELECT group_concat(customer_name) AS s FROM customers",
        "SELECT group_concat(customer_name, ';') FROM customers GROUP BY region_id",
        "SELECT json_group_array(customer_name) AS j FROM customers",
        "SELECT json_group_object(customer_id, customer_name) FROM customers",
        "SELECT n FROM (SELECT group_concat(customer_name) AS n FROM customers) s",
        "WITH t AS (SELECT group_concat(upper(customer_name)) AS n FROM customers) SELECT n FROM t",
    ],
    "mysql": [
        "SELECT group_concat(customer_name) AS s FROM customers",
        "SELECT group_concat(customer_name SEPARATOR ';') FROM customers GROUP BY region_id",
        "SELECT json_arrayagg(customer_name) AS j FROM customers",
        "SELECT json_objectagg(customer_id, customer_name) FROM customers",
        "SELECT n FROM (SELECT group_concat(customer_name) AS n FROM customers) s",
    ],
    "postgres": [
        *_ARRAY_FOLDS,
        "SELECT json_agg(customer_name) AS j FROM customers",
        "SELECT jsonb_agg(c) FROM customers c",
        "SELECT json_object_agg(customer_id, customer_name) FROM customers",
        "SELECT ARRAY(SELECT customer_name FROM customers) AS a",
    ],
    "duckdb": [
        *_ARRAY_FOLDS,
        "SELECT list(customer_name) AS l FROM customers",
        "SELECT unnest(list(customer_name)) FROM customers",
        "SELECT * FROM customers PIVOT (count(*) FOR customer_name IN ('a', 'b'))",
        "SELECT * FROM (PIVOT customers ON customer_name USING count(*)) p",
    ],
}


def corpus(dialect: str) -> list[tuple[str, str, str]]:
    """Return (class, SQL, TOKENS or FOLDED) for one engine."""
    classes = dict(_PORTABLE)
    if dialect == "sqlite":  # concat() came in SQLite 3.44
        del classes["concat"]
    if dialect != "mysql":
        classes["pipes"] = _PIPES
    if dialect in ("postgres", "duckdb"):
        classes["alias_columns"] = _ALIAS_LISTS
        classes["whole_row"] = [
            "SELECT c FROM customers c",
            "SELECT to_json(c) AS j FROM customers c",
            "SELECT CAST(c AS VARCHAR) AS r FROM customers c",
            "SELECT t FROM (SELECT customer_name FROM customers) t",
            "SELECT row_to_json(c) FROM customers c"
            if dialect == "postgres"
            else "SELECT to_json(t) FROM (SELECT customer_name FROM customers) t",
        ]
    if dialect == "duckdb":
        classes["duckdb_forms"] = [
            "SELECT v FROM customers UNPIVOT (v FOR k IN (customer_name, city))",
            "SELECT columns('customer_n.*') FROM customers",
            "SELECT customers FROM customers",
            "SELECT * EXCLUDE (city) FROM customers",
            "SELECT * RENAME (customer_name AS who) FROM customers",
            "SELECT #2 AS n, #1 FROM customers",
        ]
    cases = [(name, sql, TOKENS) for name, sqls in classes.items() for sql in sqls]
    return cases + [("folded", sql, FOLDED) for sql in FOLDS[dialect]]
