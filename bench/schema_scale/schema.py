"""The generated schema: 50 business domains × 20 table kinds, ~15 columns each, deterministic."""

from __future__ import annotations

import random
from dataclasses import dataclass

SEED = 30
DOMAINS = (
    ("order", "订单"),
    ("customer", "客户"),
    ("product", "商品"),
    ("inventory", "库存"),
    ("shipment", "发货"),
    ("invoice", "发票"),
    ("payment", "支付"),
    ("refund", "退款"),
    ("supplier", "供应商"),
    ("warehouse", "仓库"),
    ("employee", "员工"),
    ("department", "部门"),
    ("salary", "薪资"),
    ("attendance", "考勤"),
    ("contract", "合同"),
    ("project", "项目"),
    ("budget", "预算"),
    ("expense", "费用"),
    ("campaign", "营销活动"),
    ("coupon", "优惠券"),
    ("member", "会员"),
    ("points", "积分"),
    ("store", "门店"),
    ("region", "区域"),
    ("vehicle", "车辆"),
    ("driver", "司机"),
    ("route", "线路"),
    ("ticket", "工单"),
    ("complaint", "投诉"),
    ("review", "评价"),
    ("asset", "资产"),
    ("loan", "贷款"),
    ("account", "账户"),
    ("transaction", "交易"),
    ("risk", "风险"),
    ("audit", "审计"),
    ("course", "课程"),
    ("student", "学生"),
    ("teacher", "教师"),
    ("exam", "考试"),
    ("patient", "患者"),
    ("doctor", "医生"),
    ("appointment", "预约"),
    ("prescription", "处方"),
    ("device", "设备"),
    ("sensor", "传感器"),
    ("alarm", "告警"),
    ("factory", "工厂"),
    ("batch", "批次"),
    ("inspection", "质检"),
)
KINDS = (
    ("detail", "明细"),
    ("daily", "日报"),
    ("monthly", "月报"),
    ("summary", "汇总"),
    ("log", "日志"),
    ("history", "历史"),
    ("snapshot", "快照"),
    ("archive", "归档"),
    ("stats", "统计"),
    ("config", "配置"),
    ("type", "类型"),
    ("status", "状态"),
    ("plan", "计划"),
    ("report", "报表"),
    ("mapping", "映射"),
    ("queue", "队列"),
    ("backup", "备份"),
    ("staging", "暂存"),
    ("approval", "审批"),
    ("ranking", "排名"),
)
ATTRIBUTES = (
    ("amount", "numeric(14,2)", "金额", "amount"),
    ("quantity", "integer", "数量", "quantity"),
    ("created_at", "timestamp", "创建时间", "created at"),
    ("updated_at", "timestamp", "更新时间", "updated at"),
    ("remark", "text", "备注", "remark"),
    ("owner_name", "text", "负责人", "owner"),
    ("city", "text", "城市", "city"),
    ("channel", "text", "渠道", "channel"),
    ("level", "integer", "等级", "level"),
    ("score", "numeric(6,2)", "评分", "score"),
    ("cost", "numeric(14,2)", "成本", "cost"),
    ("price", "numeric(12,2)", "单价", "unit price"),
    ("discount", "numeric(4,2)", "折扣", "discount"),
    ("tax", "numeric(12,2)", "税额", "tax"),
    ("weight", "numeric(10,3)", "重量", "weight"),
    ("duration", "integer", "时长（分钟）", "duration in minutes"),
    ("start_date", "date", "开始日期", "start date"),
    ("end_date", "date", "结束日期", "end date"),
    ("phone", "text", "电话", "phone"),
    ("email", "text", "邮箱", "email"),
    ("address", "text", "地址", "address"),
    ("priority", "integer", "优先级", "priority"),
    ("version", "integer", "版本号", "version"),
    ("is_deleted", "boolean", "是否删除", "deleted flag"),
    ("approver", "text", "审批人", "approver"),
    ("source", "text", "来源", "source"),
    ("currency", "text", "币种", "currency"),
    ("rate", "numeric(8,4)", "比率", "rate"),
    ("target", "numeric(14,2)", "目标值", "target"),
    ("actual", "numeric(14,2)", "实际值", "actual"),
)
VALUE_POOLS = (
    ("华东", "华南", "华北", "华中", "西南", "西北", "东北"),
    ("上海", "北京", "广州", "深圳", "杭州", "成都", "武汉", "西安", "南京", "重庆", "苏州"),
    ("线上", "线下", "小程序", "App", "电话销售"),
    ("普通", "银卡", "金卡", "钻石"),
    ("待审核", "已通过", "已驳回", "已撤回"),
)
VALUE_COLUMNS = 50
ROWS_PER_VALUE_TABLE = 60


@dataclass(frozen=True)
class Column:
    """A generated column: name, SQL type, zh/en comment, an FK target, its values."""

    name: str
    type: str
    comment: str
    references: str | None = None
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """A generated table: `{domain}_{kind}`, with its zh and en words."""

    name: str
    domain: int
    kind: int
    comment: str
    columns: tuple[Column, ...]


_TAGS = (
    "甲类",
    "乙类",
    "丙类",
    "丁类",
    "一级",
    "二级",
    "三级",
    "特级",
    "临时",
    "长期",
    "内部",
    "外部",
)


def _domain_values(index: int, rng: random.Random) -> tuple[str, ...]:
    """Values of a domain's category column: a shared pool, or words of the domain."""
    if index % 2 == 0:
        return VALUE_POOLS[(index // 2) % len(VALUE_POOLS)]
    zh = DOMAINS[index][1]
    count = rng.randint(4, 12)
    return tuple(f"{zh}{tag}" for tag in _TAGS[:count])


def build_tables(seed: int = SEED) -> list[Table]:
    """Return the 1,000 tables: each domain's `detail` table is its parent; others point to it."""
    rng = random.Random(seed)
    tables = []
    for d, (domain, domain_zh) in enumerate(DOMAINS):
        values = _domain_values(d, rng)
        for k, (kind, kind_zh) in enumerate(KINDS):
            columns = [Column("id", "integer", "主键（id）")]
            if kind != "detail":
                columns.append(
                    Column(
                        f"{domain}_id", "integer", f"{domain_zh}（{domain} id）", f"{domain}_detail"
                    )
                )
            else:
                columns.append(
                    Column(
                        f"{domain}_category",
                        "text",
                        f"{domain_zh}类别（{domain} category）",
                        values=values,
                    )
                )
            if rng.random() < 0.3 and kind != "detail":  # parents point nowhere: load order
                other, other_zh = DOMAINS[rng.randrange(len(DOMAINS))]
                if other != domain:
                    columns.append(
                        Column(
                            f"{other}_id",
                            "integer",
                            f"关联{other_zh}（{other} id）",
                            f"{other}_detail",
                        )
                    )
            columns.append(Column(f"{domain}_name", "text", f"{domain_zh}名称（{domain} name）"))
            for name, type_, zh, en in rng.sample(ATTRIBUTES, rng.randint(10, 14)):
                columns.append(Column(name, type_, f"{domain_zh}{zh}（{en}）"))
            comment = f"{domain_zh}{kind_zh}表（{domain} {kind}）"
            tables.append(Table(f"{domain}_{kind}", d, k, comment, tuple(columns)))
    return tables
