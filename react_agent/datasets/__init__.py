"""Files people upload and ask about: kept per user, each opened as a DuckDB source."""
