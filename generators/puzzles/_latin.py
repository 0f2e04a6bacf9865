"""Shared machinery for the Latin-square puzzles (sudoku and its variants, skyscrapers, kakuro).

Cells are numbered row-major ``r * n + c``; values are ``1..n`` and ``0`` is an empty cell.
Candidate sets are bitmasks: value ``v`` is bit ``1 << (v - 1)``.

* :class:`Geometry` — the all-different units of a grid (rows, columns, boxes or regions),
  each cell's units and peers, and the box/line intersections used by locked candidates.
* :func:`count_solutions` — the exact solver: bitmask backtracking with minimum-remaining-values
  branching, counting solutions up to a limit (2 proves uniqueness). Effort = search nodes.
* :func:`logical_solve` — a human-style solver applying the simplest technique first:
  tier 1 naked singles, tier 2 hidden singles, tier 3 locked candidates and naked/hidden pairs.
  Its deductions are sound, so a puzzle it completes has exactly one solution.
* :func:`random_solution` — a random complete grid drawn from a numpy Generator.

Model answers are read by :func:`palaestra.generators.shared.grids.read_digit_grid`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

POPCOUNT = tuple(bin(m).count("1") for m in range(1 << 9))
# the value of a single-bit mask: bit -> value (only entries for single bits are used)
BIT_VALUE = {1 << i: i + 1 for i in range(9)}


def bits_of(mask: int) -> list[int]:
    """The single-bit masks set in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """The all-different structure of an ``n x n`` grid."""

    n: int
    units: tuple[tuple[int, ...], ...]  # rows, then columns, then boxes/regions
    cell_units: tuple[tuple[int, ...], ...]  # the units of each cell
    peers: tuple[tuple[int, ...], ...]  # the other cells sharing a unit with each cell
    # (intersection, rest of unit A, rest of unit B) for every region/line pair meeting in >= 2 cells
    intersections: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]

    @property
    def full(self) -> int:
        return (1 << self.n) - 1


@lru_cache(maxsize=256)
def make_geometry(n: int, regions: tuple[tuple[int, ...], ...] | None) -> Geometry:
    """Rows, columns and (if given) regions as units; ``regions`` lists each region's cells.
    Remembered: a Geometry is immutable (tuples in a frozen dataclass), and a generator draws
    many grids of one shape."""
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    units = rows + cols + [tuple(sorted(reg)) for reg in (regions or ())]
    cell_units: list[list[int]] = [[] for _ in range(n * n)]
    for u, cells in enumerate(units):
        for cell in cells:
            cell_units[cell].append(u)
    peers = []
    for cell in range(n * n):
        seen = {p for u in cell_units[cell] for p in units[u]}
        seen.discard(cell)
        peers.append(tuple(sorted(seen)))
    inter = []
    lines = rows + cols
    for reg in units[2 * n :]:
        reg_set = set(reg)
        for line in lines:
            common = tuple(c for c in line if c in reg_set)
            if len(common) >= 2:
                common_set = set(common)
                inter.append(
                    (
                        common,
                        tuple(c for c in reg if c not in common_set),
                        tuple(c for c in line if c not in common_set),
                    )
                )
    return Geometry(
        n=n,
        units=tuple(units),
        cell_units=tuple(tuple(u) for u in cell_units),
        peers=tuple(peers),
        intersections=tuple(inter),
    )


def box_regions(n: int, box_rows: int, box_cols: int) -> tuple[tuple[int, ...], ...]:
    """The boxes of a classic sudoku of size ``n`` with ``box_rows x box_cols`` boxes."""
    regions = []
    for br in range(0, n, box_rows):
        for bc in range(0, n, box_cols):
            regions.append(tuple((br + r) * n + bc + c for r in range(box_rows) for c in range(box_cols)))
    return tuple(regions)


@lru_cache(maxsize=16)
def sudoku_geometry(n: int, box_rows: int, box_cols: int) -> Geometry:
    """The geometry of a classic sudoku (cached: it is a pure function of its arguments)."""
    return make_geometry(n, box_regions(n, box_rows, box_cols))


