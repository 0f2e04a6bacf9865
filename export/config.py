"""The mixture config (families x levels or knob grids x counts per split) and the plan it makes:
units of work, each with its own seed stream."""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import palaestra
from palaestra.core import canonical_json, content_hash

MANIFEST = "palaestra_export.json"


FORMAT_VERSION = 3  # 2: conversational `prompt`, `extra_info.task`, trainer columns, palaestra_version;
# 3: splits follow palaestra's one content split (training splits hold training-side content only)


SPLIT_BITS = 58  # split s owns task seeds [s * 2**58, (s + 1) * 2**58)


MAX_SPLITS = 16


# Seeds a candidate tries before its cell counts as having no content on its split's side. A
# held-out split keeps about one draw in five (TEST_SHARE = 0.2): 256 misses in a row happen by
# chance with probability 0.8**256 ~ 1e-25, so a miss means the family-level's content is all on
# the other side.
SPLIT_REDRAWS = 256


def is_training_split(name: str) -> bool:
    """Whether a split trains (``train``, ``train_sft``, ...): it gets only training-side content,
    and every other split (``test``, ``validation``, ...) only held-out content."""
    return name.startswith("train")


DEFAULT_SYSTEM_PROMPT = "Solve the task. Give your final answer in exactly the format the task asks for."


_CONFIG_KEYS = {
    "name",
    "seed",
    "version",
    "splits",
    "format",
    "system_prompt",
    "shard_size",
    "chunk_size",
    "shuffle",
    "calibration_samples",
    "mixture",
}


_ENTRY_KEYS = {"family", "level", "levels", "knobs", "counts"}


@dataclass(frozen=True)
class Cell:
    """One family x level x knob combination and the rows it contributes to each split."""

    family: str
    level: int | None
    knobs: Mapping[str, Any]
    counts: Mapping[str, int]
    entry: int  # index of the mixture entry it came from (for messages)

    def label(self) -> str:
        knobs = ",".join(f"{k}={v}" for k, v in sorted(self.knobs.items()))
        where = f"level {self.level}" if self.level is not None else "custom knobs"
        return f"{self.family} {where}" + (f" [{knobs}]" if knobs else "")


@dataclass(frozen=True)
class MixtureConfig:
    """A validated mixture: what to generate, how many, from which seed."""

    name: str
    seed: int
    version: int
    splits: tuple[str, ...]
    cells: tuple[Cell, ...]
    format: str = "plain"
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    shard_size: int = 10_000
    chunk_size: int = 1000
    shuffle: bool = True
    calibration_samples: int = 8
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MixtureConfig:
        """Read a YAML (or JSON) mixture file."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"mixture config {str(path)!r} does not exist")
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise ValueError(f"{path} is not valid YAML: {_yaml_problem(exc)}") from None
        return cls.from_mapping(data)

    @classmethod
    def from_mapping(cls, data: Any) -> MixtureConfig:
        """Validate a mapping; every mistake is a ``ValueError`` that says what to fix."""
        if not isinstance(data, Mapping):
            raise ValueError("mixture config must be a mapping with a 'mixture' list")
        unknown = sorted(set(data) - _CONFIG_KEYS)
        if unknown:
            raise ValueError(f"unknown config key(s) {unknown}; valid keys: {sorted(_CONFIG_KEYS)}")
        entries = data.get("mixture")
        if not isinstance(entries, list) or not entries:
            raise ValueError("mixture config needs a non-empty 'mixture' list of entries")
        seed = _nonneg_int(data.get("seed", 0), "seed")
        version = _nonneg_int(data.get("version", 1), "version")
        named = [s for e in entries if isinstance(e, Mapping) for s in (e.get("counts") or {})]
        splits = data.get("splits") or _default_split_order(named)
        if not isinstance(splits, list) or not all(isinstance(s, str) and s.isidentifier() for s in splits):
            raise ValueError(f"splits must be a list of identifier names, got {splits!r}")
        if len(set(splits)) != len(splits) or not 0 < len(splits) <= MAX_SPLITS:
            raise ValueError(f"splits must be 1..{MAX_SPLITS} distinct names, got {splits!r}")
        fmt = data.get("format", "plain")
        if fmt not in ("plain", "chat"):
            raise ValueError(f"format must be 'plain' or 'chat', got {fmt!r}")
        cells = tuple(c for i, e in enumerate(entries) for c in _entry_cells(i, e, splits))
        if not any(n for c in cells for n in c.counts.values()):
            raise ValueError("the mixture asks for zero rows")
        return cls(
            name=str(data.get("name", "palaestra-mixture")),
            seed=seed,
            version=version,
            splits=tuple(splits),
            cells=cells,
            format=fmt,
            system_prompt=str(data.get("system_prompt", DEFAULT_SYSTEM_PROMPT)),
            shard_size=_positive_int(data.get("shard_size", 10_000), "shard_size"),
            chunk_size=_positive_int(data.get("chunk_size", 1000), "chunk_size"),
            shuffle=_bool(data.get("shuffle", True), "shuffle"),
            calibration_samples=_nonneg_int(data.get("calibration_samples", 8), "calibration_samples"),
            raw=json.loads(json.dumps(data, default=str)),
        )

    def counts(self) -> dict[str, int]:
        """Total rows per split."""
        return {s: sum(c.counts.get(s, 0) for c in self.cells) for s in self.splits}

    def fingerprint(self) -> str:
        """Hash of everything that decides the output bytes (config, palaestra and family versions)."""
        families = sorted({c.family for c in self.cells})
        return content_hash(
            {
                "format_version": FORMAT_VERSION,
                "palaestra": palaestra.__version__,
                "families": {f: palaestra.get(f).version for f in families},
                "name": self.name,
                "seed": self.seed,
                "version": self.version,
                "splits": list(self.splits),
                "format": self.format,
                "system_prompt": self.system_prompt if self.format == "chat" else None,
                "shard_size": self.shard_size,
                "chunk_size": self.chunk_size,
                "shuffle": self.shuffle,
                "cells": [[c.family, c.level, dict(c.knobs), dict(c.counts)] for c in self.cells],
            },
            length=32,
        )


def _yaml_problem(exc: Exception) -> str:
    """One line: what the YAML parser objected to, and where."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark else str(problem)


