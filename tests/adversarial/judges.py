"""Independent judges and solvers for the families that accept any valid answer.

A *judge* ``(task, answer_text) -> bool | None`` says whether an answer (the text inside the
tags) is valid, from the task's metadata alone, with code written here: networkx, z3, sympy,
brute force and small simulators, never the family's own verifier, parser or solver. ``None``
means it cannot tell (the suite then makes no claim). Judges read the answer formats that the
families print (the reference answer's format); text they cannot read is not a valid answer.

An *others* function ``task -> list[str]`` builds other valid answers with our own solvers
(another shortest path, another colouring, another model, ...), so the suite can check that a
family pays every valid answer, not only the one it stored.

The attack texts judged here are built by the tests from reference answers, never model output,
so parsing them with ``ast``/``sympy`` in the test process is safe.
"""

from __future__ import annotations

import ast
import itertools
import math
import random
import re
from collections import Counter, deque
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

import networkx as nx
import z3

from palaestra.core import Task

Judge = Callable[[Task, str], "bool | None"]
Others = Callable[[Task], list[str]]

JUDGES: dict[str, Judge] = {}
OTHERS: dict[str, Others] = {}


def judge(name: str) -> Callable[[Judge], Judge]:
    def register(fn: Judge) -> Judge:
        JUDGES[name] = fn
        return fn

    return register


def others(name: str) -> Callable[[Others], Others]:
    def register(fn: Others) -> Others:
        OTHERS[name] = fn
        return fn

    return register


def is_valid(task: Task, text: str) -> bool | None:
    """The family's judge on ``text``, or ``None`` when the family has none or it cannot tell."""
    fn = JUDGES.get(task.family)
    if fn is None:
        return None
    try:
        return fn(task, text)
    except Exception:  # noqa: BLE001 - our readers raise on anything that is not an answer's shape
        return False


def other_answers(task: Task, reference: str) -> list[str]:
    """Other valid answers from our own solvers, none equal to ``reference`` (after spacing)."""
    fn = OTHERS.get(task.family)
    if fn is None:
        return []
    seen = {_squash(reference)}
    out = []
    for answer in fn(task):
        if _squash(answer) not in seen:
            seen.add(_squash(answer))
            out.append(answer)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


# --------------------------------------------------------------------------------------------
# Small readers for the answer formats the families print
# --------------------------------------------------------------------------------------------

_INT = r"[+-]?\d+"


def _assignment(text: str, names: list[str], values: str = "bool") -> dict[str, Any]:
    """``x1=true, x2=false`` (or ``x1 = 3``) with every name exactly once; ValueError otherwise."""
    out: dict[str, Any] = {}
    for part in re.split(r"\s*,\s*", text.strip()):
        match = re.fullmatch(r"\s*([A-Za-z]\w*)\s*=\s*(\S+)\s*", part)
        if not match:
            raise ValueError(part)
        name, raw = match.groups()
        if name in out or name not in names:
            raise ValueError(name)
        if values == "bool":
            if raw.lower() not in ("true", "false"):
                raise ValueError(raw)
            out[name] = raw.lower() == "true"
        else:
            if not re.fullmatch(_INT, raw):
                raise ValueError(raw)
            out[name] = int(raw)
    if set(out) != set(names):
        raise ValueError("not every variable")
    return out


def _arrow_path(text: str, sep: str = "->") -> list[str]:
    items = [t.strip() for t in text.split(sep)]
    if any(not t for t in items):
        raise ValueError(text)
    return items


# --------------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------------


def _weighted_graph(task: Task) -> nx.Graph:
    meta = task.metadata
    graph = nx.DiGraph() if meta["directed"] else nx.Graph()
    graph.add_nodes_from(range(meta["nodes"]))
    for u, v, w in meta["edges"]:
        if not graph.has_edge(u, v) or graph[u][v]["weight"] > w:
            graph.add_edge(u, v, weight=w)
    return graph


@judge("shortest_path")
def _shortest_path(task: Task, text: str) -> bool:
    meta = task.metadata
    path = [int(t) for t in _arrow_path(text)]
    graph = _weighted_graph(task)
    if path[0] != meta["source"] or path[-1] != meta["target"]:
        return False
    if any(not graph.has_edge(u, v) for u, v in itertools.pairwise(path)):
        return False
    cost = sum(graph[u][v]["weight"] for u, v in itertools.pairwise(path))
    return cost == nx.shortest_path_length(graph, meta["source"], meta["target"], weight="weight")


@others("shortest_path")
def _other_paths(task: Task) -> list[str]:
    meta = task.metadata
    paths = nx.all_shortest_paths(_weighted_graph(task), meta["source"], meta["target"], weight="weight")
    return [" -> ".join(map(str, p)) for p in itertools.islice(paths, 4)]


def _colouring(text: str) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in re.split(r"\s*,\s*", text.strip()):
        node, colour = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*", part).groups()
        if out.get(int(node), int(colour)) != int(colour):
            raise ValueError(f"node {node} given two colours")
        out[int(node)] = int(colour)
    return out


@judge("graph_coloring")
def _graph_coloring(task: Task, text: str) -> bool:
    meta = task.metadata
    colours = _colouring(text)
    if set(colours) != set(range(meta["nodes"])):
        return False
    if any(not 1 <= c <= meta["colours"] for c in colours.values()):
        return False
    return all(colours[u] != colours[v] for u, v in meta["edges"])


@others("graph_coloring")
def _other_colourings(task: Task) -> list[str]:
    """Our own backtracking colourer, in two node orders."""
    meta = task.metadata
    neighbours: dict[int, set[int]] = {n: set() for n in range(meta["nodes"])}
    for u, v in meta["edges"]:
        neighbours[u].add(v)
        neighbours[v].add(u)

    def colour(order: list[int], palette: list[int]) -> dict[int, int] | None:
        assigned: dict[int, int] = {}
        budget = [20_000]  # backtracking steps; a harder graph simply yields no other answer

        def place(i: int) -> bool:
            if i == len(order):
                return True
            budget[0] -= 1
            if budget[0] < 0:
                return False
            node = order[i]
            for c in palette:
                if all(assigned.get(m) != c for m in neighbours[node]):
                    assigned[node] = c
                    if place(i + 1):
                        return True
                    del assigned[node]
            return False

        return assigned if place(0) else None

    palette = list(range(1, meta["colours"] + 1))
    out = []
    for order, colours in ((list(range(meta["nodes"])), palette[::-1]), (sorted(neighbours)[::-1], palette)):
        found = colour(order, colours)
        if found is not None:
            out.append(", ".join(f"{n}:{found[n]}" for n in sorted(found)))
    return out


@judge("topological_order")
def _topological_order(task: Task, text: str) -> bool:
    meta = task.metadata
    order = _arrow_path(text)
    if sorted(order) != sorted(meta["names"]) or len(set(order)) != len(order):
        return False
    position = {name: i for i, name in enumerate(order)}
    return all(position[a] < position[b] for a, b in meta["edges"])


@others("topological_order")
def _other_orders(task: Task) -> list[str]:
    graph = nx.DiGraph()
    graph.add_nodes_from(task.metadata["names"])
    graph.add_edges_from(task.metadata["edges"])
    orders = [
        nx.lexicographical_topological_sort(graph),
        nx.lexicographical_topological_sort(graph, key=_neg),
    ]
    return [" -> ".join(o) for o in orders]


def _neg(name: str) -> list[int]:
    return [-ord(ch) for ch in name]


def _flow_graph(task: Task) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    for u, v, cap in task.metadata["edges"]:
        previous = graph[u][v]["capacity"] if graph.has_edge(u, v) else 0
        graph.add_edge(u, v, capacity=previous + cap)
    return graph


def _cut_capacity(graph: nx.DiGraph, side: set[int]) -> int:
    return sum(d["capacity"] for u, v, d in graph.edges(data=True) if u in side and v not in side)