# --------------------------------------------------------------------------------------------
# Exact solver
# --------------------------------------------------------------------------------------------


class SearchResult:
    """Solutions found (up to the limit), the first one, and the nodes the search visited."""

    __slots__ = ("count", "solution", "nodes", "assignments", "exhausted")

    def __init__(self) -> None:
        self.count = 0
        self.solution: list[int] | None = None
        self.nodes = 0
        self.assignments = 0  # values placed, by branching or propagation (propagating solver)
        self.exhausted = False  # the node budget ran out before the search finished


def count_solutions(
    geo: Geometry,
    grid: list[int],
    limit: int = 2,
    *,
    order: list[list[int]] | None = None,
    cell_order: list[int] | None = None,
    max_nodes: int = 0,
) -> SearchResult:
    """Count the completions of ``grid`` up to ``limit`` by MRV bitmask backtracking.

    ``order[cell]`` optionally fixes the order values are tried in (random fills);
    ``cell_order`` the tie-break order among equally constrained cells. A node is one value
    placed in one cell. ``max_nodes`` > 0 stops the search early (``exhausted`` is then set).
    """
    n, full, cu = geo.n, geo.full, geo.cell_units
    res = SearchResult()
    used = [0] * len(geo.units)
    cells = list(grid)
    for cell, v in enumerate(cells):
        if v:
            bit = 1 << (v - 1)
            for u in cu[cell]:
                if used[u] & bit:
                    return res  # the givens already break a rule: no solution
                used[u] |= bit
    empties = [c for c in (cell_order or range(n * n)) if not cells[c]]
    value_bits = None if order is None else [[1 << (v - 1) for v in vals] for vals in order]

    # every cell of these puzzles lies in exactly three units (row, column, region)
    cu3 = [(tuple(u) + (u[0],) * 3)[:3] for u in cu]
    if any(len(u) > 3 for u in cu):
        raise ValueError("count_solutions supports at most three units per cell")

    def rec(k: int, used=used, empties=empties, cu3=cu3, full=full, pop=POPCOUNT) -> bool:
        if k == 0:
            res.count += 1
            if res.solution is None:
                res.solution = list(cells)
            return res.count >= limit
        best, best_count, best_mask = -1, 99, 0
        for i in range(k):
            a, b, c = cu3[empties[i]]
            m = full & ~(used[a] | used[b] | used[c])
            pc = pop[m]
            if pc < best_count:
                best, best_count, best_mask = i, pc, m
                if pc <= 1:
                    break
        if best_count == 0:
            return False
        empties[best], empties[k - 1] = empties[k - 1], empties[best]
        cell = empties[k - 1]
        a, b, c = cu3[cell]
        # restore saved masks in reverse order: a cell with fewer units repeats one index
        sa, sb, sc = used[a], used[b], used[c]
        tries = bits_of(best_mask) if value_bits is None else [x for x in value_bits[cell] if x & best_mask]
        for bit in tries:
            if max_nodes and res.nodes >= max_nodes:
                res.exhausted = True
                return True
            res.nodes += 1
            used[a] |= bit
            used[b] |= bit
            used[c] |= bit
            cells[cell] = BIT_VALUE[bit]
            stop = rec(k - 1)
            used[c] = sc
            used[b] = sb
            used[a] = sa
            cells[cell] = 0
            if stop:
                return True
        return False

    rec(len(empties))
    return res


