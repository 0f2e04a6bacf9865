"""Reference solutions and test generators for algorithmic_coding (all our own code).

Every reference is ``solve(data: str) -> str`` written with ``for`` loops over ``range`` only (no
``while``, no recursion), so every single-token mutant of it terminates: mutation analysis can
run the mutants in-process without a sandbox.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Tests = list[str]

SORT_PAIRS = """def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    pairs = []
    for i in range(n):
        pairs.append((int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])))
    pairs.sort(key=lambda p: (p[1], -p[0]))
    return "\\n".join(f"{a} {b}" for a, b in pairs)
"""

INTERVALS = """def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    spans = []
    for i in range(n):
        spans.append((int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])))
    spans.sort(key=lambda s: s[1])
    count = 0
    free = None
    for start, end in spans:
        if free is None or start >= free:
            count += 1
            free = end
    return str(count)
"""

SHORTEST_PATH = """def solve(data):
    tokens = data.split()
    n, m = int(tokens[0]), int(tokens[1])
    adj = [[] for _ in range(n)]
    for i in range(m):
        u, v, w = int(tokens[2 + 3 * i]), int(tokens[3 + 3 * i]), int(tokens[4 + 3 * i])
        adj[u].append((v, w))
    dist = [None] * n
    dist[0] = 0
    done = [False] * n
    for _ in range(n):
        open_nodes = [v for v in range(n) if not done[v] and dist[v] is not None]
        if not open_nodes:
            break
        best = min(open_nodes, key=lambda v: dist[v])
        done[best] = True
        for v, w in adj[best]:
            reach = dist[best] + w
            dist[v] = reach if dist[v] is None else min(dist[v], reach)
    return str(-1 if dist[n - 1] is None else dist[n - 1])
"""

EDIT_DISTANCE = """def solve(data):
    lines = data.split("\\n")
    a, b = lines[0].strip(), lines[1].strip()
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost))
        prev = cur
    return str(prev[-1])
"""

COUNT_MOD = """def solve(data):
    tokens = data.split()
    total, p = int(tokens[0]), int(tokens[1])
    parts = [int(t) for t in tokens[3:]]
    ways = [1 % p]
    for s in range(1, total + 1):
        acc = 0
        for part in parts:
            if part <= s:
                acc += ways[s - part]
        ways.append(acc % p)
    return str(ways[-1])