@judge("max_flow")
def _max_flow(task: Task, text: str) -> bool:
    fields: dict[str, str] = {}
    for part in re.split(r"\s*;\s*", text.strip()):
        key, value = re.fullmatch(r"(flow|cut)\s*:\s*(.+)", part).groups()
        if fields.get(key, value) != value:
            return False  # the same field twice with different values
        fields[key] = value
    if set(fields) != {"flow", "cut"} or not re.fullmatch(r"-?\d+", fields["flow"]):
        return False
    flow = int(fields["flow"])
    cut = [int(t) for t in re.split(r"\s*,\s*", fields["cut"])]
    side = set(cut)
    graph, sink = _flow_graph(task), task.metadata["sink"]
    if len(side) != len(cut) or 0 not in side or sink in side or not side <= set(graph.nodes):
        return False
    value = nx.maximum_flow_value(graph, 0, sink)
    return flow == value and _cut_capacity(graph, side) == value


@others("max_flow")
def _other_cuts(task: Task) -> list[str]:
    """The smallest and the largest minimum cut (source side), from the residual graph."""
    graph, sink = _flow_graph(task), task.metadata["sink"]
    value, _ = nx.minimum_cut(graph, 0, sink)
    residual = nx.algorithms.flow.edmonds_karp(graph, 0, sink)
    live = nx.DiGraph((u, v) for u, v, d in residual.edges(data=True) if d["capacity"] - d["flow"] > 0)
    live.add_nodes_from(graph.nodes)
    smallest = nx.descendants(live, 0) | {0}
    largest = set(graph.nodes) - (nx.ancestors(live, sink) | {sink})
    return [f"flow: {value}; cut: {', '.join(map(str, sorted(s)))}" for s in (smallest, largest)]


# --------------------------------------------------------------------------------------------
# Propositional logic and SMT
# --------------------------------------------------------------------------------------------


def _sat_values(task: Task, text: str) -> dict[int, bool]:
    names = [f"x{i}" for i in range(1, task.metadata["variables"] + 1)]
    return {int(k[1:]): v for k, v in _assignment(text, names).items()}


def _clause_true(clause: list[int], values: dict[int, bool]) -> bool:
    return any(values[abs(lit)] == (lit > 0) for lit in clause)


@judge("sat_model")
def _sat_model(task: Task, text: str) -> bool:
    values = _sat_values(task, text)
    return all(_clause_true(c, values) for c in task.metadata["clauses"])


def _z3_models(clauses: list[list[int]], variables: int, limit: int) -> list[dict[int, bool]]:
    ctx = z3.Context()
    xs = [z3.Bool(f"x{i}", ctx) for i in range(variables + 1)]
    solver = z3.Solver(ctx=ctx)
    for clause in clauses:
        solver.add(z3.Or([xs[abs(lit)] if lit > 0 else z3.Not(xs[abs(lit)]) for lit in clause]))
    models = []
    while len(models) < limit and solver.check() == z3.sat:
        model = solver.model()
        values = {i: z3.is_true(model.eval(xs[i], model_completion=True)) for i in range(1, variables + 1)}
        models.append(values)
        solver.add(z3.Or([xs[i] != values[i] for i in values]))
    return models


def _render_bools(values: dict[int, bool]) -> str:
    return ", ".join(f"x{i}={'true' if values[i] else 'false'}" for i in sorted(values))


@others("sat_model")
def _other_models(task: Task) -> list[str]:
    return [_render_bools(m) for m in _z3_models(task.metadata["clauses"], task.metadata["variables"], 3)]


def _soft_weight(task: Task, values: dict[int, bool]) -> int:
    return sum(w for clause, w in task.metadata["soft"] if _clause_true(clause, values))


@lru_cache(maxsize=256)
def _maxsat_optima(task_json: str) -> tuple[int, tuple[str, ...]]:
    task = Task.from_json(task_json)
    n = task.metadata["variables"]
    best, answers = -1, []
    for bits in itertools.product((False, True), repeat=n):
        values = dict(enumerate(bits, start=1))
        if not all(_clause_true(c, values) for c in task.metadata["hard"]):
            continue
        weight = _soft_weight(task, values)
        if weight > best:
            best, answers = weight, []
        if weight == best and len(answers) < 4:
            answers.append(_render_bools(values))
    return best, tuple(answers)


@lru_cache(maxsize=256)
def _maxsat_optimum_z3(task_json: str) -> int:
    meta = Task.from_json(task_json).metadata
    ctx = z3.Context()
    xs = [z3.Bool(f"x{i}", ctx) for i in range(meta["variables"] + 1)]

    def clause(lits: list[int]) -> z3.BoolRef:
        return z3.Or([xs[abs(lit)] if lit > 0 else z3.Not(xs[abs(lit)]) for lit in lits])

    opt = z3.Optimize(ctx=ctx)
    for hard in meta["hard"]:
        opt.add(clause(hard))
    total = z3.Sum([z3.If(clause(c), z3.IntVal(w, ctx), z3.IntVal(0, ctx)) for c, w in meta["soft"]])
    best = opt.maximize(total)
    if opt.check() != z3.sat:
        raise ValueError("no model")
    return best.value().as_long()


@judge("maxsat")
def _maxsat(task: Task, text: str) -> bool | None:
    values = _sat_values(task, text)
    if not all(_clause_true(c, values) for c in task.metadata["hard"]):
        return False
    if task.metadata["variables"] > 16:
        return _soft_weight(task, values) == _maxsat_optimum_z3(task.to_json())
    return _soft_weight(task, values) == _maxsat_optima(task.to_json())[0]


@others("maxsat")
def _other_optima(task: Task) -> list[str]:
    return list(_maxsat_optima(task.to_json())[1]) if task.metadata["variables"] <= 16 else []


def _smt_holds(constraint: dict[str, Any], values: list[int], width: int) -> bool:
    if constraint["kind"] == "lin":
        left = sum(c * values[i] for i, c in constraint["terms"])
    else:
        a, b, mask = values[constraint["a"]], values[constraint["b"]], (1 << width) - 1
        left = {
            "+": lambda: (a + b) & mask,
            "-": lambda: (a - b) & mask,
            "*": lambda: (a * b) & mask,
            "&": lambda: a & b,
            "|": lambda: a | b,
            "^": lambda: a ^ b,
            "<<": lambda: (a << b) & mask if b < width else 0,
        }[constraint["op"]]()
    rel = constraint["rel"].rstrip("u")
    return {"=": left == constraint["rhs"], "≠": left != constraint["rhs"]}.get(
        rel, left <= constraint["rhs"] if rel == "≤" else left >= constraint["rhs"]
    )


def _smt_values(task: Task, text: str) -> list[int] | None:
    meta = task.metadata
    names = [f"x{i}" for i in range(1, meta["variables"] + 1)]
    values = _assignment(text, names, values="int")
    ordered = [values[n] for n in names]
    low, high = (-meta["bound"], meta["bound"]) if meta["theory"] == "lia" else (0, (1 << meta["width"]) - 1)
    return ordered if all(low <= v <= high for v in ordered) else None


@judge("smt_model")
def _smt_model(task: Task, text: str) -> bool:
    values = _smt_values(task, text)
    meta = task.metadata
    return values is not None and all(_smt_holds(c, values, meta["width"]) for c in meta["constraints"])


