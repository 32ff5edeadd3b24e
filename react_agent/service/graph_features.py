"""The optional features of the graph, each attached through graph/features.GraphFeature.

service/assembly.py iterates `graph_features(service)` in this order: what a feature
adds is there for the ones after it (the sub-agents get the tools attached before them,
so they cannot delegate or ask the person; the approval gate is the main graph's only).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

from react_agent.approval.clarification import build_ask_user_tool
from react_agent.approval.node import SqlApproval
from react_agent.catalog.context import SchemaContext
from react_agent.graph.builder import build_graph
from react_agent.graph.features import GraphFeature, GraphParts
from react_agent.history.disclosure import TurnHistory
from react_agent.history.tools import build_history_tools
from react_agent.memory.retrieval.retriever import (
    SEARCH_EXAMPLES,
    ExampleRetriever,
    build_memory_tools,
)
from react_agent.memory.retrieval.verified import VerifiedAnswers
from react_agent.quotas.subquestions import SubquestionQuota
from react_agent.results.answer_check import check_answer
from react_agent.results.answer_repair import AnswerRepair
from react_agent.results.candidate_sql import CandidateWriter
from react_agent.results.candidates import AnswerCandidatesStep, CandidatesNote
from react_agent.results.scope_note import ScopeNote
from react_agent.runs.events.listener_reports import report_query
from react_agent.runs.events.retrieval_events import report_retrieval
from react_agent.service.schema_catalog import schema_context, schema_tools, value_links_source
from react_agent.service.state import AgentService
from react_agent.subagents.bounds import DelegateLimits
from react_agent.subagents.delegate import build_delegate_tool


@dataclass(frozen=True)
class ConversationHistory:
    """The turn blocks the model sees of earlier turns, and the tools that search them."""

    history: TurnHistory
    dialect: str

    def attach(self, parts: GraphParts) -> GraphParts:
        """Add the history tools and hooks."""
        return parts.adding(build_history_tools(self.dialect), history=self.history)


@dataclass(frozen=True)
class MemoryRetrieval:
    """Examples put in the prompt once per question (shown as a step), and search_examples."""

    retriever: ExampleRetriever

    def attach(self, parts: GraphParts) -> GraphParts:
        """Add the memory's tools, its examples and the report of each retrieval."""
        return parts.adding(
            build_memory_tools(self.retriever),
            retriever=self.retriever,
            report_retrieval=partial(report_retrieval, SEARCH_EXAMPLES),
        )


@dataclass(frozen=True)
class VerifiedAnswersStep:
    """VERIFIED_ANSWERS: a question matching a verified example runs its SQL, no SQL writing."""

    verified: VerifiedAnswers

    def attach(self, parts: GraphParts) -> GraphParts:
        """Give the nodes the verified examples to match each question against."""
        return parts.adding(verified=self.verified)


@dataclass(frozen=True)
class SchemaCatalogue:
    """The schema in the prompt for each question, and search_schema."""

    schema: SchemaContext

    def attach(self, parts: GraphParts) -> GraphParts:
        """Add search_schema and the schema section of the prompt."""
        return parts.adding(schema_tools(self.schema), schema=self.schema)


@dataclass(frozen=True)
class SubAgents:
    """The delegate tool, running isolated SQL sub-agents over the parts attached so far."""

    max_parallel: int
    recursion_limit: int
    limits: DelegateLimits = field(default_factory=DelegateLimits)
    quota: SubquestionQuota | None = None
    """Counts each sub-question against the asker's question quota (None: no quotas)."""

    def attach(self, parts: GraphParts) -> GraphParts:
        """Add delegate over a graph of the parts so far, without the gate or a checkpointer."""
        graph = build_graph(replace(parts, gate=None, review=None, candidates=None), None)
        tool = build_delegate_tool(
            graph,
            max_parallel=self.max_parallel,
            recursion_limit=self.recursion_limit,
            limits=self.limits,
            quota=self.quota,
        )
        return parts.adding([tool])


@dataclass(frozen=True)
class Clarification:
    """ask_user: the main agent may pause a question to ask the person (runs say when)."""

    max_per_question: int

    def attach(self, parts: GraphParts) -> GraphParts:
        """Add ask_user and tell the nodes the model has it."""
        tool = build_ask_user_tool(self.max_per_question)
        return parts.adding([tool], clarify=True, ask_tool=tool.name)


