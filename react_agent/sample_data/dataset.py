"""Deterministic generator and per-dialect DDL for the sample retail sales database."""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

Dialect = Literal["sqlite", "postgres"]
Row = tuple[object, ...]

# Everything below is derived from these constants only, so the dataset never
# drifts with the wall clock or the machine it is built on.
SEED = 20240101
FIRST_ORDER_DATE = date(2024, 1, 1)
LAST_ORDER_DATE = date(2025, 6, 30)
ORDER_COUNT = 4000
CUSTOMER_COUNT = 800

ORDER_STATUSES = ("已完成", "已退款", "已取消")
MEMBER_LEVELS = ("普通", "银卡", "金卡", "钻石")
GENDERS = ("男", "女")
CATEGORIES = ("家用电器", "数码产品", "食品饮料", "服装鞋帽", "日用百货", "图书文具")

_CENT = Decimal("0.01")


# --------------------------------------------------------------------------- schema


_TYPES: dict[str, tuple[str, str]] = {
    # kind: (SQLite type, PostgreSQL type)
    "integer": ("INTEGER", "integer"),
    "text": ("TEXT", "text"),
    "date": ("TEXT", "date"),
    "price": ("REAL", "numeric(10,2)"),
    "amount": ("REAL", "numeric(12,2)"),
    "rate": ("REAL", "numeric(4,2)"),
}


@dataclass(frozen=True)
class Column:
    """One column of a sample table; `kind` selects its type in each dialect."""

    name: str
    kind: str
    comment: str
    primary_key: bool = False
    references: str | None = None  # name of the parent table; FKs always target its primary key
    check: str | None = None  # an SQL expression valid in both dialects

    def sql_type(self, dialect: Dialect) -> str:
        """Return the column type in `dialect`."""
        sqlite_type, postgres_type = _TYPES[self.kind]
        return sqlite_type if dialect == "sqlite" else postgres_type

    def described(self, dialect: Dialect) -> str:
        """Return the column comment, noting how SQLite stores dates."""
        if dialect == "sqlite" and self.kind == "date":
            return f"{self.comment}; ISO text 'YYYY-MM-DD'"
        return self.comment


@dataclass(frozen=True)
class Table:
    """One sample table: its columns and the single-column indexes it gets."""

    name: str
    comment: str
    columns: tuple[Column, ...]
    indexes: tuple[str, ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        """Return the column names in table order (the order of generated rows)."""
        return tuple(column.name for column in self.columns)

    @property
    def primary_key(self) -> str:
        """Return the name of the (single-column) primary key."""
        return next(column.name for column in self.columns if column.primary_key)


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _in(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(_sql_string(value) for value in values)})"


