"""Boolean circuits: evaluate one on given inputs, or (levels 6-10) find inputs that make it 1.

A random circuit of two-input gates (AND, OR, XOR, NAND, NOR) and NOT over inputs x1..xn,
every gate feeding a later gate or an output. Evaluation tasks give the inputs and ask for the
values of 2 to 4 named gates (a string of bits, so a guess is right with probability at most
1/4); the value is a function of the circuit, so it is unique. Satisfaction tasks ask for any
input assignment that makes the output gate 1: the verifier evaluates the circuit on the
submitted bits, so every satisfying assignment is accepted. The generator counts the
satisfying assignments exhaustively (all 2^n inputs at once, with numpy) and keeps circuits
with at least one and at most a stated fraction of them, and that neither constant input
(all zeros, all ones) satisfies. The tests re-read the gates from the prompt and evaluate them
with their own code, enumerating every assignment for the satisfaction tasks.

Difficulty: more inputs and gates, more gate types, from level 3 gate names that do not follow
the evaluation order and gates listed in a shuffled order, more outputs, then satisfaction
with a shrinking fraction of satisfying assignments. The exact solver's effort is the gate
evaluations it performs (for satisfaction: enumerating assignments in order until the first
satisfying one). The weak solver evaluates the gates once in the listed order, taking 0 for
any gate not computed yet (right only while the listing follows the evaluation order), and for
satisfaction tries one random assignment.

Generation: ~1,200 tasks per CPU-second at level 5 and ~550 at level 10 (truth tables of
every gate over all 2^n inputs, a part redrawn until none is constant).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob, make_rng
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

OPS = ("AND", "OR", "NOT", "XOR", "NAND", "NOR")
MAX_ANSWER_CHARS = 400
WEAK_TRIES = 1


@dataclass(frozen=True)
class CircuitLogicKnobs(Knobs):
    inputs: int = knob(3, low=2, high=16, help="input variables x1..xn")
    gates: int = knob(4, low=2, high=60, help="gates in the circuit")
    ops: int = knob(3, low=3, high=len(OPS), help=f"gate types used, in order {OPS}")
    outputs: int = knob(2, low=1, high=6, help="gates whose values are asked (evaluation)")
    shuffled: bool = knob(False, help="gate names and listing order do not follow the evaluation order")
    satisfy: bool = knob(False, help="ask for inputs making the output 1 instead of evaluating")
    parts: int = knob(1, low=1, high=8, help="satisfaction: sub-circuits over disjoint inputs, joined by AND")
    max_fraction: float = knob(
        0.25, low=0.0, high=1.0, help="satisfaction: most fraction of assignments that satisfy"
    )


LEVELS = {
    1: CircuitLogicKnobs(inputs=3, gates=4, ops=3, outputs=2),
    2: CircuitLogicKnobs(inputs=4, gates=6, ops=4, outputs=3),
    3: CircuitLogicKnobs(inputs=5, gates=9, ops=6, outputs=3, shuffled=True),
    4: CircuitLogicKnobs(inputs=6, gates=12, ops=6, outputs=4, shuffled=True),
    5: CircuitLogicKnobs(inputs=7, gates=16, ops=6, outputs=4, shuffled=True),
    6: CircuitLogicKnobs(inputs=6, gates=12, ops=6, shuffled=True, satisfy=True, parts=2, max_fraction=1 / 4),
    7: CircuitLogicKnobs(inputs=8, gates=16, ops=6, shuffled=True, satisfy=True, parts=3, max_fraction=1 / 8),
    8: CircuitLogicKnobs(
        inputs=10, gates=20, ops=6, shuffled=True, satisfy=True, parts=4, max_fraction=1 / 16
    ),
    9: CircuitLogicKnobs(
        inputs=11, gates=25, ops=6, shuffled=True, satisfy=True, parts=5, max_fraction=1 / 32
    ),
    10: CircuitLogicKnobs(
        inputs=12, gates=30, ops=6, shuffled=True, satisfy=True, parts=6, max_fraction=1 / 64
    ),
}

# A gate is (op, args) where args index nodes: 0..n-1 are inputs, n + i is gate i.
Gate = tuple[str, tuple[int, ...]]


def apply(op: str, args: list) -> object:
    """One gate on bits or numpy bool arrays."""
    if op == "NOT":
        return ~args[0] if isinstance(args[0], np.ndarray) else 1 - args[0]
    a, b = args
    value = {"AND": a & b, "OR": a | b, "XOR": a ^ b, "NAND": a & b, "NOR": a | b}[op]
    if op in ("NAND", "NOR"):
        return ~value if isinstance(value, np.ndarray) else 1 - value
    return value


def evaluate(gates: list[Gate], bits: list[int]) -> list[int]:
    """Every node's value (inputs then gates) in evaluation order."""
    values = list(bits)
    for op, args in gates:
        values.append(int(apply(op, [values[a] for a in args])))
    return values


