"""Tests of the web layer: the conversation endpoints."""
