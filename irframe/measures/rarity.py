"""Registration of the rarity measure family (filled in by its issue)."""