@others("smt_model")
def _other_smt_models(task: Task) -> list[str]:
    meta = task.metadata
    ctx = z3.Context()
    n, width = meta["variables"], meta["width"]
    solver = z3.Solver(ctx=ctx)
    if meta["theory"] == "lia":
        xs = [z3.Int(f"x{i}", ctx) for i in range(n)]
        for x in xs:
            solver.add(x >= -meta["bound"], x <= meta["bound"])
    else:
        xs = [z3.BitVec(f"x{i}", width, ctx) for i in range(n)]
    for c in meta["constraints"]:
        if c["kind"] == "lin":
            left = z3.Sum([coef * xs[i] for i, coef in c["terms"]])
        else:
            a, b = xs[c["a"]], xs[c["b"]]
            left = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b, "<<": a << b}[
                c["op"]
            ]
        rhs = c["rhs"]
        rel = c["rel"]
        if rel == "=":
            solver.add(left == rhs)
        elif rel == "≠":
            solver.add(left != rhs)
        elif rel == "≤":
            solver.add(left <= rhs)
        elif rel == "≥":
            solver.add(left >= rhs)
        elif rel == "≤u":
            solver.add(z3.ULE(left, z3.BitVecVal(rhs, width, ctx)))
        else:
            solver.add(z3.UGE(left, z3.BitVecVal(rhs, width, ctx)))
    out = []
    while len(out) < 3 and solver.check() == z3.sat:
        model = solver.model()
        values = [model.eval(x, model_completion=True).as_long() for x in xs]
        out.append(", ".join(f"x{i + 1} = {v}" for i, v in enumerate(values)))
        solver.add(z3.Or([x != v for x, v in zip(xs, values, strict=True)]))
    return out


def _clause_numbers(text: str) -> list[int]:
    parts = re.split(r"\s*,\s*", text.strip())
    if any(not re.fullmatch(r"\d+", p) for p in parts):
        raise ValueError(text)
    return [int(p) for p in parts]


def _unsat(clauses: list[list[int]]) -> bool:
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    xs: dict[int, z3.BoolRef] = {}
    for clause in clauses:
        lits = []
        for lit in clause:
            x = xs.setdefault(abs(lit), z3.Bool(f"x{abs(lit)}", ctx))
            lits.append(x if lit > 0 else z3.Not(x))
        solver.add(z3.Or(lits))
    return solver.check() == z3.unsat


@judge("unsat_core")
def _unsat_core(task: Task, text: str) -> bool:
    clauses = task.metadata["clauses"]
    chosen = _clause_numbers(text)
    if len(set(chosen)) != len(chosen) or not all(1 <= i <= len(clauses) for i in chosen):
        return False
    core = [clauses[i - 1] for i in chosen]
    return _unsat(core) and all(not _unsat(core[:k] + core[k + 1 :]) for k in range(len(core)))


@others("unsat_core")
def _other_cores(task: Task) -> list[str]:
    """Deletion-based minimisation of the whole set, in two clause orders."""
    clauses = task.metadata["clauses"]
    out = []
    for order in (list(range(1, len(clauses) + 1)), list(range(len(clauses), 0, -1))):
        core = list(order)
        for i in order:
            trial = [k for k in core if k != i]
            if _unsat([clauses[k - 1] for k in trial]):
                core = trial
        out.append(", ".join(map(str, sorted(core))))
    return out


def _formula_value(node: list[Any], values: dict[int, bool]) -> bool:
    op = node[0]
    if op == "var":
        return values[node[1]]
    if op == "not":
        return not _formula_value(node[1], values)
    if op in ("and", "or", "xor"):
        parts = node[1] if len(node) == 2 else node[1:]
        results = [_formula_value(p, values) for p in parts]
        return all(results) if op == "and" else any(results) if op == "or" else sum(results) % 2 == 1
    a, b = _formula_value(node[1], values), _formula_value(node[2], values)
    if op == "implies":
        return (not a) or b
    if op == "iff":
        return a == b
    raise ValueError(op)


def _countermodels(task: Task) -> list[dict[int, bool]]:
    meta = task.metadata
    out = []
    for bits in itertools.product((True, False), repeat=len(meta["variables"])):
        values = dict(enumerate(bits))
        if all(_formula_value(p, values) for p in meta["premises"]) and not _formula_value(
            meta["conclusion"], values
        ):
            out.append(values)
    return out


@judge("propositional_entailment")
def _entailment(task: Task, text: str) -> bool | None:
    names = task.metadata["variables"]
    head, _, rest = text.strip().partition(":")
    if head.strip().lower() == "no":
        values = _assignment(rest, names)
        model = {i: values[name] for i, name in enumerate(names)}
        return model in _countermodels(task)
    if text.strip().lower().startswith("yes"):
        # a bare "yes" is wrong when a countermodel exists; whether it is enough when the
        # entailment holds depends on the certificate the family asks for
        return False if _countermodels(task) else None
    return False


@others("propositional_entailment")
def _other_countermodels(task: Task) -> list[str]:
    names = task.metadata["variables"]
    return [
        "no: " + ", ".join(f"{n}={'true' if m[i] else 'false'}" for i, n in enumerate(names))
        for m in _countermodels(task)[:4]
    ]


def _syllogism_holds(form: str, x: int, y: int, individuals: list[set[int]]) -> bool:
    if form == "A":
        return all(y in ind for ind in individuals if x in ind)
    if form == "E":
        return not any(x in ind and y in ind for ind in individuals)
    if form == "I":
        return any(x in ind and y in ind for ind in individuals)
    if form == "O":
        return any(x in ind and y not in ind for ind in individuals)
    raise ValueError(form)


@judge("syllogisms")
def _syllogisms(task: Task, text: str) -> bool | None:
    meta = task.metadata
    head, _, rest = text.strip().partition(":")
    if head.strip().lower() == "invalid":
        terms = {t: i for i, t in enumerate(meta["terms"])}
        individuals = []
        for group in re.findall(r"\[([^\[\]]*)\]", rest):
            names = [t.strip() for t in group.split(",") if t.strip()]
            if any(n not in terms for n in names):
                return False
            individuals.append({terms[n] for n in names})
        if not re.fullmatch(r"\s*(\[[^\[\]]*\]\s*,?\s*)*", rest):
            return False
        premises = all(_syllogism_holds(f, x, y, individuals) for f, x, y in meta["premises"])
        return premises and not _syllogism_holds(*meta["conclusion"], individuals)
    if head.strip().lower() == "valid":
        return False if not meta["valid"] else None
    return False


@others("syllogisms")
def _other_syllogism_models(task: Task) -> list[str]:
    """The reference countermodel with one more individual that belongs to no term (still one)."""
    answer = str(task.answer)
    if not answer.lower().startswith("invalid"):
        return []
    return [answer + ", []", answer.replace("invalid:", "invalid: [],", 1)]


# --------------------------------------------------------------------------------------------
# Integer formulas (hoare_triple, loop_invariant, ranking_function): our own parser into z3
# --------------------------------------------------------------------------------------------

_FORMULA_TOKEN = re.compile(r"\s*(\d+|[A-Za-z_]\w*|==|!=|<=|>=|=>|&&|\|\||[-+*()<>!∧∨¬→]|\S)")


class _FormulaParser:
    """Precedence climbing: => (right) < or < and < not < comparison < + - < * < unary minus."""

    def __init__(self, text: str, variables: dict[str, z3.ArithRef]) -> None:
        self.tokens = _FORMULA_TOKEN.findall(text)
        self.pos = 0
        self.variables = variables

    def parse(self) -> z3.ExprRef:
        node = self.implication()
        if self.pos != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.pos]!r}")
        return node

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, *options: str) -> str | None:
        if self.peek() in options:
            self.pos += 1
            return self.tokens[self.pos - 1]
        return None

    def implication(self) -> z3.ExprRef:
        left = self.disjunction()
        if self.take("=>", "→"):
            return z3.Implies(_as_bool(left), _as_bool(self.implication()))
        return left

    def disjunction(self) -> z3.ExprRef:
        parts = [self.conjunction()]
        while self.take("||", "or", "∨"):
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else z3.Or([_as_bool(p) for p in parts])

    def conjunction(self) -> z3.ExprRef:
        parts = [self.negation()]
        while self.take("&&", "and", "∧"):
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else z3.And([_as_bool(p) for p in parts])

    def negation(self) -> z3.ExprRef:
        if self.take("!", "not", "¬"):
            return z3.Not(_as_bool(self.negation()))
        return self.comparison()

    def comparison(self) -> z3.ExprRef:
        left = self.sum()
        op = self.take("==", "!=", "<=", ">=", "<", ">")
        if op is None:
            return left
        right = self.sum()
        return {
            "==": lambda: left == right,
            "!=": lambda: left != right,
            "<=": lambda: left <= right,
            ">=": lambda: left >= right,
            "<": lambda: left < right,
            ">": lambda: left > right,
        }[op]()

    def sum(self) -> z3.ExprRef:
        node = self.product()
        while (op := self.take("+", "-")) is not None:
            right = self.product()
            node = node + right if op == "+" else node - right
        return node

    def product(self) -> z3.ExprRef:
        node = self.unary()
        while self.take("*"):
            node = node * self.unary()
        return node

    def unary(self) -> z3.ExprRef:
        if self.take("-"):
            return -self.unary()
        if self.take("+"):
            return self.unary()
        return self.atom()

    def atom(self) -> z3.ExprRef:
        token = self.peek()
        if token is None:
            raise ValueError("unexpected end")
        self.pos += 1
        if token == "(":
            node = self.implication()
            if not self.take(")"):
                raise ValueError("missing )")
            return node
        if token.isdigit():
            return z3.IntVal(int(token), self._ctx())
        if token in ("true", "false"):
            return z3.BoolVal(token == "true", self._ctx())
        if token in self.variables:
            return self.variables[token]
        raise ValueError(f"unknown token {token!r}")

    def _ctx(self) -> z3.Context:
        return next(iter(self.variables.values())).ctx


