"""Package discovery for setuptools (everything else lives in pyproject.toml).

The repository root is the import package ``palaestra`` (pyproject: ``package-dir``), so its
subpackages are found under ``.`` and prefixed. Folders that are not library code are excluded
by name; nothing else is listed by hand, so a new subpackage ships without an edit here.
"""

from setuptools import find_packages, setup

NOT_LIBRARY = ["tests", "tests.*", "benchmarks", "benchmarks.*", "docs", "docs.*", "build", "build.*"]

setup(packages=["palaestra", *(f"palaestra.{name}" for name in find_packages(".", exclude=NOT_LIBRARY))])
