"""Bridges from palaestra to other training frameworks (TRL; more to come)."""
