"""isa_trace: final state cross-checked by an independent interpreter; exact comparison."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code.isa_trace import parse_state


def _interpret(listing: str, registers: int) -> tuple[list[int], list[int]]:
    """A second interpreter that reads the prompt's listing text (not our JSON program)."""
    lines = [ln.strip() for ln in listing.strip().splitlines()]
    labels = {ln[:-1]: i for i, ln in enumerate(lines) if ln.endswith(":")}
    regs = {f"r{i}": 0 for i in range(registers)}
    stack: list[int] = []
    pc = 0
    for _ in range(100_000):
        line = lines[pc]
        pc += 1
        if line.endswith(":"):
            continue
        op, _, rest = line.partition(" ")
        args = [a.strip() for a in rest.split(",")] if rest else []
        get = lambda a: regs[a] if a in regs else int(a)  # noqa: E731
        if op == "HALT":
            return [regs[f"r{i}"] for i in range(registers)], stack
        if op in ("JMP",):
            pc = labels[args[0]]
        elif op in ("JZ", "JNZ"):
            if (regs[args[0]] == 0) == (op == "JZ"):
                pc = labels[args[1]]
        elif op == "PUSH":
            stack.append(regs[args[0]])
        elif op == "POP":
            regs[args[0]] = stack.pop()
        elif op == "DEC":
            regs[args[0]] = (regs[args[0]] + 255) % 256
        else:
            a, b = regs[args[0]], get(args[1])
            table = {
                "MOV": b,
                "ADD": a + b,
                "SUB": a - b,
                "AND": a & b,
                "OR": a | b,
                "XOR": a ^ b,
                "SHL": a << b,
                "SHR": a >> b,
            }
            regs[args[0]] = table[op] % 256
    raise AssertionError("did not halt")


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_answer_matches_an_independent_interpreter(seed: int, level: int) -> None:
    task = palaestra.make_task("isa_trace", seed=seed, level=level)
    listing = task.prompt.split("stack (initially empty).\n\n")[1].split("\n\nInstructions:")[0]
    regs, stack = _interpret(listing, task.metadata["registers"])
    assert (regs, stack) == (task.metadata["final_registers"], task.metadata["final_stack"])


def test_formats_and_wrong_states() -> None:
    task = palaestra.make_task("isa_trace", seed=2, level=5)
    regs, stack = task.metadata["final_registers"], task.metadata["final_stack"]
    reordered = (
        "stack=["
        + ", ".join(map(str, stack))
        + "]; "
        + ", ".join(f"r{i}: {v}" for i, v in reversed(list(enumerate(regs))))
    )
    for ok in (
        f"<answer>{task.answer}</answer>",
        f"<answer>{reordered}</answer>",
        f"\\boxed{{{task.answer}}}",
    ):
        assert palaestra.verify(task, ok).correct, ok
    wrong = [
        [*regs[:-1], regs[-1] + 1],
        [regs[0] + 256, *regs[1:]],  # no wrap-around leniency
        [0] * len(regs),
    ]
    for w in wrong:
        text = ", ".join(f"r{i}={v}" for i, v in enumerate(w)) + f"; stack={stack}"
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct
    assert not palaestra.verify(
        task, f"<answer>{task.answer.split(';')[0]}; stack={stack + [1]}</answer>"
    ).correct
    assert isinstance(parse_state("r0=1; stack=[]", len(regs)), str)  # missing registers
    assert isinstance(parse_state(task.answer + " r0=1", len(regs)), str)  # a register twice


def test_levels_get_harder() -> None:
    impl = palaestra.registry.get("isa_trace").impl
    weak, steps = [], []
    for level in (1, 5, 10):
        tasks = [palaestra.make_task("isa_trace", seed=s, level=level) for s in range(40)]
        weak.append(sum(palaestra.verify(t, impl.solve_weak(t).response).correct for t in tasks))
        steps.append(sum(t.metadata["steps"] for t in tasks))
    assert weak[0] > weak[1] > weak[2] and steps[0] < steps[1] < steps[2]