"""

STATEMENTS = {
    "sort_pairs": (
        "Read n, then n pairs of integers a b (all whitespace-separated). Output the pairs, one "
        "'a b' per line, sorted by b ascending and, among equal b, by a descending."
    ),
    "interval_scheduling": (
        "Read n, then n intervals 'start end' (start < end, half-open [start, end): intervals that "
        "only touch do not overlap). Output the largest number of pairwise non-overlapping intervals."
    ),
    "shortest_path": (
        "Read n m, then m directed edges 'u v w' (nodes 0..n-1, weights w >= 0, parallel edges and "
        "self-loops possible). Output the length of a shortest path from node 0 to node n-1, or -1 "
        "if there is none."
    ),
    "edit_distance": (
        "Read two lines, strings a and b of lowercase letters (either may be empty). Output their "
        "Levenshtein distance (insertions, deletions and substitutions cost 1)."
    ),
    "count_mod": (
        "Read T p k, then k distinct positive integers (the parts). Output the number of ordered "
        "sequences of parts summing to exactly T, modulo p (T >= 0; the empty sequence sums to 0)."
    ),
}

REFERENCES = {
    "sort_pairs": SORT_PAIRS,
    "interval_scheduling": INTERVALS,
    "shortest_path": SHORTEST_PATH,
    "edit_distance": EDIT_DISTANCE,
    "count_mod": COUNT_MOD,
}
KINDS = tuple(REFERENCES)


def _ints(rng: np.random.Generator, lo: int, hi: int, n: int) -> list[int]:
    return [int(v) for v in rng.integers(lo, hi + 1, size=n)]


def _pairs_text(pairs: list[tuple[int, int]]) -> str:
    return f"{len(pairs)}\n" + "".join(f"{a} {b}\n" for a, b in pairs)


def tests_sort_pairs(rng: np.random.Generator, size: int) -> Tests:
    out = [_pairs_text([]), _pairs_text([(3, -1)]), _pairs_text([(1, 5), (2, 5), (0, 5)])]
    out.append(_pairs_text([(-2, 1), (-1, 1), (5, 0), (5, -3)]))
    for n, spread in ((6, 3), (10, 10), (size, 3), (size, 10**6)):
        out.append(
            _pairs_text(
                list(zip(_ints(rng, -spread, spread, n), _ints(rng, -spread, spread, n), strict=True))
            )
        )
    return out


def tests_intervals(rng: np.random.Generator, size: int) -> Tests:
    def rand(n: int, span: int, length: int) -> list[tuple[int, int]]:
        starts = _ints(rng, 0, span, n)
        return [(s, s + int(rng.integers(1, length + 1))) for s in starts]

    out = [_pairs_text([]), _pairs_text([(0, 1)]), _pairs_text([(0, 2), (2, 4), (4, 6)])]
    out.append(_pairs_text([(0, 10), (1, 2), (3, 4), (5, 6)]))  # one long interval hides three
    out.append(_pairs_text([(1, 3), (0, 2), (2, 5), (3, 4)]))
    out.append(_pairs_text([(5, 6), (5, 6), (5, 7), (-3, 5)]))
    for n, span, length in ((6, 10, 4), (12, 20, 6), (size, 4 * size, 8), (size, size, 3 * size)):
        out.append(_pairs_text(rand(n, span, length)))
    return out


def tests_shortest_path(rng: np.random.Generator, size: int) -> Tests:
    def graph(n: int, edges: list[tuple[int, int, int]]) -> str:
        return f"{n} {len(edges)}\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges)

    def rand(n: int, m: int, wmax: int) -> str:
        edges = list(
            zip(_ints(rng, 0, n - 1, m), _ints(rng, 0, n - 1, m), _ints(rng, 0, wmax, m), strict=True)
        )
        return graph(n, edges)

    out = [graph(1, []), graph(2, []), graph(2, [(0, 1, 0)]), graph(3, [(0, 1, 5), (1, 2, 5), (0, 2, 11)])]
    out.append(graph(3, [(0, 2, 9), (0, 1, 1), (1, 2, 1), (2, 0, 0), (1, 1, 0), (0, 2, 3)]))
    out.append(graph(4, [(0, 1, 1), (1, 0, 1), (2, 3, 1)]))  # unreachable sink
    chain = size // 2 + 2
    out.append(
        graph(
            chain,
            [(i, i + 1, int(w)) for i, w in enumerate(_ints(rng, 0, 9, chain - 1))]
            + [(0, chain - 1, 9 * chain)],
        )
    )
    for n, m, wmax in (
        (6, 10, 9),
        (10, 25, 20),
        (size // 2 + 2, 3 * size, 100),
        (size // 4 + 2, 2 * size, 3),
    ):
        out.append(rand(n, m, wmax))
    return out


def tests_edit_distance(rng: np.random.Generator, size: int) -> Tests:
    def word(n: int, letters: int) -> str:
        return "".join(chr(97 + int(c)) for c in rng.integers(0, letters, size=n))

    out = ["\n", "abc\n", "\nab", "abc\nabc", "kitten\nsitting", "ab\nba", "a\nb", "abcdef\nazced"]
    for n, m, letters in ((5, 7, 3), (9, 6, 2), (size, size, 4), (size, size // 3 + 1, 2)):
        out.append(f"{word(n, letters)}\n{word(m, letters)}")
    base = word(size, 3)
    out.append(f"{base}\n{base[1:]}{base[0]}")
    return out


def tests_count_mod(rng: np.random.Generator, size: int) -> Tests:
    def case(total: int, p: int, parts: list[int]) -> str:
        return f"{total} {p} {len(parts)}\n" + " ".join(map(str, parts)) + "\n"

    out = [case(0, 7, [1]), case(0, 1, [2]), case(3, 1000, [2]), case(4, 1000, [1, 2]), case(5, 3, [1, 2])]
    out.append(case(7, 1000003, [3, 5, 2]))
    out.append(case(10, 1000, [10, 1]))
    for total, p, k in ((12, 97, 3), (20, 10**9 + 7, 4), (size, 10**9 + 7, 5), (size, 998244353, 3)):
        parts = sorted({int(v) for v in rng.integers(1, 12, size=k)})
        out.append(case(total, p, parts))
    return out


TESTS: dict[str, Callable[[np.random.Generator, int], Tests]] = {
    "sort_pairs": tests_sort_pairs,
    "interval_scheduling": tests_intervals,
    "shortest_path": tests_shortest_path,
    "edit_distance": tests_edit_distance,
    "count_mod": tests_count_mod,
}


# ------------------------------------------------------------------ the weak solver's programs
# Brute force a programmer writes before knowing the efficient algorithm: correct, exponential
# (or quadratic, for sorting) in the input size. Each counts its basic steps with ``_tick`` and
# raises once past BRUTE_BUDGET steps over the whole suite, standing in for the time limit.
BRUTE_BUDGET = 100_000
BRUTE_HEADER = f"""_STEPS = [0]