# Parents come before children, so creating and loading in this order satisfies every FK.
TABLES: tuple[Table, ...] = (
    Table(
        "regions",
        "Sales regions of mainland China (大区)",
        (
            Column("region_id", "integer", "Region id", primary_key=True),
            Column("region_name", "text", "Region name, e.g. 华东"),
        ),
    ),
    Table(
        "stores",
        "Physical stores (门店)",
        (
            Column("store_id", "integer", "Store id", primary_key=True),
            Column("store_name", "text", "City + district or landmark + 店, e.g. 上海徐汇店"),
            Column("region_id", "integer", "Region the store belongs to", references="regions"),
            Column("city", "text", "City the store is in, e.g. 上海"),
            Column("opened_on", "date", "Opening date; a store has no orders before it"),
        ),
        indexes=("region_id",),
    ),
    Table(
        "products",
        "Product catalogue (商品)",
        (
            Column("product_id", "integer", "Product id", primary_key=True),
            Column("product_name", "text", "Product name, e.g. 美的变频空调1.5匹"),
            Column(
                "category",
                "text",
                "One of " + ", ".join(CATEGORIES),
                check=_in("category", CATEGORIES),
            ),
            Column("unit_price", "price", "Current list price in CNY (元)", check="unit_price > 0"),
            Column("unit_cost", "price", "Purchase cost per unit in CNY", check="unit_cost > 0"),
        ),
        indexes=("category",),
    ),
    Table(
        "customers",
        "Loyalty-programme members (会员)",
        (
            Column(
                "customer_id", "integer", "Customer id, assigned in joining order", primary_key=True
            ),
            Column("customer_name", "text", "Full name, surname first"),
            Column("gender", "text", "男 or 女", check=_in("gender", GENDERS)),
            Column("city", "text", "Home city"),
            Column("region_id", "integer", "Home region", references="regions"),
            Column(
                "member_level",
                "text",
                "普通 < 银卡 < 金卡 < 钻石",
                check=_in("member_level", MEMBER_LEVELS),
            ),
            Column("joined_on", "date", "Date the customer joined; no orders before it"),
        ),
        indexes=("region_id",),
    ),
    Table(
        "orders",
        "Sales orders (订单), one per checkout",
        (
            Column("order_id", "integer", "Order id, increasing with order_date", primary_key=True),
            Column("customer_id", "integer", "Buyer", references="customers"),
            Column("store_id", "integer", "Store of sale", references="stores"),
            Column("order_date", "date", "Date of sale, 2024-01-01 to 2025-06-30"),
            Column(
                "status",
                "text",
                "已完成 = completed, 已退款 = refunded, 已取消 = cancelled;"
                " revenue normally counts only 已完成",
                check=_in("status", ORDER_STATUSES),
            ),
            Column(
                "total_amount",
                "amount",
                "Order amount in CNY, exactly SUM(order_items.line_amount)",
            ),
        ),
        indexes=("order_date", "store_id", "customer_id"),
    ),
    Table(
        "order_items",
        "Order lines (订单明细)",
        (
            Column("order_item_id", "integer", "Order line id", primary_key=True),
            Column("order_id", "integer", "Order the line belongs to", references="orders"),
            Column("product_id", "integer", "Product sold", references="products"),
            Column("quantity", "integer", "Units sold", check="quantity > 0"),
            Column("unit_price", "price", "List price per unit at the time of sale, CNY"),
            Column(
                "discount",
                "rate",
                "Fraction off the list price: 0.10 = 10% off (九折)",
                check="discount >= 0 AND discount < 1",
            ),
            Column(
                "line_amount",
                "amount",
                "quantity * unit_price * (1 - discount), rounded to 0.01 CNY",
            ),
        ),
        indexes=("order_id", "product_id"),
    ),
)

TABLES_BY_NAME: dict[str, Table] = {table.name: table for table in TABLES}


def _qualified(table: str, schema: str | None) -> str:
    return table if schema is None else f"{_quote_identifier(schema)}.{table}"


def create_table_statements(dialect: Dialect, schema: str | None = None) -> list[str]:
    """Return one CREATE TABLE statement per sample table, parents first.

    SQLite keeps the text of CREATE TABLE verbatim, so column comments go inline
    as `--` comments there (visible to anyone reading `sqlite_master`); PostgreSQL
    gets them from `comment_statements` instead.

    Args:
        dialect: "sqlite" or "postgres".
        schema: PostgreSQL schema to qualify table names with; None leaves them bare.

    """
    statements = []
    for table in TABLES:
        lines = []
        for position, column in enumerate(table.columns):
            definition = f"{column.name} {column.sql_type(dialect)} "
            definition += "PRIMARY KEY" if column.primary_key else "NOT NULL"
            if column.references is not None:
                parent = TABLES_BY_NAME[column.references]
                definition += (
                    f" REFERENCES {_qualified(parent.name, schema)} ({parent.primary_key})"
                )
            if column.check is not None:
                definition += f" CHECK ({column.check})"
            if position < len(table.columns) - 1:
                definition += ","
            if dialect == "sqlite":
                definition += f"  -- {column.described(dialect)}"
            lines.append(f"    {definition}")
        header = f"CREATE TABLE {_qualified(table.name, schema)} ("
        if dialect == "sqlite":
            header += f"  -- {table.comment}"
        statements.append("\n".join([header, *lines, ")"]))
    return statements


