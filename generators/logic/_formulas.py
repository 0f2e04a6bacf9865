"""Private propositional-formula toolkit shared by the logic families.

A formula is plain JSON (so it can live in task metadata) over variables numbered 0..n-1:

- ``["var", i]``
- ``["not", f]``
- ``["and", [f, g, ...]]`` and ``["or", [f, g, ...]]`` (two or more arguments)
- ``["implies", f, g]``, ``["iff", f, g]``, ``["xor", f, g]``
- ``["exactly", k, [f, g, ...]]``: exactly ``k`` of the arguments are true

This module offers evaluation (one assignment, a whole truth table with numpy, three-valued
Kleene evaluation of partial assignments), conversion to z3 and model counting with z3.
Nothing here parses model text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import z3

Formula = list[Any]


def var(i: int) -> Formula:
    return ["var", int(i)]


def neg(f: Formula) -> Formula:
    return ["not", f]


def literal(i: int, positive: bool) -> Formula:
    return var(i) if positive else neg(var(i))


def as_literal(f: Formula) -> tuple[int, bool] | None:
    """``(variable, polarity)`` if ``f`` is a variable or a negated variable, else ``None``."""
    if f[0] == "var":
        return f[1], True
    if f[0] == "not" and f[1][0] == "var":
        return f[1][1], False
    return None


def evaluate(f: Formula, values: Sequence[bool]) -> bool:
    """The truth value of ``f`` under a full assignment."""
    op = f[0]
    if op == "var":
        return bool(values[f[1]])
    if op == "not":
        return not evaluate(f[1], values)
    if op == "and":
        return all(evaluate(g, values) for g in f[1])
    if op == "or":
        return any(evaluate(g, values) for g in f[1])
    if op == "implies":
        return (not evaluate(f[1], values)) or evaluate(f[2], values)
    if op == "iff":
        return evaluate(f[1], values) == evaluate(f[2], values)
    if op == "xor":
        return evaluate(f[1], values) != evaluate(f[2], values)
    if op == "exactly":
        return sum(evaluate(g, values) for g in f[2]) == f[1]
    raise ValueError(f"unknown connective {op!r}")


def all_assignments(n: int) -> np.ndarray:
    """Boolean matrix (2**n, n): row r is the assignment whose bit i is variable i."""
    rows = np.arange(2**n, dtype=np.int64)[:, None]
    return ((rows >> np.arange(n, dtype=np.int64)) & 1).astype(bool)


def truth_table(f: Formula, table: np.ndarray) -> np.ndarray:
    """Vectorised evaluation of ``f`` over every row of ``table`` (see :func:`all_assignments`)."""
    op = f[0]
    if op == "var":
        return table[:, f[1]]
    if op == "not":
        return ~truth_table(f[1], table)
    if op in ("and", "or"):
        parts = [truth_table(g, table) for g in f[1]]
        out = parts[0].copy()
        for p in parts[1:]:
            out = out & p if op == "and" else out | p
        return out
    if op == "implies":
        return ~truth_table(f[1], table) | truth_table(f[2], table)
    if op == "iff":
        return truth_table(f[1], table) == truth_table(f[2], table)
    if op == "xor":
        return truth_table(f[1], table) != truth_table(f[2], table)
    if op == "exactly":
        count = np.zeros(len(table), dtype=np.int64)
        for g in f[2]:
            count += truth_table(g, table)
        return count == f[1]
    raise ValueError(f"unknown connective {op!r}")


def kleene(f: Formula, values: Sequence[bool | None]) -> bool | None:
    """Three-valued (strong Kleene) value of ``f`` under a partial assignment (``None`` = unknown)."""
    op = f[0]
    if op == "var":
        return values[f[1]]
    if op == "not":
        v = kleene(f[1], values)
        return None if v is None else not v
    if op in ("and", "or"):
        dominant = op == "or"  # a True decides an 'or', a False decides an 'and'
        unknown = False
        for g in f[1]:
            v = kleene(g, values)
            if v is None:
                unknown = True
            elif v == dominant:
                return dominant
        return None if unknown else not dominant
    if op in ("implies", "iff", "xor"):
        a, b = kleene(f[1], values), kleene(f[2], values)
        if op == "implies":
            if a is False or b is True:
                return True
            return None if a is None or b is None else False
        if a is None or b is None:
            return None
        return (a == b) if op == "iff" else (a != b)
    if op == "exactly":
        true = unknown = 0
        for g in f[2]:
            v = kleene(g, values)
            if v is None:
                unknown += 1
            elif v:
                true += 1
        k = f[1]
        if true > k or true + unknown < k:
            return False
        return True if unknown == 0 else None
    raise ValueError(f"unknown connective {op!r}")


def to_z3(f: Formula, xs: Sequence[z3.BoolRef]) -> z3.BoolRef:
    """The z3 expression of ``f`` over the z3 Booleans ``xs``."""
    op = f[0]
    if op == "var":
        return xs[f[1]]
    if op == "not":
        return z3.Not(to_z3(f[1], xs))
    if op == "and":
        return z3.And([to_z3(g, xs) for g in f[1]])
    if op == "or":
        return z3.Or([to_z3(g, xs) for g in f[1]])
    if op == "implies":
        return z3.Implies(to_z3(f[1], xs), to_z3(f[2], xs))
    if op == "iff":
        return to_z3(f[1], xs) == to_z3(f[2], xs)
    if op == "xor":
        return z3.Xor(to_z3(f[1], xs), to_z3(f[2], xs))
    if op == "exactly":
        return z3.PbEq([(to_z3(g, xs), 1) for g in f[2]], f[1])
    raise ValueError(f"unknown connective {op!r}")


def z3_models(constraints: Sequence[Formula], n: int, limit: int = 2) -> list[list[bool]]:
    """Up to ``limit`` distinct models (over variables 0..n-1) of the conjunction, found by z3."""
    xs = [z3.Bool(f"x{i}") for i in range(n)]
    solver = z3.Solver()
    for c in constraints:
        solver.add(to_z3(c, xs))
    models: list[list[bool]] = []
    while len(models) < limit and solver.check() == z3.sat:
        model = solver.model()
        values = [z3.is_true(model.eval(x, model_completion=True)) for x in xs]
        models.append(values)
        solver.add(z3.Or([x != z3.BoolVal(v) for x, v in zip(xs, values, strict=True)]))
    return models


def z3_only_model(constraints: Sequence[Formula], n: int, values: Sequence[bool]) -> bool:
    """Prove with z3 that ``values`` is the one and only model of the conjunction.

    ``values`` is checked directly, then z3 shows that no other assignment satisfies the
    constraints (one unsat call on the finite-domain solver, the cheapest proof).
    """
    if not all(evaluate(c, values) for c in constraints):
        return False
    xs = [z3.Bool(f"x{i}") for i in range(n)]
    solver = z3.SolverFor("QF_FD")
    for c in constraints:
        solver.add(to_z3(c, xs))
    solver.add(z3.Or([x != z3.BoolVal(bool(v)) for x, v in zip(xs, values, strict=True)]))
    return solver.check() == z3.unsat


def depth(f: Formula) -> int:
    """Connective nesting depth (a variable has depth 0, a negated variable depth 1)."""
    op = f[0]
    if op == "var":
        return 0
    if op == "not":
        return 1 + depth(f[1])
    if op in ("and", "or"):
        return 1 + max(depth(g) for g in f[1])
    if op == "exactly":
        return 1 + max(depth(g) for g in f[2])
    return 1 + max(depth(f[1]), depth(f[2]))


def size(f: Formula) -> int:
    """Number of nodes of ``f``."""
    op = f[0]
    if op == "var":
        return 1
    if op == "not":
        return 1 + size(f[1])
    if op in ("and", "or"):
        return 1 + sum(size(g) for g in f[1])
    if op == "exactly":
        return 1 + sum(size(g) for g in f[2])
    return 1 + size(f[1]) + size(f[2])


def canonical(f: Formula) -> Formula:
    """A canonical form: arguments of commutative connectives sorted (for hashing)."""
    op = f[0]
    if op == "var":
        return f
    if op == "not":
        return ["not", canonical(f[1])]
    if op in ("and", "or"):
        return [op, sorted((canonical(g) for g in f[1]), key=repr)]
    if op == "exactly":
        return [op, f[1], sorted((canonical(g) for g in f[2]), key=repr)]
    if op in ("iff", "xor"):
        return [op, *sorted((canonical(f[1]), canonical(f[2])), key=repr)]
    return [op, canonical(f[1]), canonical(f[2])]


SYMBOLS = {"and": "∧", "or": "∨", "implies": "→", "iff": "↔", "xor": "⊕"}


def render_symbolic(f: Formula, names: Sequence[str]) -> str:
    """Text with ¬ ∧ ∨ → ↔ ⊕; every compound argument is parenthesised (no precedence needed)."""
    op = f[0]
    if op == "var":
        return names[f[1]]
    if op == "not":
        return "¬" + _wrapped(f[1], names)
    if op in ("and", "or"):
        return f" {SYMBOLS[op]} ".join(_wrapped(g, names) for g in f[1])
    if op == "exactly":
        return f"exactly {f[1]} of {{" + ", ".join(render_symbolic(g, names) for g in f[2]) + "}"
    return f"{_wrapped(f[1], names)} {SYMBOLS[op]} {_wrapped(f[2], names)}"


def _wrapped(f: Formula, names: Sequence[str]) -> str:
    text = render_symbolic(f, names)
    return text if f[0] in ("var", "not") else f"({text})"


def random_formula(
    rng: np.random.Generator, n: int, depth: int, connectives: Sequence[str], *, leaf_p: float = 0.35
) -> Formula:
    """A random formula over variables 0..n-1 of depth at most ``depth`` (top is a connective)."""
    return _random(rng, n, depth, list(connectives), leaf_p, top=True)


def _random(
    rng: np.random.Generator, n: int, depth: int, ops: list[str], leaf_p: float, top: bool
) -> Formula:
    if depth == 0 or (not top and rng.random() < leaf_p):
        lit = var(int(rng.integers(n)))
        return neg(lit) if "not" in ops and rng.random() < 0.3 else lit
    op = ops[int(rng.integers(len(ops)))]
    if op == "not":
        child = _random(rng, n, depth - 1, ops, leaf_p, top=False)
        return child[1] if child[0] == "not" else neg(child)
    arity = 2 + int(op in ("and", "or") and rng.random() < 0.25)
    args: list[Formula] = []
    for _ in range(3 * arity):  # distinct arguments only ("q ∨ q" reads like a typo)
        arg = _random(rng, n, depth - 1, ops, leaf_p, top=False)
        if all(canonical(arg) != canonical(a) for a in args):
            args.append(arg)
        if len(args) == arity:
            break
    if len(args) < 2:
        return args[0]
    if op in ("and", "or"):
        return flatten(op, args)
    return [op, args[0], args[1]]


def flatten(op: str, args: list[Formula]) -> Formula:
    """``op`` over ``args`` with nested same-``op`` arguments merged and duplicates dropped."""
    flat: list[Formula] = []
    keys: set[str] = set()
    for g in (g for a in args for g in (a[1] if a[0] == op else [a])):
        key = repr(canonical(g))
        if key not in keys:
            keys.add(key)
            flat.append(g)
    return flat[0] if len(flat) == 1 else [op, flat]


def informative(f: Formula, table: np.ndarray) -> np.ndarray | None:
    """The truth table of ``f``, or ``None`` if ``f`` or any compound part of it is constant
    (a hidden tautology such as "p ∨ ¬p" inside a statement reads like a trick)."""
    op = f[0]
    if op == "var" or (op == "not" and f[1][0] == "var"):
        return truth_table(f, table)
    for child in children(f):
        if informative(child, table) is None:
            return None
    values = truth_table(f, table)
    return None if values.all() or not values.any() else values


def children(f: Formula) -> list[Formula]:
    op = f[0]
    if op == "var":
        return []
    if op == "not":
        return [f[1]]
    if op in ("and", "or"):
        return list(f[1])
    if op == "exactly":
        return list(f[2])
    return [f[1], f[2]]


def used_variables(f: Formula) -> set[int]:
    op = f[0]
    if op == "var":
        return {f[1]}
    if op == "not":
        return used_variables(f[1])
    if op in ("and", "or"):
        return set().union(*(used_variables(g) for g in f[1]))
    if op == "exactly":
        return set().union(*(used_variables(g) for g in f[2]))
    return used_variables(f[1]) | used_variables(f[2])


def search_models(constraints: Sequence[Formula], n: int, limit: int = 1) -> tuple[list[list[bool]], int]:
    """Up to ``limit`` models by depth-first search with three-valued pruning, and nodes visited."""
    values: list[bool | None] = [None] * n
    models: list[list[bool]] = []
    nodes = 0

    def search(i: int) -> None:
        nonlocal nodes
        nodes += 1
        if any(kleene(c, values) is False for c in constraints):
            return
        if i == n:
            models.append([bool(v) for v in values])
            return
        for choice in (True, False):
            if len(models) >= limit:
                break
            values[i] = choice
            search(i + 1)
        values[i] = None

    search(0)
    return models, nodes


def structure_hash(roots: Sequence[tuple[str, Formula]], n: int, anchors: Sequence[int] = ()) -> str:
    """A hash of formulas that ignores how the variables are named (and argument order).

    The formulas become one labelled graph (variables as unlabelled nodes, connectives as
    labelled nodes, each root tied to its label and, for ``anchors[i]``, to variable i's node);
    its Weisfeiler-Lehman hash is invariant under renaming variables, so two tasks that differ
    only by a relabelling hash alike (distinct structures may rarely collide, never the reverse).
    """
    import networkx as nx  # only needed for hashing

    graph = nx.Graph()
    for i in range(n):
        graph.add_node(("v", i), label="var")
    counter = [0]

    def add(f: Formula) -> tuple[str, int]:
        counter[0] += 1
        node = ("f", counter[0])
        op = f[0]
        if op == "var":
            return ("v", f[1])  # type: ignore[return-value]
        label = f"exactly{f[1]}" if op == "exactly" else op
        graph.add_node(node, label=label)
        kids = children(f)
        if op == "implies":  # the one ordered connective: mark its sides
            for side, child in zip(("if", "then"), kids, strict=True):
                mid = ("s", counter[0], side)
                graph.add_node(mid, label=side)
                graph.add_edge(node, mid)
                graph.add_edge(mid, add(child))
        else:
            for child in kids:
                graph.add_edge(node, add(child))
        return node  # type: ignore[return-value]

    for i, (label, f) in enumerate(roots):
        root = ("r", i)
        graph.add_node(root, label=label)
        graph.add_edge(root, add(f))
        if i < len(anchors):
            graph.add_edge(root, ("v", anchors[i]))
    return nx.weisfeiler_lehman_graph_hash(graph, node_attr="label", iterations=5, digest_size=8)
