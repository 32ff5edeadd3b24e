"""An ask request from body to final data: validation, faults, ids, acceptance."""