def _tick():
    _STEPS[0] += 1
    if _STEPS[0] > {BRUTE_BUDGET}:
        raise TimeoutError("brute force ran out of time")


"""

BRUTE_SORT_PAIRS = """def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    pairs = [(int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])) for i in range(n)]
    out = []
    while pairs:
        best = 0
        for i in range(1, len(pairs)):
            _tick()
            if (pairs[i][1], -pairs[i][0]) < (pairs[best][1], -pairs[best][0]):
                best = i
        out.append(pairs.pop(best))
    return "\\n".join(f"{a} {b}" for a, b in out)
"""

BRUTE_INTERVALS = """def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    spans = sorted((int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])) for i in range(n))

    def best(i, free):
        # try both: skip spans[i], or take it when it starts after the last taken end
        _tick()
        if i == len(spans):
            return 0
        skip = best(i + 1, free)
        start, end = spans[i]
        if free is None or start >= free:
            return max(skip, 1 + best(i + 1, end))
        return skip

    return str(best(0, None))
"""

BRUTE_SHORTEST_PATH = """def solve(data):
    tokens = data.split()
    n, m = int(tokens[0]), int(tokens[1])
    adj = [[] for _ in range(n)]
    for i in range(m):
        adj[int(tokens[2 + 3 * i])].append((int(tokens[3 + 3 * i]), int(tokens[4 + 3 * i])))
    best = [None]
    on_path = [False] * n

    def walk(u, length):
        # every simple path from node 0
        _tick()
        if u == n - 1:
            if best[0] is None or length < best[0]:
                best[0] = length
            return
        on_path[u] = True
        for v, w in adj[u]:
            if not on_path[v]:
                walk(v, length + w)
        on_path[u] = False

    walk(0, 0)
    return str(-1 if best[0] is None else best[0])
"""

BRUTE_EDIT_DISTANCE = """def solve(data):
    lines = data.split("\\n")
    a, b = lines[0].strip(), lines[1].strip()

    def dist(i, j):
        # distance between a[i:] and b[j:], by plain recursion (no table)
        _tick()
        if i == len(a):
            return len(b) - j
        if j == len(b):
            return len(a) - i
        if a[i] == b[j]:
            return dist(i + 1, j + 1)
        return 1 + min(dist(i + 1, j), dist(i, j + 1), dist(i + 1, j + 1))

    return str(dist(0, 0))
"""

BRUTE_COUNT_MOD = """def solve(data):
    tokens = data.split()
    total, p = int(tokens[0]), int(tokens[1])
    parts = [int(t) for t in tokens[3:]]

    def ways(s):
        # count the sequences one by one (no table)
        _tick()
        if s == 0:
            return 1
        return sum(ways(s - part) for part in parts if part <= s)

    return str(ways(total) % p)
"""

BRUTE_FORCE = {
    kind: BRUTE_HEADER + source
    for kind, source in {
        "sort_pairs": BRUTE_SORT_PAIRS,
        "interval_scheduling": BRUTE_INTERVALS,
        "shortest_path": BRUTE_SHORTEST_PATH,
        "edit_distance": BRUTE_EDIT_DISTANCE,
        "count_mod": BRUTE_COUNT_MOD,
    }.items()
}
