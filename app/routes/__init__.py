"""HTTP routes, one blueprint per concern."""
