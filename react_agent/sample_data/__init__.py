"""Embedded sample sales database of a Chinese retail chain, for demos and tests."""

from pathlib import Path

SAMPLE_DB_PATH = Path(__file__).with_name("sales.db")

__all__ = ["SAMPLE_DB_PATH"]
