"""Problem variants, reference solutions and test generators for algorithmic_coding (our own code).

Each problem kind comes in many variants: parameters drawn per task that change the program
required (a sort key and its directions, the gap required between intervals and what to optimise,
edge directions and costs, edit costs, what counts as a selection of parts). The statement states
every parameter; the reference and the brute-force program are filled in from the same
parameters, as literal constants, so mutation analysis covers them. ``VARIANTS[kind]`` lists every
variant; ``SEPARATORS[kind]`` are fixed inputs in every suite on which any two variants of the kind
give different outputs (tests/generators/test_algorithmic_coding.py checks every pair), so a
program right for one variant fails every task of another.

Every reference is ``solve(data: str) -> str`` written with ``for`` loops only (no ``while``, no
recursion), so every single-token mutant of it terminates: mutation analysis can run the mutants
in-process without a sandbox. The input format of a kind is the same in all its variants.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from string import Template
from typing import Any

import numpy as np

Tests = list[str]
Params = dict[str, Any]
KINDS = ("sort_pairs", "interval_scheduling", "shortest_path", "edit_distance", "count_mod")


def _ints(rng: np.random.Generator, lo: int, hi: int, n: int) -> list[int]:
    return [int(v) for v in rng.integers(lo, hi + 1, size=n)]


def _pairs_text(pairs: list[tuple[int, int]]) -> str:
    return f"{len(pairs)}\n" + "".join(f"{a} {b}\n" for a, b in pairs)


def _order(descending: bool) -> str:
    return "descending" if descending else "ascending"


# ============================================================================ sort_pairs

SORT_PAIRS = Template("""def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    pairs = []
    for i in range(n):
        pairs.append((int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])))
    pairs.sort(key=lambda p: $key)
    return "\\n".join(f"{a} {b}" for a, b in pairs)
""")


def _sort_variants() -> list[Params]:
    keys = [("value", 0), ("abs", 0)] + [("mod", k) for k in range(3, 8)]
    return [
        {"primary": field, "key": key, "k": k, "primary_desc": d1, "secondary_desc": d2}
        for field in ("a", "b")
        for key, k in keys
        for d1 in (False, True)
        for d2 in (False, True)
    ]


def _sort_key(params: Params) -> str:
    first = "p[0]" if params["primary"] == "a" else "p[1]"
    second = "p[1]" if params["primary"] == "a" else "p[0]"
    term = {"value": first, "abs": f"abs({first})", "mod": f"{first} % {params['k']}"}[params["key"]]
    if params["primary_desc"]:
        term = f"-{term}" if params["key"] == "value" else f"-({term})"
    if params["secondary_desc"]:
        second = f"-{second}"
    return f"({term}, {second})"


def _sort_statement(params: Params) -> str:
    field = params["primary"]
    other = "b" if field == "a" else "a"
    k = params["k"]
    key = {
        "value": field,
        "abs": f"|{field}| (the absolute value of {field})",
        "mod": f"{field} mod {k} (the remainder of {field} divided by {k}, in 0..{k - 1}, also for "
        f"negative {field})",
    }[params["key"]]
    first = key.split(" (")[0]
    return (
        "Read n, then n pairs of integers a b (all whitespace-separated). Output the pairs, one "
        f"'a b' per line, sorted by {key} {_order(params['primary_desc'])} and, among pairs with "
        f"equal {first}, by {other} {_order(params['secondary_desc'])}; pairs equal on both keys "
        "keep their input order."
    )


SORT_SEPARATORS = [
    _pairs_text([(3, -1), (-3, 4), (5, 4), (-7, -6), (1, 0), (-1, 2), (6, -3), (2, -8), (-3, -1), (8, 9)]),
    _pairs_text([(4, 1), (-4, 1), (9, -5), (0, 6), (-9, 3), (4, -2), (11, 7), (-6, 7), (5, 5), (10, 0)]),
]


def tests_sort_pairs(params: Params, rng: np.random.Generator, size: int) -> Tests:
    out = [_pairs_text([]), _pairs_text([(3, -1)]), _pairs_text([(1, 5), (2, 5), (0, 5)])]
    out.append(_pairs_text([(-2, 1), (-1, 1), (5, 0), (5, -3), (2, 1), (-5, 0)]))
    k = params["k"] or 4
    # values on and next to every residue and sign, so each part of the key decides somewhere
    out.append(
        _pairs_text([(v, -v) for v in range(-k - 1, k + 2)] + [(v, v) for v in range(k + 1, -k - 2, -1)])
    )
    for n, spread in ((6, 3), (10, 10), (size, 3), (size, 10**6)):
        out.append(
            _pairs_text(
                list(zip(_ints(rng, -spread, spread, n), _ints(rng, -spread, spread, n), strict=True))
            )
        )
    return out


BRUTE_SORT_PAIRS = Template("""def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    pairs = [(int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])) for i in range(n)]
    key = lambda p: $key
    out = []
    while pairs:
        best = 0
        for i in range(1, len(pairs)):
            _tick()
            if key(pairs[i]) < key(pairs[best]):
                best = i
        out.append(pairs.pop(best))
    return "\\n".join(f"{a} {b}" for a, b in out)
