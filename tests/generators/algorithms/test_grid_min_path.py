"""grid_min_path: the DP optimum re-found by walking every path (levels 1-5) and by networkx's
Dijkstra on the cell graph (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "grid_min_path"


def every_path(grid: list[list[int]]) -> int:
    rows, cols = len(grid), len(grid[0])

    def walk(r: int, c: int) -> int:
        if (r, c) == (rows - 1, cols - 1):
            return grid[r][c]
        options = [walk(r + 1, c)] if r + 1 < rows else []
        options += [walk(r, c + 1)] if c + 1 < cols else []
        return grid[r][c] + min(options)

    return walk(0, 0)


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_networkx_and_walking_every_path_find(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    grid = task.metadata["grid"]
    rows, cols = len(grid), len(grid[0])
    graph = nx.DiGraph()
    for r in range(rows):
        for c in range(cols):
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < rows and cc < cols:
                    graph.add_edge((r, c), (rr, cc), weight=grid[rr][cc])
    best = grid[0][0] + nx.dijkstra_path_length(graph, (0, 0), (rows - 1, cols - 1))
    assert task.answer == str(best)
    if level <= 5:
        assert task.answer == str(every_path(grid))
