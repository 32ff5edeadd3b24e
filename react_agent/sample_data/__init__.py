"""Embedded sample sales database of a Chinese retail chain, for demos and tests."""

from pathlib import Path

SAMPLE_DB_PATH = Path(__file__).with_name("sales.db")

SAMPLE_DATABASE_URL = f"sqlite:///{SAMPLE_DB_PATH}"
"""The embedded sample database, used when no data database is configured."""

__all__ = ["SAMPLE_DATABASE_URL", "SAMPLE_DB_PATH"]