def create_index_statements(dialect: Dialect, schema: str | None = None) -> list[str]:
    """Return the CREATE INDEX statements for all sample tables.

    Args:
        dialect: "sqlite" or "postgres" (both currently share the same syntax).
        schema: PostgreSQL schema the tables live in; None leaves names bare.

    """
    del dialect  # same syntax in both; kept so callers state which dialect they target
    return [
        f"CREATE INDEX {table.name}_{column}_idx ON {_qualified(table.name, schema)} ({column})"
        for table in TABLES
        for column in table.indexes
    ]


def comment_statements(schema: str) -> list[str]:
    """Return PostgreSQL COMMENT ON statements documenting every table and column.

    Args:
        schema: Schema the tables live in.

    """
    statements = []
    for table in TABLES:
        qualified = _qualified(table.name, schema)
        statements.append(f"COMMENT ON TABLE {qualified} IS {_sql_string(table.comment)}")
        statements.extend(
            f"COMMENT ON COLUMN {qualified}.{column.name} IS "
            f"{_sql_string(column.described('postgres'))}"
            for column in table.columns
        )
    return statements


# --------------------------------------------------------------------------- source data

_REGION_NAMES = ("华东", "华南", "华北", "华中", "西南", "西北", "东北")


@dataclass(frozen=True)
class _Store:
    name: str
    region: str
    city: str
    opened_on: date
    traffic: float  # relative footfall; flagship stores in tier-1 cities see the most orders


_STORES = (
    _Store("上海徐汇店", "华东", "上海", date(2016, 4, 18), 1.6),
    _Store("上海浦东店", "华东", "上海", date(2017, 9, 9), 1.5),
    _Store("杭州西湖店", "华东", "杭州", date(2018, 5, 20), 1.3),
    _Store("南京新街口店", "华东", "南京", date(2017, 11, 11), 1.2),
    _Store("苏州工业园区店", "华东", "苏州", date(2019, 6, 1), 1.1),
    _Store("宁波鄞州店", "华东", "宁波", date(2020, 8, 8), 0.9),
    _Store("合肥政务区店", "华东", "合肥", date(2024, 5, 18), 0.8),
    _Store("青岛市南店", "华东", "青岛", date(2019, 3, 16), 0.9),
    _Store("广州天河店", "华南", "广州", date(2016, 10, 1), 1.5),
    _Store("深圳南山店", "华南", "深圳", date(2017, 6, 18), 1.5),
    _Store("深圳福田店", "华南", "深圳", date(2025, 1, 10), 1.2),
    _Store("东莞南城店", "华南", "东莞", date(2020, 12, 12), 0.8),
    _Store("南宁青秀店", "华南", "南宁", date(2022, 7, 15), 0.7),
    _Store("北京朝阳店", "华北", "北京", date(2015, 12, 20), 1.6),
    _Store("北京海淀店", "华北", "北京", date(2018, 8, 28), 1.4),
    _Store("天津和平店", "华北", "天津", date(2019, 10, 1), 1.0),
    _Store("石家庄长安店", "华北", "石家庄", date(2022, 3, 19), 0.7),
    _Store("武汉江汉店", "华中", "武汉", date(2018, 4, 28), 1.2),
    _Store("武汉光谷店", "华中", "武汉", date(2024, 9, 28), 1.0),
    _Store("长沙五一广场店", "华中", "长沙", date(2019, 12, 21), 1.1),
    _Store("郑州二七店", "华中", "郑州", date(2020, 6, 6), 1.0),
    _Store("成都春熙路店", "西南", "成都", date(2017, 12, 24), 1.4),
    _Store("成都高新店", "西南", "成都", date(2025, 3, 15), 1.0),
    _Store("重庆解放碑店", "西南", "重庆", date(2018, 9, 30), 1.3),
    _Store("昆明五华店", "西南", "昆明", date(2024, 12, 8), 0.7),
    _Store("贵阳观山湖店", "西南", "贵阳", date(2022, 10, 1), 0.6),
    _Store("西安钟楼店", "西北", "西安", date(2018, 6, 16), 1.1),
    _Store("兰州城关店", "西北", "兰州", date(2021, 5, 1), 0.6),
    _Store("乌鲁木齐天山店", "西北", "乌鲁木齐", date(2023, 8, 18), 0.5),
    _Store("沈阳中街店", "东北", "沈阳", date(2017, 7, 7), 1.0),
    _Store("大连中山店", "东北", "大连", date(2019, 9, 9), 0.8),
    _Store("哈尔滨中央大街店", "东北", "哈尔滨", date(2020, 1, 18), 0.9),
)


