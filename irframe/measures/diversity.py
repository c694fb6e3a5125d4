"""Registration of the diversity measure family (filled in by its issue)."""
