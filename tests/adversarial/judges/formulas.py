"""Integer formulas (hoare_triple, loop_invariant, ranking_function): our own parser into z3."""

from __future__ import annotations

import re

import z3

from palaestra.core import Task

from ._registry import judge, others

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
