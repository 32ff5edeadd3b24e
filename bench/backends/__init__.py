"""Benchmarks of the data backends: MariaDB and DuckDB files vs SQLite, and CSV exports."""
