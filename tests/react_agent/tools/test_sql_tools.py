"""The SQL tools as the model sees them: names, descriptions and argument schemas."""

from __future__ import annotations

from langchain_core.utils.function_calling import convert_to_openai_tool

from react_agent.databases.sqlite.engine import SQLiteDatabase
from react_agent.databases.urls import sqlite_path_from_url
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.tools.schema_tools import SchemaTools
from react_agent.tools.sql_tools import build_sql_tools

# Dumped from the tools before they were rewritten as module-level functions; the model must
# see exactly this, whitespace of the docstrings included.
EXPECTED_TOOL_SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": "list_tables",
            "description": "List the tables in the database with their columns. Call this first.",
            # Optional: a database of more than LIST_TABLES_PAGE tables is listed page by page.
            "parameters": {
                "properties": {"page": {"default": 1, "type": "integer"}},
                "type": "object",
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "describe_tables",
            "description": "Show the columns (name and type) and row counts of the given tables.",
            "parameters": {
                "properties": {"table_names": {"items": {"type": "string"}, "type": "array"}},
                "required": ["table_names"],
                "type": "object",
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "check_sql",
            "description": (
                "Check a SELECT query for mistakes without running it. Returns OK or the error."
            ),
            "parameters": {
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"],
                "type": "object",
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run_sql",
            "description": (
                "Run one read-only SELECT query and return its columns and first rows.\n\n"
                "        If it fails, read the error, fix the query and try again."
            ),
            "parameters": {
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"],
                "type": "object",
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_result",
            "description": (
                "Read rows of an earlier run_sql result of this conversation by its result_id."
                "\n\n        Use it instead of running the same query again. offset skips rows;"
                " limit is at\n        most 100."
            ),
            "parameters": {
                "properties": {
                    "result_id": {"type": "string"},
                    "offset": {"default": 0, "type": "integer"},
                    "limit": {"default": 20, "type": "integer"},
                },
                "required": ["result_id"],
                "type": "object",
            },
        },
    },
]


def test_the_model_sees_the_same_tool_names_descriptions_and_argument_schemas():
    database = SQLiteDatabase(sqlite_path_from_url(SAMPLE_DATABASE_URL))
    tools = build_sql_tools(database, row_limit=10, preview_rows=5, timeout=3.0)

    assert [convert_to_openai_tool(t) for t in tools] == EXPECTED_TOOL_SCHEMAS


SEARCH_SCHEMA_SCHEMA = {
    "type": "function",
    "function": {
        "name": "search_schema",
        "description": (
            "Find tables by meaning: table or column names, business terms or values.\n\n"
            "        Returns the best matching tables with their columns, keys, descriptions and\n"
            "        sample values. Use it when the tables you need are not described already."
        ),
        "parameters": {
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "type": "object",
        },
    },
}


def test_the_model_sees_search_schema_with_one_query_argument():
    async def search(query: str) -> str:
        return query

    assert [convert_to_openai_tool(t) for t in SchemaTools(search).as_tools()] == [
        SEARCH_SCHEMA_SCHEMA
    ]
