"""Tests of the web layer: pauses for a person: SQL approval and clarifying questions."""
