"""A run's events: what it reports, its log, the sink inside its graph, and who listens."""
