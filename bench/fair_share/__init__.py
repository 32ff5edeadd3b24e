"""A data source's fair share under a flood: `python -m bench.fair_share.wait`."""
