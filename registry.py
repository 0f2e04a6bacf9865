"""The family registry: generators, verifiers and their metadata, plugins and Gymnasium ids.

A task family is one class decorated with :func:`family`::

    @family("expression", domain="arithmetic", knobs=ExpressionKnobs, levels=LEVELS,
            description="Evaluate an arithmetic expression exactly.")
    class Expression(Family):
        def generate(self, knobs, rng) -> TaskDraft: ...
        def verify(self, task, response) -> Verdict: ...
        def effort(self, task) -> float: ...

Every module under ``palaestra.generators`` is a family plugin, so adding a family is adding one
file. ``import palaestra`` imports none of them: the committed index ``generators/index.json``
(written by ``palaestra dev refresh``, checked by ``tests/test_registry_index.py``) names each
family's domain, module and env kind, which is enough to list the families and register their
Gymnasium ids; a family's module is imported the first time the family is used (``get``). When
the index is missing, or names other module files than the checkout holds (a family file added
without a refresh), every module is imported as before: slower, never wrong. Third-party packages
register families through the entry-point group ``palaestra.families`` (the entry point names a
module or a Family class to import); they load with ``import palaestra``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import pkgutil
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from palaestra.core import (
    LEVELS,
    Difficulty,
    GenerationError,
    Knobs,
    KnobSpec,
    Task,
    Verdict,
    check_level,
    check_seed,
    make_rng,
)

DOMAINS = (
    "arithmetic",
    "math",
    "puzzles",
    "logic",
    "reasoning",
    "graphs",
    "optimization",
    "words",
    "languages",
    "code",
    "formal",
    "interactive",
    "games",
    "algorithms",
)
ENTRY_POINT_GROUP = "palaestra.families"
ENV_NAMESPACE = "palaestra"


@dataclass(frozen=True)
class TaskDraft:
    """What a generator returns; the registry adds family, difficulty, seed and id."""

    prompt: str
    answer: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """One step of an interactive episode: what the agent sees next and how the game stands.

    ``outcome`` is ``None`` while the game goes on, ``"solved"`` or ``"failed"`` when it ends
    by its own rules (``terminated``); running out of turns is the env's budget (``truncated``).
    """

    observation: str
    reward: float = 0.0
    outcome: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)


class Episode(ABC):
    """A live multi-turn game over one task (interactive families implement ``new_episode``).

    Episodes are pure state machines: all randomness comes from the rng they are given.
    """

    max_turns: int

    @abstractmethod
    def opening(self) -> str:
        """The first observation: rules, budget and answer format."""

    @abstractmethod
    def act(self, action: str) -> Turn:
        """Apply the agent's message; invalid actions return an explanation, never raise."""

    @abstractmethod
    def reference_action(self) -> str:
        """A move of the scripted reference (optimal or strong) agent in the current state."""

    @abstractmethod
    def random_action(self, rng: np.random.Generator) -> str:
        """A uniformly random valid move (the baseline that should rarely win at high levels)."""


@dataclass(frozen=True)
class SolverRun:
    """What a reference solver produced: a response to verify (``None`` = gave up) and its effort."""

    response: str | None
    effort: float


