"""The graph's nodes: the agent's steps, a round of tools, the final answer, a verified step."""