def count_solutions_propagating(
    geo: Geometry,
    grid: list[int],
    limit: int = 2,
    *,
    order: list[list[int]] | None = None,
    max_nodes: int = 0,
) -> SearchResult:
    """Count completions up to ``limit`` with naked/hidden-single propagation at every node.

    Much faster than :func:`count_solutions` on hard puzzles (a few branch nodes instead of
    hundreds); used for the many uniqueness checks while digging. A node is one propagation;
    ``assignments`` counts every value placed. ``order[cell]`` optionally fixes the order in
    which branch values are tried (random fills); ``max_nodes`` > 0 caps the search.
    """
    n, full = geo.n, geo.full
    units, peers, cu = geo.units, geo.peers, geo.cell_units
    res = SearchResult()
    cells = list(grid)
    used = [0] * len(units)
    for cell, v in enumerate(cells):
        if v:
            bit = 1 << (v - 1)
            for u in cu[cell]:
                if used[u] & bit:
                    return res
                used[u] |= bit
    cand = [0] * (n * n)
    for cell, v in enumerate(cells):
        if not v:
            m = 0
            for u in cu[cell]:
                m |= used[u]
            cand[cell] = full & ~m
    singles = [c for c in range(n * n) if not cells[c] and not cand[c] & (cand[c] - 1)]

    def propagate(cells: list[int], cand: list[int], singles: list[int]) -> bool:
        while True:
            while singles:
                cell = singles.pop()
                if cells[cell]:
                    continue
                bit = cand[cell]
                if not bit:
                    return False
                cells[cell] = BIT_VALUE[bit]
                cand[cell] = 0
                res.assignments += 1
                for p in peers[cell]:
                    m = cand[p]
                    if m & bit:
                        m ^= bit
                        cand[p] = m
                        if not m & (m - 1):
                            if not m:
                                return False
                            singles.append(p)
            for unit in units:
                once = twice = placed = 0
                for c in unit:
                    m = cand[c]
                    twice |= once & m
                    once |= m
                    if cells[c]:
                        placed |= 1 << (cells[c] - 1)
                if (once | placed) != full:
                    return False  # some digit has no place left in this unit
                hidden = once & ~twice
                while hidden:
                    bit = hidden & -hidden
                    hidden ^= bit
                    for c in unit:
                        if cand[c] & bit:
                            cand[c] = bit
                            singles.append(c)
                            break
            if not singles:
                return True

    def rec(cells: list[int], cand: list[int], singles: list[int]) -> bool:
        if max_nodes and res.nodes >= max_nodes:
            res.exhausted = True
            return True
        res.nodes += 1
        if not propagate(cells, cand, singles):
            return False
        best, best_count = -1, 99
        for c in range(n * n):
            if not cells[c]:
                pc = POPCOUNT[cand[c]]
                if pc < best_count:
                    best, best_count = c, pc
                    if pc == 2:
                        break
        if best < 0:
            res.count += 1
            if res.solution is None:
                res.solution = list(cells)
            return res.count >= limit
        mask = cand[best]
        tries = (
            bits_of(mask) if order is None else [1 << (v - 1) for v in order[best] if mask & (1 << (v - 1))]
        )
        for bit in tries:
            cand2 = list(cand)
            cand2[best] = bit
            if rec(list(cells), cand2, [best]):
                return True
        return False

    rec(cells, cand, singles)
    return res


def random_solution(
    geo: Geometry,
    rng: np.random.Generator,
    seed_grid: list[int] | None = None,
    *,
    propagate: bool = False,
    tries: int = 20,
) -> list[int]:
    """A random complete grid (optionally completing ``seed_grid``), all randomness from ``rng``.

    Every cell gets its own random value order (and, for the plain solver, the cells a random
    tie-break order), so the fill is not a relabelling of one fixed grid. ``propagate`` fills
    with the propagating solver (irregular regions, where plain backtracking stalls); after
    ``tries`` searches that ran out of budget it raises ``RuntimeError``.
    """
    n = geo.n
    for _ in range(tries):
        order = rng.permuted(np.tile(np.arange(1, n + 1), (n * n, 1)), axis=1).tolist()
        if propagate:
            res = count_solutions_propagating(
                geo, seed_grid or [0] * (n * n), 1, order=order, max_nodes=50 * n
            )
        else:
            cell_order = rng.permutation(n * n).tolist()
            res = count_solutions(
                geo, seed_grid or [0] * (n * n), 1, order=order, cell_order=cell_order, max_nodes=20 * n * n
            )
        if res.solution is not None and not res.exhausted:
            return res.solution
        if res.count == 0 and not res.exhausted:
            raise ValueError("the seed grid has no completion")
    raise RuntimeError("could not fill a random grid within the node budget")