class Family(ABC):
    """Base class of a task family. Subclasses are registered with :func:`family`.

    A family is stateless: ``generate`` and ``verify`` are pure functions of their inputs.
    """

    name: ClassVar[str]
    domain: ClassVar[str]
    version: ClassVar[int]
    description: ClassVar[str]
    knobs: ClassVar[type[Knobs]]
    levels: ClassVar[Mapping[int, Knobs]]
    verifier_kind: ClassVar[str]

    @abstractmethod
    def generate(self, knobs: Any, rng: np.random.Generator) -> TaskDraft:
        """Build one task from resolved knobs, drawing randomness only from ``rng``."""

    @abstractmethod
    def verify(self, task: Task, response: str) -> Verdict:
        """Grade a model response against the task; must be bounded in time."""

    @abstractmethod
    def solve_exact(self, task: Task) -> SolverRun:
        """The exact reference solver: always solves, and reports its effort (nodes, steps)."""

    def solve_weak(self, task: Task) -> SolverRun:
        """A weak heuristic solver (bounded budget, no search); calibration expects its solve
        rate to fall as the level rises. Families override this with a real heuristic."""
        raise NotImplementedError(f"family {self.name} has no weak reference solver")

    def effort(self, task: Task) -> float:
        """Work the exact reference solver spends on this task (nodes, steps, conflicts).

        Difficulty tests check that it grows with the level on average over many seeds.
        """
        return self.solve_exact(task).effort

    def reference_response(self, task: Task) -> str:
        """A model-style response carrying the reference answer (used by contract tests)."""
        return f"<answer>{task.answer}</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        """Responses that must be judged wrong (contract tests check they are)."""
        return []

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        """Interactive families return a live game over ``task`` (see ``interactive``)."""
        raise NotImplementedError(f"family {self.name} is not interactive")

    @property
    def interactive(self) -> bool:
        """True when the family overrides :meth:`new_episode` (its env id is multi-turn)."""
        return type(self).new_episode is not Family.new_episode


@dataclass(frozen=True)
class FamilySpec:
    """The registry's record of one family."""

    name: str
    domain: str
    version: int
    description: str
    knobs: type[Knobs]
    levels: Mapping[int, Knobs]
    verifier_kind: str
    impl: Family
    module: str

    @property
    def env_id(self) -> str:
        return env_id_for(self.name)

    def knob_specs(self) -> list[KnobSpec]:
        return self.knobs.specs()


_FAMILIES: dict[str, FamilySpec] = {}
_discovery_lock = threading.RLock()
_discovered = False


def env_id_for(name: str) -> str:
    """``knights_knaves`` -> ``palaestra/KnightsKnaves-v0``."""
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_"))
    return f"{ENV_NAMESPACE}/{camel}-v0"


def family(
    name: str,
    *,
    domain: str,
    knobs: type[Knobs],
    levels: Mapping[int, Knobs],
    description: str,
    version: int = 1,
    verifier_kind: str = "exact",
) -> Callable[[type[Family]], type[Family]]:
    """Class decorator that registers a :class:`Family` subclass under ``name``."""

    def register(cls: type[Family]) -> type[Family]:
        _check_definition(name, domain, knobs, levels)
        cls.name, cls.domain, cls.version = name, domain, version
        cls.description, cls.knobs, cls.levels = description, knobs, dict(levels)
        cls.verifier_kind = verifier_kind
        spec = FamilySpec(
            name=name,
            domain=domain,
            version=version,
            description=description,
            knobs=knobs,
            levels=dict(levels),
            verifier_kind=verifier_kind,
            impl=cls(),
            module=cls.__module__,
        )
        existing = _FAMILIES.get(name)
        if existing is not None and existing.module != spec.module:
            raise ValueError(f"family {name!r} is already registered by {existing.module}")
        _FAMILIES[name] = spec
        _register_env(spec)
        return cls

    return register


def _check_definition(name: str, domain: str, knobs: type[Knobs], levels: Mapping[int, Knobs]) -> None:
    if not name.isidentifier() or name != name.lower():
        raise ValueError(f"family name {name!r} must be a lower_snake_case identifier")
    if domain not in DOMAINS:
        raise ValueError(f"family {name}: domain {domain!r} is not one of {DOMAINS}")
    if sorted(levels) != list(LEVELS):
        raise ValueError(f"family {name}: levels must be exactly {list(LEVELS)}, got {sorted(levels)}")
    for level, value in levels.items():
        if not isinstance(value, knobs):
            raise TypeError(f"family {name}: level {level} must be a {knobs.__name__}")


def _register_env(spec: FamilySpec) -> None:
    _register_env_id(spec.name, spec.impl.interactive)


def _register_env_id(name: str, interactive: bool) -> None:
    import gymnasium

    env_id = env_id_for(name)
    if env_id in gymnasium.registry:
        return
    gymnasium.register(
        id=env_id,
        # a string entry point: the env module (and the family's) load on gymnasium.make
        entry_point=(
            "palaestra.envs.interactive:InteractiveEnv" if interactive else "palaestra.envs.task_env:TaskEnv"
        ),
        kwargs={"family": name},
        disable_env_checker=True,  # the contract tests run check_env on every id
    )


