"""Keeping the memory right: an item checked before it is stored, reviews, ratings made examples."""
