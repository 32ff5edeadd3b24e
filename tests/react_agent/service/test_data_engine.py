"""DATA_ENGINE=generic: the service opens its data on the SQLAlchemy engine and says so."""

from __future__ import annotations

from config import Settings
from react_agent.databases.generic.engine import GenericDatabase
from react_agent.service import open_agent_service
from react_agent.service.components import describe_components
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

REGION_SALES_SQL = (
    "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales "
    "FROM orders o JOIN stores s ON s.store_id = o.store_id "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY sales DESC"
)


async def test_the_agent_answers_on_the_generic_engine_and_health_names_it(settings: Settings):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=REGION_SALES_SQL), answer("华东最高")]
    )
    generic = settings.model_copy(update={"data_engine": "generic"})

    async with open_agent_service(generic, model=model) as service:
        assert isinstance(service.database.inner, GenericDatabase)  # behind its fair share
        assert describe_components(service)["data_database"]["kind"] == "generic"
        result = await service.runner.ask("每个地区的销售额是多少", "wang1:generic")

    assert result.answer == "华东最高" and result.sql == REGION_SALES_SQL
    assert result.records["columns"] == ["region", "sales"]
    assert len(result.records["rows"]) == 7


async def test_health_names_the_native_engine_by_default(settings: Settings):
    async with open_agent_service(settings, model=ScriptedChatModel(replies=[])) as service:
        assert describe_components(service)["data_database"]["kind"] == "sqlite"