@dataclass(frozen=True)
class _Product:
    name: str
    category: str
    price: str  # list price in CNY, as a decimal string so it is exact
    season: str | None = None  # a product-specific demand pattern, see _product_weight


_PRODUCTS = (
    _Product("美的变频空调1.5匹", "家用电器", "2999.00", "summer"),
    _Product("格力立式空调3匹", "家用电器", "6499.00", "summer"),
    _Product("海尔双开门冰箱", "家用电器", "3299.00"),
    _Product("小天鹅滚筒洗衣机10公斤", "家用电器", "2199.00"),
    _Product("美的智能电饭煲4升", "家用电器", "299.00"),
    _Product("九阳破壁豆浆机", "家用电器", "399.00"),
    _Product("苏泊尔电压力锅", "家用电器", "459.00"),
    _Product("飞科负离子吹风机", "家用电器", "199.00"),
    _Product("格兰仕微波炉", "家用电器", "499.00"),
    _Product("松下电热水壶", "家用电器", "169.00"),
    _Product("华为Mate 60 Pro手机", "数码产品", "6999.00"),
    _Product("小米14手机", "数码产品", "3999.00"),
    _Product("华为MatePad 11平板", "数码产品", "2499.00"),
    _Product("联想小新Pro 14笔记本", "数码产品", "5299.00"),
    _Product("小米手环8", "数码产品", "249.00"),
    _Product("华为FreeBuds Pro 3耳机", "数码产品", "1199.00"),
    _Product("罗技无线鼠标", "数码产品", "149.00"),
    _Product("小米充电宝20000mAh", "数码产品", "129.00"),
    _Product("闪迪128G U盘", "数码产品", "59.90"),
    _Product("大疆Osmo Pocket 3", "数码产品", "3499.00"),
    _Product("五常大米5kg", "食品饮料", "79.90"),
    _Product("金龙鱼花生油5L", "食品饮料", "89.90"),
    _Product("农夫山泉550ml×24瓶", "食品饮料", "39.90"),
    _Product("蒙牛纯牛奶250ml×24盒", "食品饮料", "59.90"),
    _Product("三只松鼠坚果礼盒", "食品饮料", "128.00", "new_year"),
    _Product("西湖龙井茶250g", "食品饮料", "298.00", "new_year"),
    _Product("五粮液52度500ml", "食品饮料", "1099.00", "new_year"),
    _Product("青岛啤酒500ml×12罐", "食品饮料", "59.00", "summer"),
    _Product("良品铺子零食大礼包", "食品饮料", "99.00", "new_year"),
    _Product("稻香村月饼礼盒", "食品饮料", "168.00", "mid_autumn"),
    _Product("李宁跑步鞋", "服装鞋帽", "499.00"),
    _Product("安踏篮球鞋", "服装鞋帽", "399.00"),
    _Product("波司登羽绒服", "服装鞋帽", "1299.00", "winter"),
    _Product("优衣库纯棉T恤", "服装鞋帽", "79.00", "summer"),
    _Product("海澜之家商务衬衫", "服装鞋帽", "199.00"),
    _Product("太平鸟女士连衣裙", "服装鞋帽", "459.00", "summer"),
    _Product("森马直筒牛仔裤", "服装鞋帽", "199.00"),
    _Product("回力经典帆布鞋", "服装鞋帽", "89.00"),
    _Product("特步运动套装", "服装鞋帽", "329.00"),
    _Product("恒源祥羊毛围巾", "服装鞋帽", "159.00", "winter"),
    _Product("清风抽纸3层24包", "日用百货", "49.90"),
    _Product("蓝月亮洗衣液3kg", "日用百货", "59.90"),
    _Product("云南白药牙膏", "日用百货", "32.80"),
    _Product("舒肤佳沐浴露1L", "日用百货", "45.90"),
    _Product("维达卷纸4层27卷", "日用百货", "39.90"),
    _Product("乐扣乐扣保鲜盒套装", "日用百货", "89.00"),
    _Product("双立人刀具五件套", "日用百货", "599.00"),
    _Product("苏泊尔不粘炒锅", "日用百货", "199.00"),
    _Product("富安娜纯棉四件套", "日用百货", "399.00", "winter"),
    _Product("水星家纺蚕丝被", "日用百货", "699.00", "winter"),
    _Product("《三体》全集", "图书文具", "93.00"),
    _Product("《活着》", "图书文具", "28.00"),
    _Product("《平凡的世界》全三册", "图书文具", "108.00"),
    _Product("《红楼梦》", "图书文具", "59.70"),
    _Product("新华字典第12版", "图书文具", "24.90", "school"),
    _Product("晨光中性笔12支装", "图书文具", "19.90", "school"),
    _Product("得力订书机", "图书文具", "25.00", "school"),
    _Product("齐心A4文件夹", "图书文具", "12.50", "school"),
    _Product("英雄钢笔", "图书文具", "68.00", "school"),
    _Product("国誉笔记本5本装", "图书文具", "35.00", "school"),
)

