"""Latin squares with extra constraints on small groups of cells (futoshiki, kenken).

Cells are numbered row-major ``r * n + c``; values are ``1..n``; candidate sets are bitmasks
(value ``v`` is bit ``1 << (v - 1)``). Every row and column holds each value once. An extra
constraint is a *table*: the cells it covers and every tuple of values it allows, each tuple
encoded as one int (value ``v`` at position ``p`` is bit ``p * n + v - 1``), so a tuple fits
the candidates when it has no bit outside their encoded union.

:class:`LatinCSP` solves such puzzles exactly: at every node it propagates naked and hidden
singles in rows and columns and keeps, per table, only the tuples its cells still allow
(generalised arc consistency; an inequality ``a < b`` is revised by its bounds, which prunes
the same), then branches on the cell with fewest candidates (most constraints on a tie) and counts
solutions up to a limit (2 proves uniqueness). ``forward_only`` turns it into the weak,
textbook reasoner: no search, singles only, and a table prunes a cell only once every other
cell of the table is decided (an inequality next to a placed digit, a cage's last empty cell).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

POPCOUNT = tuple(bin(m).count("1") for m in range(1 << 10))
BIT_VALUE = {1 << i: i + 1 for i in range(10)}


def encode(values: Sequence[int], n: int) -> int:
    """One tuple of values as a table entry (value ``v`` at position ``p`` -> bit ``p*n + v-1``)."""
    code = 0
    for p, v in enumerate(values):
        code |= 1 << (p * n + v - 1)
    return code


@lru_cache(maxsize=16)
def latin_units(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """(rows and columns as cell tuples, the row/column peers of every cell); cached per n."""
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    peers = []
    for cell in range(n * n):
        r, c = divmod(cell, n)
        peers.append(tuple(x for x in rows[r] + cols[c] if x != cell))
    return tuple(rows + cols), tuple(peers)


class CSPResult:
    """Solutions found (up to the limit), search nodes, and candidates eliminated (``work``:
    every value struck from a cell, by propagation or by a branch, counted each time)."""

    __slots__ = ("count", "solutions", "nodes", "work", "exhausted")

    def __init__(self) -> None:
        self.count = 0
        self.solutions: list[list[int]] = []
        self.nodes = 0
        self.work = 0
        self.exhausted = False

    @property
    def solution(self) -> list[int] | None:
        return self.solutions[0] if self.solutions else None


class LatinCSP:
    """An ``n x n`` Latin square plus table constraints ``(cells, allowed encoded tuples)`` and
    inequalities ``(a, b)``: cell ``a`` holds a smaller value than cell ``b``.

    An inequality is a two-cell table too, but it is revised by its bounds (the same pruning,
    arc consistency, at a fraction of the cost of scanning its tuples)."""

    def __init__(
        self,
        n: int,
        tables: Sequence[tuple[Sequence[int], Sequence[int]]] = (),
        less: Sequence[tuple[int, int]] = (),
    ) -> None:
        self.n, self.full = n, (1 << n) - 1
        self.units, self.peers = latin_units(n)
        self.less = [(int(a), int(b)) for a, b in less]
        # constraints 0..len(less)-1 are the inequalities, the tables follow
        self.table_cells = [tuple(cells) for cells, _ in tables]
        self.table_tuples = [list(tuples) for _, tuples in tables]
        self.watch: list[list[int]] = [[] for _ in range(n * n)]
        for k, (a, b) in enumerate(self.less):
            self.watch[a].append(k)
            self.watch[b].append(k)
        for k, cells in enumerate(self.table_cells, start=len(self.less)):
            for cell in cells:
                self.watch[cell].append(k)
        self.degree = [min(len(w), 255) for w in self.watch]

    # ------------------------------------------------------------------------------------
    # Propagation
    # ------------------------------------------------------------------------------------

    def propagate(
        self, cand: list[int], domains: list[list[int]], res: CSPResult, *, forward_only: bool = False
    ) -> bool:
        """Reduce ``cand`` (and the table ``domains``) in place; False on a contradiction."""
        n, full, peers, units, watch = self.n, self.full, self.peers, self.units, self.watch
        less, table_cells, n_less = self.less, self.table_cells, len(self.less)
        done = [False] * (n * n)
        queue = [c for c in range(n * n) if not cand[c] & (cand[c] - 1)]
        dirty = list(range(n_less + len(table_cells)))  # constraints to revise, each listed once
        listed = [True] * len(dirty)
        while True:
            while queue:  # naked singles: a decided cell leaves its row and column
                cell = queue.pop()
                m = cand[cell]
                if not m:
                    return False
                if done[cell]:
                    continue
                done[cell] = True
                for k in watch[cell]:
                    if not listed[k]:
                        listed[k] = True
                        dirty.append(k)
                for p in peers[cell]:
                    if cand[p] & m:
                        rest = cand[p] & ~m
                        if not rest:
                            return False
                        res.work += 1
                        cand[p] = rest
                        for k in watch[p]:
                            if not listed[k]:
                                listed[k] = True
                                dirty.append(k)
                        if not rest & (rest - 1):
                            queue.append(p)
            for unit in units:  # hidden singles: a value with one place left in a line
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
                            res.work += POPCOUNT[cand[c]] - 1
                            cand[c] = bit
                            queue.append(c)
                            break
            if queue:
                continue
            pruned = False  # a constraint pruning a cell can leave a hidden single behind
            while dirty and not queue:
                k = dirty.pop()
                listed[k] = False
                if k < n_less:
                    changes = self._revise_less(cand, less[k], forward_only)
                else:
                    changes = self._revise_table(cand, domains, k - n_less, forward_only)
                if changes is None:
                    return False
                for c, m in changes:
                    res.work += POPCOUNT[cand[c]] - POPCOUNT[m]
                    cand[c] = m
                    pruned = True
                    for j in watch[c]:
                        if j != k and not listed[j]:
                            listed[j] = True
                            dirty.append(j)
                    if not m & (m - 1):
                        queue.append(c)
            if not queue and not pruned:
                return True

    @staticmethod
    def _revise_less(
        cand: list[int], pair: tuple[int, int], forward_only: bool
    ) -> list[tuple[int, int]] | None:
        """a < b: a stays below b's largest candidate, b above a's smallest (or, forward only,
        the other cell's value once one of them is decided)."""
        a, b = pair
        ma, mb = cand[a], cand[b]
        if forward_only and ma & (ma - 1) and mb & (mb - 1):
            return []
        new_a = ma & ((1 << (mb.bit_length() - 1)) - 1)
        if not new_a:
            return None
        new_b = mb & ~((new_a & -new_a) * 2 - 1)
        if not new_b:
            return None
        changes = []
        if new_a != ma:
            changes.append((a, new_a))
        if new_b != mb:
            changes.append((b, new_b))
        return changes

    def _revise_table(
        self, cand: list[int], domains: list[list[int]], k: int, forward_only: bool
    ) -> list[tuple[int, int]] | None:
        """Keep the tuples the cells still allow; each cell keeps the values of those tuples."""
        n, full, cells = self.n, self.full, self.table_cells[k]
        if forward_only and sum(1 for c in cells if cand[c] & (cand[c] - 1)) > 1:
            return []
        allowed, shift = 0, 0
        for c in cells:
            allowed |= cand[c] << shift
            shift += n
        dom = [t for t in domains[k] if not t & ~allowed]
        if not dom:
            return None
        domains[k] = dom
        union = 0
        for t in dom:
            union |= t
        if union == allowed:
            return []
        changes, shift = [], 0
        for c in cells:
            m = (union >> shift) & full
            shift += n
            if m != cand[c]:
                changes.append((c, m))
        return changes

    # ------------------------------------------------------------------------------------
    # Search
    # ------------------------------------------------------------------------------------

    def initial(self, givens: Sequence[int]) -> list[int]:
        return [(1 << (v - 1)) if v else self.full for v in givens]

    def solve(
        self,
        givens: Sequence[int] | None = None,
        limit: int = 2,
        *,
        cand: list[int] | None = None,
        max_nodes: int = 0,
    ) -> CSPResult:
        """Count solutions up to ``limit`` from ``givens`` (0 = empty) or explicit candidates."""
        res = CSPResult()
        start = list(cand) if cand is not None else self.initial(givens or [0] * (self.n * self.n))
        self._rec(start, [list(t) for t in self.table_tuples], res, limit, max_nodes)
        return res

    def _rec(
        self, cand: list[int], domains: list[list[int]], res: CSPResult, limit: int, max_nodes: int
    ) -> bool:
        if max_nodes and res.nodes >= max_nodes:
            res.exhausted = True
            return True
        res.nodes += 1
        if not self.propagate(cand, domains, res):
            return False
        # fewest candidates first, then the cell under the most constraints
        best, best_key, degree = -1, 1 << 30, self.degree
        for c, m in enumerate(cand):
            if m & (m - 1):
                key = POPCOUNT[m] * 256 - degree[c]
                if key < best_key:
                    best, best_key = c, key
        best_count = POPCOUNT[cand[best]] if best >= 0 else 0
        if best < 0:
            res.count += 1
            res.solutions.append([BIT_VALUE[m] for m in cand])
            return res.count >= limit
        mask = cand[best]
        while mask:
            bit = mask & -mask
            mask ^= bit
            branch = list(cand)
            branch[best] = bit
            res.work += best_count - 1
            if self._rec(branch, list(domains), res, limit, max_nodes):
                return True
        return False

    def weak_solve(
        self, givens: Sequence[int], *, forward_only: bool = False
    ) -> tuple[list[int] | None, int]:
        """Propagation without search (with ``forward_only``, the textbook subset described in
        the module docstring); ``None`` when stuck. Returns the grid and the number of
        candidates it eliminated."""
        res = CSPResult()
        cand = self.initial(givens)
        domains = [list(t) for t in self.table_tuples]
        if not self.propagate(cand, domains, res, forward_only=forward_only):
            return None, res.work
        if any(m & (m - 1) for m in cand):
            return None, res.work
        return [BIT_VALUE[m] for m in cand], res.work
