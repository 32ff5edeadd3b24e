"""Tests for the react_agent package."""
