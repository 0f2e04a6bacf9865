"""Are two small bitvector programs equivalent? Answer "equivalent" or a counterexample input.

``g`` is derived from ``f`` by semantics-preserving rewrites (``a + b -> (a ^ b) + ((a & b) << 1)``,
``a ^ b -> (a | b) - (a & b)``, ...); for a non-equivalent pair ``f`` is first mutated (an
operator swapped or a constant moved) or, from level 3, a variable v becomes ``v ^ R`` where R is 1
only when ``rare_bits`` chosen input bits are all set, so random testing rarely finds the
difference. z3 decides equivalence at generation time (the stored truth, with a deterministic
resource limit). A claimed counterexample is
checked by evaluating both programs on it with our own evaluator (the programs are ours, the
input is two or three integers): any input on which they differ is accepted.

Generation: about 70 tasks/s at level 5 (CPU time, one core; 185 before each z3 decision got its own
context, which costs about 2.5 ms but makes the decision independent of earlier z3 calls in the
process) and a few per second at level 10: every pair is decided by z3 (bit-blasted 16-bit miters
of rewritten programs are the cost).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

Expr = list[Any]  # ["var", name] | ["const", n] | ["not", e] | [op, a, b] | ["shl"/"shr", e, k]
BINOPS = ("+", "-", "&", "|", "^")  # no "*": bit-blasted products make z3 proofs slow
_ASSIGN = re.compile(r"([a-z])\s*=\s*(0x[0-9a-fA-F]+|\d+)")
WEAK_SAMPLES = 24
Z3_RLIMIT = 5_000_000


@dataclass(frozen=True)
class ProgramEquivalenceKnobs(Knobs):
    width: int = knob(4, choices=(4, 8, 16, 32), help="bit width of the unsigned integers")
    variables: int = knob(2, low=1, high=3, help="number of inputs (x, y, z)")
    size: int = knob(2, low=1, high=12, help="binary operations in the base program f")
    rewrites: int = knob(1, low=0, high=10, help="semantics-preserving rewrites turning f into g")
    rare_bits: int = knob(
        0,
        low=0,
        high=10,
        help="non-equivalent pairs differ only when this many input bits are all set (0: a plain mutation)",
    )


LEVELS = {
    1: ProgramEquivalenceKnobs(rare_bits=0, width=4, variables=1, size=1, rewrites=1),
    2: ProgramEquivalenceKnobs(rare_bits=0, width=4, variables=2, size=2, rewrites=1),
    # size 3 at level 3: size-2 programs over two 8-bit inputs repeated (1.7% duplicates in 2,000)
    3: ProgramEquivalenceKnobs(rare_bits=1, width=8, variables=2, size=3, rewrites=2),
    4: ProgramEquivalenceKnobs(rare_bits=2, width=8, variables=2, size=3, rewrites=2),
    5: ProgramEquivalenceKnobs(rare_bits=3, width=8, variables=2, size=3, rewrites=3),
    6: ProgramEquivalenceKnobs(rare_bits=4, width=16, variables=2, size=4, rewrites=3),
    7: ProgramEquivalenceKnobs(rare_bits=5, width=16, variables=3, size=4, rewrites=3),
    8: ProgramEquivalenceKnobs(rare_bits=6, width=16, variables=3, size=4, rewrites=4),
    9: ProgramEquivalenceKnobs(rare_bits=7, width=16, variables=3, size=5, rewrites=4),
    10: ProgramEquivalenceKnobs(rare_bits=8, width=16, variables=3, size=5, rewrites=5),
}

PROMPT = """Two programs over {width}-bit unsigned integers (all arithmetic wraps modulo 2^{width}; \
~ is bitwise not, << drops high bits, >> is a logical shift):

f({args}) = {f}
g({args}) = {g}

