"""Hostile SQL by the sample policy's east_analyst (region 1): what each attempt must give.

SAME: the query runs and returns exactly what it returns on a copy of the data holding only
region 1's rows and no unit_cost column (the oracle). REFUSED: the guard or the scope
refuses it before anything runs. FAILS: the database itself rejects it (no data either).
`{schema}` is the dialect's default schema (main / public), or a database name (MySQL,
ClickHouse), where a qualified name is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

SAME, REFUSED, FAILS = "same", "refused", "fails"
BOTH = ("sqlite", "postgres")
ENGINES = ("sqlite", "postgres", "mysql", "duckdb", "clickhouse")
"""Every engine that runs here; an attempt runs on each unless it names its dialects."""
SCHEMAS_ARE_SCHEMAS = ("sqlite", "postgres", "duckdb")
"""Where `{schema}.t` is the data table itself; in MySQL and ClickHouse it names a database."""
DATABASES_ARE_SCHEMAS = ("mysql", "clickhouse")
NAMES_FOLD_CASE = ("sqlite", "duckdb")
"""Unquoted ORDERS is orders here; MariaDB (on Linux) and ClickHouse are case-sensitive,
and PostgreSQL folds unquoted names only."""
DOUBLE_QUOTES_NAME = ("sqlite", "postgres", "duckdb", "clickhouse")
"""In MySQL "x" is a string: `SELECT "unit_cost"` reads no column there."""
NOT_CLICKHOUSE = ("sqlite", "postgres", "mysql", "duckdb")
"""ClickHouse wants UNION ALL or UNION DISTINCT (a bare UNION does not parse)."""


@dataclass(frozen=True)
class Attempt:
    """One query and its required outcome; `rule` is the scope rule a refusal must name."""

    sql: str
    expect: str = SAME
    rule: str = ""
    dialects: tuple[str, ...] = ENGINES


DENIED = "COLUMN_DENIED"
TABLE = "TABLE_NOT_ALLOWED"
SHADOW = "CTE_SHADOWS_TABLE"

ATTEMPTS = [
    # --- plain reads, aliases, quoting and case
    Attempt("SELECT * FROM orders"),
    Attempt("select * from ORDERS", dialects=(*NAMES_FOLD_CASE, "postgres")),
    Attempt("select * from ORDERS", FAILS, dialects=("mysql", "clickhouse")),
    Attempt('SELECT * FROM "orders"', dialects=DOUBLE_QUOTES_NAME),
    Attempt('SELECT * FROM "orders"', FAILS, dialects=("mysql",)),
    Attempt("SELECT * FROM `orders`", dialects=("mysql", "clickhouse")),
    Attempt("SELECT o.* FROM orders AS o"),
    Attempt("SELECT count(*) FROM orders"),
    Attempt("SELECT * FROM regions"),
    Attempt("SELECT * FROM customers"),
    Attempt("SELECT * FROM order_items"),
    Attempt("SELECT round(sum(line_amount), 2) FROM order_items"),
    Attempt('SELECT * FROM "ORDERS"', dialects=("sqlite",)),
    Attempt('SELECT * FROM "ORDERS"', FAILS, dialects=("postgres",)),
    Attempt("SELECT c.customer_id, c.city FROM customers c WHERE c.region_id <> 1"),
    Attempt("SELECT * FROM customers WHERE 1 = 1 OR region_id = 2"),
    Attempt("SELECT DISTINCT region_id FROM customers"),
    Attempt("SELECT max(store_id), min(store_id) FROM stores"),
    # --- schema-qualified names
    Attempt("SELECT * FROM {schema}.orders", dialects=SCHEMAS_ARE_SCHEMAS),
    Attempt('SELECT * FROM "{schema}"."orders"', dialects=SCHEMAS_ARE_SCHEMAS),
    Attempt("SELECT s.* FROM {schema}.stores s", dialects=SCHEMAS_ARE_SCHEMAS),
    # MySQL's and ClickHouse's `x.t` is a table of another database: refused, whichever.
    Attempt("SELECT * FROM {schema}.orders", REFUSED, dialects=DATABASES_ARE_SCHEMAS),
    Attempt("SELECT s.* FROM `{schema}`.`stores` s", REFUSED, dialects=DATABASES_ARE_SCHEMAS),
    Attempt("SELECT * FROM mysql.user", REFUSED, dialects=("mysql",)),
    Attempt("SELECT * FROM system.tables", REFUSED, dialects=("clickhouse",)),
    Attempt(
        "SELECT * FROM remote('127.0.0.1', currentDatabase(), 'orders')",
        REFUSED,
        dialects=("clickhouse",),
    ),
    Attempt("SELECT * FROM merge(currentDatabase(), '^ord')", REFUSED, dialects=("clickhouse",)),
    Attempt("SELECT * FROM read_csv('orders.csv')", REFUSED, dialects=("duckdb",)),
    # SQLite's temp schema: the SQL guard refuses it as a system schema, before the scope.
    Attempt("SELECT * FROM temp.orders", REFUSED, dialects=("sqlite",)),
    Attempt("SELECT * FROM pg_temp.orders", REFUSED, dialects=("postgres",)),
    Attempt("SELECT * FROM otherdb.public.orders", REFUSED, dialects=("postgres",)),
    # --- aliases that look like tables
    Attempt("SELECT * FROM regions AS stores"),
    Attempt("SELECT orders.* FROM customers AS orders"),
    Attempt("SELECT * FROM (SELECT * FROM regions) AS customers"),
    # --- CTEs and shadowing
    Attempt("WITH x AS (SELECT * FROM stores) SELECT * FROM x"),
    Attempt("WITH x AS (SELECT * FROM orders), y AS (SELECT * FROM x) SELECT count(*) FROM y"),
    Attempt("WITH stores AS (SELECT * FROM regions) SELECT * FROM stores", REFUSED, SHADOW),
    Attempt(
        "WITH stores AS (SELECT store_id, 1 AS region_id FROM orders) SELECT * FROM orders",
        REFUSED,
        SHADOW,
    ),
    Attempt(
        "SELECT * FROM (WITH orders AS (SELECT 1 AS a) SELECT * FROM orders) t", REFUSED, SHADOW
    ),
    Attempt('WITH "Stores" AS (SELECT 1 AS a) SELECT * FROM regions', REFUSED, SHADOW),
    Attempt(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
        "SELECT s.store_id, n.i FROM stores s, n"
    ),
    # --- every subquery position
    Attempt("SELECT * FROM (SELECT * FROM customers) t"),
    Attempt("SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM customers) a) b) c"),
    Attempt("SELECT (SELECT count(*) FROM orders) AS n"),
    Attempt(
        "SELECT s.store_id, (SELECT count(*) FROM orders o WHERE o.store_id = s.store_id) AS n "
        "FROM stores s"
    ),
    Attempt("SELECT * FROM regions WHERE region_id IN (SELECT region_id FROM customers)"),
    Attempt(
        "SELECT count(*) FROM customers c "
        "WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)"
    ),
    Attempt("SELECT * FROM regions WHERE region_id = (SELECT max(region_id) FROM stores)"),
    Attempt(
        "SELECT store_id, count(*) FROM orders GROUP BY store_id "
        "HAVING count(*) > (SELECT count(*) / 100 FROM orders)"
    ),
    Attempt(
        "SELECT count(*) FROM regions WHERE EXISTS (SELECT 1 FROM "
        "regions r2 WHERE r2.region_id = 2)"
    ),
    Attempt(
        "SELECT s.store_id, x.n FROM stores s, LATERAL "
        "(SELECT count(*) AS n FROM orders o WHERE o.store_id = s.store_id) x",
        dialects=("postgres",),
    ),
    Attempt("SELECT * FROM stores WHERE store_id IN (SELECT store_id FROM orders WHERE 1 = 1)"),
    # --- set operations
    Attempt(
        "SELECT store_id FROM stores UNION SELECT store_id FROM orders", dialects=NOT_CLICKHOUSE
    ),
    Attempt(
        "SELECT store_id FROM stores UNION DISTINCT SELECT store_id FROM orders",
        dialects=("mysql", "duckdb", "clickhouse"),
    ),
    Attempt("SELECT region_id FROM regions UNION ALL SELECT region_id FROM customers"),
    Attempt("SELECT customer_id FROM customers INTERSECT SELECT customer_id FROM orders"),
    Attempt("SELECT store_id FROM orders EXCEPT SELECT store_id FROM stores"),
    Attempt(
        "SELECT product_id FROM products UNION ALL SELECT unit_cost FROM products",
        REFUSED,
        DENIED,
    ),
    # --- joins and self-joins
    Attempt("SELECT * FROM stores s JOIN regions r ON r.region_id = s.region_id"),
    Attempt(
        "SELECT a.store_id, b.store_id FROM stores a JOIN stores b ON a.region_id = b.region_id"
    ),
    Attempt("SELECT count(*) FROM orders o JOIN stores s ON o.store_id = s.store_id OR 1 = 1"),
    Attempt("SELECT count(*) FROM regions, stores"),
    Attempt(
        "SELECT p.product_id, count(oi.order_item_id) FROM products p "
        "LEFT JOIN order_items oi ON oi.product_id = p.product_id GROUP BY p.product_id"
    ),
    Attempt(
        "SELECT c.customer_id, count(o.order_id) FROM customers c "
        "LEFT JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id"
    ),
    # --- stars over a table with a denied column
    Attempt("SELECT * FROM products"),
    Attempt(
        "SELECT p.*, oi.quantity FROM order_items oi JOIN products p "
        "ON p.product_id = oi.product_id"
    ),
    Attempt("SELECT row_to_json(p) FROM products p", dialects=("postgres",)),
    Attempt("SELECT p::text FROM products p", dialects=("postgres",)),
    Attempt("SELECT to_jsonb(p) ->> 'unit_cost' FROM products p", dialects=("postgres",)),
    # --- the denied column anywhere
    Attempt("SELECT unit_cost FROM products", REFUSED, DENIED),
    Attempt('SELECT "unit_cost" FROM products', REFUSED, DENIED, dialects=DOUBLE_QUOTES_NAME),
    Attempt('SELECT "unit_cost" FROM products', dialects=("mysql",)),  # a string there
    Attempt("SELECT `unit_cost` FROM products", REFUSED, DENIED, dialects=("mysql", "clickhouse")),
    Attempt("SELECT UNIT_COST FROM products", REFUSED, DENIED),
    Attempt("SELECT p.unit_cost FROM products p", REFUSED, DENIED),
    Attempt("SELECT product_id FROM products WHERE unit_cost > 100", REFUSED, DENIED),
    Attempt("SELECT product_id FROM products ORDER BY unit_cost", REFUSED, DENIED),
    Attempt("SELECT unit_cost, count(*) FROM products GROUP BY unit_cost", REFUSED, DENIED),
    Attempt(
        "SELECT count(*) FROM products a JOIN products b ON a.unit_cost = b.unit_price",
        REFUSED,
        DENIED,
    ),
    Attempt("SELECT max(unit_cost) FROM products", REFUSED, DENIED),
    Attempt("SELECT CASE WHEN unit_cost > 10 THEN 1 END FROM products", REFUSED, DENIED),
    Attempt("SELECT * FROM (SELECT unit_cost AS c FROM products) t", REFUSED, DENIED),
    Attempt("SELECT count(*) FROM products JOIN products p2 USING (unit_cost)", REFUSED, DENIED),
    Attempt("SELECT/**/unit_cost/**/FROM products", REFUSED, DENIED),
    Attempt(
        "SELECT product_id FROM products WHERE product_id IN "
        "(SELECT product_id FROM products WHERE unit_cost < unit_price / 2)",
        REFUSED,
        DENIED,
    ),
    # --- window and JSON functions
    Attempt("SELECT order_id, sum(total_amount) OVER (PARTITION BY store_id) FROM orders"),
    Attempt(
        "SELECT customer_id, row_number() OVER (ORDER BY joined_on, customer_id) FROM customers"
    ),
    Attempt("SELECT count(*) OVER () FROM stores"),
    Attempt(
        "SELECT json_group_array(customer_id) FROM "
        "(SELECT customer_id FROM customers ORDER BY customer_id)",
        dialects=("sqlite",),
    ),
    Attempt(
        "SELECT json_object('id', product_id, 'price', unit_price) FROM products",
        dialects=("sqlite",),
    ),
    Attempt(
        "SELECT json_agg(customer_id ORDER BY customer_id) FROM customers", dialects=("postgres",)
    ),
    # --- catalogs, views and tables outside the role
    Attempt("SELECT * FROM sqlite_master", REFUSED, dialects=("sqlite",)),
    Attempt("SELECT name FROM sqlite_schema", REFUSED, dialects=("sqlite",)),
    Attempt("SELECT * FROM pg_catalog.pg_tables", REFUSED, dialects=("postgres",)),
    Attempt("SELECT relname FROM pg_class", REFUSED, dialects=("postgres",)),
    Attempt("SELECT * FROM information_schema.columns", REFUSED, dialects=("postgres",)),
    Attempt("SELECT * FROM region_sales", REFUSED, TABLE),
    Attempt("SELECT * FROM orders JOIN region_sales USING (store_id)", REFUSED, TABLE),
    Attempt("SELECT * FROM secrets", REFUSED),
    # --- comments and placeholders
    Attempt("SELECT * FROM /* regions */ stores -- the end"),
    Attempt("SELECT * FROM orders -- WHERE 1 = 0"),
    Attempt("SELECT * FROM customers WHERE region_id = :region_id", REFUSED, dialects=("sqlite",)),
    Attempt("SELECT order_id FROM orders ORDER BY total_amount DESC, order_id LIMIT 5"),
    # --- table syntax that cannot take a subquery: the database refuses, nothing leaks
    Attempt("TABLE orders", FAILS, dialects=("postgres",)),
    Attempt("SELECT * FROM ONLY orders", FAILS, dialects=("postgres",)),
    Attempt("SELECT count(*) FROM orders TABLESAMPLE SYSTEM (100)", FAILS, dialects=("postgres",)),
    Attempt("SELECT count(*) FROM orders NOT INDEXED", FAILS, dialects=("sqlite",)),
    Attempt("SELECT * FROM orders INDEXED BY orders_store_id_idx", REFUSED, dialects=("sqlite",)),
    Attempt("SELECT * FROM [orders]", dialects=("sqlite",)),
    Attempt("SELECT * FROM `orders`", dialects=("sqlite",)),
    Attempt('SELECT "O".* FROM "{schema}"."orders" AS "O"', dialects=SCHEMAS_ARE_SCHEMAS),
    Attempt("SELECT `O`.* FROM `orders` AS `O`", dialects=DATABASES_ARE_SCHEMAS),
    # --- each engine's own syntax around a filtered table
    # FINAL and PREWHERE take a table, not the filtered subquery: ClickHouse refuses them.
    Attempt("SELECT count() FROM orders FINAL", FAILS, dialects=("clickhouse",)),
    Attempt("SELECT count() FROM orders PREWHERE store_id > 0", FAILS, dialects=("clickhouse",)),
    Attempt("SELECT store_id, order_id FROM orders LIMIT 1 BY store_id", dialects=("clickhouse",)),
    Attempt(
        "SELECT s.store_id, x FROM stores AS s ARRAY JOIN [1, 2] AS x", dialects=("clickhouse",)
    ),
    Attempt("SELECT unit_cost FROM products FINAL", REFUSED, DENIED, dialects=("clickhouse",)),
    Attempt("SELECT * FROM orders SETTINGS max_threads = 1", REFUSED, dialects=("clickhouse",)),
    Attempt("SELECT * FROM orders FORCE INDEX (PRIMARY)", FAILS, dialects=("mysql",)),
    Attempt("SELECT * FROM orders USING SAMPLE 100 PERCENT (bernoulli)", dialects=()),
    Attempt("SELECT count(*) FROM orders o NATURAL JOIN stores s"),
    # --- percent signs beside bound parameters (psycopg's %-style placeholders)
    Attempt("SELECT customer_id FROM customers WHERE city LIKE '%京%'"),
    Attempt("SELECT '100%' AS pct, '%(region_id)s' AS text, region_name FROM regions"),
]