def _default_split_order(names: Iterable[str]) -> list[str]:
    # Held-out splits claim tasks first, so growing the train split never changes the test split.
    seen = list(dict.fromkeys(str(n) for n in names))
    preferred = [s for s in ("test", "validation", "train") if s in seen]
    return preferred + sorted(s for s in seen if s not in preferred)


def _entry_cells(index: int, entry: Any, splits: Sequence[str]) -> list[Cell]:
    where = f"mixture entry {index}"
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} must be a mapping with 'family' and 'counts'")
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; valid keys: {sorted(_ENTRY_KEYS)}")
    name = entry.get("family")
    if not isinstance(name, str):
        raise ValueError(f"{where}: 'family' must be a family name (see `palaestra list`)")
    spec = palaestra.get(name)  # unknown family -> ValueError listing the valid ones
    where = f"mixture entry {index} ({name})"
    if "level" in entry and "levels" in entry:
        raise ValueError(f"{where}: give 'level' or 'levels', not both")
    levels = _parse_levels(entry.get("levels", entry.get("level")), where)
    knob_grid = _parse_knob_grid(entry.get("knobs") or {}, spec, where)
    if levels == [None] and not knob_grid:
        levels = list(sorted(spec.levels))
    counts = entry.get("counts")
    if not isinstance(counts, Mapping) or not counts:
        raise ValueError(f"{where}: 'counts' must map split names to row counts, e.g. {{train: 100}}")
    for split, n in counts.items():
        if split not in splits:
            raise ValueError(f"{where}: split {split!r} is not in splits {list(splits)}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{where}: count for split {split!r} must be a non-negative integer, got {n!r}")
    cells = []
    names = sorted(knob_grid)
    for level in levels:
        for values in itertools.product(*(knob_grid[k] for k in names)):
            knobs = dict(zip(names, values, strict=True))
            try:  # validates level and knobs (types, ranges, cross-knob rules) before any work
                palaestra.make_task(name, seed=0, level=level, **knobs)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            cells.append(Cell(name, level, knobs, {s: int(counts.get(s, 0)) for s in splits}, index))
    return cells