Are f and g equivalent (equal for every input)? If they are, answer <answer>equivalent</answer>. \
If not, give any input on which they differ, for example <answer>{example}</answer> \
(values from 0 to {top}); any such input is accepted."""


def variables(count: int) -> list[str]:
    return ["x", "y", "z"][:count]


def evaluate(e: Expr, env: dict[str, int], mask: int) -> int:
    tag = e[0]
    if tag == "var":
        return env[e[1]]
    if tag == "const":
        return e[1] & mask
    if tag == "not":
        return ~evaluate(e[1], env, mask) & mask
    if tag in ("shl", "shr"):
        v = evaluate(e[1], env, mask)
        return ((v << e[2]) if tag == "shl" else (v >> e[2])) & mask
    a, b = evaluate(e[1], env, mask), evaluate(e[2], env, mask)
    ops = {"+": a + b, "-": a - b, "&": a & b, "|": a | b, "^": a ^ b, "*": a * b}
    return ops[tag] & mask


def to_z3(e: Expr, env: dict[str, Any], width: int, ctx: z3.Context | None = None) -> Any:
    tag = e[0]
    if tag == "var":
        return env[e[1]]
    if tag == "const":
        return z3.BitVecVal(e[1], width, ctx)
    if tag == "not":
        return ~to_z3(e[1], env, width, ctx)
    if tag == "shl":
        return to_z3(e[1], env, width, ctx) << e[2]
    if tag == "shr":
        return z3.LShR(to_z3(e[1], env, width, ctx), e[2])
    a, b = to_z3(e[1], env, width, ctx), to_z3(e[2], env, width, ctx)
    return {"+": a + b, "-": a - b, "&": a & b, "|": a | b, "^": a ^ b, "*": a * b}[tag]


def render(e: Expr) -> str:
    tag = e[0]
    if tag == "var":
        return e[1]
    if tag == "const":
        return str(e[1])
    if tag == "not":
        return f"~{render(e[1])}"
    if tag in ("shl", "shr"):
        return f"({render(e[1])} {'<<' if tag == 'shl' else '>>'} {e[2]})"
    return f"({render(e[1])} {tag} {render(e[2])})"


def count_nodes(e: Expr) -> int:
    return 1 + sum(count_nodes(c) for c in e[1:] if isinstance(c, list))


def draw_expr(rng: np.random.Generator, ops: int, names: list[str], width: int) -> Expr:
    if ops == 0:
        if rng.random() < 0.75:
            return ["var", names[int(rng.integers(len(names)))]]
        return ["const", int(rng.integers(1, min(16, 1 << width)))]
    roll = rng.random()
    if roll < 0.1:
        return ["not", draw_expr(rng, ops - 1, names, width)]
    if roll < 0.2:
        return [
            "shl" if rng.random() < 0.5 else "shr",
            draw_expr(rng, ops - 1, names, width),
            int(rng.integers(1, 4)),
        ]
    left = int(rng.integers(0, ops))
    op = BINOPS[int(rng.integers(len(BINOPS)))]
    return [op, draw_expr(rng, left, names, width), draw_expr(rng, ops - 1 - left, names, width)]


def _rewrite_node(e: Expr, rng: np.random.Generator) -> Expr | None:
    """An equivalent form of node ``e`` (identities valid modulo 2^w), or None."""
    tag = e[0]
    if tag in ("+", "^", "|", "&", "-", "*") and rng.random() < 0.25:
        if tag in ("+", "^", "|", "&", "*"):
            return [tag, e[2], e[1]]  # commutativity
    a = e[1] if len(e) > 1 else None
    b = e[2] if len(e) > 2 else None
    if tag == "+":
        return ["+", ["^", a, b], ["shl", ["&", a, b], 1]]
    if tag == "^":
        return ["-", ["|", a, b], ["&", a, b]]
    if tag == "|":
        return ["+", ["^", a, b], ["&", a, b]]
    if tag == "&":
        return ["not", ["|", ["not", a], ["not", b]]]
    if tag == "-":
        return ["+", ["+", a, ["not", b]], ["const", 1]]
    if tag == "not":
        return ["-", ["-", ["const", 0], a], ["const", 1]]
    if tag == "shl" and e[2] == 1:
        return ["+", a, a]
    if tag == "*":
        return ["*", b, a]
    return None


def _paths(e: Expr, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    out = [path]
    for i, c in enumerate(e[1:], start=1):
        if isinstance(c, list):
            out += _paths(c, path + (i,))
    return out


def _get(e: Expr, path: tuple[int, ...]) -> Expr:
    for i in path:
        e = e[i]
    return e


def _replace(e: Expr, path: tuple[int, ...], new: Expr) -> Expr:
    if not path:
        return new
    out = list(e)
    out[path[0]] = _replace(e[path[0]], path[1:], new)
    return out


def rewrite(e: Expr, rng: np.random.Generator) -> Expr:
    paths = _paths(e)
    for k in rng.permutation(len(paths)):
        node = _get(e, paths[int(k)])
        new = _rewrite_node(node, rng)
        if new is not None:
            return _replace(e, paths[int(k)], new)
    return e


def mutate(e: Expr, rng: np.random.Generator) -> Expr:
    paths = _paths(e)
    path = paths[int(rng.integers(len(paths)))]
    node = _get(e, path)
    tag = node[0]
    if tag == "const":
        new: Expr = ["const", node[1] + (1 if rng.random() < 0.5 or node[1] == 0 else -1)]
    elif tag == "var":
        new = ["^", node, ["const", 1 << int(rng.integers(0, 4))]]
    elif tag in ("shl", "shr"):
        new = [tag, node[1], node[2] % 3 + 1]
    elif tag == "not":
        new = node[1]
    else:
        swap = {"+": "^", "^": "|", "|": "+", "&": "|", "-": "^", "*": "+"}[tag]
        new = [swap, node[1], node[2]]
    return _replace(e, path, new)


def rare_term(rng: np.random.Generator, names: list[str], width: int, bits: int) -> Expr:
    """A term that is 1 only when ``bits`` chosen input bits are all set (else 0)."""
    chosen: set[tuple[str, int]] = set()
    while len(chosen) < min(bits, len(names) * width):
        chosen.add((names[int(rng.integers(len(names)))], int(rng.integers(0, width))))
    term: Expr | None = None
    for name, bit in sorted(chosen):
        top = ["shl", ["var", name], width - 1 - bit] if bit != width - 1 else ["var", name]
        term = top if term is None else ["&", term, top]
    assert term is not None
    return ["shr", term, width - 1]


def plant(e: Expr, rng: np.random.Generator, extra: Expr) -> Expr:
    """``e`` with one variable leaf v replaced by ``v ^ extra``."""
    leaves = [p for p in _paths(e) if _get(e, p)[0] == "var"]
    path = leaves[int(rng.integers(len(leaves)))]
    return _replace(e, path, ["^", _get(e, path), extra])


def equivalent(
    f: Expr, g: Expr, names: list[str], width: int, minimal: bool = True
) -> tuple[bool | None, dict[str, int] | None]:
    """z3's verdict (None: undecided within the budget), and a counterexample when not equivalent.

    ``minimal``: the lexicographically smallest counterexample (deterministic), else z3's first
    model. Every call gets a fresh z3 context (a few ms): in the shared main context z3's
    behaviour within the resource budget depends on earlier calls in the process, so the same
    pair could be decided in one process and not in another.
    """
    ctx = z3.Context()
    env = {n: z3.BitVec(n, width, ctx) for n in names}
    solver = z3.Solver(ctx=ctx)
    solver.set("rlimit", Z3_RLIMIT)  # a deterministic budget (a wall-clock timeout is not)
    solver.add(to_z3(f, env, width, ctx) != to_z3(g, env, width, ctx))
    result = solver.check()
    if result == z3.unsat:
        return True, None
    if result != z3.sat:
        return None, None
    model = solver.model()
    first = {n: model.eval(env[n], model_completion=True).as_long() for n in names}
    if not minimal:
        return False, first
    # take the lexicographically smallest counterexample (bit by bit from the top)
    values: dict[str, int] = {}
    for n in names:
        value = 0
        for bit in reversed(range(width)):
            solver.push()
            solver.add(z3.Extract(bit, bit, env[n]) == 0)
            check = solver.check()
            solver.pop()
            if check == z3.unknown:
                return False, first  # out of budget while minimising: z3's model is still a counterexample
            if check != z3.sat:
                value |= 1 << bit
            solver.add(z3.Extract(bit, bit, env[n]) == (value >> bit) & 1)
        values[n] = value
    return False, values


def first_difference(
    f: Expr, g: Expr, names: list[str], width: int, rng: np.random.Generator, samples: int = 64
) -> dict[str, int] | None:
    """A differing input found by (seeded) sampling, or None."""
    mask = (1 << width) - 1
    for _ in range(samples):
        env = {n: int(rng.integers(0, mask + 1)) for n in names}
        if evaluate(f, env, mask) != evaluate(g, env, mask):
            return env
    return None


def density(
    f: Expr, g: Expr, names: list[str], width: int, rng: np.random.Generator, samples: int = 512
) -> float:
    """Sampled fraction of inputs on which ``f`` and ``g`` differ."""
    mask = (1 << width) - 1
    differ = 0
    for _ in range(samples):
        env = {n: int(rng.integers(0, mask + 1)) for n in names}
        differ += evaluate(f, env, mask) != evaluate(g, env, mask)
    return differ / samples


def parse_answer(text: str, names: list[str], width: int) -> str | dict[str, int] | None:
    """'equivalent', an input assignment, or None when unreadable."""
    cleaned = text.strip().strip(".").strip()
    if cleaned.lower() in ("equivalent", "equal", "yes, equivalent"):
        return "equivalent"
    found = _ASSIGN.findall(cleaned)
    leftover = _ASSIGN.sub("", cleaned)
    if not found or re.sub(r"[\s,;()]|and", "", leftover):
        return None
    env: dict[str, int] = {}
    for name, value in found:
        if name in env or name not in names:
            return None
        number = int(value, 16) if value.lower().startswith("0x") else int(value)
        if number >= 1 << width:
            return None
        env[name] = number
    return env if set(env) == set(names) else None


def _fmt(env: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in env.items())


@family(
    "program_equivalence",
    domain="code",
    knobs=ProgramEquivalenceKnobs,
    levels=LEVELS,
    description="Decide whether two bitvector programs are equivalent (z3) or give a counterexample (run both).",
    verifier_kind="z3 truth + counterexample evaluation",
    version=2,
)
class ProgramEquivalence(Family):
    def generate(self, knobs: ProgramEquivalenceKnobs, rng: np.random.Generator) -> TaskDraft:
        names = variables(knobs.variables)
        want_equivalent = bool(rng.random() < 0.5)
        for _ in range(500):
            f = draw_expr(rng, knobs.size, names, knobs.width)
            if not {n for n in names} <= set(re.findall(r"[xyz]", render(f))):
                continue  # every input must matter syntactically
            g = f
            if not want_equivalent:
                # a plain mutation, or a difference that needs rare_bits input bits all set
                bits = knobs.rare_bits
                g = mutate(g, rng) if bits == 0 else plant(g, rng, rare_term(rng, names, knobs.width, bits))
            for _ in range(knobs.rewrites):
                g = rewrite(g, rng)
            if g == f:
                continue
            counter = first_difference(f, g, names, knobs.width, rng)
            same = False if counter is not None else None
            if counter is None:
                same, counter = equivalent(f, g, names, knobs.width)
            if same is None or same != want_equivalent:
                continue
            break
        else:
            raise RuntimeError(f"could not draw a pair for {knobs}")
        if rng.random() < 0.5:
            f, g = g, f
        top = (1 << knobs.width) - 1
        example = ", ".join(f"{n}={i + 3}" for i, n in enumerate(names))
        return TaskDraft(
            prompt=PROMPT.format(
                width=knobs.width, args=", ".join(names), f=render(f), g=render(g), example=example, top=top
            ),
            answer="equivalent" if same else _fmt(counter or {}),
            metadata={
                "f": f,
                "g": g,
                "names": names,
                "width": knobs.width,
                "equivalent": same,
                "nodes": count_nodes(f) + count_nodes(g),
                "canonical_hash": content_hash([f, g, knobs.width]),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        extraction = extract_answer(response, allow_bare=True, max_chars=500)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        parsed = parse_answer(extraction.text, meta["names"], meta["width"])
        if parsed is None:
            return Verdict.bad_format(
                f"expected 'equivalent' or {', '.join(n + '=<int>' for n in meta['names'])}"
            )
        if parsed == "equivalent":
            if meta["equivalent"]:
                return Verdict.right(parsed="equivalent")
            return Verdict.wrong("the programs are not equivalent", parsed="equivalent")
        mask = (1 << meta["width"]) - 1
        a, b = evaluate(meta["f"], parsed, mask), evaluate(meta["g"], parsed, mask)
        if a != b:
            return Verdict.right(parsed=_fmt(parsed))
        return Verdict.wrong(f"f and g both give {a} on {_fmt(parsed)}", parsed=_fmt(parsed))

    def solve_exact(self, task: Task) -> SolverRun:
        """z3 on the miter f != g (a fresh context, a deterministic resource budget): a proof of
        equivalence or any counterexample; when z3 is undecided, 4096 seeded random inputs."""
        meta = task.metadata
        same, counter = equivalent(meta["f"], meta["g"], meta["names"], meta["width"], minimal=False)
        if same is None:
            rng = np.random.default_rng(0)
            counter = first_difference(meta["f"], meta["g"], meta["names"], meta["width"], rng, samples=4096)
            same = None if counter is None else False
        if same is None:
            return SolverRun(None, float(meta["nodes"] * meta["width"]))
        answer = "equivalent" if same else _fmt(counter or {})
        # effort: size of the bit-blasted miter (nodes x width)
        return SolverRun(f"<answer>{answer}</answer>", float(meta["nodes"] * meta["width"]))

    def effort(self, task: Task) -> float:
        return float(task.metadata["nodes"] * task.metadata["width"])

    def solve_weak(self, task: Task) -> SolverRun:
        # random testing: report the first differing input, else guess "equivalent"
        meta = task.metadata
        mask = (1 << meta["width"]) - 1
        rng = np.random.default_rng(meta["nodes"])
        for tries in range(1, WEAK_SAMPLES + 1):
            env = {n: int(rng.integers(0, mask + 1)) for n in meta["names"]}
            if evaluate(meta["f"], env, mask) != evaluate(meta["g"], env, mask):
                return SolverRun(f"<answer>{_fmt(env)}</answer>", float(tries))
        return SolverRun("<answer>equivalent</answer>", float(WEAK_SAMPLES))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        mask = (1 << meta["width"]) - 1
        out: list[str] = []
        if not meta["equivalent"]:
            out.append("<answer>equivalent</answer>")
        # inputs on which the two programs agree (wrong counterexamples)
        for _ in range(2000):
            env = {n: int(rng.integers(0, mask + 1)) for n in meta["names"]}
            if evaluate(meta["f"], env, mask) == evaluate(meta["g"], env, mask):
                out.append(f"<answer>{_fmt(env)}</answer>")
            if len(set(out)) >= 3:
                break
        out.append(
            f"<answer>{task.answer}</answer> <answer>{'equivalent' if not meta['equivalent'] else 'x=0'}</answer>"
        )
        out.append(f"<answer>{meta['names'][0]}={mask + 1}</answer>")
        return list(dict.fromkeys(out))
