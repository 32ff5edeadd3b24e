"""The service's own storage plumbing: its small tables and, on PostgreSQL, the statement writer."""
