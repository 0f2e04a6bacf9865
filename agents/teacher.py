"""Teachers: who writes the SFT demonstrations.

RLVR pays where demonstrations are imperfect and the verifier is exact. With correct, complete
demonstrations and a unique answer, RL has nothing to add that more SFT does not. The realistic
setting is a *weak teacher*: demonstrations distilled from a model that makes systematic errors.
:class:`Teacher` writes them, and names the subset of problems where it errs so that evaluation
can report accuracy on exactly that subset.

Each demonstration is a worked line and the answer: the expression restated, then folded left to
right one operation at a time (``3 + 8 - 9 = 11 - 9 = 2``, then ``<answer>2</answer>``). Every
step is one small operation on adjacent tokens, so a held-out problem is a new composition of
steps the model has seen, and a small model learns it (one line ``47 - 85 = -38`` for two-digit
operands stayed at 0-2% accuracy after 400 SFT steps). Families other than ``expression`` get
their generator's reference response.

Error types (for ``expression`` over integers; a demonstration errs with probability ``rate``).
The teacher's working is right; it errs when it writes the final answer down:

- ``sign``: a negative result loses its minus sign (``... = -6`` then ``<answer>6</answer>``);
- ``carry``: a result with more digits than the largest operand loses its leading digit, the final
  carry (``... = 14`` then ``<answer>4</answer>``).

(Errors inside the worked steps, ``14 + 2 = 6``, made SFT itself fail: the 1M-parameter model then
read every two-digit step as a guess and stayed at 4-9% accuracy after 800 steps where the exact
teacher's demonstrations reached 32%. An error in the final answer keeps the working learnable and
is exactly what an exact verifier sees and SFT on more of the same demonstrations cannot fix.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from palaestra.core import Task

ERROR_TYPES = ("sign", "carry")


def _operand_digits(expression: str) -> int:
    """Digits of the largest integer operand in an expression such as ``85 - 46 - 22``."""
    numbers = [tok.strip("()-") for tok in expression.split()]
    return max((len(n) for n in numbers if n.isdigit()), default=0)


def worked_steps(expression: str, answer: str) -> str:
    """``3 + 8 - 9`` -> ``3 + 8 - 9 = 11 - 9 = 2`` for flat chains of three or more whole numbers
    joined by ``+``/``-``; any other expression -> ``expression = answer``."""
    parts = expression.split()
    numbers, ops = parts[0::2], parts[1::2]
    if len(parts) < 5 or not all(n.isdigit() for n in numbers) or not set(ops) <= {"+", "-"}:
        return f"{expression} = {answer}"
    value = int(numbers[0])
    steps = [expression]
    for k, (op, number) in enumerate(zip(ops, numbers[1:], strict=True)):
        value = value + int(number) if op == "+" else value - int(number)
        rest = " ".join(f"{o} {n}" for o, n in zip(ops[k + 1 :], numbers[k + 2 :], strict=True))
        steps.append(f"{value} {rest}".strip())
    return " = ".join(steps)


def applicable_error(task: Task) -> str | None:
    """The error a weak teacher could make on ``task``: ``sign``, ``carry`` or None."""
    if task.family != "expression" or "/" in str(task.answer) or "." in str(task.answer):
        return None
    value = Fraction(task.answer)
    if value < 0:
        return "sign"
    if len(str(value.numerator)) > _operand_digits(task.metadata.get("expression", "")) > 0:
        return "carry"
    return None


def wrong_answer(task: Task, error: str) -> str:
    """The answer the teacher writes when it makes ``error`` on ``task``."""
    value = Fraction(task.answer)
    if error == "sign":
        return str(-value)
    if error == "carry":
        return str(int(str(value.numerator)[1:]))
    raise ValueError(f"unknown teacher error {error!r}; known: {ERROR_TYPES}")


def parse_errors(text: str) -> dict[str, float]:
    """``"sign:0.6,carry:0.6"`` -> ``{"sign": 0.6, "carry": 0.6}`` (empty text: an exact teacher)."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, rate = part.partition(":")
        if name not in ERROR_TYPES:
            raise ValueError(f"unknown teacher error {name!r}; known: {list(ERROR_TYPES)}")
        try:
            value = float(rate)
        except ValueError:
            raise ValueError(f"teacher error {part!r}: write NAME:RATE, e.g. sign:0.6") from None
        if not 0 <= value <= 1:
            raise ValueError(f"teacher error rate must lie in [0, 1], got {part!r}")
        out[name] = value
    return out


@dataclass(frozen=True)
class Teacher:
    """Writes demonstrations; ``errors`` maps an error type to the rate at which it is made."""

    errors: Mapping[str, float] = field(default_factory=dict)
    worked: bool = True  # restate the expression before the answer (expression only)

    def response(self, task: Task, rng: np.random.Generator) -> str:
        """One demonstration for ``task`` (random draws from ``rng`` decide whether it errs)."""
        if task.family != "expression":
            from palaestra.registry import get

            return get(task.family).impl.reference_response(task)
        right = answer = str(task.answer)
        error = applicable_error(task)
        if error in self.errors and rng.random() < self.errors[error]:
            answer = wrong_answer(task, error)
        if self.worked:
            return f"{worked_steps(task.metadata['expression'], right)}\n<answer>{answer}</answer>"
        return f"<answer>{answer}</answer>"

    def subset(self, task: Task) -> str:
        """``teacher_wrong/<error>`` where this teacher errs on ``task``, else ``teacher_right``."""
        error = applicable_error(task)
        return (
            f"teacher_wrong/{error}" if error in self.errors and self.errors[error] > 0 else "teacher_right"
        )

    @classmethod
    def from_config(cls, config: object) -> Teacher:
        return cls(
            parse_errors(getattr(config, "teacher_errors", "")), bool(getattr(config, "worked_answers", True))
        )