def _as_bool(node: z3.ExprRef) -> z3.BoolRef:
    if not z3.is_bool(node):
        raise ValueError("an integer where a condition is needed")
    return node


def _int_vars(names: list[str]) -> dict[str, z3.ArithRef]:
    ctx = z3.Context()
    return {n: z3.Int(n, ctx) for n in names}


def _proved(claim: z3.BoolRef) -> bool | None:
    solver = z3.Solver(ctx=claim.ctx)
    solver.set("timeout", 5000)
    solver.add(z3.Not(claim))
    result = solver.check()
    return None if result == z3.unknown else result == z3.unsat


def _formula(text: str, variables: dict[str, z3.ArithRef], want_bool: bool) -> z3.ExprRef:
    node = _FormulaParser(text, variables).parse()
    if z3.is_bool(node) != want_bool:
        raise ValueError("wrong sort")
    return node


@judge("hoare_triple")
def _hoare_triple(task: Task, text: str) -> bool | None:
    variables = _int_vars(sorted(set(re.findall(r"[a-z]\w*", str(task.answer))) | {"x", "y", "z"}))
    reference = _formula(str(task.answer), variables, want_bool=True)
    candidate = _formula(text, variables, want_bool=True)
    return _proved(reference == candidate)


def _loop_vars(task: Task) -> tuple[dict[str, z3.ArithRef], list[str], list[str]]:
    k = task.metadata["accumulators"]
    ys = [f"y{i + 1}" for i in range(k)]
    ss = [f"s{i + 1}" for i in range(k) if task.metadata["indirect"][i]]
    return _int_vars(["x", "n", *ys, *ss]), ys, ss


@judge("loop_invariant")
def _loop_invariant(task: Task, text: str) -> bool | None:
    meta = task.metadata
    v, ys, _ = _loop_vars(task)
    inv = _formula(text, v, want_bool=True)
    indirect, init, steps = meta["indirect"], meta["init"], meta["steps"]
    step_of = [v[f"s{i + 1}"] if indirect[i] else steps[i] for i in range(len(ys))]
    start = [(v["x"], z3.IntVal(0, v["x"].ctx))] + [
        (v[y], z3.IntVal(init[i], v["x"].ctx)) for i, y in enumerate(ys)
    ]
    start += [(v[f"s{i + 1}"], z3.IntVal(steps[i], v["x"].ctx)) for i in range(len(ys)) if indirect[i]]
    after = [(v["x"], v["x"] + 1)] + [(v[y], v[y] + step_of[i]) for i, y in enumerate(ys)]
    if meta["weights"] is None:
        post = z3.And([v[y] == init[i] + steps[i] * v["n"] for i, y in enumerate(ys)])
    else:
        w = meta["weights"]
        total = sum(w[i] * init[i] for i in range(len(ys)))
        rate = sum(w[i] * steps[i] for i in range(len(ys)))
        post = z3.Sum([w[i] * v[y] for i, y in enumerate(ys)]) == total + rate * v["n"]
    conditions = [
        z3.Implies(v["n"] >= 0, z3.substitute(inv, *start)),
        z3.Implies(z3.And(inv, v["x"] < v["n"]), z3.substitute(inv, *after)),
        z3.Implies(z3.And(inv, v["x"] >= v["n"]), post),
    ]
    results = [_proved(c) for c in conditions]
    if False in results:
        return False
    return None if None in results else True


@others("loop_invariant")
def _stronger_invariant(task: Task) -> list[str]:
    """The reference conjoined with n >= 0 (true initially, never changed): still inductive."""
    candidate = f"({task.answer}) && n >= 0"
    return [candidate] if _loop_invariant(task, candidate) else []


@judge("ranking_function")
def _ranking_function(task: Task, text: str) -> bool | None:
    meta = task.metadata
    names = [f"v{i + 1}" for i in range(meta["variables"])]
    v = _int_vars(names)
    rank = _formula(text, v, want_bool=False)
    guard = z3.And(
        [
            z3.Sum([c * v[n] for c, n in zip(g, names, strict=True)]) < b
            for g, b in zip(meta["guards"], meta["bounds"], strict=True)
        ]
    )
    after = z3.substitute(rank, *[(v[n], v[n] + d) for n, d in zip(names, meta["deltas"], strict=True)])
    results = [_proved(z3.Implies(guard, rank >= 0)), _proved(z3.Implies(guard, after <= rank - 1))]
    if False in results:
        return False
    return None if None in results else True


# --------------------------------------------------------------------------------------------
# Arithmetic families
# --------------------------------------------------------------------------------------------


def _eval_countdown(text: str, numbers: list[int]) -> Fraction | None:
    """Value of an expression over the numbers with every intermediate a positive integer."""
    tree = ast.parse(text.replace("×", "*").replace("÷", "/"), mode="eval").body
    used: list[int] = []

    def value(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            used.append(node.value)
            return Fraction(node.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            a, b = value(node.left), value(node.right)
            result = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op))
            if result is None:
                result = a / b
            if result.denominator != 1 or result <= 0:
                raise ValueError("not a positive integer")
            return result
        raise ValueError("not allowed")

    result = value(tree)
    return result if not Counter(used) - Counter(numbers) else None


@lru_cache(maxsize=256)
def _countdown_best(numbers: tuple[int, ...], target: int) -> tuple[int, tuple[str, ...]]:
    """Our own exhaustive search: best distance and a few expressions reaching it."""
    exprs: dict[int, dict[int, str]] = {}
    n = len(numbers)
    for i, x in enumerate(numbers):
        exprs.setdefault(1 << i, {})[x] = str(x)
    for mask in range(1, 1 << n):
        if mask & (mask - 1) == 0:
            continue
        table = exprs.setdefault(mask, {})
        sub = (mask - 1) & mask
        while sub:
            rest = mask ^ sub
            if sub < rest:
                for a, ea in exprs.get(sub, {}).items():
                    for b, eb in exprs.get(rest, {}).items():
                        for v, e in _combine(a, ea, b, eb):
                            table.setdefault(v, e)
            sub = (sub - 1) & mask
    best, found = None, []
    for table in exprs.values():
        for v, e in table.items():
            d = abs(v - target)
            if best is None or d < best:
                best, found = d, []
            if d == best and len(found) < 6:
                found.append(e)
    return best, tuple(found)


