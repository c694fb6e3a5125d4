"""Registration of the cwl measure family (filled in by its issue)."""