""")


# ============================================================================ interval_scheduling

# both references read the intervals and sort them by their end first
INTERVALS_HEAD = """def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    spans = []
    for i in range(n):
        spans.append((int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])))
    spans.sort(key=lambda s: s[1])
"""

INTERVALS_GREEDY = Template(
    INTERVALS_HEAD
    + """    count = 0
    free = None
    for start, end in spans:
        if free is None or start >= free:
            count += 1
            free = $free
    return str($result)
"""
)

INTERVALS_LENGTH = Template(
    "from bisect import bisect_right\n"
    + INTERVALS_HEAD
    + """    ends = [end for start, end in spans]
    best = [0]
    for start, end in spans:
        before = bisect_right(ends, $latest)
        best.append(max(best[-1], best[before] + end - start))
    return str(best[-1])
"""
)

INTERVAL_GOALS = {
    "count": "the largest number of pairwise compatible intervals",
    "remove": "the smallest number of intervals to remove so that the remaining ones are pairwise compatible",
    "length": "the largest total length (the sum of end - start) of a set of pairwise compatible intervals",
}


def _interval_variants() -> list[Params]:
    return [{"goal": goal, "gap": gap} for goal in INTERVAL_GOALS for gap in range(6)]


def _interval_statement(params: Params) -> str:
    gap = params["gap"]
    touching = (
        "touching intervals, where one ends exactly where the other starts, are compatible"
        if gap == 0
        else "touching or overlapping intervals are not compatible"
    )
    return (
        "Read n, then n intervals 'start end' (integers, start < end). Two intervals are "
        f"compatible when one of them starts at least {gap} after the other ends (the later start "
        f"minus the earlier end is >= {gap}; {touching}). Output {INTERVAL_GOALS[params['goal']]}."
    )


def _interval_reference(params: Params) -> str:
    gap = params["gap"]  # a gap of 0 is written without a "+ 0" (its mutant "- 0" would not differ)
    if params["goal"] == "length":
        return INTERVALS_LENGTH.substitute(latest=f"start - {gap}" if gap else "start")
    result = "count" if params["goal"] == "count" else "n - count"
    return INTERVALS_GREEDY.substitute(free=f"end + {gap}" if gap else "end", result=result)


INTERVAL_SEPARATORS = [
    # consecutive gaps 0..6 between short intervals, and long intervals hiding short ones
    _pairs_text([(0, 1), (1, 2), (3, 4), (6, 7), (10, 11), (15, 16), (21, 22), (28, 29)]),
    _pairs_text([(0, 10), (1, 2), (3, 4), (5, 6), (10, 12), (14, 30), (13, 15), (19, 20)]),
    _pairs_text([(0, 3), (3, 9), (4, 5), (11, 12), (9, 10), (15, 25), (16, 18)]),
    _pairs_text([(0, 2), (6, 8), (13, 15), (19, 21), (20, 26)]),
    _pairs_text([(0, 5), (6, 10), (7, 9), (12, 13)]),
]


def tests_intervals(params: Params, rng: np.random.Generator, size: int) -> Tests:
    def rand(n: int, span: int, length: int) -> list[tuple[int, int]]:
        starts = _ints(rng, 0, span, n)
        return [(s, s + int(rng.integers(1, length + 1))) for s in starts]

    gap = params["gap"]
    out = [_pairs_text([]), _pairs_text([(0, 1)]), _pairs_text([(0, 2), (2, 4), (4, 6)])]
    out.append(_pairs_text([(1, 3), (0, 2), (2, 5), (3, 4)]))
    out.append(_pairs_text([(5, 6), (5, 6), (5, 7), (-3, 5)]))
    # gaps planted on and next to the required gap
    planted, at = [], -20
    for step in (gap, gap - 1, gap + 1, gap, 0, gap + 2):
        planted.append((at, at + 2))
        at += 2 + max(step, 0)
    out.append(_pairs_text(planted))
    # a long interval first: sorted by start, the ends are out of order
    out.append(_pairs_text([(0, 30), (1, 3), (3 + gap, 6 + gap), (6 + 2 * gap, 9 + 2 * gap)]))
    for n, span, length in ((6, 10, 4), (12, 20, 6), (size, 4 * size, 8), (size, size, 3 * size)):
        out.append(_pairs_text(rand(n, span, length)))
    return out


BRUTE_INTERVALS = Template("""def solve(data):
    tokens = data.split()
    n = int(tokens[0])
    spans = sorted((int(tokens[1 + 2 * i]), int(tokens[2 + 2 * i])) for i in range(n))

    def best(i, free):
        # try both: skip spans[i], or take it when it starts late enough after the last taken
        _tick()
        if i == len(spans):
            return 0
        skip = best(i + 1, free)
        start, end = spans[i]
        if free is None or start >= free:
            return max(skip, $worth + best(i + 1, end + $gap))
        return skip

    return str($result)