# Typical gross margins differ a lot by category; cost = price * ratio (± a little per product).
_COST_RATIO = {
    "家用电器": 0.78,
    "数码产品": 0.85,
    "食品饮料": 0.70,
    "服装鞋帽": 0.45,
    "日用百货": 0.60,
    "图书文具": 0.55,
}

# Relative purchase frequency per category on top of the price effect in _product_weight.
_CATEGORY_DEMAND = {
    "家用电器": 1.0,
    "数码产品": 1.0,
    "食品饮料": 1.5,
    "服装鞋帽": 1.1,
    "日用百货": 1.4,
    "图书文具": 0.6,
}

# Roughly by frequency in China; earlier surnames are drawn more often.
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林高罗郑梁谢宋唐许韩冯邓曹彭曾肖田董"
    "袁潘蒋蔡余杜叶程魏苏吕丁任沈姚卢钟姜崔谭陆范汪廖石金贾夏付方邹熊白孟秦"
)
_COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "诸葛")
_GIVEN_NAMES = {
    "男": (
        "伟强磊军洋勇杰涛明超浩鹏宇俊斌辉刚健峰博",
        "子轩 浩然 宇航 俊杰 志强 建国 建华 国强 文博 明轩 晓东 海涛 振华 永刚 志伟"
        " 嘉豪 天宇 思远 博文 家乐 立新 德华 子豪 一鸣 浩宇 俊熙 鹏飞 晨阳 建军 伟东",
    ),
    "女": (
        "芳娜敏静丽艳娟霞婷雪慧颖琳倩欣怡佳玲萍燕",
        "欣怡 梓涵 雨桐 子涵 诗涵 思琪 佳怡 晓燕 丽娟 秀英 桂芳 美玲 雅婷 婉清 梦瑶"
        " 雪梅 海燕 静怡 慧敏 若曦 语嫣 佳琪 文静 晓红 玉兰 春梅 丽华 雨欣 可欣 心怡",
    ),
}  # (single-character names, common two-character names)

# Chinese New Year's day; shoppers stock up in the three weeks before and stay home after.
_SPRING_FESTIVALS = (date(2024, 2, 10), date(2025, 1, 29))
_MID_AUTUMN = date(2024, 9, 17)  # 2025's (Oct 6) falls after the data window

# Busier in peak season (Nov/Dec) and quieter after the holiday rush; applied per day.
_MONTH_FACTOR = {
    1: 1.00, 2: 0.90, 3: 0.85, 4: 0.85, 5: 0.95, 6: 1.05,
    7: 0.95, 8: 0.95, 9: 1.00, 10: 1.10, 11: 1.45, 12: 1.35,
}  # fmt: skip


