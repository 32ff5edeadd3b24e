"""Tests of the web layer: quotas."""