""")


def _interval_brute(params: Params) -> str:
    worth = "end - start" if params["goal"] == "length" else "1"
    result = "n - best(0, None)" if params["goal"] == "remove" else "best(0, None)"
    return BRUTE_INTERVALS.substitute(worth=worth, gap=params["gap"], result=result)


# ============================================================================ shortest_path

# the reference and the brute force read the graph alike; $edges adds each edge to adj
PATH_HEAD = """def solve(data):
    tokens = data.split()
    n, m = int(tokens[0]), int(tokens[1])
    adj = [[] for _ in range(n)]
    for i in range(m):
        u, v, w = int(tokens[2 + 3 * i]), int(tokens[3 + 3 * i]), int(tokens[4 + 3 * i])
$edges"""

SHORTEST_PATH = Template(
    PATH_HEAD
    + """    dist = [None] * n
    dist[$source] = 0
    done = [False] * n
    for _ in range(n):
        open_nodes = [v for v in range(n) if not done[v] and dist[v] is not None]
        if not open_nodes:
            break
        best = min(open_nodes, key=lambda v: dist[v])
        done[best] = True
        for v, w in adj[best]:
            reach = $reach
            dist[v] = reach if dist[v] is None else min(dist[v], reach)
    return str(-1 if dist[$target] is None else dist[$target])
