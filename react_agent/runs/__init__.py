"""Running questions: background runs, their events, and claims on threads."""
