"""Tests of the web layer: users' datasets."""
