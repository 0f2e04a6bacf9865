"""palaestra."""
