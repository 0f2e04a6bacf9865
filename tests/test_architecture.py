"""The house rules of docs/architecture.md, checked over every library module's imports.

- Arrows point down: a room imports only rooms on lower floors (or itself).
- No import cycle between library modules.
- No module imports another package's private module (``pkg._mod``), and none reads another
  module's private name (``from mod import _name``, ``mod._name``): a private module serves its
  own package, a private name its own module; shared code gets a public home.

Imports inside functions count as much as top-level ones: a lazy import is still an arrow.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_LIBRARY = {"tests", "benchmarks", "docs", "build", ".build", "runs"}

# Floors from the bottom up (docs/architecture.md); a room may import rooms on lower floors.
FLOORS: list[set[str]] = [
    {"core", "measurements", "version"},
    {"verifiers", "sandbox"},
    {"registry"},
    {"generators"},
    {"batch", "_verify_worker", "calibration", "rows"},
    {"envs", "catalog", "client"},
    {"__init__"},  # the public face: make_task, verify, verify_many, Gymnasium ids
    {"curriculum", "export"},
    {"integrations"},
    {"server"},
    {"agents"},
    {"cli", "dev"},
    {"__main__"},  # `python -m palaestra`: runs the cli
]
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("palaestra", *parts))


def library_modules() -> dict[str, Path]:
    modules = {}
    for path in ROOT.rglob("*.py"):
        top = path.relative_to(ROOT).parts[0]
        if top in NOT_LIBRARY or top.startswith(".") or path.name == "setup.py":
            continue
        modules[module_name(path)] = path
    return modules


MODULES = library_modules()


@dataclass(frozen=True)
class Arrow:
    source: str  # importing module
    target: str  # imported module
    names: tuple[str, ...]  # names taken from it (from-imports and attribute reads)
    line: int

    def __str__(self) -> str:
        return f"{self.source}:{self.line} -> {self.target} {list(self.names) or ''}"


def _package_of(module: str) -> str:
    is_package = MODULES[module].name == "__init__.py"
    return module if is_package else module.rpartition(".")[0]


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = _package_of(module).split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def arrows(module: str) -> Iterator[Arrow]:
    tree = ast.parse(MODULES[module].read_text())
    aliases: dict[str, str] = {}  # local name -> palaestra module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("palaestra"):
                    aliases[alias.asname or alias.name] = alias.name
                    yield Arrow(module, alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node)
            if not target.startswith("palaestra"):
                continue
            names = []
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES:  # `from pkg import module`
                    aliases[alias.asname or alias.name] = submodule
                    yield Arrow(module, submodule, (), node.lineno)
                else:
                    names.append(alias.name)
            if names:
                yield Arrow(module, target, tuple(names), node.lineno)
    for node in ast.walk(tree):  # `module._name` on an imported palaestra module
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                yield Arrow(module, aliases[node.value.id], (node.attr,), node.lineno)


ALL_ARROWS = [arrow for module in sorted(MODULES) for arrow in arrows(module)]


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_room_has_a_floor() -> None:
    rooms = {room(module) for module in MODULES}
    assert rooms <= FLOOR.keys(), (
        f"rooms missing from FLOORS (and docs/architecture.md): {rooms - FLOOR.keys()}"
    )


def test_arrows_point_down() -> None:
    upward = [
        f"{arrow} ({room(arrow.source)} on floor {FLOOR[room(arrow.source)]}, "
        f"{room(arrow.target)} on floor {FLOOR[room(arrow.target)]})"
        for arrow in ALL_ARROWS
        if room(arrow.source) != room(arrow.target) and FLOOR[room(arrow.target)] >= FLOOR[room(arrow.source)]
    ]
    assert not upward, "imports that point up or sideways:\n" + "\n".join(upward)


def _private_owner(module: str) -> str | None:
    """The package that owns ``module`` if some part of its name is private, else None."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def _inside(module: str, package: str) -> bool:
    return _package_of(module) == package or _package_of(module).startswith(package + ".")


def test_no_private_import_across_packages() -> None:
    crossings = []
    for arrow in ALL_ARROWS:
        owner = _private_owner(arrow.target)
        if owner is not None and owner != "palaestra" and not _inside(arrow.source, owner):
            crossings.append(f"{arrow} (private module of {owner})")
        elif (
            owner == "palaestra"
            and room(arrow.source) in FLOOR
            and not _package_of(arrow.source) == "palaestra"
        ):
            crossings.append(f"{arrow} (private top-level module)")
        private_names = [name for name in arrow.names if name.startswith("_") and not name.startswith("__")]
        if private_names and arrow.target != arrow.source:
            crossings.append(f"{arrow} (private names {private_names} of another module)")
    assert not crossings, "private pieces used outside their package:\n" + "\n".join(crossings)


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for arrow in ALL_ARROWS:
        if arrow.target in MODULES and arrow.target != arrow.source:
            graph[arrow.source].add(arrow.target)
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    # a package's __init__ importing its own modules, which import the package back, is Python's norm
    cycles = [c for c in cycles if not _init_round_trip(c)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _init_round_trip(cycle: str) -> bool:
    modules = cycle.split(" -> ")
    packages = [m for m in modules if MODULES[m].name == "__init__.py"]
    return bool(packages) and all(m == p or m.startswith(p + ".") for p in packages[:1] for m in modules)


@pytest.mark.parametrize("name", ["palaestra.tests", "palaestra.benchmarks"])
def test_the_checker_sees_real_modules(name: str) -> None:
    """The walk finds the library (a checker that sees nothing would pass everything)."""
    assert len(MODULES) > 200 and "palaestra.core" in MODULES and name not in MODULES
    assert len(ALL_ARROWS) > 500
    assert importlib.util.find_spec("palaestra.core") is not None