def truth_tables(gates: list[Gate], n: int, with_inputs: bool = False) -> list[np.ndarray]:
    """Every gate's value for every assignment, assignment k having x_(i+1) = bit i of k counted
    from the most significant (so index order is lexicographic order of x1..xn)."""
    k = np.arange(2**n)
    values = [((k >> (n - 1 - i)) & 1).astype(bool) for i in range(n)]
    for op, args in gates:
        values.append(apply(op, [values[a] for a in args]))
    return values if with_inputs else values[n:]


def grow(
    gates: list[Gate], n: int, pool: list[int], size: int, outputs: int, ops: int, rng: np.random.Generator
) -> list[int] | None:
    """Append ``size`` gates over the nodes of ``pool`` and each other, every node used by a
    later gate except the last ``outputs`` gates, which are returned (None: the draw failed).

    Arguments come from the not-yet-used nodes first, and only from them once the gates left
    are just enough to use them all up."""
    available, unused = list(pool), list(pool)
    for i in range(size):
        node = n + len(gates)
        forced = len(unused) - outputs >= size - i - 1
        op = OPS[int(rng.integers(ops))]

        def pick(prefer_unused: bool, exclude: int = -1) -> int:
            choices = [u for u in unused if u != exclude] if prefer_unused else []
            if not choices and rng.random() < 0.6:
                choices = [a for a in available[-6:] if a != exclude]
            choices = choices or [a for a in available if a != exclude]
            chosen = choices[int(rng.integers(len(choices)))]
            if chosen in unused:
                unused.remove(chosen)
            return chosen

        first = pick(forced or rng.random() < 0.8)
        if op == "NOT" and (forced or (first >= n and gates[first - n][0] == "NOT")):
            op = "AND"  # never NOT(NOT(...)); a forced gate must use up two nodes
        args = (first,) if op == "NOT" else (first, pick(forced or rng.random() < 0.4, first))
        gates.append((op, args))
        available.append(node)
        unused.append(node)
    last = list(range(n + len(gates) - outputs, n + len(gates)))
    return last if set(unused) <= set(last) else None


