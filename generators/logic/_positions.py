"""Private position-puzzle toolkit for ordering_deduction and zebra.

Entities take positions 0..size-1; *groups* of entities are permutations (all different, every
position used). Clues are JSON lists:

- ``["same", a, b]`` / ``["diff", a, b]``: same / different position
- ``["left", a, b]``: a somewhere left of b;  ``["next", a, b]``: b immediately right of a
- ``["adjacent", a, b]`` / ``["apart", a, b]``: next to each other / not next to each other
- ``["gap", a, b, d]``: exactly ``d`` positions apart (``d - 1`` between them)
- ``["at", a, k]`` / ``["not_at", a, k]``, ``["end", a]`` / ``["middle", a]`` (not at an end)

The solver keeps a bitmask domain per entity, propagates (arc consistency on binary clues,
singletons and hidden singles in groups) and branches on the smallest domain; it counts
solutions up to a limit and reports search nodes, failures (conflicts) and revisions.
Generation plants a solution and adds clues that are true of it but false of a second solution
until the solution is unique, then drops clues that are not needed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Clue = list[Any]
BINARY = ("same", "diff", "left", "next", "adjacent", "apart", "gap")
UNARY = ("at", "not_at", "end", "middle")


def holds(clue: Clue, pos: list[int], size: int) -> bool:
    """Is ``clue`` true when entity e sits at ``pos[e]``?"""
    kind = clue[0]
    if kind in UNARY:
        p = pos[clue[1]]
        if kind == "at":
            return p == clue[2]
        if kind == "not_at":
            return p != clue[2]
        at_end = p in (0, size - 1)
        return at_end if kind == "end" else not at_end
    return _relation(clue, pos[clue[1]], pos[clue[2]])


def _relation(clue: Clue, x: int, y: int) -> bool:
    kind = clue[0]
    if kind == "same":
        return x == y
    if kind == "diff":
        return x != y
    if kind == "left":
        return x < y
    if kind == "next":
        return y == x + 1
    if kind == "adjacent":
        return abs(x - y) == 1
    if kind == "apart":
        return abs(x - y) != 1
    if kind == "gap":
        return abs(x - y) == clue[3]
    raise ValueError(f"unknown clue {kind!r}")


@dataclass
class Stats:
    nodes: int = 0
    failures: int = 0
    revisions: int = 0
    solutions: list[list[int]] = field(default_factory=list)


def solve(
    size: int, entities: int, groups: list[list[int]], clues: list[Clue], limit: int = 2, search: bool = True
) -> Stats:
    """Solutions (as position lists) up to ``limit``; with ``search=False`` propagation only
    (``solutions`` then holds the fixed assignment if propagation alone pinned everything)."""
    full = (1 << size) - 1
    domains = [full] * entities
    binary: list[tuple[int, int, list[int], list[int]]] = []
    for clue in clues:
        if clue[0] in UNARY:
            domains[clue[1]] &= _unary_mask(clue[0], tuple(clue[2:]), size)
        else:
            ab, ba = _supports(clue[0], tuple(clue[3:]), size)
            binary.append((clue[1], clue[2], ab, ba))
    stats = Stats()
    watch: list[list[int]] = [[] for _ in range(entities)]
    for i, (a, b, _, _) in enumerate(binary):
        watch[a].append(i)
        watch[b].append(i)
    in_group = [[] for _ in range(entities)]  # type: list[list[int]]
    for g, members in enumerate(groups):
        for e in members:
            in_group[e].append(g)

    def propagate(dom: list[int]) -> bool:
        queue = list(range(len(binary)))
        queued = set(queue)
        dirty_groups = set(range(len(groups)))
        while queue or dirty_groups:
            while queue:
                i = queue.pop()
                queued.discard(i)
                a, b, ab, ba = binary[i]
                stats.revisions += 1
                for src, dst, table in ((b, a, ab), (a, b, ba)):
                    support = dom[src]
                    old = dom[dst]
                    new = 0
                    bits = old
                    while bits:
                        low = bits & -bits
                        if table[low.bit_length() - 1] & support:
                            new |= low
                        bits ^= low
                    if new != old:
                        if not new:
                            return False
                        dom[dst] = new
                        dirty_groups.update(in_group[dst])
                        for j in watch[dst]:
                            if j not in queued:
                                queued.add(j)
                                queue.append(j)
            while dirty_groups:
                g = dirty_groups.pop()
                changed = _group_step(groups[g], dom, size)
                if changed is None:
                    return False
                for e in changed:
                    dirty_groups.update(in_group[e])
                    for j in watch[e]:
                        if j not in queued:
                            queued.add(j)
                            queue.append(j)
        return True

    def recurse(dom: list[int]) -> None:
        if len(stats.solutions) >= limit:
            return
        stats.nodes += 1
        if not propagate(dom):
            stats.failures += 1
            return
        open_ = [(bin(d).count("1"), e) for e, d in enumerate(dom) if d & (d - 1)]
        if not open_:
            stats.solutions.append([d.bit_length() - 1 for d in dom])
            return
        if not search:
            return
        _, e = min(open_)
        bits = dom[e]
        while bits:
            low = bits & -bits
            bits ^= low
            child = list(dom)
            child[e] = low
            recurse(child)

    recurse(domains)
    return stats


@functools.lru_cache(maxsize=4096)
def _unary_mask(kind: str, params: tuple[int, ...], size: int) -> int:
    """Positions allowed by a unary clue (tables depend on kind, parameters and size only)."""
    return sum(1 << p for p in range(size) if holds([kind, 0, *params], [p], size))


@functools.lru_cache(maxsize=4096)
def _supports(kind: str, params: tuple[int, ...], size: int) -> tuple[list[int], list[int]]:
    """For a binary clue: per position x of a, the mask of allowed b; and the converse."""
    clue = [kind, 0, 1, *params]
    ab = [sum(1 << y for y in range(size) if _relation(clue, x, y)) for x in range(size)]
    ba = [sum(1 << x for x in range(size) if _relation(clue, x, y)) for y in range(size)]
    return ab, ba


def _group_step(members: list[int], dom: list[int], size: int) -> list[int] | None:
    """All-different over a permutation group: singletons and hidden singles. Changed entities,
    or ``None`` on a contradiction."""
    full = (1 << size) - 1
    changed: list[int] = []
    progress = True
    while progress:
        progress = False
        fixed = 0
        for e in members:
            d = dom[e]
            if not d & (d - 1):
                if fixed & d:
                    return None
                fixed |= d
        once = twice = 0
        for e in members:
            d = dom[e]
            if d & (d - 1) and d & fixed:
                d &= ~fixed
                if not d:
                    return None
                dom[e] = d
                changed.append(e)
                progress = True
            twice |= once & d
            once |= d
        if once != full:
            return None  # some position has nobody left
        unique = once & ~twice  # positions only one member can take
        if unique:
            for e in members:
                d = dom[e]
                u = d & unique
                if u and u != d:
                    if u & (u - 1):
                        return None  # one member would need two positions
                    dom[e] = u
                    changed.append(e)
                    progress = True
    return changed


def build_unique(
    size: int,
    entities: int,
    groups: list[list[int]],
    solution: list[int],
    draw_clue: Callable[[np.random.Generator, list[int], list[int] | None], Clue | None],
    rng: np.random.Generator,
    *,
    minimal: bool = True,
    max_clues: int = 200,
) -> list[Clue] | None:
    """Clues true of ``solution`` that make it the only solution (or ``None``).

    ``draw_clue(rng, solution, other)`` returns a clue true of ``solution`` and, when ``other``
    is given, false of it (so every added clue cuts off the current rival solution).
    """
    clues: list[Clue] = []
    other: list[int] | None = None
    for _ in range(max_clues):
        stats = solve(size, entities, groups, clues, limit=2)
        rivals = [s for s in stats.solutions if s != solution]
        if not rivals:
            break
        other = rivals[0]
        clue = draw_clue(rng, solution, other)
        if clue is None:
            return None
        clues.append(clue)
    else:
        return None
    if minimal:
        for clue in [clues[int(k)] for k in rng.permutation(len(clues))]:
            trial = [c for c in clues if c is not clue]
            if len(solve(size, entities, groups, trial, limit=2).solutions) == 1:
                clues = trial
    return clues


def relabel(clue: Clue, mapping: list[int]) -> Clue:
    """``clue`` with its entities renamed through ``mapping`` (positions and gaps unchanged)."""
    out = [clue[0], mapping[clue[1]]]
    if clue[0] in UNARY:
        return out + clue[2:]
    return out + [mapping[clue[2]]] + clue[3:]


def canonical(clues: list[Clue], mapping: list[int]) -> list[Clue]:
    """Clues with entities renamed (e.g. by their solution position) and sorted, for hashing."""
    return sorted((relabel(c, mapping) for c in clues), key=repr)
