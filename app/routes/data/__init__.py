"""What there is to ask about: datasets, the schema catalogue, business instructions."""
