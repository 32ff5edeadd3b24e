"""Tests of the web layer: the OpenAI-compatible API."""