@dataclass(frozen=True)
class ApprovalGate:
    """SQL approval: runs that ask for it stop before each query for a person's decision."""

    approval: SqlApproval

    def attach(self, parts: GraphParts) -> GraphParts:
        """Set the approval as the graph's tool gate."""
        return replace(parts, gate=self.approval)


@dataclass(frozen=True)
class AnswerReviewStep:
    """ANSWER_CHECK=repair: a first answer with unsupported figures goes back to the model once."""

    review: AnswerRepair

    def attach(self, parts: GraphParts) -> GraphParts:
        """Set the review every first answer of the main graph passes."""
        return replace(parts, review=self.review)


@dataclass(frozen=True)
class AnswerCandidatesCheck:
    """ANSWER_CANDIDATES: an answer's query weighed against more candidates that must agree."""

    count: int
    auto: bool
    check_figures: bool
    """Whether auto also weighs an answer the answer check doubts (ANSWER_CHECK not off)."""
    temperature: float
    call_timeout: float | None

    def attach(self, parts: GraphParts) -> GraphParts:
        """Set the candidates step over the tools, model and schema attached so far."""
        nodes = parts.nodes
        writer = CandidateWriter(
            parts.model,
            {tool.name: tool for tool in parts.tools},
            nodes.dialect,
            temperature=self.temperature,
            schema=nodes.schema,
            tables=nodes.tables,
            report_model_call=nodes.report_model_call,
            model_name=nodes.model_name,
            call_timeout=self.call_timeout,
        )
        step = AnswerCandidatesStep(
            writer,
            self.count,
            self.auto,
            check_answer if self.check_figures else None,
            nodes.dialect,
            nodes.ask_tool,
        )
        notes = (*nodes.answer_notes, CandidatesNote(nodes.ask_tool))
        return replace(parts, candidates=step).adding(answer_notes=notes)


@dataclass(frozen=True)
class EmptyScopeNote:
    """An answer whose scoped query found nothing says so, naming the asker's filters."""

    note: ScopeNote

    def attach(self, parts: GraphParts) -> GraphParts:
        """Add the scope note under the main graph's answers."""
        return parts.adding(answer_notes=(*parts.nodes.answer_notes, self.note))


def graph_features(service: AgentService) -> list[GraphFeature]:
    """Return the features the settings turn on, in the order they attach."""
    settings = service.settings
    assert service.database is not None
    dialect = service.database.dialect
    history = TurnHistory(settings.history_mode, settings.history_index_max, dialect)
    features: list[GraphFeature] = [ConversationHistory(history, dialect)]
    if service.memory is not None and settings.memory:
        features.append(MemoryRetrieval(service.memory.retriever))
    if service.memory is not None and settings.memory and settings.verified_answers != "off":
        features.append(
            VerifiedAnswersStep(
                VerifiedAnswers(
                    service.memory.retriever,
                    direct=settings.verified_answers == "direct",
                    near_match=settings.verified_near_match,
                    value_links=value_links_source(service),
                )
            )
        )
    if (schema := schema_context(service)) is not None:
        features.append(SchemaCatalogue(schema))
    if settings.subagents:
        quotas = service.ledger.quotas if service.ledger is not None else None
        features.append(
            SubAgents(
                settings.subagents_max_parallel,
                settings.subagent_recursion_limit,
                DelegateLimits(
                    settings.delegate_max_tasks, settings.delegate_max_tasks_per_question
                ),
                SubquestionQuota(quotas) if quotas is not None else None,
            )
        )
    if settings.clarify != "off":
        features.append(Clarification(settings.clarify_max))
    features.append(ApprovalGate(SqlApproval(dialect, settings.allowed_tables, report_query)))
    if settings.answer_check == "repair":
        features.append(AnswerReviewStep(AnswerRepair(check_answer)))
    if settings.answer_candidates != "off":
        auto = settings.answer_candidates == "auto"
        count = settings.answer_candidates_auto_count if auto else int(settings.answer_candidates)
        features.append(
            AnswerCandidatesCheck(
                count,
                auto,
                settings.answer_check != "off",
                settings.answer_candidates_temperature,
                settings.llm_timeout or None,
            )
        )
    features.append(EmptyScopeNote(ScopeNote(service.database, service.columns)))
    return features