"""
)

GRAPHS = ("directed", "reversed", "undirected")


def _path_variants() -> list[Params]:
    return [
        {"graph": graph, "goal": goal, "surcharge": c}
        for graph in GRAPHS
        for goal in ("sum", "bottleneck")
        for c in range(4)
    ]


def _path_ends(params: Params) -> tuple[str, str]:
    return ("n - 1", "0") if params["graph"] == "reversed" else ("0", "n - 1")


def _edge_lines(params: Params) -> str:
    cost = f"w + {params['surcharge']}" if params["surcharge"] else "w"
    edges = f"        adj[u].append((v, {cost}))\n"
    if params["graph"] == "undirected":
        edges += f"        adj[v].append((u, {cost}))\n"
    return edges


def _path_reference(params: Params) -> str:
    edges = _edge_lines(params)
    reach = "dist[best] + w" if params["goal"] == "sum" else "max(dist[best], w)"
    source, target = _path_ends(params)
    return SHORTEST_PATH.substitute(edges=edges, source=source, target=target, reach=reach)


def _path_statement(params: Params) -> str:
    c = params["surcharge"]
    edges = {
        "undirected": "Edges are undirected: each can be used in both directions.",
    }.get(params["graph"], "Edges are directed: 'u v w' goes from u to v only.")
    cost = f"its weight plus {c} (w + {c})" if c else "its weight w"
    goal = (
        "the smallest total cost of a path"
        if params["goal"] == "sum"
        else "the smallest possible maximum edge cost along a path"
    )
    source, target = (end.replace(" ", "") for end in _path_ends(params))
    return (
        "Read n m, then m edges 'u v w' (nodes 0..n-1, integer weights w >= 0, parallel edges and "
        f"self-loops possible). {edges} Using an edge costs {cost}. Output {goal} from node "
        f"{source} to node {target} (a path with no edges, when the two nodes are the same, costs "
        "0), or -1 if there is no such path."
    )


def _graph(n: int, edges: list[tuple[int, int, int]]) -> str:
    return f"{n} {len(edges)}\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges)


PATH_SEPARATORS = [
    # 0 -> 3 cheap in few hops with a heavy edge, or in many hops of light edges; 3 -> 0 differs
    _graph(4, [(0, 3, 7), (0, 1, 1), (1, 2, 1), (2, 3, 2), (3, 1, 0), (1, 0, 4), (2, 0, 9)]),
    _graph(5, [(0, 4, 5), (0, 1, 1), (1, 2, 0), (2, 3, 0), (3, 4, 1), (4, 2, 3), (2, 0, 1)]),
    _graph(3, [(1, 0, 2), (2, 1, 6)]),
]


def tests_shortest_path(params: Params, rng: np.random.Generator, size: int) -> Tests:
    # built from node 0 towards node n-1, then relabelled x -> n-1-x when the path runs backwards
    flip = params["graph"] == "reversed"

    def graph(n: int, edges: list[tuple[int, int, int]]) -> str:
        if flip:
            edges = [(n - 1 - u, n - 1 - v, w) for u, v, w in edges]
        return _graph(n, edges)

    def rand(n: int, m: int, wmax: int) -> str:
        edges = list(
            zip(_ints(rng, 0, n - 1, m), _ints(rng, 0, n - 1, m), _ints(rng, 0, wmax, m), strict=True)
        )
        return graph(n, edges)

    out = [graph(1, []), graph(2, []), graph(2, [(0, 1, 0)]), graph(3, [(0, 1, 5), (1, 2, 5), (0, 2, 11)])]
    out.append(graph(3, [(0, 2, 9), (0, 1, 1), (1, 2, 1), (2, 0, 0), (1, 1, 0), (0, 2, 3)]))
    out.append(graph(4, [(0, 1, 1), (1, 0, 1), (2, 3, 1)]))  # unreachable end
    out.append(graph(4, [(1, 0, 1), (2, 1, 1), (3, 2, 1)]))  # reachable only against the edges
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


BRUTE_SHORTEST_PATH = Template(
    PATH_HEAD
    + """    best = [None]
    on_path = [False] * n

    def walk(u, cost):
        # every simple path from the start node
        _tick()
        if u == $target:
            if best[0] is None or cost < best[0]:
                best[0] = cost
            return
        on_path[u] = True
        for v, w in adj[u]:
            if not on_path[v]:
                walk(v, $step)
        on_path[u] = False

    walk($source, 0)
    return str(-1 if best[0] is None else best[0])
