"""Tests of the web layer: the schema endpoints."""
