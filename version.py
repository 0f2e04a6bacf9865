"""The library's version (one place; the package metadata and exported rows read it)."""

__version__ = "0.1.0"
