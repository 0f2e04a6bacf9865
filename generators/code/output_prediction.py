"""Predict what a generated Python program prints.

The program is ours (statement templates in ``_programs``: assignments, ``if``/``else``,
bounded nested loops, a list and a dict, an optional recursive helper), so the reference output
is computed by running it in-process with a line counter (the effort). The answer is compared
by value and type: it is parsed with our restricted literal parser (``_literal``), so
``(1, [2, 3])``, ``(1,[2,3])`` and ``( 1 , [ 2 , 3 ] )`` are the same answer, while a list for a
tuple, ``True`` for ``1``, ``1.0`` for ``1``, ``'1'`` for ``1`` or any other value is wrong
(``_literal.same_value``). Nothing from the response is executed.

Weak solver: a mental trace that takes every ``for`` loop once per entry (the program with each
loop cut to its first iteration, run in-process); right on loop-free programs, and its solve rate
falls as loops, nesting and executed lines grow.

Generation: about 1100 tasks/s at level 5 (CPU time, one core; rejection of programs whose values grow
past 10**6 or whose printed output passes 200 characters).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._programs import ProgramSpec, draw_program, trace_run
from .literals import LiteralError, parse_literal, same_value, to_json

MAX_ABS = 10**6
MAX_OUTPUT_CHARS = 200
WEAK_LOOP_CAP = 1  # iterations per loop entry the weak "mental trace" follows (it takes each loop once)


@dataclass(frozen=True)
class OutputPredictionKnobs(Knobs):
    statements: int = knob(3, low=1, high=40, help="number of statements in f (including nested ones)")
    loop_depth: int = knob(0, low=0, high=3, help="maximum nesting depth of for loops")
    data_structures: bool = knob(False, help="f takes a list and uses a list and a dict")
    recursion: bool = knob(False, help="a recursive helper g is called from f")
    min_steps: int = knob(0, low=0, high=10_000, help="reject programs executing fewer lines than this")


LEVELS = {
    1: OutputPredictionKnobs(statements=3),
    2: OutputPredictionKnobs(statements=4, loop_depth=1, min_steps=6),
    3: OutputPredictionKnobs(statements=5, loop_depth=1, data_structures=True, min_steps=10),
    4: OutputPredictionKnobs(statements=6, loop_depth=1, data_structures=True, min_steps=15),
    5: OutputPredictionKnobs(statements=7, loop_depth=2, data_structures=True, min_steps=25),
    6: OutputPredictionKnobs(statements=8, loop_depth=2, data_structures=True, recursion=True, min_steps=35),
    7: OutputPredictionKnobs(statements=9, loop_depth=2, data_structures=True, recursion=True, min_steps=50),
    8: OutputPredictionKnobs(statements=11, loop_depth=3, data_structures=True, recursion=True, min_steps=70),
    9: OutputPredictionKnobs(statements=13, loop_depth=3, data_structures=True, recursion=True, min_steps=90),
    10: OutputPredictionKnobs(
        statements=15, loop_depth=3, data_structures=True, recursion=True, min_steps=120
    ),
}

PROMPT = """What does this Python 3 program print?

```python
{source}
print(f({arg!r}))
```

