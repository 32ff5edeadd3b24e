"""The tools the model calls: SQL, schema search, and their results."""
