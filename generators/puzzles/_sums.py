"""A propagating exact solver for all-different puzzles with sum cages (killer sudoku, kakuro).

Cells are ``0..m-1`` with digits ``1..digits`` as bitmasks (digit ``v`` is bit ``1 << (v-1)``).
``units`` are all-different groups; ``cages`` are ``(cells, total)`` whose cells are also
all-different and must add up to ``total``. Propagation at every node: naked singles, hidden
singles in units, and cage combinations (a cage keeps only the digit sets of its size that add
up to its total, contain its decided digits and fit its candidates; each cell keeps the digits
of the surviving sets). The search branches on the cell with fewest candidates and counts
solutions up to a limit. Effort: ``nodes`` (propagations) and ``assignments`` (values placed).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

POPCOUNT = tuple(bin(m).count("1") for m in range(1 << 9))
BIT_VALUE = {1 << i: i + 1 for i in range(9)}


@lru_cache(maxsize=4)
def combos(digits: int) -> dict[tuple[int, int], tuple[int, ...]]:
    """(size, total) -> the masks of ``size`` distinct digits from 1..digits adding to ``total``."""
    table: dict[tuple[int, int], list[int]] = {}
    for size in range(1, digits + 1):
        for combo in combinations(range(1, digits + 1), size):
            mask = sum(1 << (v - 1) for v in combo)
            table.setdefault((size, sum(combo)), []).append(mask)
    return {key: tuple(masks) for key, masks in table.items()}


class SumResult:
    __slots__ = ("count", "solutions", "nodes", "assignments", "exhausted")

    def __init__(self) -> None:
        self.count = 0
        self.solutions: list[list[int]] = []
        self.nodes = 0
        self.assignments = 0
        self.exhausted = False

    @property
    def solution(self) -> list[int] | None:
        return self.solutions[0] if self.solutions else None


class SumPuzzle:
    """The static structure: units, cages and the peer lists derived from them."""

    def __init__(
        self,
        cells: int,
        digits: int,
        units: list[list[int]],
        cages: list[tuple[list[int], int]],
    ) -> None:
        self.m, self.digits, self.full = cells, digits, (1 << digits) - 1
        self.units = [list(u) for u in units] + [list(c) for c, _ in cages]
        self.cages = [(list(c), t) for c, t in cages]
        peer_sets: list[set[int]] = [set() for _ in range(cells)]
        for unit in self.units:
            for c in unit:
                peer_sets[c].update(unit)
        for c in range(cells):
            peer_sets[c].discard(c)
        self.peers = [sorted(p) for p in peer_sets]
        table = combos(digits)
        self.cage_combos = [table.get((len(c), t), ()) for c, t in self.cages]

    def solve(
        self,
        givens: list[int],
        limit: int = 2,
        *,
        order: list[list[int]] | None = None,
        max_nodes: int = 0,
    ) -> SumResult:
        """Count solutions up to ``limit``; ``order[cell]`` fixes branch value order (random fills)."""
        res = SumResult()
        cand = [(1 << (v - 1)) if v else self.full for v in givens]
        self._rec(cand, res, limit, order, max_nodes)
        return res

    def _propagate(self, cand: list[int], res: SumResult) -> bool:
        peers, units, full = self.peers, self.units, self.full
        done = [False] * self.m
        queue = [c for c in range(self.m) if not cand[c] & (cand[c] - 1)]
        while True:
            while queue:
                cell = queue.pop()
                m = cand[cell]
                if not m:
                    return False
                if done[cell]:
                    continue
                done[cell] = True
                res.assignments += 1
                for p in peers[cell]:
                    if cand[p] & m:
                        rest = cand[p] & ~m
                        if not rest:
                            return False
                        cand[p] = rest
                        if not rest & (rest - 1):
                            queue.append(p)
            # cage combinations
            for (cells, _), options in zip(self.cages, self.cage_combos, strict=True):
                union = fixed = 0
                for c in cells:
                    m = cand[c]
                    union |= m
                    if not m & (m - 1):
                        fixed |= m
                keep = 0
                for combo in options:
                    if combo & fixed == fixed and combo & ~union == 0:
                        if all(cand[c] & combo for c in cells):
                            keep |= combo
                if not keep:
                    return False
                for c in cells:
                    m = cand[c]
                    if m & ~keep:
                        m &= keep
                        if not m:
                            return False
                        cand[c] = m
                        if not m & (m - 1):
                            queue.append(c)
            if queue:
                continue
            # hidden singles in units that hold a full set of digits
            for unit in units:
                if len(unit) != self.digits:
                    continue
                once = twice = 0
                for c in unit:
                    m = cand[c]
                    twice |= once & m
                    once |= m
                if once != full:
                    return False
                hidden = once & ~twice
                while hidden:
                    bit = hidden & -hidden
                    hidden ^= bit
                    for c in unit:
                        if cand[c] & bit and cand[c] != bit:
                            cand[c] = bit
                            queue.append(c)
                            break
            if not queue:
                return True

    def _rec(self, cand, res, limit, order, max_nodes) -> bool:
        if max_nodes and res.nodes >= max_nodes:
            res.exhausted = True
            return True
        res.nodes += 1
        if not self._propagate(cand, res):
            return False
        best, best_count = -1, 99
        for c, m in enumerate(cand):
            if m & (m - 1):
                pc = POPCOUNT[m]
                if pc < best_count:
                    best, best_count = c, pc
                    if pc == 2:
                        break
        if best < 0:
            res.count += 1
            res.solutions.append([BIT_VALUE[m] for m in cand])
            return res.count >= limit
        mask = cand[best]
        if order is None:
            tries = []
            while mask:
                bit = mask & -mask
                mask ^= bit
                tries.append(bit)
        else:
            tries = [1 << (v - 1) for v in order[best] if mask & (1 << (v - 1))]
        for bit in tries:
            branch = list(cand)
            branch[best] = bit
            if self._rec(branch, res, limit, order, max_nodes):
                return True
        return False