def _parse_levels(value: Any, where: str) -> list[int | None]:
    if value is None:
        return [None]
    if value == "all":
        return list(range(1, 11))
    if isinstance(value, str) and "-" in value:
        lo, _, hi = value.partition("-")
        try:
            value = list(range(int(lo), int(hi) + 1))
        except ValueError:
            raise ValueError(f"{where}: levels {value!r} must look like '2-7'") from None
    values = value if isinstance(value, list) else [value]
    for level in values:
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"{where}: levels must be integers in 1..10, got {level!r}")
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{where}: levels must be a non-empty list of distinct levels, got {value!r}")
    return list(values)


def _parse_knob_grid(knobs: Any, spec: Any, where: str) -> dict[str, list[Any]]:
    if not isinstance(knobs, Mapping):
        raise ValueError(f"{where}: 'knobs' must map knob names to values, lists or {{low, high}} ranges")
    valid = spec.knobs.names()
    grid = {}
    for name, value in knobs.items():
        if name not in valid:
            raise ValueError(f"{where}: unknown knob {name!r}; valid knobs: {valid}")
        if isinstance(value, Mapping):
            if set(value) != {"low", "high"} or not all(isinstance(value[k], int) for k in value):
                raise ValueError(f"{where}: knob range for {name!r} must be {{low: int, high: int}}")
            grid[name] = list(range(value["low"], value["high"] + 1))
        elif isinstance(value, list):
            grid[name] = list(value)
        else:
            grid[name] = [value]
        if not grid[name]:
            raise ValueError(f"{where}: knob {name!r} has no values")
    return grid


def _nonneg_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def _positive_int(value: Any, name: str) -> int:
    if _nonneg_int(value, name) == 0:
        raise ValueError(f"{name} must be positive, got 0")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


@dataclass(frozen=True)
class Unit:
    """The rows one cell contributes to one split, drawn from its own seed stream."""

    index: int
    split: str
    split_index: int
    cell: Cell
    count: int
    stream: tuple[int, ...]  # SeedSequence entropy words (base seed, version, cell key, occurrence)
    first: int  # candidates drawn in the first round: the count and a small margin for duplicates
    chunk: int  # largest chunk (the config's chunk_size)

    @property
    def heldout(self) -> bool:
        """Whether this unit's split holds held-out content (see :func:`is_training_split`)."""
        return not is_training_split(self.split)

    def seed(self, i: int, draw: int = 0) -> int:
        """Task seed of candidate ``i`` (its ``draw``-th try at content on its split's side):
        inside this split's disjoint range. Draw 0 is the seed the candidate always had."""
        entropy = [*self.stream, i] if draw == 0 else [*self.stream, i, draw]
        words = np.random.SeedSequence(entropy).generate_state(2, np.uint32)
        low = (int(words[0]) | int(words[1]) << 32) & ((1 << SPLIT_BITS) - 1)
        return (self.split_index << SPLIT_BITS) | low

    @property
    def budget(self) -> int:
        """Most candidates drawn before the count is declared impossible."""
        return 3 * self.count + 64

    def chunk_range(self, i: int) -> tuple[int, int]:
        """The chunk ``[start, stop)`` holding candidate ``i``.

        Boundaries depend on the count and the config only (never on the number of processes):
        the first round's candidates split into near-equal chunks, later ones into fixed steps.
        """
        if i < self.first:
            bounds = _even_bounds(self.first, math.ceil(self.first / self.chunk))
            j = bisect.bisect_right(bounds, i) - 1
            return bounds[j], bounds[j + 1]
        step = min(self.chunk, max(16, math.ceil(self.first / 10)))
        start = self.first + (i - self.first) // step * step
        return start, start + step


@functools.lru_cache(maxsize=4096)
def _even_bounds(total: int, parts: int) -> tuple[int, ...]:
    return tuple(total * j // parts for j in range(parts + 1))


def plan_units(config: MixtureConfig) -> list[Unit]:
    """Units in priority order: split priority, then mixture entry, then cell."""
    units: list[Unit] = []
    occurrences: Counter[str] = Counter()
    for split_index, split in enumerate(config.splits):
        for cell in config.cells:
            count = cell.counts.get(split, 0)
            key = canonical_json([split, cell.family, cell.level, dict(cell.knobs)])
            occurrences[key] += 1
            if not count:
                continue
            digest = hashlib.sha256(key.encode()).digest()
            cell_words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
            stream = (config.seed, config.version, *cell_words, occurrences[key])
            first = count + math.ceil(count / 100) + 2
            units.append(Unit(len(units), split, split_index, cell, count, stream, first, config.chunk_size))
    return units