# --------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------


BUILT_IN_FAMILIES = "palaestra.generators"
GENERATORS_DIR = Path(__file__).resolve().parent / "generators"
INDEX_PATH = GENERATORS_DIR / "index.json"
_NOT_READ = object()
_index_cache: Any = _NOT_READ
_plugins_loaded = False


def discover() -> None:
    """Import every built-in family module and every installed plugin, once."""
    global _discovered
    with _discovery_lock:
        if _discovered:
            return
        # Family modules are plugins that import this module (for Family and @family), so they
        # are loaded by name at run time, like the entry-point plugins below: no import arrow
        # points up from the registry to the generators (docs/architecture.md).
        for name in family_module_names():
            importlib.import_module(name)
        _ensure_plugins()
        _discovered = True


def family_module_names() -> list[str]:
    """Every built-in module that may define families (the non-private modules and packages
    under ``palaestra.generators``), sorted; what :func:`discover` imports."""
    generators = importlib.import_module(BUILT_IN_FAMILIES)
    names = pkgutil.walk_packages(generators.__path__, prefix=BUILT_IN_FAMILIES + ".")
    return sorted(info.name for info in names if not info.name.rsplit(".", 1)[-1].startswith("_"))


def module_files(root: Path = GENERATORS_DIR, prefix: str = BUILT_IN_FAMILIES + ".") -> list[str]:
    """:func:`family_module_names` read from the file tree alone (imports nothing): the
    ``.py`` files and package folders ``pkgutil.walk_packages`` finds, private leaves left out."""
    found: list[str] = []
    with os.scandir(root) as entries:
        for entry in entries:
            if (
                entry.is_dir()
                and "." not in entry.name
                and os.path.isfile(os.path.join(entry.path, "__init__.py"))
            ):
                found.append(prefix + entry.name)
                found.extend(module_files(Path(entry.path), f"{prefix}{entry.name}."))
            elif entry.name.endswith(".py") and entry.name != "__init__.py" and entry.is_file():
                found.append(prefix + entry.name[:-3])
    return sorted(name for name in found if not name.rsplit(".", 1)[-1].startswith("_"))


def build_index() -> dict[str, Any]:
    """The index of the built-in families, as :data:`INDEX_PATH` stores it (imports them all)."""
    discover()
    built_in = {
        name: {"domain": spec.domain, "module": spec.module, "interactive": spec.impl.interactive}
        for name, spec in sorted(_FAMILIES.items())
        if spec.module.startswith(BUILT_IN_FAMILIES + ".")
    }
    return {
        "about": "written by `palaestra dev refresh`; read by palaestra.registry so that "
        "`import palaestra` imports no family module",
        "modules": family_module_names(),
        "families": built_in,
    }


def write_index(path: Path = INDEX_PATH) -> None:
    """Write :func:`build_index` to ``path`` (``palaestra dev refresh`` calls it)."""
    global _index_cache
    path.write_text(json.dumps(build_index(), indent=1, sort_keys=True) + "\n")
    _index_cache = _NOT_READ


def _index() -> dict[str, dict[str, Any]] | None:
    """The index's families, or ``None`` when it is missing, unreadable or stale: it names other
    module files than :func:`module_files` finds (a family file added without a refresh)."""
    global _index_cache
    if _index_cache is _NOT_READ:
        try:
            stored = json.loads(INDEX_PATH.read_text())
            fresh = stored["modules"] == module_files()
        except (OSError, ValueError, KeyError, TypeError):
            fresh = False
        _index_cache = stored["families"] if fresh else None
    return _index_cache


def register_env_ids() -> None:
    """Register every family's Gymnasium id (and load the plugins), importing no family module
    when the index is fresh; ``import palaestra`` calls it."""
    index = _index()
    if index is None:
        discover()  # the ids register as the modules load
        return
    for name, entry in index.items():
        _register_env_id(name, entry["interactive"])
    _ensure_plugins()