def draw_circuit(knobs: CircuitLogicKnobs, rng: np.random.Generator) -> list[Gate] | None:
    """Evaluation: one random circuit over every input. Satisfaction: ``parts`` random
    sub-circuits over a partition of the inputs, joined by AND gates, so that the satisfying
    fraction is at most 2^-parts (each part is true on at most half of its inputs, and no
    gate is constant)."""
    n, gates = knobs.inputs, []
    if not knobs.satisfy:
        return gates if grow(gates, n, list(range(n)), knobs.gates, knobs.outputs, knobs.ops, rng) else None
    order = [int(i) for i in rng.permutation(n)]
    sizes = [2] * knobs.parts  # every part has two inputs or more
    for _ in range(n - 2 * knobs.parts):
        sizes[int(rng.integers(knobs.parts))] += 1
    ends = np.cumsum(sizes).tolist()
    groups = [order[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    size = (knobs.gates - (knobs.parts - 1)) // knobs.parts
    values, tops = truth_tables([], n, with_inputs=True), []
    for group in groups:
        for _ in range(50):  # redraw a part until no gate is constant and it is true at most half the time
            del gates[len(values) - n :]
            top = grow(gates, n, group, max(size, len(group)), 1, knobs.ops, rng)
            if top is None:
                continue
            extended = list(values)
            for op, args in gates[len(values) - n :]:
                extended.append(apply(op, [extended[a] for a in args]))
            part = extended[len(values) :]
            if all(t.any() and not t.all() for t in part) and part[-1].mean() <= 0.5:
                values = extended
                tops.extend(top)
                break
        else:
            return None
    while len(tops) > 1:  # join the parts' outputs pairwise by AND, in a random order
        a = tops.pop(int(rng.integers(len(tops))))
        b = tops.pop(int(rng.integers(len(tops))))
        gates.append(("AND", (a, b)))
        tops.append(n + len(gates) - 1)
    return gates


def one_pass(gates: list[Gate], order: list[int], n: int, bits: list[int]) -> list[int]:
    """The weak reading: gates evaluated once in the listed order, a gate not computed yet as 0."""
    values = list(bits) + [0] * len(gates)
    for i in order:
        op, args = gates[i]
        values[n + i] = int(apply(op, [values[a] for a in args]))
    return values


def read_bits(text: str, count: int) -> list[int] | None:
    """``count`` bits written as digits 0/1, optionally separated by spaces or commas."""
    text = text.strip().rstrip(".")
    if len(text) > MAX_ANSWER_CHARS or not re.fullmatch(r"[01](?:[\s,]*[01])*", text):
        return None
    bits = [int(c) for c in text if c in "01"]
    return bits if len(bits) == count else None


INTRO = """A Boolean circuit has inputs {inputs}. Each gate is AND, OR, XOR, NAND or NOR of two \
values, or NOT of one (values are 0 or 1):
{gates}
"""
EVALUATE = """
The inputs are {assignment}.

What are the values of {asked}, in this order? Answer with {k} digits (each 0 or 1), e.g. \
<answer>{example}</answer> would mean {example_meaning}."""
SATISFY = """
Find values of {inputs} that make {output} equal 1. Any assignment that does is accepted. \
Answer with {n} digits (each 0 or 1): the values of x1 to x{n} in order, e.g. \
<answer>{example}</answer> would mean {example_meaning}."""


@family(
    "circuit_logic",
    domain="reasoning",
    knobs=CircuitLogicKnobs,
    levels=LEVELS,
    description="Evaluate a Boolean circuit on given inputs, or find inputs that make its output 1 (any such input accepted).",
    verifier_kind="exact bits (evaluation) / circuit evaluation of the submitted inputs (satisfaction)",
)
class CircuitLogic(Family):
    def generate(self, knobs: CircuitLogicKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.inputs
        for _ in range(5000):
            gates = draw_circuit(knobs, rng)
            if gates is None:
                continue
            tables = truth_tables(gates, n)
            if any(t.all() or not t.any() for t in tables):
                continue  # a constant gate (such as AND(x, NOT x)) is a degenerate part
            if not knobs.satisfy:
                bits = [int(b) for b in rng.integers(0, 2, size=n)]
                break
            table = tables[-1]
            count = int(table.sum())
            if 0 < count <= knobs.max_fraction * 2**n and not table[0] and not table[-1]:
                break
        else:  # pragma: no cover - a suitable circuit is drawn within a few hundred tries
            raise RuntimeError(f"no suitable circuit for {knobs}")
        m = len(gates)
        labels = [int(i) for i in rng.permutation(m)] if knobs.shuffled else list(range(m))
        order = [int(i) for i in rng.permutation(m)] if knobs.shuffled else list(range(m))
        names = [f"x{i + 1}" for i in range(n)] + [f"g{label + 1}" for label in labels]
        lines = [f"{names[n + i]} = {gates[i][0]}({', '.join(names[a] for a in gates[i][1])})" for i in order]
        inputs = ", ".join(names[:n])
        prompt = INTRO.format(inputs=inputs, gates="\n".join(lines))
        structure = [n, gates, knobs.satisfy]
        if knobs.satisfy:
            first = int(np.argmax(table))
            answer = "".join(str(first >> (n - 1 - i) & 1) for i in range(n))
            example = "1" + "0" * (n - 1)
            prompt += SATISFY.format(
                inputs=inputs,
                output=names[-1],
                n=n,
                example=example,
                example_meaning="x1 = 1 and every other input 0",
            )
            metadata = {"mode": "satisfy", "effort": (first + 1) * m, "satisfying": count}
        else:
            asked = list(range(m - knobs.outputs, m))
            values = evaluate(gates, bits)
            answer = "".join(str(values[n + g]) for g in asked)
            weak_values = one_pass(gates, order, n, bits)
            metadata = {
                "mode": "evaluate",
                "effort": m,
                "weak": "".join(str(weak_values[n + g]) for g in asked),
            }
            example = "1" + "0" * (knobs.outputs - 1)
            prompt += EVALUATE.format(
                assignment=", ".join(f"{names[i]} = {b}" for i, b in enumerate(bits)),
                asked=", ".join(names[n + g] for g in asked),
                k=knobs.outputs,
                example=example,
                example_meaning=f"{names[n + asked[0]]} = 1 and the others 0",
            )
            structure.append(bits)
        metadata |= {
            "inputs": n,
            "gates": [[op, list(args)] for op, args in gates],
            "names": names,
            "canonical_hash": content_hash(structure),
        }
        return TaskDraft(prompt=prompt, answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True, max_chars=MAX_ANSWER_CHARS, one_line=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        bits = read_bits(extraction.text, len(task.answer))
        if bits is None:
            return Verdict.bad_format(f"expected {len(task.answer)} digits 0/1, got {extraction.text[:40]!r}")
        shown = "".join(map(str, bits))
        if task.metadata["mode"] == "evaluate":
            if shown == task.answer:
                return Verdict.right(parsed=shown)
            return Verdict.wrong(f"{shown} are not the gates' values", parsed=shown)
        gates = [(op, tuple(args)) for op, args in task.metadata["gates"]]
        if evaluate(gates, bits)[-1] == 1:
            return Verdict.right(parsed=shown)
        return Verdict.wrong(f"the output is 0 on {shown}", parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        """Evaluation in order; satisfaction by enumerating assignments (effort = gate evaluations)."""
        return SolverRun(f"<answer>{task.answer}</answer>", float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """Evaluation: one pass in the listed order. Satisfaction: a random assignment."""
        if task.metadata["mode"] == "evaluate":
            return SolverRun(f"<answer>{task.metadata['weak']}</answer>", float(len(task.metadata["gates"])))
        n, rng = task.metadata["inputs"], make_rng("circuit_logic-weak", 1, 0, task.id)
        gates = [(op, tuple(args)) for op, args in task.metadata["gates"]]
        for _ in range(WEAK_TRIES):
            bits = [int(b) for b in rng.integers(0, 2, size=n)]
            if evaluate(gates, bits)[-1] == 1:
                break
        return SolverRun(f"<answer>{''.join(map(str, bits))}</answer>", float(WEAK_TRIES * len(gates)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        if task.metadata["mode"] == "evaluate":
            flips = [
                task.answer[:i] + str(1 - int(task.answer[i])) + task.answer[i + 1 :]
                for i in range(len(task.answer))
            ]
            wrong = [*flips, "".join("1" if c == "0" else "0" for c in task.answer), task.answer[::-1]]
            return [f"<answer>{w}</answer>" for w in dict.fromkeys(wrong) if w != task.answer][:4] + [
                f"<answer>{task.answer}0</answer>"
            ]
        n = task.metadata["inputs"]
        gates = [(op, tuple(args)) for op, args in task.metadata["gates"]]
        wrong = []
        for i in range(n):  # near misses: one input flipped, where that breaks the output
            flipped = task.answer[:i] + str(1 - int(task.answer[i])) + task.answer[i + 1 :]
            if evaluate(gates, [int(c) for c in flipped])[-1] == 0:
                wrong.append(flipped)
        wrong += ["0" * n, "1" * n]
        return [f"<answer>{w}</answer>" for w in wrong[:4]] + [f"<answer>{task.answer[:-1]}</answer>"]
