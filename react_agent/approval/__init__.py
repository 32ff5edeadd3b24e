"""Human approval of SQL before it runs: the graph's interrupt and resuming with a decision."""
