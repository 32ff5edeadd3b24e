"""The old service's memory endpoints: ratings and training data."""
