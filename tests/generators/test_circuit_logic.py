"""circuit_logic: gates re-read from the prompt and evaluated by this file's own recursive
evaluator; satisfaction tasks checked against every one of the 2^n assignments."""

from __future__ import annotations

import itertools
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "circuit_logic"
SPEC = palaestra.get(FAMILY)
IMPL = SPEC.impl
GATE = re.compile(r"^(g\d+) = (AND|OR|XOR|NAND|NOR|NOT)\(([\w, ]+)\)$", re.M)
TRUTH = {
    "AND": lambda a, b: a and b,
    "OR": lambda a, b: a or b,
    "XOR": lambda a, b: a != b,
    "NAND": lambda a, b: not (a and b),
    "NOR": lambda a, b: not (a or b),
}


def circuit(prompt: str) -> dict[str, tuple[str, list[str]]]:
    return {name: (op, args.split(", ")) for name, op, args in GATE.findall(prompt)}


def value(gates: dict, inputs: dict[str, bool], node: str, memo: dict[str, bool]) -> bool:
    if node in inputs:
        return inputs[node]
    if node not in memo:
        op, args = gates[node]
        vals = [value(gates, inputs, a, memo) for a in args]
        memo[node] = (not vals[0]) if op == "NOT" else TRUTH[op](*vals)
    return memo[node]


def input_names(prompt: str) -> list[str]:
    return re.search(r"has inputs ([x\d, ]+)\.", prompt)[1].split(", ")


def check_evaluation(task: palaestra.Task) -> None:
    gates = circuit(task.prompt)
    assignment = dict(
        re.findall(r"(x\d+) = ([01])", re.search(r"^The inputs are (.+)\.$", task.prompt, re.M)[1])
    )
    inputs = {name: bit == "1" for name, bit in assignment.items()}
    asked = re.search(r"What are the values of ([g\d, ]+), in this order", task.prompt)[1].split(", ")
    memo: dict[str, bool] = {}
    expected = "".join("1" if value(gates, inputs, g, memo) else "0" for g in asked)
    assert task.answer == expected, task.prompt
    assert set(memo) == set(gates), "every gate feeds an asked gate"
    assert palaestra.verify(task, f"<answer>{' '.join(expected)}</answer>").correct
    for i in range(len(expected)):
        flipped = expected[:i] + ("0" if expected[i] == "1" else "1") + expected[i + 1 :]
        assert palaestra.verify(task, f"<answer>{flipped}</answer>").status == "wrong"


def check_satisfaction(task: palaestra.Task, level: int) -> None:
    gates, names = circuit(task.prompt), input_names(task.prompt)
    output = re.search(r"that make (g\d+) equal 1", task.prompt)[1]
    satisfying, refusing = [], []
    for bits in itertools.product((False, True), repeat=len(names)):
        text = "".join("1" if b else "0" for b in bits)
        (satisfying if value(gates, dict(zip(names, bits, strict=True)), output, {}) else refusing).append(
            text
        )
    assert satisfying, "the circuit is satisfiable"
    assert len(satisfying) <= SPEC.levels[level].max_fraction * 2 ** len(names)
    assert "0" * len(names) in refusing and "1" * len(names) in refusing
    assert task.answer in satisfying
    for text in satisfying[:: max(1, len(satisfying) // 8)]:
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in refusing[:: max(1, len(refusing) // 8)]:
        assert palaestra.verify(task, f"<answer>{text}</answer>").status == "wrong", text


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answers_agree_with_an_independent_evaluator(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    if SPEC.levels[level].satisfy:
        check_satisfaction(task, level)
    else:
        check_evaluation(task)


def test_shuffled_listing_hides_the_evaluation_order() -> None:
    task = palaestra.make_task(FAMILY, seed=2, level=5)
    names = [name for name, _, _ in GATE.findall(task.prompt)]
    assert names != sorted(names, key=lambda g: int(g[1:]))
    check_evaluation(task)


def test_answer_forms_and_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=4, level=7)
    bits = task.answer
    for text in (f"<answer>{bits}</answer>", f"<answer>{', '.join(bits)}</answer>", f"Answer: {bits}."):
        assert palaestra.verify(task, text).correct, text
    for text in (bits[:-1], bits + "0", bits.replace("1", "2"), "x1 = 1", f"{bits} or {bits}", ""):
        assert palaestra.verify(task, f"<answer>{text}</answer>").status == "unparseable", text


def test_weak_solver_fails_at_higher_levels() -> None:
    def rate(level: int) -> float:
        tasks = [palaestra.make_task(FAMILY, seed=s, level=level) for s in range(50)]
        return sum(palaestra.verify(t, IMPL.solve_weak(t).response).correct for t in tasks) / 50

    assert rate(1) == 1.0 and rate(10) < 0.1


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=10)
    for text in ("1" * 100_000, "1 " * 50_000, "0," * 40_000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