def _ensure_plugins() -> None:
    global _plugins_loaded
    with _discovery_lock:
        if not _plugins_loaded:
            _plugins_loaded = True
            _load_plugins()


def _load_plugins() -> None:
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as exc:  # a broken plugin must not break the built-in catalog
            warnings.warn(f"palaestra plugin {entry.name!r} failed to load: {exc}", stacklevel=2)


def is_registered(name: str) -> bool:
    """Whether family ``name`` is registered already (imports nothing: no discovery)."""
    return name in _FAMILIES


def families(domain: str | None = None) -> list[str]:
    """Names of all registered families (optionally of one domain), sorted."""
    with _discovery_lock:
        index = _index() if not _discovered else None
        if index is None:
            discover()
        _ensure_plugins()
        domains = {name: entry["domain"] for name, entry in (index or {}).items()}
        domains.update((name, spec.domain) for name, spec in _FAMILIES.items())
    return sorted(name for name, of in domains.items() if domain is None or of == domain)


def get(name: str) -> FamilySpec:
    """The spec of family ``name`` (importing its module on first use); ``ValueError`` naming
    the valid families if unknown."""
    spec = _FAMILIES.get(name) if isinstance(name, str) else None
    if spec is None and isinstance(name, str):
        with _discovery_lock:
            entry = (_index() or {}).get(name)
            if entry is not None:
                importlib.import_module(entry["module"])
            if name not in _FAMILIES:  # not indexed (or the index is stale): look everywhere
                discover()
            spec = _FAMILIES.get(name)
    if spec is None:
        raise ValueError(f"unknown family {name!r}; valid families: {', '.join(families())}")
    return spec


# --------------------------------------------------------------------------------------------
# Making and verifying tasks
# --------------------------------------------------------------------------------------------


def resolve_difficulty(
    spec: FamilySpec, level: int | None, overrides: Mapping[str, Any]
) -> tuple[Difficulty, Knobs]:
    """Resolve a level and/or knob overrides into the full, validated knob set (and its typed form).

    With a level, its knobs are the base and ``overrides`` replace some of them; without one,
    the knob defaults are the base (and the task carries ``level=None``).
    """
    if level is None and not overrides:
        level = 1
    if level is not None:
        level = check_level(level)
        if not overrides:  # the level's own knobs: already built and validated at registration
            typed = spec.levels[level]
            return Difficulty(level=level, knobs=dict(_knob_dict(typed))), typed
        base = spec.levels[level].to_dict()
    else:
        base = {}
    if not _knob_names(spec.knobs).issuperset(overrides):
        unknown = sorted(set(overrides) - _knob_names(spec.knobs))
        raise ValueError(
            f"unknown knob(s) {unknown} for family {spec.name}; valid knobs: {spec.knobs.names()}"
        )
    knobs = _built_knobs(spec.knobs, {**base, **overrides})
    return Difficulty(level=level, knobs=dict(_knob_dict(knobs))), knobs


_KNOB_NAMES: dict[type[Knobs], frozenset[str]] = {}  # one entry per family's knob class


def _knob_names(knobs_class: type[Knobs]) -> frozenset[str]:
    names = _KNOB_NAMES.get(knobs_class)
    if names is None:
        names = _KNOB_NAMES[knobs_class] = frozenset(knobs_class.names())
    return names


_KNOB_DICTS: dict[int, tuple[Knobs, dict[str, Any]]] = {}


def _knob_dict(knobs: Knobs) -> dict[str, Any]:
    """``knobs.to_dict()``, remembered per (immutable) level knob set; callers copy it."""
    entry = _KNOB_DICTS.get(id(knobs))
    if entry is None or entry[0] is not knobs:  # the entry keeps its knobs alive: ids stay unique
        if len(_KNOB_DICTS) >= _KNOBS_BUILT_MAX:
            _KNOB_DICTS.clear()
        entry = _KNOB_DICTS[id(knobs)] = (knobs, knobs.to_dict())
    return entry[1]


