"""Tests of the web layer: several processes sharing PostgreSQL, and crashes."""