def _combine(a: int, ea: str, b: int, eb: str) -> list[tuple[int, str]]:
    out = [(a + b, f"({ea} + {eb})"), (a * b, f"({ea} * {eb})")]
    if a > b:
        out.append((a - b, f"({ea} - {eb})"))
    if b > a:
        out.append((b - a, f"({eb} - {ea})"))
    if b and a % b == 0:
        out.append((a // b, f"({ea} / {eb})"))
    if a and b % a == 0:
        out.append((b // a, f"({eb} / {ea})"))
    return out


@judge("countdown")
def _countdown(task: Task, text: str) -> bool | None:
    meta = task.metadata
    if len(meta["numbers"]) > 7:
        return None
    value = _eval_countdown(text, meta["numbers"])
    if value is None:
        return False
    best, _ = _countdown_best(tuple(meta["numbers"]), meta["target"])
    return abs(value - meta["target"]) == best


@others("countdown")
def _other_expressions(task: Task) -> list[str]:
    meta = task.metadata
    if len(meta["numbers"]) > 7:
        return []
    return list(_countdown_best(tuple(meta["numbers"]), meta["target"])[1])


def _linear_in_t(text: str) -> tuple[int, int]:
    """``4 + 9t`` -> (4, 9): constant and coefficient of t (our own reader)."""
    compact = text.replace(" ", "").replace("*", "").replace("·", "")
    if not compact or not re.fullmatch(r"[+-]?(\d*t?)([+-]\d*t?)*", compact):
        raise ValueError(text)
    constant = coefficient = 0
    for sign, digits, t in re.findall(r"([+-]?)(\d*)(t?)", compact):
        if not digits and not t:
            continue
        value = int(digits) if digits else 1
        value = -value if sign == "-" else value
        if t:
            coefficient += value
        else:
            constant += value
    return constant, coefficient


@judge("linear_diophantine")
def _linear_diophantine(task: Task, text: str) -> bool | None:
    meta = task.metadata
    a, b, c = meta["a"], meta["b"], meta["c"]
    if text.strip().lower() == "no solution":
        return not meta["solvable"]
    match = re.fullmatch(r"\s*x\s*=\s*(.+?)\s*,\s*y\s*=\s*(.+?)\s*", text)
    if not match:
        return False
    x0, dx = _linear_in_t(match.group(1))
    y0, dy = _linear_in_t(match.group(2))
    if a * x0 + b * y0 != c:
        return False
    if meta["mode"] == "general":
        g = math.gcd(a, b)
        return a * dx + b * dy == 0 and abs(dx) == abs(b) // g and dx != 0
    if dx or dy:
        return False
    if meta["mode"] == "positive":  # the positive solution with the smallest x
        g = math.gcd(a, b)
        smaller = (x0 - abs(b) // g, y0 + (1 if b > 0 else -1) * a // g)
        return x0 > 0 and y0 > 0 and not (smaller[0] > 0 and smaller[1] > 0)
    return True


@others("linear_diophantine")
def _other_solutions(task: Task) -> list[str]:
    meta = task.metadata
    if not meta["solvable"] or meta["mode"] == "positive":
        return []
    a, b = meta["a"], meta["b"]
    g = math.gcd(a, b)
    x0, y0 = _reference_point(task)
    step_x, step_y = b // g, -a // g
    if meta["mode"] == "general":
        x1, y1 = x0 + step_x, y0 + step_y
        return [f"x = {x1} + {-step_x}t, y = {y1} + {-step_y}t".replace("+ -", "- ")]
    return [f"x = {x0 + k * step_x}, y = {y0 + k * step_y}" for k in (1, -2)]


def _reference_point(task: Task) -> tuple[int, int]:
    match = re.fullmatch(r"\s*x\s*=\s*(.+?)\s*,\s*y\s*=\s*(.+?)\s*", str(task.answer))
    return _linear_in_t(match.group(1))[0], _linear_in_t(match.group(2))[0]


def _nullspace_vectors(text: str) -> list[list[Fraction]]:
    tree = ast.parse(text, mode="eval").body
    if not isinstance(tree, ast.List):
        raise ValueError(text)

    def number(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return Fraction(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -number(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return number(node.left) / number(node.right)
        raise ValueError("not a rational")

    return [[number(x) for x in row.elts] for row in tree.elts if isinstance(row, ast.List)]


@judge("linear_algebra")
def _linear_algebra(task: Task, text: str) -> bool | None:
    meta = task.metadata
    if meta["operation"] != "nullspace":
        return None  # a unique value: the profile covers it
    import sympy

    matrix = sympy.Matrix(meta["matrix"])
    vectors = _nullspace_vectors(text)
    if not vectors:
        return False
    basis = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in v] for v in vectors]).T
    if basis.rows != matrix.cols or any(x != 0 for x in matrix * basis):
        return False
    return basis.rank() == len(vectors) == matrix.cols - matrix.rank()


@others("linear_algebra")
def _other_bases(task: Task) -> list[str]:
    """Another basis: the reference vectors with the first one added to the others, and scaled."""
    if task.metadata["operation"] != "nullspace":
        return []
    vectors = _nullspace_vectors(str(task.answer))
    mixed = [vectors[0]] + [[a + b for a, b in zip(v, vectors[0], strict=True)] for v in vectors[1:]]
    scaled = [[-2 * x for x in v] for v in vectors]
    return [_render_rows(mixed), _render_rows(scaled)]


def _render_rows(rows: list[list[Fraction]]) -> str:
    return "[" + ", ".join("[" + ", ".join(str(x) for x in row) + "]" for row in rows) + "]"


# --------------------------------------------------------------------------------------------
# Certificates
# --------------------------------------------------------------------------------------------


def _pratt_lines(text: str) -> dict[int, tuple[int, list[tuple[int, int]]]]:
    lines: dict[int, tuple[int, list[tuple[int, int]]]] = {}
    for line in text.strip().splitlines():
        match = re.fullmatch(r"\s*(\d+)\s*:\s*a\s*=\s*(\d+)\s*;\s*p\s*-\s*1\s*=\s*(.+?)\s*", line)
        if not match:
            raise ValueError(line)
        prime, witness, factors = int(match.group(1)), int(match.group(2)), []
        for part in match.group(3).split("*"):
            base, _, exp = part.strip().partition("^")
            factors.append((int(base), int(exp) if exp else 1))
        if prime in lines:
            raise ValueError("repeated line")
        lines[prime] = (witness, factors)
    return lines


def _pratt_line_ok(q: int, witness: int, factors: list[tuple[int, int]]) -> bool:
    product = 1
    for base, exp in factors:
        if base < 2 or exp < 1:
            return False
        product *= base**exp
    if product != q - 1 or pow(witness, q - 1, q) != 1:
        return False
    return all(pow(witness, (q - 1) // base, q) != 1 for base, _ in factors)


@judge("pratt_certificate")
def _pratt_certificate(task: Task, text: str) -> bool:
    p = int(task.metadata["p"])
    lines = _pratt_lines(text)
    if p not in lines or not all(_pratt_line_ok(q, w, f) for q, (w, f) in lines.items()):
        return False
    needed = {base for _, factors in lines.values() for base, _ in factors if base != 2}
    return needed <= set(lines)


@others("pratt_certificate")
def _other_witnesses(task: Task) -> list[str]:
    """Every line with the largest witness below 200 that works instead of the given one."""
    lines = _pratt_lines(str(task.answer))
    out = []
    for q, (witness, factors) in lines.items():
        for candidate in range(min(q - 1, 200), 1, -1):
            if candidate != witness and _pratt_line_ok(q, candidate, factors):
                lines_text = str(task.answer).splitlines()
                changed = [
                    re.sub(r"a\s*=\s*\d+", f"a={candidate}", line)
                    if line.strip().startswith(f"{q}:")
                    else line
                    for line in lines_text
                ]
                out.append("\n".join(changed))
                break
    return out[:2]


def _sympy_expr(text: str, names: list[str], evaluate: bool = True) -> Any:
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    if re.search(r"[^\w\s+\-*/^().,]", text) or "__" in text or len(text) > 5000:
        raise ValueError("not an expression we build")
    symbols = {n: sympy.Symbol(n) for n in names}
    transformations = (*standard_transformations, convert_xor, implicit_multiplication_application)
    return parse_expr(
        text, local_dict={**symbols, "e": sympy.E}, transformations=transformations, evaluate=evaluate
    )


@judge("inequality_certificate")
def _inequality_certificate(task: Task, text: str) -> bool | None:
    import sympy

    meta = task.metadata
    names = meta["variables"]
    if sympy.expand(_sympy_expr(text, names) - _sympy_expr(meta["p"], names)) != 0:
        return False
    orthant = meta["domain"] != "reals"
    written = _sympy_expr(text, names, evaluate=False)  # the terms as written, not multiplied out
    return all(_nonnegative_term(term, orthant) for term in sympy.Add.make_args(written))


@others("inequality_certificate")
def _split_certificate(task: Task) -> list[str]:
    """The reference certificate with its first square split into two halves of its weight."""
    answer = " ".join(str(task.answer).split())
    terms = _top_level_terms(answer)
    match = re.fullmatch(r"(?:(\d+(?:/\d+)?)\*)?(\(.+\)\^2)", terms[0]) if terms else None
    if match is None:
        return []
    weight = Fraction(match.group(1) or 1) / 2
    split = f"{weight}*{match.group(2)} + {weight}*{match.group(2)}"
    return [" + ".join([split, *terms[1:]])]


def _top_level_terms(text: str) -> list[str]:
    """Split ``a + b*(c + d)^2 + e`` at the + signs outside parentheses."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "+" and depth == 0 and text[i - 1] == " ":
            terms.append(text[start:i].strip())
            start = i + 1
    terms.append(text[start:].strip())
    return terms


def _nonnegative_term(term: Any, orthant: bool) -> bool:
    import sympy

    for factor in sympy.Mul.make_args(term):
        if not factor.free_symbols:
            if sympy.nsimplify(factor) < 0:
                return False
        elif factor.is_Pow and factor.exp.is_Integer and factor.exp % 2 == 0:
            continue
        elif orthant and (factor.is_Symbol or (factor.is_Pow and factor.base.is_Symbol)):
            continue
        else:
            return False
    return True


@judge("symbolic_calculus")
def _symbolic_calculus(task: Task, text: str) -> bool | None:
    import sympy

    meta = task.metadata
    x = meta["variable"]
    names = [x, "C"]
    reference = _sympy_expr(str(task.answer).replace("**", "^"), names)
    candidate = _sympy_expr(text, names)
    var = sympy.Symbol(x)
    if meta["mode"] == "antiderivative":
        difference = sympy.diff(candidate - reference, var)
    else:
        difference = candidate - reference
    if (difference.free_symbols - {var}) and meta["mode"] != "antiderivative":
        return False
    return _is_zero(difference, var)


def _is_zero(expr: Any, var: Any) -> bool | None:
    import sympy

    points = [sympy.Rational(k, 7) for k in (3, 5, 8, 11, -2, -9)]
    others_ = sorted(expr.free_symbols - {var}, key=str)
    for point in points:
        subs = {var: point, **{s: sympy.Rational(13, 5) for s in others_}}
        value = expr.subs(subs).evalf(50)
        if value.is_real is False and value.is_finite:
            return False
        if value.is_number and abs(complex(value)) > 1e-25:
            return False
    simplified = sympy.simplify(expr)
    return True if simplified == 0 else None


@judge("hidden_function")
def _hidden_function(task: Task, text: str) -> bool:
    body = re.sub(r"^\s*f\s*(\([^)]*\))?\s*=", "", text)
    if "table" in task.metadata:  # a boolean function given by its truth table
        names = sorted(set(re.findall(r"[a-z]", str(task.answer))) | set("abcde"))[: _table_inputs(task)]
        rows = itertools.product((0, 1), repeat=len(names))
        return all(
            _bool_value(ast.parse(body, mode="eval").body, dict(zip(names, row, strict=True))) == want
            for row, want in zip(rows, task.metadata["table"], strict=True)
        )
    return _polynomial(body) == _polynomial(str(task.answer))


def _polynomial(text: str) -> dict[int, int]:
    """``-8x^2 + 3x - 1`` -> {2: -8, 1: 3, 0: -1} (zero terms dropped); ValueError otherwise."""
    compact = text.replace(" ", "").replace("*", "")
    terms = re.findall(r"([+-]?)(\d*)(x(?:\^(\d+))?)?", compact)
    if "".join(sign + digits + var for sign, digits, var, _ in terms) != compact:
        raise ValueError("not a polynomial in x")
    out: dict[int, int] = {}
    written = [t for t in terms if t[1] or t[2] or t[0]]
    if any(not sign for sign, _, _, _ in written[1:]):
        raise ValueError("terms must be joined by + or -")
    for sign, digits, var, power in written:
        if not digits and not var:
            raise ValueError("a sign without a term")
        coefficient = int(digits) if digits else 1
        degree = (int(power) if power else 1) if var else 0
        out[degree] = out.get(degree, 0) + (-coefficient if sign == "-" else coefficient)
    return {k: v for k, v in out.items() if v}


def _table_inputs(task: Task) -> int:
    return len(task.metadata["table"]).bit_length() - 1


def _bool_value(node: ast.AST, env: dict[str, int]) -> int:
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant) and node.value in (0, 1):
        return int(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return 1 - _bool_value(node.operand, env)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        a, b = _bool_value(node.left, env), _bool_value(node.right, env)
        return {ast.BitAnd: a & b, ast.BitOr: a | b, ast.BitXor: a ^ b}[type(node.op)]
    raise ValueError("not a boolean formula")


@judge("minesweeper")
def _minesweeper(task: Task, text: str) -> bool:
    row, col = map(int, re.fullmatch(r"\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*", text).groups())
    return (row, col) in _safe_cells(task)


@lru_cache(maxsize=128)
def _safe_cells_cached(task_json: str) -> frozenset[tuple[int, int]]:
    task = Task.from_json(task_json)
    meta = task.metadata
    rows, cols = map(int, re.search(r"(\d+) rows x (\d+) columns", task.prompt).groups())
    total = len(meta["mines"])
    opened = {(r, c): n for r, c, n in meta["opened"]}
    ctx = z3.Context()
    cells = {
        (r, c): z3.Bool(f"m{r}_{c}", ctx) for r in range(rows) for c in range(cols) if (r, c) not in opened
    }
    solver = z3.Solver(ctx=ctx)
    solver.add(z3.PbEq([(m, 1) for m in cells.values()], total))
    for (r, c), n in opened.items():
        around = [
            cells[(r + dr, c + dc)] for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (r + dr, c + dc) in cells
        ]
        solver.add(z3.PbEq([(m, 1) for m in around], n) if around else z3.BoolVal(n == 0, ctx))
    safe = set()
    for cell, mine in cells.items():
        if solver.check(mine) == z3.unsat:
            safe.add(cell)
    return frozenset(safe)


def _safe_cells(task: Task) -> frozenset[tuple[int, int]]:
    return _safe_cells_cached(task.to_json())


@others("minesweeper")
def _other_safe_cells(task: Task) -> list[str]:
    return [f"({r}, {c})" for r, c in sorted(_safe_cells(task))[:3]]


_PROGRAM_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}


def _program_value(node: list[Any], env: dict[str, int], width: int) -> int:
    mask = (1 << width) - 1
    op = node[0]
    if op == "var":
        return env[node[1]]
    if op == "const":
        return node[1] & mask
    if op == "not":
        return ~_program_value(node[1], env, width) & mask
    if op == "neg":
        return -_program_value(node[1], env, width) & mask
    a = _program_value(node[1], env, width)
    if op in ("shl", "shr"):
        k = node[2]
        return (a << k) & mask if op == "shl" else a >> k
    b = _program_value(node[2], env, width)
    return _PROGRAM_OPS[op](a, b) & mask


@judge("program_equivalence")
def _program_equivalence(task: Task, text: str) -> bool | None:
    meta = task.metadata
    if text.strip().lower().startswith("equivalent"):
        return False if not meta["equivalent"] else None
    names = meta["names"]
    values = _assignment(text, names, values="int")
    if any(not 0 <= v < 1 << meta["width"] for v in values.values()):
        return False
    return _program_value(meta["f"], values, meta["width"]) != _program_value(
        meta["g"], values, meta["width"]
    )


@others("program_equivalence")
def _other_inputs(task: Task) -> list[str]:
    """Other distinguishing inputs, from a fixed pseudo-random sample of the input space."""
    meta = task.metadata
    if meta["equivalent"]:
        return []
    names, width = meta["names"], meta["width"]
    rng = random.Random(task.seed)
    out = []
    for _ in range(5000):
        env = {n: rng.randrange(1 << width) for n in names}
        if _program_value(meta["f"], env, width) != _program_value(meta["g"], env, width):
            out.append(", ".join(f"{n}={v}" for n, v in env.items()))
            if len(out) == 3:
                break
    return out


@judge("input_inversion")
def _input_inversion(task: Task, text: str) -> bool:
    xs = ast.literal_eval(text)
    if not isinstance(xs, list) or len(xs) > 30 or any(type(v) is not int or abs(v) > 10000 for v in xs):
        return False
    return _run_pipeline(task, xs) == task.metadata["target"]


def _run_pipeline(task: Task, xs: list[int]) -> Any:
    # the task's own generated source (our code, not model text)
    namespace: dict[str, Any] = {}
    exec(compile(task.metadata["source"], "<pipeline>", "exec"), namespace)  # noqa: S102
    return namespace["f"](list(xs))


@others("input_inversion")
def _other_inputs_inversion(task: Task) -> list[str]:
    """The reference input with one extra element that the pipeline drops (searched)."""
    reference = ast.literal_eval(str(task.answer))
    out = []
    if len(reference) >= 30:
        return out
    for v in range(-60, 61):
        for candidate in (reference + [v], [v] + reference):
            if _run_pipeline(task, candidate) == task.metadata["target"]:
                out.append(str(candidate))
                break
        if len(out) == 2:
            break
    return out


@judge("regex_synthesis")
def _regex_synthesis(task: Task, text: str) -> bool | None:
    if not re.fullmatch(r"[a-z.()|*+?\[\]^]*", text):
        return False
    return _language(text, task.metadata["alphabet"], task.metadata["max_len"]) == _language(
        str(task.answer), task.metadata["alphabet"], task.metadata["max_len"]
    )


@lru_cache(maxsize=512)
def _language(pattern: str, alphabet: str, max_len: int) -> frozenset[str]:
    compiled = re.compile(pattern)
    return frozenset(
        "".join(w)
        for n in range(max_len + 1)
        for w in itertools.product(alphabet, repeat=n)
        if compiled.fullmatch("".join(w))
    )


@judge("type_inference")
def _type_inference(task: Task, text: str) -> bool:
    return _type_shape(text) == _type_shape(str(task.answer))


def _type_shape(text: str) -> Any:
    """A type as a tree with variables renamed in order of appearance (equality up to renaming)."""
    tokens = re.findall(r"'\w+|int|bool|->|\*|\(|\)|\S", text)
    pos = 0
    names: dict[str, int] = {}

    def arrow() -> Any:
        nonlocal pos
        left = pair()
        if pos < len(tokens) and tokens[pos] == "->":
            pos += 1
            return ("->", left, arrow())
        return left

    def pair() -> Any:
        nonlocal pos
        parts = [atom()]
        while pos < len(tokens) and tokens[pos] == "*":
            pos += 1
            parts.append(atom())
        node = parts[0]
        for part in parts[1:]:
            node = ("*", node, part)
        return node

    def atom() -> Any:
        nonlocal pos
        token = tokens[pos]
        pos += 1
        if token == "(":
            node = arrow()
            if tokens[pos] != ")":
                raise ValueError("missing )")
            pos += 1
            return node
        if token.startswith("'"):
            return ("var", names.setdefault(token, len(names)))
        if token in ("int", "bool"):
            return token
        raise ValueError(token)

    tree = arrow()
    if pos != len(tokens):
        raise ValueError("trailing text")
    return tree


# --------------------------------------------------------------------------------------------
# Plans replayed by our own simulators
# --------------------------------------------------------------------------------------------


def _moves(text: str, pattern: str) -> list[tuple[str, ...]]:
    parts = [p for p in re.split(r"\s*,\s*|\s+", text.strip()) if p]
    out = []
    for part in parts:
        match = re.fullmatch(pattern, part)
        if not match:
            raise ValueError(part)
        out.append(match.groups())
    return out


@judge("blocks_world")
def _blocks_world(task: Task, text: str) -> bool:
    meta = task.metadata
    stacks = [list(s) for s in meta["start"]]
    moves = _moves(text, r"([A-Z])->([A-Z]|table)")
    for block, dest in moves:
        source = next((s for s in stacks if s and s[-1] == block), None)
        if source is None:
            return False
        if dest == "table":
            source.pop()
            stacks.append([block])
        else:
            target = next((s for s in stacks if s and s[-1] == dest), None)
            if target is None or dest == block:
                return False
            source.pop()
            target.append(block)
        stacks = [s for s in stacks if s]
    return sorted("".join(s) for s in stacks) == sorted(meta["goal"]) and len(moves) == meta["optimal_length"]


@judge("tower_of_hanoi")
def _tower_of_hanoi(task: Task, text: str) -> bool:
    meta = task.metadata
    pegs = "ABCDEFGH"[: meta["pegs"]]
    moves = _moves(text, rf"([{pegs}])->([{pegs}])")
    where = list(meta["start"])  # where[d] = peg of disk d+1
    allowed = {tuple(m) for m in meta["moves"]}
    for a, b in moves:
        src, dst = pegs.index(a), pegs.index(b)
        if (src, dst) not in allowed:
            return False
        on_src = [d for d, p in enumerate(where) if p == src]
        on_dst = [d for d, p in enumerate(where) if p == dst]
        if not on_src or (on_dst and min(on_dst) < min(on_src)):
            return False
        where[min(on_src)] = dst
    return where == list(meta["goal"]) and len(moves) == meta["optimal_length"]


@judge("sliding_tiles")
def _sliding_tiles(task: Task, text: str) -> bool:
    meta = task.metadata
    board = [row[:] for row in meta["board"]]
    rows, cols = meta["rows"], meta["cols"]
    tiles = [int(t) for t in text.split()]
    for tile in tiles:
        (br, bc), (tr, tc) = _find(board, 0), _find(board, tile)
        if abs(br - tr) + abs(bc - tc) != 1:
            return False
        board[br][bc], board[tr][tc] = tile, 0
    goal = [[(r * cols + c + 1) % (rows * cols) for c in range(cols)] for r in range(rows)]
    return board == goal and len(tiles) == meta["optimal_length"]


def _find(board: list[list[int]], value: int) -> tuple[int, int]:
    for r, row in enumerate(board):
        if value in row:
            return r, row.index(value)
    raise ValueError(f"no tile {value}")


@judge("sokoban")
def _sokoban(task: Task, text: str) -> bool:
    grid = task.metadata["grid"]
    moves = re.sub(r"[\s,]+", "", text).upper()
    if not re.fullmatch(r"[UDLR]+", moves):
        return False
    walls = {(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch == "#"}
    goals = {(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch in ".*+"}
    boxes = {(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch in "$*"}
    player = next((r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch in "@+")
    pushes = 0
    for move in moves:
        dr, dc = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[move]
        step = (player[0] + dr, player[1] + dc)
        if step in walls:
            return False
        if step in boxes:
            beyond = (step[0] + dr, step[1] + dc)
            if beyond in walls or beyond in boxes:
                return False
            boxes = (boxes - {step}) | {beyond}
            pushes += 1
        player = step
    return boxes <= goals and pushes == task.metadata["optimal_pushes"]


@judge("lights_out")
def _lights_out(task: Task, text: str) -> bool:
    meta = task.metadata
    rows, cols, torus = meta["rows"], meta["cols"], meta["torus"]
    presses = [tuple(map(int, p)) for p in re.findall(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", text)]
    if re.sub(r"\(\s*-?\d+\s*,\s*-?\d+\s*\)|[\s,]", "", text):
        return False
    lit = [[ch == "1" for ch in row] for row in meta["board"]]
    for r, c in presses:
        if not (1 <= r <= rows and 1 <= c <= cols):
            return False
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r - 1 + dr, c - 1 + dc
            if torus:
                rr, cc = rr % rows, cc % cols
            if 0 <= rr < rows and 0 <= cc < cols:
                lit[rr][cc] = not lit[rr][cc]
    return not any(any(row) for row in lit) and len(presses) == meta["optimal_length"]


@others("lights_out")
def _other_press_sets(task: Task) -> list[str]:
    """Our own search over press sets of the optimal size (small boards only)."""
    meta = task.metadata
    cells = [(r, c) for r in range(1, meta["rows"] + 1) for c in range(1, meta["cols"] + 1)]
    k = meta["optimal_length"]
    if len(cells) > 20 or k > 6 or meta["nullity"] == 0:
        return []
    out = []
    for combo in itertools.combinations(cells, k):
        text = ", ".join(f"({r},{c})" for r, c in combo)
        if _lights_out(task, text):
            out.append(text)
            if len(out) == 3:
                break
    return out


@judge("river_crossing")
def _river_crossing(task: Task, text: str) -> bool:
    meta = task.metadata
    names = meta["names"]
    side = list(meta["start"])
    boat = meta["boat"][0]
    trips = [t.strip() for t in text.split(";")]
    for trip in trips:
        people = [p.strip() for p in trip.split("+")]
        if any(p not in names for p in people) or len(set(people)) != len(people):
            return False
        index = [names.index(p) for p in people]
        if any(side[i] != boat for i in index) or not any(i < meta["rowers"] for i in index):
            return False
        if sum(meta["weights"][i] for i in index) > meta["capacity"]:
            return False
        for i in index:
            side[i] = 1 - boat
        boat = 1 - boat
        for bank in (0, 1):
            here = {i for i, s in enumerate(side) if s == bank}
            if not any(i < meta["rowers"] for i in here) and any(
                a in here and b in here for a, b in meta["conflicts"]
            ):
                return False
    return side == list(meta["goal"]) and boat == meta["boat"][1] and len(trips) == meta["optimal_length"]


def _bfs_plans(
    start: Any, goal: Callable[[Any], bool], moves: Callable[[Any], list[tuple[str, Any]]], cap: int = 200_000
) -> list[list[str]]:
    """All shortest plans' first few, by breadth-first search with parent lists (small instances)."""
    parents: dict[Any, list[tuple[Any, str]]] = {start: []}
    depth = {start: 0}
    frontier = deque([start])
    found_depth = None
    goals = []
    while frontier and len(depth) < cap:
        state = frontier.popleft()
        if found_depth is not None and depth[state] >= found_depth:
            break
        for label, nxt in moves(state):
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                parents[nxt] = [(state, label)]
                frontier.append(nxt)
                if goal(nxt):
                    found_depth = depth[nxt]
                    goals.append(nxt)
            elif depth[nxt] == depth[state] + 1:
                parents[nxt].append((state, label))
    plans: list[list[str]] = []

    def walk(state: Any, suffix: list[str]) -> None:
        if len(plans) >= 4:
            return
        if not parents[state]:
            plans.append(suffix)
            return
        for prev, label in parents[state]:
            walk(prev, [label, *suffix])

    for g in goals:
        walk(g, [])
    return plans


@others("river_crossing")
def _other_crossings(task: Task) -> list[str]:
    """Our own breadth-first search over (who is where, boat side), small instances only."""
    meta = task.metadata
    names, n = meta["names"], meta["items"]
    if n > 8:
        return []

    def safe(side: tuple[int, ...]) -> bool:
        for bank in (0, 1):
            here = {i for i in range(n) if side[i] == bank}
            if not any(i < meta["rowers"] for i in here) and any(
                a in here and b in here for a, b in meta["conflicts"]
            ):
                return False
        return True

    def moves(state: tuple[tuple[int, ...], int]) -> list[tuple[str, tuple[tuple[int, ...], int]]]:
        side, boat = state
        present = [i for i in range(n) if side[i] == boat]
        out = []
        for size in range(1, meta["capacity"] + 1):
            for group in itertools.combinations(present, size):
                if not any(i < meta["rowers"] for i in group):
                    continue
                if sum(meta["weights"][i] for i in group) > meta["capacity"]:
                    continue
                after = tuple(1 - s if i in group else s for i, s in enumerate(side))
                if safe(after):
                    out.append(("+".join(names[i] for i in group), (after, 1 - boat)))
        return out

    goal = (tuple(meta["goal"]), meta["boat"][1])
    plans = _bfs_plans((tuple(meta["start"]), meta["boat"][0]), lambda s: s == goal, moves)
    return ["; ".join(p) for p in plans]


@others("tower_of_hanoi")
def _other_hanoi_plans(task: Task) -> list[str]:
    meta = task.metadata
    if meta["disks"] > 6:
        return []
    pegs = "ABCDEFGH"[: meta["pegs"]]

    def moves(state: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        out = []
        for src, dst in meta["moves"]:
            on_src = [d for d, p in enumerate(state) if p == src]
            on_dst = [d for d, p in enumerate(state) if p == dst]
            if on_src and (not on_dst or min(on_dst) > min(on_src)):
                nxt = list(state)
                nxt[min(on_src)] = dst
                out.append((f"{pegs[src]}->{pegs[dst]}", tuple(nxt)))
        return out

    goal = tuple(meta["goal"])
    return [", ".join(p) for p in _bfs_plans(tuple(meta["start"]), lambda s: s == goal, moves)]


@others("blocks_world")
def _other_blocks_plans(task: Task) -> list[str]:
    meta = task.metadata
    if meta["blocks"] > 6:
        return []

    def norm(stacks: list[str]) -> tuple[str, ...]:
        return tuple(sorted(s for s in stacks if s))

    def moves(state: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
        out = []
        for i, s in enumerate(state):
            block = s[-1]
            rest = list(state)
            rest[i] = s[:-1]
            if len(s) > 1:
                out.append((f"{block}->table", norm([*rest, block])))
            for j, t in enumerate(state):
                if j != i:
                    placed = list(rest)
                    placed[j] = t + block
                    out.append((f"{block}->{t[-1]}", norm(placed)))
        return out

    goal = norm(meta["goal"])
    return [", ".join(p) for p in _bfs_plans(norm(meta["start"]), lambda s: s == goal, moves)]


@others("sliding_tiles")
def _other_sliding_plans(task: Task) -> list[str]:
    meta = task.metadata
    if meta["optimal_length"] > 14:
        return []
    rows, cols = meta["rows"], meta["cols"]
    goal = tuple((i + 1) % (rows * cols) for i in range(rows * cols))

    def moves(state: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        blank = state.index(0)
        r, c = divmod(blank, cols)
        out = []
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < rows and 0 <= cc < cols:
                nxt = list(state)
                tile = rr * cols + cc
                nxt[blank], nxt[tile] = nxt[tile], 0
                out.append((str(state[tile]), tuple(nxt)))
        return out

    start = tuple(v for row in meta["board"] for v in row)
    return [" ".join(p) for p in _bfs_plans(start, lambda s: s == goal, moves)]


# --------------------------------------------------------------------------------------------
# Programs: differential judges (programs.py)
# --------------------------------------------------------------------------------------------

from .programs import python_judge, sql_judge  # noqa: E402  (kept apart: they run subprocesses)

JUDGES["bug_repair"] = python_judge
JUDGES["function_induction"] = python_judge
JUDGES["sql_synthesis"] = sql_judge
