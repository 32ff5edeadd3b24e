"""The ground floor of app/: the envelope, errors, bodies, faults, id rules, API keys, app state."""