# --------------------------------------------------------------------------- calendar


def _days_to_spring_festival(day: date) -> int:
    """Return signed days from the nearest Spring Festival (negative = before it)."""
    return min(((day - festival).days for festival in _SPRING_FESTIVALS), key=abs)


def _is_before_spring_festival(day: date) -> bool:
    return -21 <= _days_to_spring_festival(day) <= -1


def _is_promotion(day: date) -> bool:
    """Return whether `day` falls in a national shopping festival (双十一, 618, 双十二)."""
    return (
        (day.month == 11 and day.day <= 11)
        or (day.month == 6 and day.day <= 18)
        or (day.month == 12 and day.day == 12)
    )


def _order_volume_weight(day: date) -> float:
    weight = _MONTH_FACTOR[day.month]
    if day.weekday() >= 5:
        weight *= 1.3
    to_festival = _days_to_spring_festival(day)
    if -21 <= to_festival <= -1:
        weight *= 1.9
    elif 0 <= to_festival <= 6:
        weight *= 0.5
    if (day.month, day.day) in ((11, 11), (6, 18)):
        weight *= 3.0
    elif (day.month, day.day) == (12, 12):
        weight *= 1.8
    elif _is_promotion(day):
        weight *= 1.25
    if day.month == 10 and day.day <= 7:  # National Day golden week
        weight *= 1.5
    if 0 <= (_MID_AUTUMN - day).days <= 10:
        weight *= 1.2
    if day.year == 2025:  # modest year-on-year growth
        weight *= 1.08
    return weight


def _product_weight(product: _Product, day: date) -> float:
    """Return how likely `product` is to be picked for an order line on `day`."""
    price = float(product.price)
    # Cheap everyday goods sell more often, groceries and household goods most of all.
    weight = ((250 / (price + 50)) ** 0.7 + 0.15) * _CATEGORY_DEMAND[product.category]
    month = day.month
    if product.category in ("家用电器", "数码产品") and _is_promotion(day):
        weight *= 1.8  # big-ticket items are what people wait for 双十一 / 618 to buy
    if product.category == "服装鞋帽" and month in (10, 11, 12, 1):
        weight *= 1.3
    if product.category == "图书文具" and month in (2, 3, 9):
        weight *= 1.3  # back to school
    if product.category == "食品饮料" and _is_before_spring_festival(day):
        weight *= 1.8
    match product.season:
        case "summer":
            weight *= 3.0 if month in (6, 7, 8) else 0.3 if month in (11, 12, 1, 2) else 1.0
        case "winter":
            weight *= 3.0 if month in (11, 12, 1) else 0.15 if month in (5, 6, 7, 8) else 1.0
        case "new_year":
            weight *= 3.0 if _is_before_spring_festival(day) else 0.8
        case "mid_autumn":
            weight *= 10.0 if 0 <= (_MID_AUTUMN - day).days <= 30 else 0.05
        case "school":
            weight *= 2.0 if month in (2, 3, 8, 9) else 0.8
    return weight


# --------------------------------------------------------------------------- generation


def _money(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_UP)


def _weighted_index(rng: random.Random, cumulative: Sequence[float], count: int) -> int:
    """Pick an index in [0, count) with probability proportional to its weight."""
    point = rng.random() * cumulative[count - 1]
    return min(bisect.bisect_right(cumulative, point, 0, count), count - 1)


def _customer_name(rng: random.Random, gender: str) -> str:
    if rng.random() < 0.01:
        surname = rng.choice(_COMPOUND_SURNAMES)
    else:
        ranks = range(len(_SURNAMES))
        surname = _SURNAMES[rng.choices(ranks, weights=[1 / (rank + 4) for rank in ranks])[0]]
    single_characters, two_character_names = _GIVEN_NAMES[gender]
    if rng.random() < 0.35:
        return surname + rng.choice(single_characters)
    return surname + rng.choice(two_character_names.split())


