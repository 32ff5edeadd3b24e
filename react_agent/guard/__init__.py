"""The SQL guard: only one read-only SELECT over the allowed tables reaches a database."""
