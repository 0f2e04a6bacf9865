"""A solver for grids of shaded/blank cells whose every row and column allows a known set of
patterns (nonogram run placements, kakurasu weighted sums).

Each line keeps the patterns that agree with the cells known so far; a cell on which all of a
line's patterns agree is decided, which filters the crossing line (line arc consistency). A
grid that propagation alone completes is unique (every step is forced); otherwise the search
branches on the first open cell of the line with fewest patterns (shaded, then blank) and
counts solutions up to a limit. Effort: ``work`` (patterns examined) and ``nodes`` (searches).
"""

from __future__ import annotations

from collections.abc import Sequence


class LineSolver:
    """Lines 0..h-1 are rows (length w), h..h+w-1 columns (length h); each line keeps the
    patterns (bitmasks, bit i = cell i of the line shaded) it still allows. A line's sequence
    of patterns is never changed in place (a filtered line gets a new list), so callers may
    pass shared, cached tuples."""

    def __init__(self, w: int, h: int, cands: list[Sequence[int]]) -> None:
        self.w, self.h = w, h
        self.nodes = 0
        self.work = 0
        self.count = 0
        self.solutions: list[list[int]] = []
        self.lengths = [w] * h + [h] * w
        self.cands = cands
        self.line_state: tuple[list[int], list[int], list[Sequence[int]]] | None = None

    def _cross(self, k: int, bit_index: int) -> tuple[int, int]:
        """The crossing line of cell ``bit_index`` of line ``k`` and the cell's index in it."""
        if k < self.h:
            return self.h + bit_index, k
        return bit_index, k - self.h

    def propagate(
        self, ones: list[int], zeros: list[int], cands: list[Sequence[int]], dirty: set[int]
    ) -> bool:
        while dirty:
            k = dirty.pop()
            o, z = ones[k], zeros[k]
            old = cands[k]
            self.work += len(old)
            new = [p for p in old if not (p & z) and (p & o) == o]
            if not new:
                return False
            if len(new) != len(old):
                cands[k] = new
            all_and, all_or = -1, 0
            for p in new:
                all_and &= p
                all_or |= p
            full = (1 << self.lengths[k]) - 1
            for m, target in ((all_and & ~o, ones), (full & ~all_or & ~z, zeros)):
                target[k] |= m
                while m:
                    b = m & -m
                    m ^= b
                    j, pos = self._cross(k, b.bit_length() - 1)
                    target[j] |= 1 << pos
                    dirty.add(j)
        return True

    def grid(self, ones: list[int]) -> list[int]:
        return [(ones[r] >> c) & 1 for r in range(self.h) for c in range(self.w)]

    def line_solve(self) -> list[int] | None:
        n = self.h + self.w
        ones, zeros, cands = [0] * n, [0] * n, list(self.cands)
        if not self.propagate(ones, zeros, cands, set(range(n))):
            self.line_state = None
            return None
        self.line_state = (ones, zeros, cands)
        return self.grid(ones) if all(len(c) == 1 for c in cands) else None

    def search(self, limit: int = 2, *, after_line_solve: bool = False) -> LineSolver:
        """Count solutions up to ``limit``. ``after_line_solve``: this solver has just run
        :meth:`line_solve` and nothing else, so the search starts from the fixpoint that found
        (the root's propagation is not run twice; ``work`` already counts it), which gives the
        same nodes, work and solutions as a fresh search."""
        n = self.h + self.w
        if after_line_solve:
            if self.line_state is None:  # the root contradicts: one node, no solution
                self.nodes += 1
                return self
            ones, zeros, cands = self.line_state
            self._rec(list(ones), list(zeros), list(cands), set(), limit)
            return self
        self._rec([0] * n, [0] * n, list(self.cands), set(range(n)), limit)
        return self

    def _rec(self, ones, zeros, cands, dirty, limit) -> bool:
        self.nodes += 1
        if not self.propagate(ones, zeros, cands, dirty):
            return False
        best, best_len = -1, 1 << 30
        for k, c in enumerate(cands):
            if 1 < len(c) < best_len:
                best, best_len = k, len(c)
        if best < 0:
            self.count += 1
            self.solutions.append(self.grid(ones))
            return self.count >= limit
        free = ((1 << self.lengths[best]) - 1) & ~(ones[best] | zeros[best])
        bit = free & -free
        j, pos = self._cross(best, bit.bit_length() - 1)
        for target in ("ones", "zeros"):
            o2, z2 = list(ones), list(zeros)
            t = o2 if target == "ones" else z2
            t[best] |= bit
            t[j] |= 1 << pos
            if self._rec(o2, z2, list(cands), {best, j}, limit):
                return True
        return False