def _random_day(rng: random.Random, first: date, last: date) -> date:
    return first + timedelta(days=rng.randint(0, (last - first).days))


def generate_dataset(seed: int = SEED) -> dict[str, list[Row]]:
    """Generate the sample sales data, identically on every call with the same seed.

    Values are dialect-neutral Python objects: `int`, `str`, `datetime.date` and
    `decimal.Decimal` (money, exact to the cent). Each order's `total_amount`
    equals the sum of its lines' `line_amount` exactly.

    Args:
        seed: Seed for the private random generator; the default gives the committed data.

    Returns:
        Rows per table name, in `TABLES` order (parents first), each row's values in
        that table's column order and rows sorted by primary key.

    """
    rng = random.Random(seed)
    region_ids = {name: index for index, name in enumerate(_REGION_NAMES, start=1)}

    regions: list[Row] = [(region_id, name) for name, region_id in region_ids.items()]
    stores: list[Row] = [
        (store_id, store.name, region_ids[store.region], store.city, store.opened_on)
        for store_id, store in enumerate(_STORES, start=1)
    ]

    products: list[Row] = []
    for product_id, product in enumerate(_PRODUCTS, start=1):
        price = Decimal(product.price)
        cost_ratio = _COST_RATIO[product.category] + rng.uniform(-0.05, 0.05)
        cost = _money(price * Decimal(str(round(cost_ratio, 4))))
        products.append((product_id, product.name, product.category, price, cost))

    customers = _generate_customers(rng, region_ids)
    orders, order_items = _generate_orders(rng, customers)

    return {
        "regions": regions,
        "stores": stores,
        "products": products,
        "customers": [customer.row for customer in customers],
        "orders": orders,
        "order_items": order_items,
    }


@dataclass(frozen=True)
class _Customer:
    row: Row
    joined_on: date
    home_store: int  # index into _STORES
    activity: float  # relative order frequency


# The most active members hold the higher tiers: top 5% 钻石, next 15% 金卡, next 25% 银卡.
_MEMBER_LEVEL_TOP_SHARES = (("钻石", 0.05), ("金卡", 0.20), ("银卡", 0.45), ("普通", 1.01))


def _generate_customers(rng: random.Random, region_ids: dict[str, int]) -> list[_Customer]:
    store_weights = [store.traffic for store in _STORES]
    drafts = []
    for _ in range(CUSTOMER_COUNT):
        gender = "女" if rng.random() < 0.53 else "男"
        name = _customer_name(rng, gender)
        home_store = rng.choices(range(len(_STORES)), weights=store_weights)[0]
        # Most members predate the order window, so early orders have buyers to come from.
        if rng.random() < 0.75:
            joined_on = _random_day(rng, date(2019, 1, 1), date(2023, 12, 31))
        else:
            joined_on = _random_day(rng, FIRST_ORDER_DATE, date(2025, 6, 15))
        opened_on = _STORES[home_store].opened_on
        if joined_on < opened_on:  # members sign up at their home store
            joined_on = min(opened_on + timedelta(days=rng.randint(0, 90)), date(2025, 6, 15))
        activity = rng.lognormvariate(0.0, 0.9)
        drafts.append((joined_on, name, gender, home_store, activity))

    # Ids follow joining order, as a real membership system would hand them out.
    drafts.sort(key=lambda draft: (draft[0], draft[1], draft[3], draft[4]))
    by_activity = sorted(range(len(drafts)), key=lambda index: -drafts[index][4])
    levels = [MEMBER_LEVELS[0]] * len(drafts)
    for rank, index in enumerate(by_activity):
        share = rank / len(drafts)
        levels[index] = next(
            level for level, top_share in _MEMBER_LEVEL_TOP_SHARES if share < top_share
        )

    customers = []
    for customer_id, (joined_on, name, gender, home_store, activity) in enumerate(drafts, start=1):
        store = _STORES[home_store]
        row = (
            customer_id,
            name,
            gender,
            store.city,
            region_ids[store.region],
            levels[customer_id - 1],
            joined_on,
        )
        customers.append(_Customer(row, joined_on, home_store, activity))
    return customers


