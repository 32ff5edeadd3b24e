"""A 1,000-table schema with zh/en names, comments, keys and values, and questions about it."""