_KNOBS_BUILT: dict[tuple[Any, ...], Knobs] = {}
_KNOBS_BUILT_MAX = 4096


def _built_knobs(knobs_class: type[Knobs], values: dict[str, Any]) -> Knobs:
    """``knobs_class.build(values)``, remembered: a curriculum or a sweep asks for the same few
    knob sets millions of times, and checking them costs more than the rest of ``make_task``
    for the cheapest families. The key holds each value's type, since ``1``, ``1.0`` and ``True``
    are equal dict keys but different knob values; unhashable values are built every time."""
    try:
        key = (knobs_class, *sorted((name, type(value), value) for name, value in values.items()))
        built = _KNOBS_BUILT.get(key)
    except TypeError:
        return knobs_class.build(values)
    if built is None:
        built = knobs_class.build(values)  # raises on bad values: nothing is remembered then
        if len(_KNOBS_BUILT) >= _KNOBS_BUILT_MAX:
            _KNOBS_BUILT.clear()
        _KNOBS_BUILT[key] = built
    return built


def make_task(family_name: str, *, seed: int, level: int | None = None, **knobs: Any) -> Task:
    """Generate one task of ``family_name``; the same arguments give the same task anywhere."""
    spec = get(family_name)
    seed = check_seed(seed)
    difficulty, typed = resolve_difficulty(spec, level, knobs)
    return _generate(spec, difficulty, typed, seed)


def rebuild(task: Task) -> Task:
    """Regenerate ``task`` from (family, version, difficulty, seed) alone."""
    spec = get(task.family)
    if task.family_version != spec.version:
        raise ValueError(
            f"task was made by {task.family} v{task.family_version}; installed is v{spec.version}"
        )
    return _generate(spec, task.difficulty, spec.knobs.build(task.difficulty.knobs), task.seed)


def _generate(spec: FamilySpec, difficulty: Difficulty, knobs: Knobs, seed: int) -> Task:
    rng = make_rng(spec.name, spec.version, seed)
    try:
        draft = spec.impl.generate(knobs, rng)
    except RuntimeError as exc:
        if isinstance(exc, (RecursionError, NotImplementedError)):
            raise  # a defect, not a search that ran out
        raise GenerationError(_exhausted(spec, knobs, seed, exc)) from exc
    return Task(
        family=spec.name,
        family_version=spec.version,
        difficulty=difficulty,
        seed=seed,
        prompt=draft.prompt,
        answer=draft.answer,
        metadata=draft.metadata,
    )


def _exhausted(spec: FamilySpec, knobs: Knobs, seed: int, exc: RuntimeError) -> str:
    """A generator's bounded search ran out: say so, naming the knobs set beyond every level."""
    beyond = _knobs_beyond_levels(spec, knobs)
    where = f"knob {', '.join(beyond)}" if beyond else f"knobs {knobs.to_dict()}"
    return f"{spec.name}: no task could be generated at {where} with seed {seed} ({exc}); try gentler values"


def _knobs_beyond_levels(spec: FamilySpec, knobs: Knobs) -> list[str]:
    """``name=value`` for each knob outside what the family's levels use (above their largest
    number, or a choice no level makes)."""
    out = []
    for name, value in knobs.to_dict().items():
        used = [getattr(level, name) for level in spec.levels.values()]
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if (numeric and value > max(used)) or (not numeric and value not in used):
            out.append(
                f"{name}={value!r} (the levels go up to {max(used)!r})" if numeric else f"{name}={value!r}"
            )
    return out


def verify(task: Task, response: str) -> Verdict:
    """Grade ``response`` for ``task``. Never raises on bad model text.

    A non-string response is graded as a format error; a crash inside the family's verifier
    is reported in ``Verdict.error`` (and is never correct).
    """
    spec = get(task.family)
    if not isinstance(response, str):
        return Verdict.bad_format(f"response must be a string, got {type(response).__name__}")
    try:
        return spec.impl.verify(task, response)
    except Exception as exc:  # the verifier's bug must surface, not read as a wrong answer
        return Verdict.failure(error=f"{type(exc).__name__}: {exc}")
