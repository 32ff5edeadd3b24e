"""Tests of the web layer."""