# --------------------------------------------------------------------------------------------
# Logical solver
# --------------------------------------------------------------------------------------------


class LogicResult:
    """The outcome of :func:`logical_solve`."""

    __slots__ = ("grid", "solved", "tier", "steps", "contradiction")

    def __init__(self, grid: list[int], solved: bool, tier: int, steps: int, contradiction: bool) -> None:
        self.grid = grid
        self.solved = solved
        self.tier = tier  # the hardest technique tier it had to use (0: nothing to do)
        self.steps = steps  # technique applications: placements and elimination rounds
        self.contradiction = contradiction


class _Contradiction(Exception):
    pass


def logical_solve(geo: Geometry, grid: list[int], max_tier: int = 3) -> LogicResult:
    """Solve with techniques up to ``max_tier``, always using the simplest one that applies."""
    n, full = geo.n, geo.full
    units, peers, cu = geo.units, geo.peers, geo.cell_units
    cells = list(grid)
    cand = [0] * (n * n)
    used = [0] * len(units)
    for cell, v in enumerate(cells):
        if v:
            for u in cu[cell]:
                used[u] |= 1 << (v - 1)
    for cell, v in enumerate(cells):
        if not v:
            m = 0
            for u in cu[cell]:
                m |= used[u]
            cand[cell] = full & ~m
    remaining = sum(1 for v in cells if not v)
    singles = [c for c in range(n * n) if not cells[c] and not cand[c] & (cand[c] - 1)]
    tier_used, steps = 0, 0

    def place(cell: int, bit: int) -> None:
        # put a digit in a cell and strike it from the peers, queueing new naked singles
        nonlocal remaining
        if not cand[cell] & bit:
            raise _Contradiction
        cells[cell] = BIT_VALUE[bit]
        cand[cell] = 0
        remaining -= 1
        for p in peers[cell]:
            m = cand[p]
            if m & bit:
                m ^= bit
                cand[p] = m
                if not m & (m - 1):
                    if not m:
                        raise _Contradiction
                    singles.append(p)

    try:
        while remaining:
            if singles:  # tier 1: naked singles
                while singles:
                    c = singles.pop()
                    if cells[c]:
                        continue
                    if not cand[c]:
                        raise _Contradiction
                    place(c, cand[c])
                    steps += 1
                tier_used = max(tier_used, 1)
                continue
            if max_tier < 2:
                break
            if _hidden_singles(units, cand, place):
                steps += 1
                tier_used = max(tier_used, 2)
                continue
            if max_tier < 3:
                break
            if _locked_candidates(geo, cand) or _naked_pairs(units, cand) or _hidden_pairs(units, cand):
                steps += 1
                tier_used = 3
                singles.extend(c for c in range(n * n) if cand[c] and not cand[c] & (cand[c] - 1))
                if any(not cells[c] and not cand[c] for c in range(n * n)):
                    raise _Contradiction
                continue
            break
    except _Contradiction:
        return LogicResult(cells, False, tier_used, steps, True)
    return LogicResult(cells, remaining == 0, tier_used, steps, False)


def _hidden_singles(units, cand, place) -> bool:
    """Place every digit that has one possible cell in some unit; True if any was placed."""
    found = False
    for unit in units:
        once = twice = 0
        for c in unit:
            m = cand[c]
            twice |= once & m
            once |= m
        hidden = once & ~twice
        while hidden:
            bit = hidden & -hidden
            hidden ^= bit
            for c in unit:
                if cand[c] & bit:
                    place(c, bit)
                    found = True
                    break
    return found


