"""Package discovery for setuptools (everything else lives in pyproject.toml).

The repository root is the import package ``palaestra`` (pyproject: ``package-dir``), so its
subpackages are found under ``.`` and prefixed. Folders that are not library code are excluded
by name; nothing else is listed by hand, so a new subpackage ships without an edit here. This
file itself sits in the package folder and is kept out of the build.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

NOT_LIBRARY = ["tests", "tests.*", "benchmarks", "benchmarks.*", "docs", "docs.*", "build", "build.*"]


class BuildWithoutSetupScript(build_py):
    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if not (package == "palaestra" and m[1] == "setup")]


setup(
    packages=["palaestra", *(f"palaestra.{name}" for name in find_packages(".", exclude=NOT_LIBRARY))],
    cmdclass={"build_py": BuildWithoutSetupScript},
)
