"""Read-only access to the databases that questions are about."""
