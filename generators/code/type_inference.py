"""Infer the principal type of a small ML-like expression (Hindley-Milner with let-polymorphism).

Terms: integer and boolean literals, ``fun x -> e``, application, ``let x = e in e``,
``if c then a else b``, pairs, and the builtins ``add : int -> int -> int``,
``eq : int -> int -> bool``, ``fst``, ``snd``. Random closed terms are drawn and typed with
algorithm W (occurs check, generalisation at ``let``); ill-typed draws are rejected. The answer
is a type such as ``('a -> 'b) -> 'a * 'b``, parsed by our own parser and compared with the
principal type up to renaming of type variables.

Weak solver: algorithm W with a shallow unifier that binds variables but never decomposes two
arrow or pair types that meet, so constraints flowing through arguments and results are lost;
its solve rate falls as terms grow.

Generation: about 2300 tasks/s at level 5 (CPU time, one core).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

Type = Any  # ["var", n] | ["con", "int"|"bool"] | ["fun", a, b] | ["pair", a, b]


class TypeErrorHM(Exception):
    pass


class Infer:
    def __init__(self) -> None:
        self.subst: dict[int, Type] = {}
        self.fresh_id = 0
        self.steps = 0

    def fresh(self) -> Type:
        self.fresh_id += 1
        return ["var", self.fresh_id]

    def prune(self, t: Type) -> Type:
        while t[0] == "var" and t[1] in self.subst:
            t = self.subst[t[1]]
        return t

    def resolve(self, t: Type) -> Type:
        t = self.prune(t)
        if t[0] in ("fun", "pair"):
            return [t[0], self.resolve(t[1]), self.resolve(t[2])]
        return t

    def occurs(self, n: int, t: Type) -> bool:
        t = self.prune(t)
        if t[0] == "var":
            return t[1] == n
        return t[0] in ("fun", "pair") and (self.occurs(n, t[1]) or self.occurs(n, t[2]))

    def unify(self, a: Type, b: Type) -> None:
        self.steps += 1
        a, b = self.prune(a), self.prune(b)
        if a[0] == "var":
            if a != b:
                if self.occurs(a[1], b):
                    raise TypeErrorHM("occurs check")
                self.subst[a[1]] = b
        elif b[0] == "var":
            self.unify(b, a)
        elif a[0] != b[0] or (a[0] == "con" and a[1] != b[1]):
            raise TypeErrorHM("mismatch")
        elif a[0] in ("fun", "pair"):
            self.unify_parts(a, b)

    def unify_parts(self, a: Type, b: Type) -> None:
        """Two arrow (or pair) types meet: their arguments and results must agree."""
        self.unify(a[1], b[1])
        self.unify(a[2], b[2])

    def free(self, t: Type) -> set[int]:
        t = self.prune(t)
        if t[0] == "var":
            return {t[1]}
        if t[0] in ("fun", "pair"):
            return self.free(t[1]) | self.free(t[2])
        return set()

    def instantiate(self, scheme: tuple[set[int], Type]) -> Type:
        bound, t = scheme
        mapping = {n: self.fresh() for n in bound}

        def copy(u: Type) -> Type:
            u = self.prune(u)
            if u[0] == "var":
                return mapping.get(u[1], u)
            if u[0] in ("fun", "pair"):
                return [u[0], copy(u[1]), copy(u[2])]
            return u

        return copy(t)

    def infer(self, env: dict[str, tuple[set[int], Type]], e: list[Any]) -> Type:
        self.steps += 1
        tag = e[0]
        if tag == "int":
            return ["con", "int"]
        if tag == "bool":
            return ["con", "bool"]
        if tag == "var":
            if e[1] not in env:
                raise TypeErrorHM(f"unbound {e[1]}")
            return self.instantiate(env[e[1]])
        if tag == "fun":
            arg = self.fresh()
            body = self.infer({**env, e[1]: (set(), arg)}, e[2])
            return ["fun", arg, body]
        if tag == "app":
            f = self.infer(env, e[1])
            x = self.infer(env, e[2])
            out = self.fresh()
            self.unify(f, ["fun", x, out])
            return out
        if tag == "let":
            bound = self.infer(env, e[2])
            env_free = set().union(*(self.free(t) - b for b, t in env.values())) if env else set()
            scheme = (self.free(bound) - env_free, bound)
            return self.infer({**env, e[1]: scheme}, e[3])
        if tag == "if":
            self.unify(self.infer(env, e[1]), ["con", "bool"])
            a, b = self.infer(env, e[2]), self.infer(env, e[3])
            self.unify(a, b)
            return a
        if tag == "pair":
            return ["pair", self.infer(env, e[1]), self.infer(env, e[2])]
        raise ValueError(tag)


def builtins(inf: Infer) -> dict[str, tuple[set[int], Type]]:
    i, b = ["con", "int"], ["con", "bool"]
    a1, a2 = inf.fresh(), inf.fresh()
    return {
        "add": (set(), ["fun", i, ["fun", i, i]]),
        "eq": (set(), ["fun", i, ["fun", i, b]]),
        "fst": ({a1[1], a2[1]}, ["fun", ["pair", a1, a2], a1]),
        "snd": ({a1[1], a2[1]}, ["fun", ["pair", a1, a2], a2]),
    }


class ShallowInfer(Infer):
    """The weak solver's shortcut: a shallow unifier. It binds a type variable to whatever it
    meets and rejects clashing constructors, but when two arrow (or pair) types meet it assumes
    their parts already agree and never decomposes them, so constraints that flow through
    argument and result positions (``f (f x)``, ``fst p``, ``add x 1``) are lost."""

    def unify_parts(self, a: Type, b: Type) -> None:
        pass  # the shortcut: never decompose


def infer_type(term: list[Any], shallow: bool = False) -> tuple[Type, int]:
    """(principal type, unification/inference steps); raises TypeErrorHM if ill-typed.

    ``shallow``: use the weak solver's shallow unifier (not the principal type in general)."""
    inf = ShallowInfer() if shallow else Infer()
    t = inf.infer(builtins(inf), term)
    return inf.resolve(t), inf.steps


