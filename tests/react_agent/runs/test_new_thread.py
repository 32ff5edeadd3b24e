"""A thread minted for its question is not read before its run: one checkpoint read less."""

from __future__ import annotations

from react_agent.approval.decisions import ApprovalDecision
from react_agent.runs.execution.graph_io import new_thread_snapshot
from react_agent.runs.run_flags import RunFlags
from tests.support.checkpoint_reads import counted_reads
from tests.support.scripted_model import answer, call_tool

REGION_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS stores "
    "FROM stores s JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name"
)


async def test_the_empty_snapshot_is_what_the_graph_reads_for_a_thread_it_never_saw(
    sample_service,
):
    service, _ = sample_service
    config = service.runner.config_for("ann:never-asked")

    assert new_thread_snapshot(config) == await service.runner.graph.aget_state(config)


async def test_a_new_threads_run_reads_the_checkpoint_once_and_answers_the_same(sample_service):
    service, model = sample_service
    saver = service.runner.graph.checkpointer
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区")] * 2
    results = {}
    reads = {}
    for thread_id, flags in (("ann:read", RunFlags()), ("ann:new", RunFlags(new_thread=True))):
        with counted_reads(saver) as seen:
            results[thread_id] = await (
                await service.runner.start("各地区门店数", thread_id, flags=flags)
            ).result()
        reads[thread_id] = seen

    # The graph's own read as it starts; the runner's read before it only when not new.
    assert reads == {"ann:read": ["ann:read", "ann:read"], "ann:new": ["ann:new"]}
    read, new = results["ann:read"], results["ann:new"]
    assert new.answer == read.answer == "七个地区"
    assert (new.sql, new.records, new.conversation_rounds, new.total_messages) == (
        read.sql,
        read.records,
        read.conversation_rounds,
        read.total_messages,
    )


async def test_a_resume_reads_its_thread_even_when_asked_as_new(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区")]
    waiting = await (
        await service.runner.start(
            "各地区门店数", "ann:paused", flags=RunFlags(approve_sql=True, new_thread=True)
        )
    ).result()
    decision = ApprovalDecision(waiting.approval["interrupt_id"], "approve")
    with counted_reads(service.runner.graph.checkpointer) as seen:
        run = await service.runner.start(
            "", "ann:paused", resume=decision, flags=RunFlags(new_thread=True)
        )
        result = await run.result()

    assert result.answer == "七个地区" and result.conversation_rounds == 1
    # The resume's check, the runner's read of the paused turn, the graph's own.
    assert seen.count("ann:paused") >= 3
