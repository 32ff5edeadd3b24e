"""Tests of the web layer: the audit trail."""
