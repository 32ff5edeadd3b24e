"""Tests of the web layer: the MCP server."""
