"""Tests of the web layer: sub-agents."""
