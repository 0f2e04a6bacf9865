"""Trace a program in a toy instruction set (registers, jumps, a stack) to its final state.

Instructions: ``MOV r, v``, ``ADD/SUB/AND/OR/XOR r, v`` (v a register or a constant; values
wrap modulo 256), ``SHL/SHR r, k``, ``PUSH r``, ``POP r``, ``DEC r``, ``JNZ r, label``,
``JZ r, label``, ``JMP label``, ``HALT``. Loops are counted (``DEC``/``JNZ`` on a register the loop
body never writes), so every program halts. Our own interpreter runs it (no sandbox: nothing
from the response is executed); the answer is every register and the stack, compared exactly.

Weak solver: a hand trace that runs each loop body at most twice per loop entry, then falls
through (exact on loop-free programs; its solve rate falls as loops, trip counts and nesting grow).

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

MAX_STEPS = 20_000
WEAK_LOOP_CAP = 2  # loop iterations the weak hand trace follows per loop entry
_REG = re.compile(r"\b(r\d+)\s*[=:]\s*(-?\d+)")
_STACK = re.compile(r"(?i)\bstack\s*[=:]\s*\[([^\]]*)\]")
ALU = ("ADD", "SUB", "AND", "OR", "XOR")


@dataclass(frozen=True)
class IsaTraceKnobs(Knobs):
    registers: int = knob(2, low=2, high=8, help="number of registers r0..r(n-1)")
    instructions: int = knob(4, low=2, high=60, help="straight-line instructions (besides loop control)")
    loops: int = knob(0, low=0, high=4, help="number of counted loops")
    nesting: int = knob(1, low=1, high=3, help="maximum loop nesting depth")
    max_count: int = knob(3, low=2, high=9, help="largest loop trip count")
    stack: bool = knob(False, help="use PUSH/POP")
    branches: bool = knob(False, help="use forward JZ skips")


LEVELS = {
    1: IsaTraceKnobs(registers=2, instructions=4),
    2: IsaTraceKnobs(registers=2, instructions=5, loops=1, max_count=2),
    3: IsaTraceKnobs(registers=3, instructions=6, loops=1, max_count=3, stack=True),
    4: IsaTraceKnobs(registers=3, instructions=8, loops=1, max_count=4, stack=True, branches=True),
    5: IsaTraceKnobs(registers=4, instructions=9, loops=2, max_count=4, stack=True, branches=True),
    6: IsaTraceKnobs(
        registers=4, instructions=10, loops=2, nesting=2, max_count=4, stack=True, branches=True
    ),
    7: IsaTraceKnobs(
        registers=4, instructions=12, loops=2, nesting=2, max_count=5, stack=True, branches=True
    ),
    8: IsaTraceKnobs(
        registers=5, instructions=14, loops=3, nesting=2, max_count=5, stack=True, branches=True
    ),
    9: IsaTraceKnobs(
        registers=5, instructions=16, loops=3, nesting=3, max_count=6, stack=True, branches=True
    ),
    10: IsaTraceKnobs(
        registers=6, instructions=18, loops=4, nesting=3, max_count=7, stack=True, branches=True
    ),
}

PROMPT = """Run this program for a toy machine with registers {regs} (all start at 0, values are \
bytes: arithmetic wraps modulo 256) and a stack (initially empty).

{listing}

Instructions: MOV r, v sets r to v; ADD/SUB/AND/OR/XOR r, v update r with v (a register or a \
constant); SHL/SHR r, k shift r left/right by k bits; PUSH r pushes r; POP r pops into r; DEC r \
subtracts 1; JNZ r, L jumps to label L if r is not 0; JZ r, L jumps if r is 0; JMP L jumps; \
HALT stops. The program stops at HALT.