"""
)


def _path_brute(params: Params) -> str:
    edges = _edge_lines(params)
    step = "cost + w" if params["goal"] == "sum" else "max(cost, w)"
    source, target = _path_ends(params)
    return BRUTE_SHORTEST_PATH.substitute(edges=edges, source=source, target=target, step=step)


# ============================================================================ edit_distance

EDIT_DISTANCE = Template("""def solve(data):
    lines = data.split("\\n")
    a, b = lines[0].strip(), lines[1].strip()
    prev = [j * $insert for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [i * $delete]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else $replace
            cur.append(min(prev[j] + $delete, cur[j - 1] + $insert, prev[j - 1] + cost))
        prev = cur
    return str(prev[-1])
""")


def _edit_variants() -> list[Params]:
    # a replacement dearer than a deletion plus an insertion is never used: such costs would
    # behave exactly as replace = insert + delete, so they are not drawn
    return [
        {"insert": i, "delete": d, "replace": r}
        for i, d, r in itertools.product(range(1, 5), repeat=3)
        if r <= i + d
    ]


def _edit_statement(params: Params) -> str:
    return (
        "Read two lines, strings a and b of lowercase letters (either may be empty). Turn a into b "
        f"by inserting a letter (cost {params['insert']}), deleting a letter (cost "
        f"{params['delete']}) or replacing a letter by a different one (cost {params['replace']}). "
        "Output the smallest total cost."
    )


EDIT_SEPARATORS = ["\nab", "abc\n", "ab\ncd", "abc\nxbz", "kitten\nsitting", "ab\nba", "abcd\nbcda"]


def tests_edit_distance(params: Params, rng: np.random.Generator, size: int) -> Tests:
    def word(n: int, letters: int) -> str:
        return "".join(chr(97 + int(c)) for c in rng.integers(0, letters, size=n))

    out = ["\n", "a\n", "\nb", "abc\nabc", "a\nb", "abcdef\nazced", "xy\nyxz"]
    for n, m, letters in ((5, 7, 3), (9, 6, 2), (size, size, 4), (size, size // 3 + 1, 2)):
        out.append(f"{word(n, letters)}\n{word(m, letters)}")
    base = word(size, 3)
    out.append(f"{base}\n{base[1:]}{base[0]}")
    return out


BRUTE_EDIT_DISTANCE = Template("""def solve(data):
    lines = data.split("\\n")
    a, b = lines[0].strip(), lines[1].strip()

    def dist(i, j):
        # cost of turning a[i:] into b[j:], by plain recursion (no table)
        _tick()
        if i == len(a):
            return (len(b) - j) * $insert
        if j == len(b):
            return (len(a) - i) * $delete
        if a[i] == b[j]:
            return dist(i + 1, j + 1)
        return min($delete + dist(i + 1, j), $insert + dist(i, j + 1), $replace + dist(i + 1, j + 1))

    return str(dist(0, 0))
""")


# ============================================================================ count_mod

COUNT_SELECTIONS = {
    "ordered": "ordered sequences of parts (a part may repeat; order matters: 1+2 and 2+1 differ)",
    "multiset": "multisets of parts (a part may repeat; order does not matter: 1+2 and 2+1 are the same)",
    "distinct": "sets of parts (each part used at most once; order does not matter)",
}
RESIDUES = ((1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2))  # number of parts = r (mod q)


def _count_variants() -> list[Params]:
    return [
        {"selection": selection, "bound": bound, "q": q, "r": r}
        for selection in COUNT_SELECTIONS
        for bound in ("exactly", "at most")
        for q, r in RESIDUES
    ]


def _count_statement(params: Params) -> str:
    q, r = params["q"], params["r"]
    parts = {
        1: "",
        2: " and whose number of parts is " + ("even" if r == 0 else "odd"),
        3: f" and whose number of parts leaves remainder {r} when divided by 3",
    }[q]
    return (
        "Read T p k, then k distinct positive integers (the parts). Output the number of "
        f"{COUNT_SELECTIONS[params['selection']]} whose sum is {params['bound']} T{parts}, modulo "
        "p (T >= 0; the empty selection has sum 0 and 0 parts)."
    )


# the loops over sums: ordered builds ways[s] from smaller sums; multiset adds each part with
# sums ascending (a part may be reused), distinct with sums descending (each part once)
COUNT_PLAIN = {
    "ordered": """    ways = [1 % p]
    for s in range(1, total + 1):
        acc = 0
        for part in parts:
            if part <= s:
                acc += ways[s - part]
        ways.append(acc % p)
""",
    "multiset": """    ways = [1 % p] + [0] * total
    for part in parts:
        for s in range(part, total + 1):
            ways[s] = (ways[s] + ways[s - part]) % p
""",
    "distinct": """    ways = [1 % p] + [0] * total
    for part in parts:
        for s in range(total, part - 1, -1):
            ways[s] = (ways[s] + ways[s - part]) % p
""",
}
# with the number of parts modulo q tracked: ways[s][c] counts selections with c = parts mod q;
# adding a part moves count class c to class after[c] = (c + 1) mod q
COUNT_RESIDUE = {
    "ordered": Template("""    after = $after
    ways = [[1 % p$zeros]]
    for s in range(1, total + 1):
        row = [0$zeros]
        for part in parts:
            if part <= s:
                for c in range($q):
                    row[after[c]] += ways[s - part][c]
        ways.append([x % p for x in row])
"""),
    "multiset": Template("""    after = $after
    ways = [[1 % p$zeros]]
    for s in range(total):
        ways.append([0$zeros])
    for part in parts:
        for s in range(part, total + 1):
            for c in range($q):
                ways[s][after[c]] = (ways[s][after[c]] + ways[s - part][c]) % p
"""),
    "distinct": Template("""    after = $after
    ways = [[1 % p$zeros]]
    for s in range(total):
        ways.append([0$zeros])
    for part in parts:
        for s in range(total, part - 1, -1):
            for c in range($q):
                ways[s][after[c]] = (ways[s][after[c]] + ways[s - part][c]) % p
"""),
}
COUNT_HEAD = """def solve(data):
    tokens = data.split()
    total, p = int(tokens[0]), int(tokens[1])
    parts = [int(t) for t in tokens[3:]]
"""


def _count_reference(params: Params) -> str:
    q, r, selection = params["q"], params["r"], params["selection"]
    if q == 1:
        body = COUNT_PLAIN[selection]
        result = "ways[-1]" if params["bound"] == "exactly" else "sum(ways) % p"
    else:
        after = [(c + 1) % q for c in range(q)]
        body = COUNT_RESIDUE[selection].substitute(q=q, zeros=", 0" * (q - 1), after=after)
        result = f"ways[-1][{r}]" if params["bound"] == "exactly" else f"sum(row[{r}] for row in ways) % p"
    return f"{COUNT_HEAD}{body}    return str({result})\n"


COUNT_SEPARATORS = ["7 1000 4\n2 3 4 5\n", "7 1000 3\n1 4 7\n", "10 1000 3\n2 3 5\n", "10 1000 4\n1 2 3 4\n"]


def tests_count_mod(params: Params, rng: np.random.Generator, size: int) -> Tests:
    def case(total: int, p: int, parts: list[int]) -> str:
        return f"{total} {p} {len(parts)}\n" + " ".join(map(str, parts)) + "\n"

    out = [case(0, 7, [1]), case(0, 1, [2]), case(3, 1000, [2]), case(4, 1000, [1, 2]), case(5, 3, [1, 2])]
    out.append(case(7, 10009, [3, 5, 2]))
    out.append(case(10, 1000, [10, 1]))
    out.append(case(8, 5, [1, 2, 3, 5]))
    # every variant's count differs modulo p and modulo k in one of these (a program reading k
    # for p fails), and listing the sequences one by one stays cheap
    out += [case(8, 2, [2, 4, 6, 8, 9]), case(9, 2, [2, 3, 4, 6, 7, 9]), case(14, 2, [3, 4, 5, 6, 7])]
    out.append(case(10, 2, [1, 2, 3, 4, 10]))
    out.append(case(35, 1000, [5, 6, 7, 8, 9]))  # a set of 5 parts: the count class wraps around
    for total, p, k in ((12, 97, 3), (20, 10007, 4), (size, 9973, 3)):
        out.append(case(total, p, sorted({int(v) for v in rng.integers(1, 12, size=k)})))
    # moduli stay near 10^4: a mutant that reads p as T (run in-process when the suite is
    # checked) then builds a table of 10^4 entries, not the 8 GB of T = 10**9 + 7; the counts
    # still exceed p many times over, so a missing reduction fails
    # the large cases have many parts (small, then spread out): then multisets and sets of
    # parts, not only sequences, are too many to list one by one as T grows
    many = min(4 + size // 3, 25)
    small = rng.choice(np.arange(1, many + 6), size=many, replace=False)
    out.append(case(size, 10007, sorted(int(v) for v in small)))
    spread = rng.choice(np.arange(1, max(many + 6, size // 2)), size=many, replace=False)
    out.append(case(size, 10007, sorted(int(v) for v in spread)))
    return out


BRUTE_COUNT_MOD = Template("""def solve(data):
    tokens = data.split()
    total, p = int(tokens[0]), int(tokens[1])
    parts = [int(t) for t in tokens[3:]]

    def ways(first, s, count):
        # count the selections one by one (no table); parts[first:] may still be added
        _tick()
        found = 1 if $reached and count % $q == $r else 0
        for j in range($start, len(parts)):
            if s + parts[j] <= total:
                found += ways($after, s + parts[j], count + 1)
        return found

    return str(ways(0, 0, 0) % p)
""")


def _count_brute(params: Params) -> str:
    start, after = {"ordered": ("0", "0"), "multiset": ("first", "j"), "distinct": ("first", "j + 1")}[
        params["selection"]
    ]
    reached = "s == total" if params["bound"] == "exactly" else "s <= total"
    return BRUTE_COUNT_MOD.substitute(reached=reached, q=params["q"], r=params["r"], start=start, after=after)


# ============================================================================ the registry of kinds

VARIANTS: dict[str, list[Params]] = {
    "sort_pairs": _sort_variants(),
    "interval_scheduling": _interval_variants(),
    "shortest_path": _path_variants(),
    "edit_distance": _edit_variants(),
    "count_mod": _count_variants(),
}

_STATEMENTS: dict[str, Callable[[Params], str]] = {
    "sort_pairs": _sort_statement,
    "interval_scheduling": _interval_statement,
    "shortest_path": _path_statement,
    "edit_distance": _edit_statement,
    "count_mod": _count_statement,
}

_REFERENCES: dict[str, Callable[[Params], str]] = {
    "sort_pairs": lambda params: SORT_PAIRS.substitute(key=_sort_key(params)),
    "interval_scheduling": _interval_reference,
    "shortest_path": _path_reference,
    "edit_distance": lambda params: EDIT_DISTANCE.substitute(params),
    "count_mod": _count_reference,
}

TESTS: dict[str, Callable[[Params, np.random.Generator, int], Tests]] = {
    "sort_pairs": tests_sort_pairs,
    "interval_scheduling": tests_intervals,
    "shortest_path": tests_shortest_path,
    "edit_distance": tests_edit_distance,
    "count_mod": tests_count_mod,
}

SEPARATORS: dict[str, Tests] = {
    "sort_pairs": SORT_SEPARATORS,
    "interval_scheduling": INTERVAL_SEPARATORS,
    "shortest_path": PATH_SEPARATORS,
    "edit_distance": EDIT_SEPARATORS,
    "count_mod": COUNT_SEPARATORS,
}


def draw_variant(kind: str, rng: np.random.Generator) -> Params:
    """One variant of ``kind``, every variant equally likely."""
    return VARIANTS[kind][int(rng.integers(len(VARIANTS[kind])))]


def statement(kind: str, params: Params) -> str:
    """The problem statement of a variant, every parameter stated."""
    return _STATEMENTS[kind](params)


def reference(kind: str, params: Params) -> str:
    """The reference ``solve`` of a variant (parameters as literal constants)."""
    return _REFERENCES[kind](params)


def hidden_tests(kind: str, params: Params, rng: np.random.Generator, size: int) -> Tests:
    """The separators of the kind, then the variant's own cases (edge, planted, random, ending
    with the large ones), each once. The small separators come first so that most wrong programs
    fail fast (a mutant reading p as T must not loop to T = p before it is caught)."""
    return list(dict.fromkeys(SEPARATORS[kind] + TESTS[kind](params, rng, size)))


# ------------------------------------------------------------------ the weak solver's programs
# Brute force a programmer writes before knowing the efficient algorithm: correct, exponential
# (or quadratic, for sorting) in the input size, following the variant's parameters. Each counts
# its basic steps with ``_tick`` and raises once past BRUTE_BUDGET steps over the whole suite,
# standing in for the time limit.
BRUTE_BUDGET = 100_000
BRUTE_HEADER = f"""_STEPS = [0]


def _tick():
    _STEPS[0] += 1
    if _STEPS[0] > {BRUTE_BUDGET}:
        raise TimeoutError("brute force ran out of time")


"""

_BRUTE: dict[str, Callable[[Params], str]] = {
    "sort_pairs": lambda params: BRUTE_SORT_PAIRS.substitute(key=_sort_key(params)),
    "interval_scheduling": _interval_brute,
    "shortest_path": _path_brute,
    "edit_distance": lambda params: BRUTE_EDIT_DISTANCE.substitute(params),
    "count_mod": _count_brute,
}


def brute_force(kind: str, params: Params) -> str:
    """The weak solver's program for a variant: correct, exponential, with a step budget."""
    return BRUTE_HEADER + _BRUTE[kind](params)
