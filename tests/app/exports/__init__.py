"""Tests of the web layer: CSV exports of results, on every backend."""