def _locked_candidates(geo: Geometry, cand: list[int]) -> bool:
    """Pointing and claiming: a digit confined to a region/line intersection leaves the rest."""
    changed = False
    for common, reg_rest, line_rest in geo.intersections:
        inside = 0
        for c in common:
            inside |= cand[c]
        if not inside:
            continue
        reg_other = line_other = 0
        for c in reg_rest:
            reg_other |= cand[c]
        for c in line_rest:
            line_other |= cand[c]
        pointing = inside & ~reg_other & line_other  # only here in the region: clear the line
        claiming = inside & ~line_other & reg_other  # only here in the line: clear the region
        if pointing:
            for c in line_rest:
                cand[c] &= ~pointing
            changed = True
        if claiming:
            for c in reg_rest:
                cand[c] &= ~claiming
            changed = True
        if changed:
            return True
    return False


def _naked_pairs(units, cand) -> bool:
    for unit in units:
        seen: dict[int, int] = {}
        for c in unit:
            m = cand[c]
            if m and POPCOUNT[m] == 2:
                if m in seen:
                    other = seen[m]
                    hit = False
                    for d in unit:
                        if d != c and d != other and cand[d] & m:
                            cand[d] &= ~m
                            hit = True
                    if hit:
                        return True
                else:
                    seen[m] = c
    return False


def _hidden_pairs(units, cand) -> bool:
    for unit in units:
        where: dict[int, list[int]] = {}
        once = 0
        for c in unit:
            once |= cand[c]
        for bit in bits_of(once):
            spots = [c for c in unit if cand[c] & bit]
            if len(spots) == 2:
                where[bit] = spots
        for (b1, s1), (b2, s2) in combinations(where.items(), 2):
            if s1 == s2:
                keep = b1 | b2
                if any(cand[c] & ~keep for c in s1):
                    for c in s1:
                        cand[c] &= keep
                    return True
    return False


# --------------------------------------------------------------------------------------------
# Digging puzzles out of solutions
# --------------------------------------------------------------------------------------------


def puzzle_tier(geo: Geometry, puzzle: list[int]) -> tuple[int, int]:
    """(tier, logical steps): the hardest technique needed, 4 when tiers 1-3 get stuck."""
    result = logical_solve(geo, puzzle, 3)
    return (result.tier if result.solved else 4), result.steps


def _stays_in_tier(geo: Geometry, puzzle: list[int], tier: int) -> bool:
    if tier < 4:
        return logical_solve(geo, puzzle, tier).solved
    return count_solutions_propagating(geo, puzzle, 2).count == 1


def _orbits(n: int, symmetric: bool, rng: np.random.Generator) -> list[tuple[int, ...]]:
    cells = rng.permutation(n * n).tolist()
    if not symmetric:
        return [(c,) for c in cells]
    seen: set[int] = set()
    orbits = []
    for c in cells:
        if c not in seen:
            mate = n * n - 1 - c
            seen.update((c, mate))
            orbits.append((c,) if mate == c else (c, mate))
    return orbits


