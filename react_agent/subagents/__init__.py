"""Sub-agents: the delegate tool hands each part of a question to its own SQL agent."""