Give the final state: every register and the stack from bottom to top, for example \
<answer>{example}</answer>."""


def run(
    program: list[list[Any]], registers: int, max_steps: int = MAX_STEPS, loop_cap: int | None = None
) -> tuple[list[int], list[int], int]:
    """(registers, stack, executed instructions); raises RuntimeError past ``max_steps``.

    ``loop_cap`` (the weak solver's shortcut): a backward jump is taken at most ``loop_cap - 1``
    times per entry into its loop, so no loop body runs more than ``loop_cap`` times in a row.
    """
    labels = {ins[1]: i for i, ins in enumerate(program) if ins[0] == "LABEL"}
    regs, stack, pc, steps = [0] * registers, [], 0, 0
    repeats: dict[int, int] = {}  # backward jump -> times taken since its loop was entered

    def val(v: Any) -> int:
        return regs[int(v[1:])] if isinstance(v, str) else int(v)

    while True:
        op, *args = program[pc]
        pc += 1
        if op == "LABEL":
            continue
        steps += 1
        if steps > max_steps:
            raise RuntimeError("program did not halt")
        if op == "HALT":
            return regs, stack, steps
        r = int(args[0][1:]) if args and isinstance(args[0], str) and args[0].startswith("r") else None
        if op == "MOV":
            regs[r] = val(args[1]) & 255
        elif op in ALU:
            a, b = regs[r], val(args[1])
            regs[r] = {"ADD": a + b, "SUB": a - b, "AND": a & b, "OR": a | b, "XOR": a ^ b}[op] & 255
        elif op == "SHL":
            regs[r] = (regs[r] << args[1]) & 255
        elif op == "SHR":
            regs[r] = regs[r] >> args[1]
        elif op == "DEC":
            regs[r] = (regs[r] - 1) & 255
        elif op == "PUSH":
            stack.append(regs[r])
        elif op == "POP":
            regs[r] = stack.pop()
        elif op == "JMP":
            pc = labels[args[0]]
        elif op == "JNZ" and regs[r] != 0 or op == "JZ" and regs[r] == 0:
            target = labels[args[1]]
            if loop_cap is not None and target < pc:
                if repeats.get(pc, 0) >= loop_cap - 1:
                    repeats[pc] = 0  # leave the loop early; the next entry starts afresh
                    continue
                repeats[pc] = repeats.get(pc, 0) + 1
            pc = target


class _Writer:
    def __init__(self, knobs: IsaTraceKnobs, rng: np.random.Generator) -> None:
        self.k, self.rng = knobs, rng
        self.labels = 0

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels}"

    def reg(self, banned: set[int]) -> str:
        free = [i for i in range(self.k.registers) if i not in banned]
        return f"r{free[int(self.rng.integers(len(free)))]}"

    def simple(self, banned: set[int], depth_stack: int) -> tuple[list[list[Any]], int]:
        """One instruction (or a balanced PUSH ... POP pair), and the stack depth change."""
        roll = self.rng.random()
        target = self.reg(banned)
        if roll < 0.15:
            return [["MOV", target, int(self.rng.integers(0, 20))]], 0
        if roll < 0.7:
            src = self.reg(set()) if self.rng.random() < 0.5 else int(self.rng.integers(1, 16))
            return [[ALU[int(self.rng.integers(len(ALU)))], target, src]], 0
        if roll < 0.8:
            return [["SHL" if self.rng.random() < 0.5 else "SHR", target, int(self.rng.integers(1, 3))]], 0
        if self.k.stack and roll < 0.9:
            return [["PUSH", self.reg(set())]], 1
        if self.k.stack and depth_stack > 0:
            return [["POP", target]], -1
        return [["ADD", target, int(self.rng.integers(1, 9))]], 0

    def block(self, size: int, banned: set[int], depth: int, loops: list[int]) -> list[list[Any]]:
        out: list[list[Any]] = []
        depth_stack = 0
        count = 0
        while count < size:
            if (
                loops[0] > 0
                and depth < self.k.nesting
                and self.rng.random() < 0.35
                and len(banned) + 2 < self.k.registers
            ):
                loops[0] -= 1
                counter = int(self.reg(banned)[1:])
                top = self.label()
                inner = max(1, int(self.rng.integers(1, 4)))
                count += inner
                body = self.block(inner, banned | {counter}, depth + 1, loops)
                trips = int(self.rng.integers(2, self.k.max_count + 1))
                out += [
                    ["MOV", f"r{counter}", trips],
                    ["LABEL", top],
                    *body,
                    ["DEC", f"r{counter}"],
                    ["JNZ", f"r{counter}", top],
                ]
                continue
            if self.k.branches and self.rng.random() < 0.15:
                skip = self.label()
                items, delta = self.simple(banned, 0)
                if delta != 0:
                    continue
                out += [["JZ", self.reg(set()), skip], *items, ["LABEL", skip]]
                count += 1
                continue
            items, delta = self.simple(banned, depth_stack)
            depth_stack += delta
            out += items
            count += 1
        # pop what this block pushed, so loops keep the stack bounded
        while depth_stack > 0 and depth > 0:
            out.append(["POP", self.reg(banned)])
            depth_stack -= 1
        return out


def draw_program(knobs: IsaTraceKnobs, rng: np.random.Generator) -> list[list[Any]]:
    writer = _Writer(knobs, rng)
    loops = [knobs.loops]
    body = writer.block(knobs.instructions, set(), 0, loops)
    return body + [["HALT"]]


def render_listing(program: list[list[Any]]) -> str:
    lines = []
    for ins in program:
        if ins[0] == "LABEL":
            lines.append(f"{ins[1]}:")
        else:
            args = ", ".join(str(a) for a in ins[1:])
            lines.append(f"    {ins[0]} {args}".rstrip())
    return "\n".join(lines)


def format_state(regs: list[int], stack: list[int]) -> str:
    return ", ".join(f"r{i}={v}" for i, v in enumerate(regs)) + f"; stack=[{', '.join(map(str, stack))}]"


def parse_state(text: str, registers: int) -> tuple[list[int], list[int]] | str:
    found = _REG.findall(text)
    names = [n for n, _ in found]
    if sorted(names) != sorted(f"r{i}" for i in range(registers)) or len(set(names)) != len(names):
        return f"give each of r0..r{registers - 1} exactly once"
    stack_match = _STACK.findall(text)
    if len(stack_match) != 1:
        return "give the stack once as stack=[...]"
    rest = _STACK.sub("", _REG.sub("", text))
    if re.sub(r"[\s,;]", "", rest):
        return "unexpected text in the state"
    items = [s.strip() for s in stack_match[0].split(",") if s.strip()]
    if not all(re.fullmatch(r"-?\d{1,6}", s) for s in items) or any(len(v) > 6 for _, v in found):
        return "stack entries must be integers"
    regs = [0] * registers
    for name, value in found:
        regs[int(name[1:])] = int(value)
    return regs, [int(s) for s in items]


@family(
    "isa_trace",
    domain="code",
    knobs=IsaTraceKnobs,
    levels=LEVELS,
    description="Trace a toy register/stack machine program (loops, jumps, PUSH/POP) to its final state.",
    verifier_kind="exact state (own interpreter)",
)
class IsaTrace(Family):
    def generate(self, knobs: IsaTraceKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            program = draw_program(knobs, rng)
            regs, stack, steps = run(program, knobs.registers)
            if any(regs):  # an all-zero final state is a trivial guess
                break
        else:
            raise RuntimeError(f"could not draw a program for {knobs}")
        example = format_state(list(range(3, 3 + knobs.registers)), [7, 1])
        return TaskDraft(
            prompt=PROMPT.format(
                regs=", ".join(f"r{i}" for i in range(knobs.registers)),
                listing=render_listing(program),
                example=example,
            ),
            answer=format_state(regs, stack),
            metadata={
                "program": program,
                "registers": knobs.registers,
                "final_registers": regs,
                "final_stack": stack,
                "steps": steps,
                "canonical_hash": content_hash(program),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        parsed = parse_state(extraction.text, task.metadata["registers"])
        if isinstance(parsed, str):
            return Verdict.bad_format(parsed)
        regs, stack = parsed
        shown = format_state(regs, stack)
        if regs == task.metadata["final_registers"] and stack == task.metadata["final_stack"]:
            return Verdict.right(parsed=shown)
        return Verdict.wrong("that is not the final state", parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        regs, stack, steps = run(task.metadata["program"], task.metadata["registers"])
        return SolverRun(f"<answer>{format_state(regs, stack)}</answer>", float(steps))

    def solve_weak(self, task: Task) -> SolverRun:
        """A hand trace that runs each loop body at most WEAK_LOOP_CAP times per entry and then
        falls through, as if the pattern were clear by then; exact on loop-free programs, wrong
        whenever a loop's later iterations still change the state."""
        meta = task.metadata
        regs, stack, steps = run(meta["program"], meta["registers"], loop_cap=WEAK_LOOP_CAP)
        return SolverRun(f"<answer>{format_state(regs, stack)}</answer>", float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        regs, stack = task.metadata["final_registers"], task.metadata["final_stack"]
        bumped = list(regs)
        bumped[int(rng.integers(len(regs)))] += 1
        out = [
            format_state(bumped, stack),
            format_state(regs, stack + [0]),
            format_state(regs[::-1] if regs != regs[::-1] else [r + 2 for r in regs], stack),
        ]
        if stack:
            out.append(format_state(regs, stack[::-1] if stack != stack[::-1] else stack[:-1]))
        out.append(format_state([0] * len(regs), []))
        return [f"<answer>{s}</answer>" for s in dict.fromkeys(out) if s != task.answer]
