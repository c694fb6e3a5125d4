"""Registration of the lexi measure family (filled in by its issue)."""
