"""Judges and solvers for SAT, MaxSAT, SMT, minimal cores, entailment and syllogisms."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any

import z3

from palaestra.core import Task

from ._readers import read_assignment
from ._registry import judge, others


def _sat_values(task: Task, text: str) -> dict[int, bool]:
    names = [f"x{i}" for i in range(1, task.metadata["variables"] + 1)]
    return {int(k[1:]): v for k, v in read_assignment(text, names).items()}


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
    values = read_assignment(text, names, values="int")
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
        values = read_assignment(rest, names)
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
        if not individuals:
            return False  # the documented form lists individuals ([] where an empty world would do)
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
