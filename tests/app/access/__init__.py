"""Tests of the web layer: API keys and the access policy."""