def canonical(t: Type, names: dict[int, str] | None = None) -> str:
    """Type text with variables renamed 'a, 'b, ... in order of first appearance."""
    names = {} if names is None else names

    def go(u: Type, ctx: int) -> str:  # ctx: 0 top, 1 left of ->, 2 inside *
        if u[0] == "var":
            if u[1] not in names:
                n = len(names)
                names[u[1]] = "'" + chr(97 + n % 26) + (str(n // 26) if n >= 26 else "")
            return names[u[1]]
        if u[0] == "con":
            return u[1]
        if u[0] == "pair":
            text = f"{go(u[1], 2)} * {go(u[2], 2)}"
            return f"({text})" if ctx == 2 else text
        text = f"{go(u[1], 1)} -> {go(u[2], 0)}"
        return f"({text})" if ctx >= 1 else text

    return go(t, 0)


_TOKEN = re.compile(r"\s*(->|\*|\(|\)|'[a-z][a-z0-9_]*|int|bool)")


def parse_type(text: str) -> Type:
    """Parse a type (``*`` binds tighter than right-associative ``->``); raises ValueError."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"unexpected text at {pos}")
        tokens.append(m.group(1))
        pos = m.end()
    if len(tokens) > 500:
        raise ValueError("type too long")
    names: dict[str, int] = {}
    i = 0

    def arrow(depth: int) -> Type:
        nonlocal i
        if depth > 60:
            raise ValueError("nested too deeply")
        left = product(depth)
        if i < len(tokens) and tokens[i] == "->":
            i += 1
            return ["fun", left, arrow(depth + 1)]
        return left

    def product(depth: int) -> Type:
        nonlocal i
        left = atom(depth)
        while i < len(tokens) and tokens[i] == "*":
            i += 1
            left = ["pair", left, atom(depth)]
        return left

    def atom(depth: int) -> Type:
        nonlocal i
        if i >= len(tokens):
            raise ValueError("unexpected end")
        tok = tokens[i]
        i += 1
        if tok == "(":
            inner = arrow(depth + 1)
            if i >= len(tokens) or tokens[i] != ")":
                raise ValueError("missing )")
            i += 1
            return inner
        if tok in ("int", "bool"):
            return ["con", tok]
        if tok.startswith("'"):
            return ["var", names.setdefault(tok, len(names) + 1)]
        raise ValueError(f"unexpected {tok!r}")

    t = arrow(0)
    if i != len(tokens):
        raise ValueError("trailing tokens")
    return t


def render_term(e: list[Any], ctx: int = 0) -> str:
    """ctx 0: anywhere; 1: function position; 2: argument position; 3: inside a pair or if."""
    tag = e[0]
    if tag == "int":
        return str(e[1])
    if tag == "bool":
        return "true" if e[1] else "false"
    if tag == "var":
        return e[1]
    if tag == "pair":
        return f"({render_term(e[1], 3)}, {render_term(e[2], 3)})"
    if tag == "app":
        text = f"{render_term(e[1], 1)} {render_term(e[2], 2)}"
        return f"({text})" if ctx == 2 else text
    if tag == "fun":
        text = f"fun {e[1]} -> {render_term(e[2])}"
    elif tag == "let":
        text = f"let {e[1]} = {render_term(e[2])} in {render_term(e[3])}"
    else:
        text = f"if {render_term(e[1], 3)} then {render_term(e[2], 3)} else {render_term(e[3])}"
    return f"({text})" if ctx else text


def draw_term(rng: np.random.Generator, size: int, scope: list[str], knobs: Any) -> list[Any]:
    names = "fghxyzuvw"
    if size <= 1:
        if scope and rng.random() < 0.8:
            return ["var", scope[int(rng.integers(len(scope)))]]
        pool = ["add", "eq", "fst", "snd"] if knobs.builtins else []
        if pool and rng.random() < 0.5:
            return ["var", pool[int(rng.integers(len(pool)))]]
        return ["int", int(rng.integers(0, 9))] if rng.random() < 0.6 else ["bool", bool(rng.random() < 0.5)]
    roll = rng.random()
    if roll < 0.3 or not scope:
        name = names[len(scope) % len(names)] + ("" if len(scope) < len(names) else str(len(scope)))
        return ["fun", name, draw_term(rng, size - 1, scope + [name], knobs)]
    if roll < 0.7:
        left = int(rng.integers(1, size))
        return ["app", draw_term(rng, left, scope, knobs), draw_term(rng, size - left, scope, knobs)]
    if roll < 0.8 and knobs.let_poly and size >= 3:
        name = names[len(scope) % len(names)] + str(len(scope))
        left = int(rng.integers(1, size - 1))
        return [
            "let",
            name,
            draw_term(rng, left, scope, knobs),
            draw_term(rng, size - 1 - left, scope + [name], knobs),
        ]
    if roll < 0.9 and knobs.pairs:
        left = int(rng.integers(1, size))
        return ["pair", draw_term(rng, left, scope, knobs), draw_term(rng, size - left, scope, knobs)]
    if knobs.conditionals and size >= 3:
        a = int(rng.integers(1, size - 1))
        b = int(rng.integers(1, size - a))
        return [
            "if",
            draw_term(rng, a, scope, knobs),
            draw_term(rng, b, scope, knobs),
            draw_term(rng, max(1, size - a - b), scope, knobs),
        ]
    left = int(rng.integers(1, size))
    return ["app", draw_term(rng, left, scope, knobs), draw_term(rng, size - left, scope, knobs)]


def count_vars(t: Type) -> int:
    return len(re.findall(r"'[a-z]\d*", canonical(t))) if t else 0


@dataclass(frozen=True)
class TypeInferenceKnobs(Knobs):
    size: int = knob(4, low=2, high=40, help="nodes of the term")
    let_poly: bool = knob(False, help="use let (polymorphic bindings)")
    pairs: bool = knob(False, help="use pairs")
    conditionals: bool = knob(False, help="use if-then-else")
    builtins: bool = knob(False, help="use add, eq, fst, snd")
    min_arrows: int = knob(1, low=0, high=10, help="reject terms whose type has fewer arrows")


# Level 3 starts at 9 nodes: closed terms of 6-7 nodes are so few that 2,000 draws repeated
# a quarter of their tasks (by term and type); 9+ nodes keep each level under 1% duplicates.
LEVELS = {
    1: TypeInferenceKnobs(size=4),
    2: TypeInferenceKnobs(size=5, builtins=True),
    3: TypeInferenceKnobs(size=9, builtins=True, pairs=True, min_arrows=2),
    4: TypeInferenceKnobs(size=10, builtins=True, pairs=True, conditionals=True, min_arrows=2),
    5: TypeInferenceKnobs(size=11, builtins=True, pairs=True, conditionals=True, let_poly=True, min_arrows=2),
    6: TypeInferenceKnobs(size=12, builtins=True, pairs=True, conditionals=True, let_poly=True, min_arrows=2),
    7: TypeInferenceKnobs(size=13, builtins=True, pairs=True, conditionals=True, let_poly=True, min_arrows=3),
    8: TypeInferenceKnobs(size=14, builtins=True, pairs=True, conditionals=True, let_poly=True, min_arrows=3),
    9: TypeInferenceKnobs(size=16, builtins=True, pairs=True, conditionals=True, let_poly=True, min_arrows=3),
    10: TypeInferenceKnobs(
        size=18, builtins=True, pairs=True, conditionals=True, let_poly=True, min_arrows=4
    ),
}

PROMPT = """What is the most general type of this expression in a small ML-like language \
(Hindley-Milner type inference with let-polymorphism)?

{term}

Builtins: add : int -> int -> int, eq : int -> int -> bool, fst : 'a * 'b -> 'a, \
snd : 'a * 'b -> 'b. Write types with int, bool, type variables 'a, 'b, ..., * for pairs (binds \
tighter than ->) and right-associative ->, for example <answer>('a -> 'b) -> 'a * int -> 'b</answer>. \
Type variables may be named freely (the answer is compared up to renaming)."""


@family(
    "type_inference",
    domain="code",
    knobs=TypeInferenceKnobs,
    levels=LEVELS,
    description="Infer the principal Hindley-Milner type of a small ML expression; compared up to renaming.",
    verifier_kind="type equality up to renaming (own parser)",
    version=2,
)
class TypeInference(Family):
    def generate(self, knobs: TypeInferenceKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(5000):
            term = draw_term(rng, knobs.size, [], knobs)
            try:
                t, steps = infer_type(term)
            except (TypeErrorHM, RecursionError):
                continue
            text = canonical(t)
            if text.count("->") >= knobs.min_arrows and len(text) <= 200:
                break
        else:
            raise RuntimeError(f"could not draw a typed term for {knobs}")
        return TaskDraft(
            prompt=PROMPT.format(term=render_term(term)),
            answer=text,
            metadata={
                "term": term,
                "type": text,
                "steps": steps,
                "canonical_hash": content_hash(text + render_term(term)),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True, max_chars=1000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        text = extraction.text.strip().strip("`").strip()
        if text.startswith(":"):
            text = text[1:]
        try:
            parsed = canonical(parse_type(text))
        except (ValueError, RecursionError):
            return Verdict.bad_format("not a type (use int, bool, 'a, *, ->, parentheses)")
        if parsed == task.metadata["type"]:
            return Verdict.right(parsed=parsed)
        return Verdict.wrong(f"{parsed} is not the most general type", parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        t, steps = infer_type(task.metadata["term"])
        return SolverRun(f"<answer>{canonical(t)}</answer>", float(steps))

    def solve_weak(self, task: Task) -> SolverRun:
        """Algorithm W with a shallow unifier (``ShallowInfer``): type variables are bound, but two
        arrow or pair types that meet are never decomposed. Right when no constraint has to flow
        through a function's argument or result; otherwise a too-general type, or a clash it
        cannot explain (it gives up)."""
        try:
            t, steps = infer_type(task.metadata["term"], shallow=True)
        except (TypeErrorHM, RecursionError):
            return SolverRun(None, 0.0)
        return SolverRun(f"<answer>{canonical(t)}</answer>", float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        t = parse_type(task.answer)
        cands = [["fun", t, t], ["pair", t, ["con", "int"]], _specialise(t), _swap(t)]
        out = [canonical(c) for c in cands]
        return [f"<answer>{c}</answer>" for c in dict.fromkeys(out) if c != task.answer] + [
            "<answer>int</answer>" if task.answer != "int" else "<answer>bool</answer>"
        ]


def _specialise(t: Type) -> Type:
    """Replace the first type variable by int (or int by bool): a less general or wrong type."""
    text = canonical(t)
    if "'a" in text:
        return parse_type(re.sub(r"'a\b", "int", text))
    return parse_type(text.replace("int", "bool", 1)) if "int" in text else ["fun", ["con", "int"], t]


def _swap(t: Type) -> Type:
    if t[0] in ("fun", "pair"):
        swapped = [t[0], t[2], t[1]]
        if canonical(swapped) != canonical(t):
            return swapped
    return ["fun", ["con", "bool"], t]