def _pick_store(rng: random.Random, customer: _Customer, day: date) -> int:
    """Return the index of the store where `customer` shops on `day`."""
    open_stores = [index for index, store in enumerate(_STORES) if store.opened_on <= day]
    home = _STORES[customer.home_store]
    roll = rng.random()
    if roll < 0.85 and customer.home_store in open_stores:
        return customer.home_store
    if roll < 0.95:
        nearby = [index for index in open_stores if _STORES[index].region == home.region]
        if nearby:
            return rng.choices(nearby, weights=[_STORES[i].traffic for i in nearby])[0]
    return rng.choices(open_stores, weights=[_STORES[i].traffic for i in open_stores])[0]


def _line_quantity(rng: random.Random, price: Decimal) -> int:
    if price < 30:
        return rng.choices((1, 2, 3, 4, 5, 6), weights=(35, 25, 15, 10, 8, 7))[0]
    if price < 100:
        return rng.choices((1, 2, 3, 4), weights=(55, 25, 12, 8))[0]
    if price < 500:
        return rng.choices((1, 2, 3), weights=(80, 15, 5))[0]
    return rng.choices((1, 2), weights=(95, 5))[0]


_DISCOUNTS = tuple(Decimal(rate) for rate in ("0.00", "0.05", "0.10", "0.15", "0.20", "0.30"))
_PROMOTION_DISCOUNT_WEIGHTS = (30, 15, 25, 15, 10, 5)
_EVERYDAY_DISCOUNT_WEIGHTS = (75, 8, 10, 4, 3, 0)


def _generate_orders(rng: random.Random, customers: list[_Customer]) -> tuple[list[Row], list[Row]]:
    span = (LAST_ORDER_DATE - FIRST_ORDER_DATE).days + 1
    days = [FIRST_ORDER_DATE + timedelta(days=offset) for offset in range(span)]
    order_dates = sorted(
        rng.choices(days, weights=[_order_volume_weight(day) for day in days], k=ORDER_COUNT)
    )

    # Customers are sorted by joining date, so those who may buy on a day form a prefix.
    join_dates = [customer.joined_on for customer in customers]
    cumulative_activity = []
    running = 0.0
    for customer in customers:
        running += customer.activity
        cumulative_activity.append(running)

    product_prices = [Decimal(product.price) for product in _PRODUCTS]
    orders: list[Row] = []
    order_items: list[Row] = []
    product_weights: list[float] = []
    weights_day: date | None = None
    for order_id, day in enumerate(order_dates, start=1):
        eligible = bisect.bisect_right(join_dates, day)
        customer = customers[_weighted_index(rng, cumulative_activity, eligible)]
        store_index = _pick_store(rng, customer, day)
        status = rng.choices(ORDER_STATUSES, weights=(92, 5, 3))[0]

        if weights_day != day:
            product_weights = [_product_weight(product, day) for product in _PRODUCTS]
            weights_day = day
        line_count = rng.choices((1, 2, 3, 4, 5), weights=(35, 28, 18, 12, 7))[0]
        chosen: list[int] = []
        while len(chosen) < line_count:
            index = rng.choices(range(len(_PRODUCTS)), weights=product_weights)[0]
            if index not in chosen:
                chosen.append(index)

        discount_weights = (
            _PROMOTION_DISCOUNT_WEIGHTS
            if _is_promotion(day) or _is_before_spring_festival(day)
            else _EVERYDAY_DISCOUNT_WEIGHTS
        )
        total = Decimal("0.00")
        for index in chosen:
            price = product_prices[index]
            quantity = _line_quantity(rng, price)
            discount = rng.choices(_DISCOUNTS, weights=discount_weights)[0]
            line_amount = _money(price * quantity * (1 - discount))
            total += line_amount
            order_items.append(
                (len(order_items) + 1, order_id, index + 1, quantity, price, discount, line_amount)
            )
        orders.append((order_id, customer.row[0], store_index + 1, day, status, total))
    return orders, order_items