Give exactly the printed value as a Python literal, for example <answer>(3, [1, -2], {{0: 5}})</answer>.
Spacing does not matter; the value must match exactly (a list is not a tuple)."""


def _small(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return abs(value) <= MAX_ABS
    if isinstance(value, (list, tuple)):
        return all(_small(v) for v in value)
    if isinstance(value, dict):
        return all(_small(k) and _small(v) for k, v in value.items())
    return False


def draw_task(knobs: OutputPredictionKnobs, rng: np.random.Generator) -> tuple[str, Any, Any, int]:
    """(source, argument, result, executed lines) of an acceptable program."""
    spec = ProgramSpec(knobs.statements, knobs.loop_depth, knobs.data_structures, knobs.recursion)
    for _ in range(2000):
        source, arg = draw_program(spec, rng)
        try:
            result, steps = trace_run(source, arg)
        except RuntimeError:
            continue
        if steps >= knobs.min_steps and _small(result) and len(repr(result)) <= MAX_OUTPUT_CHARS:
            return source, arg, result, steps
    raise RuntimeError(f"could not draw a program for {knobs}")


class _CapLoops(ast.NodeTransformer):
    def visit_For(self, node: ast.For) -> ast.For:
        self.generic_visit(node)
        # ``for v in it[:cap]`` (ranges and lists both slice), on OUR generated source only
        node.iter = ast.Subscript(
            value=node.iter, slice=ast.Slice(upper=ast.Constant(WEAK_LOOP_CAP)), ctx=ast.Load()
        )
        return node


def capped_loops(source: str) -> str:
    """``source`` with every for loop cut to its first WEAK_LOOP_CAP iterations."""
    return ast.unparse(ast.fix_missing_locations(_CapLoops().visit(ast.parse(source))))


def parse_answer(text: str) -> Any:
    """The literal in ``text`` (a leading ``>>>``-free printed value), or raise LiteralError."""
    return parse_literal(text.strip().strip("`").strip(), floats=True)


@family(
    "output_prediction",
    domain="code",
    knobs=OutputPredictionKnobs,
    levels=LEVELS,
    description="Predict the printed output of a generated Python program (loops, lists, dicts, recursion).",
    verifier_kind="exact value (restricted literal parser)",
)
class OutputPrediction(Family):
    def generate(self, knobs: OutputPredictionKnobs, rng: np.random.Generator) -> TaskDraft:
        source, arg, result, steps = draw_task(knobs, rng)
        return TaskDraft(
            prompt=PROMPT.format(source=source.rstrip(), arg=arg),
            answer=repr(result),
            metadata={
                "source": source,
                "argument": arg,
                "output": to_json(result),
                "steps": steps,
                "canonical_hash": content_hash([source, arg]),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("output",), allow_bare=True, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        try:
            value = parse_answer(extraction.text)
        except LiteralError as exc:
            return Verdict.bad_format(f"not a Python literal: {exc}")
        parsed = repr(value)
        try:
            # typed comparison: True is not 1, a list is not a tuple
            matches = same_value(to_json(value), task.metadata["output"])
        except LiteralError:
            matches = False  # a float: these programs print integers only
        if matches:
            return Verdict.right(parsed=parsed)
        return Verdict.wrong(f"{parsed[:80]} is not what the program prints", parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        # re-run the (trusted, generated) program; effort = executed lines
        result, steps = trace_run(task.metadata["source"], task.metadata["argument"])
        return SolverRun(f"<answer>{result!r}</answer>", float(steps))

    def solve_weak(self, task: Task) -> SolverRun:
        """A mental trace that follows each for loop for at most WEAK_LOOP_CAP iterations per entry
        (as if the pattern were clear by then) and is otherwise exact: right on loop-free programs,
        wrong whenever later iterations still change what is printed."""
        try:
            result, steps = trace_run(capped_loops(task.metadata["source"]), task.metadata["argument"])
        except RuntimeError:
            return SolverRun(None, 0.0)  # the shortened trace hit an error: the weak solver gives up
        return SolverRun(f"<answer>{result!r}</answer>", float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = parse_literal(task.answer)
        wrong = [_bump(value, 1), _bump(value, -1), [value], _retype(value)]
        out = [
            f"<answer>{w!r}</answer>" for w in wrong if not same_value(to_json(w), task.metadata["output"])
        ]
        out.append(f"<answer>{task.answer}</answer> <answer>{_bump(value, 1)!r}</answer>")
        return list(dict.fromkeys(out))


def _bump(value: Any, delta: int) -> Any:
    """``value`` with its first integer changed by ``delta`` (or an extra element)."""
    if isinstance(value, bool) or value is None:
        return delta
    if isinstance(value, int):
        return value + delta
    if isinstance(value, (list, tuple)):
        items = list(value)
        for i, item in enumerate(items):
            changed = _bump(item, delta)
            if not same_value(changed, item):
                items[i] = changed
                break
        else:
            items.append(delta)
        return type(value)(items)
    if isinstance(value, dict):
        out = dict(value)
        out[max([k for k in out if isinstance(k, int)] or [0]) + 1] = delta
        return out
    return value


def _retype(value: Any) -> Any:
    """Same contents, wrong container (tuple <-> list), or the value as a string."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, list):
        return tuple(value)
    return str(value)