def dig(
    geo: Geometry,
    solution: list[int],
    rng: np.random.Generator,
    *,
    tier: int,
    min_givens: int = 0,
    symmetric: bool = False,
) -> list[int]:
    """Remove cells in random order while the puzzle stays within ``tier``.

    Tiers 1-3: the logical solver limited to the tier still completes it (which proves the
    solution unique); tier 4: the propagating exact solver still finds exactly one solution.

    Cells are removed down to ``min_givens``; if the puzzle is still easier than the target
    there, removal goes on below the floor until the target tier is reached.
    """
    puzzle = list(solution)
    givens = len(puzzle)
    pending = _orbits(geo.n, symmetric, rng)
    skipped: list[tuple[int, ...]] = []
    # group testing: try many orbits at once while removals are mostly accepted, halving the
    # group on a refusal, so most cells of a 9x9 cost a fraction of a solver call each
    size = max(1, len(pending) // 3)
    while pending:
        group = pending[:size]
        cells = tuple(c for orbit in group for c in orbit)
        if givens - len(cells) < min_givens:
            if size > 1:
                size //= 2
                continue
            skipped.append(pending.pop(0))
            continue
        if _try_remove(geo, puzzle, cells, tier):
            givens -= len(cells)
            del pending[:size]
        elif size > 1:
            size //= 2
        else:
            pending.pop(0)
    if skipped and puzzle_tier(geo, puzzle)[0] < tier:
        for orbit in skipped:
            if _try_remove(geo, puzzle, orbit, tier) and puzzle_tier(geo, puzzle)[0] == tier:
                break
    return puzzle


def _try_remove(geo: Geometry, puzzle: list[int], orbit: tuple[int, ...], tier: int) -> bool:
    saved = [puzzle[c] for c in orbit]
    for c in orbit:
        puzzle[c] = 0
    if _stays_in_tier(geo, puzzle, tier):
        return True
    for c, v in zip(orbit, saved, strict=True):
        puzzle[c] = v
    return False


# --------------------------------------------------------------------------------------------
# Reading and writing grids
# --------------------------------------------------------------------------------------------


def grid_text(cells: list[int], n: int, blank: str = ".") -> str:
    """Rows of digits, one line per row (``blank`` for empty cells)."""
    return "\n".join("".join(str(v) if v else blank for v in cells[r * n : (r + 1) * n]) for r in range(n))


def to_rows(cells: list[int], n: int) -> list[list[int]]:
    return [list(cells[r * n : (r + 1) * n]) for r in range(n)]


def relabel_first_seen(cells: list[int]) -> tuple[int, ...]:
    """Digits renamed 1, 2, 3... in order of first appearance (0 stays empty)."""
    names: dict[int, int] = {}
    out = []
    for v in cells:
        if v:
            if v not in names:
                names[v] = len(names) + 1
            out.append(names[v])
        else:
            out.append(0)
    return tuple(out)


def grid_symmetries(n: int, box_rows: int, box_cols: int) -> list[list[int]]:
    """Cell permutations (new cell -> old cell) that map a sudoku of this box shape to itself.

    The dihedral group where boxes are square, otherwise the flips and the half turn.
    """

    def perm(f):
        return [f(r, c) for r in range(n) for c in range(n)]

    maps = [
        perm(lambda r, c: r * n + c),
        perm(lambda r, c: (n - 1 - r) * n + c),
        perm(lambda r, c: r * n + (n - 1 - c)),
        perm(lambda r, c: (n - 1 - r) * n + (n - 1 - c)),
    ]
    if box_rows == box_cols:
        maps += [
            perm(lambda r, c: c * n + r),
            perm(lambda r, c: (n - 1 - c) * n + r),
            perm(lambda r, c: c * n + (n - 1 - r)),
            perm(lambda r, c: (n - 1 - c) * n + (n - 1 - r)),
        ]
    return maps


# --------------------------------------------------------------------------------------------
# Irregular regions
# --------------------------------------------------------------------------------------------


def neighbours(n: int) -> list[tuple[int, ...]]:
    """The orthogonal neighbours of every cell of an ``n x n`` grid."""
    out = []
    for r in range(n):
        for c in range(n):
            near = []
            if r:
                near.append((r - 1) * n + c)
            if r < n - 1:
                near.append((r + 1) * n + c)
            if c:
                near.append(r * n + c - 1)
            if c < n - 1:
                near.append(r * n + c + 1)
            out.append(tuple(near))
    return out


def _connected(members: set[int], near: list[tuple[int, ...]]) -> bool:
    start = min(members)
    stack = [start]
    seen = {start}
    while stack:
        for q in near[stack.pop()]:
            if q in members and q not in seen:
                seen.add(q)
                stack.append(q)
    return len(seen) == len(members)


def random_regions(n: int, rng: np.random.Generator, moves: int | None = None) -> list[int]:
    """A random partition of the grid into ``n`` connected regions of ``n`` cells each.

    Starts from the rows; each move hands a boundary cell of region A to a neighbouring region
    B and a cell of B bordering A back to A, kept only when both stay connected. Returns each
    cell's region index (0..n-1).
    """
    near = neighbours(n)
    label = [cell // n for cell in range(n * n)]
    members = [set(range(k * n, (k + 1) * n)) for k in range(n)]
    target = moves if moves is not None else 2 * n * n
    done = 0
    for _ in range(200):  # batches of pre-drawn random numbers
        picks = rng.integers(0, n * n, size=4 * n * n).tolist()
        dirs = rng.integers(0, 4, size=4 * n * n).tolist()
        backs = rng.random(size=4 * n * n).tolist()
        for a, d, u in zip(picks, dirs, backs, strict=True):
            options = near[a]
            ra, rb = label[a], label[options[d % len(options)]]
            if ra == rb:
                continue
            back = sorted(c for c in members[rb] if any(label[q] == ra and q != a for q in near[c]))
            if not back:
                continue
            c = back[int(u * len(back))]
            members[ra].discard(a)
            members[ra].add(c)
            members[rb].discard(c)
            members[rb].add(a)
            if _connected(members[ra], near) and _connected(members[rb], near):
                label[a], label[c] = rb, ra
                done += 1
                if done >= target:
                    return label
            else:
                members[ra].discard(c)
                members[ra].add(a)
                members[rb].discard(a)
                members[rb].add(c)
    return label


def regions_from_labels(label: list[int], n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(c for c in range(n * n) if label[c] == k) for k in range(n))


def grid_mutations(answer: str, givens: list[int], n: int, rng: np.random.Generator) -> list[str]:
    """Wrong grids: a changed free cell, two free cells of a row swapped, a given altered, and
    wrong sizes (a row dropped, a row repeated)."""
    solution = [int(ch) for ch in answer.replace("\n", "")]
    free = [i for i, g in enumerate(givens) if not g] or list(range(n * n))
    given = [i for i, g in enumerate(givens) if g] or [0]
    grids = []
    changed = list(solution)
    cell = free[int(rng.integers(len(free)))]
    changed[cell] = changed[cell] % n + 1
    grids.append(changed)
    row = int(rng.integers(n))
    pair = [i for i in range(row * n, row * n + n) if not givens[i]][:2]
    if len(pair) < 2:
        pair = [row * n, row * n + 1]
    swapped = list(solution)
    swapped[pair[0]], swapped[pair[1]] = swapped[pair[1]], swapped[pair[0]]
    grids.append(swapped)
    altered = list(solution)
    cell = given[int(rng.integers(len(given)))]
    altered[cell] = altered[cell] % n + 1
    grids.append(altered)
    responses = [f"<answer>\n{grid_text(g, n)}\n</answer>" for g in grids]
    rows = answer.split("\n")
    responses.append("<answer>\n" + "\n".join(rows[:-1]) + "\n</answer>")
    responses.append("<answer>\n" + "\n".join(rows + [rows[0]]) + "\n</answer>")
    return responses


def latin_violation(
    rows: list[list[int]], givens: list[int] | None = None, noun: str = "digit"
) -> str | None:
    """Why an answer grid is no Latin square keeping ``givens`` (a value 1..n per cell, the given
    ones unchanged, no repeat in a row or column), or None when it is one."""
    n = len(rows)
    for i, v in enumerate(v for row in rows for v in row):
        if not 1 <= v <= n:
            return f"cell r{i // n + 1}c{i % n + 1} holds {v}, not a {noun} 1..{n}"
        if givens and givens[i] and v != givens[i]:
            return f"cell r{i // n + 1}c{i % n + 1} is given as {givens[i]}"
    for i in range(n):
        if len(set(rows[i])) != n:
            return f"row {i + 1} repeats a {noun}"
        if len({rows[r][i] for r in range(n)}) != n:
            return f"column {i + 1} repeats a {noun}"
    return None
