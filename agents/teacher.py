"""Teachers: who writes the SFT demonstrations.

RLVR pays where demonstrations are imperfect and the verifier is exact. With correct, complete
demonstrations and a unique answer, RL has nothing to add that more SFT does not. The realistic
setting is a *weak teacher*: demonstrations distilled from a model that makes systematic errors.
:class:`Teacher` writes them, and names the subset of problems where it errs so that evaluation
can report accuracy on exactly that subset.

Each demonstration is a worked line and the answer, ``47 - 85 = -38`` then
``<answer>-38</answer>``: restating the expression next to the result lets a small model compute
from adjacent tokens instead of reaching ~80 tokens back to the operands for every digit, which
made SFT of the tiny model a coin toss per seed (docs/training.md). Families other than
``expression`` get their generator's reference response.

Error types (for ``expression`` over integers; a demonstration errs with probability ``rate``):

- ``sign``: a negative result is written without its minus sign (``3 - 8 = 5``);
- ``carry``: a result with more digits than the largest operand loses its leading digit, the final
  carry (``7 + 8 = 5``, ``56 + 71 = 27``).
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
        answer = str(task.answer)
        error = applicable_error(task)
        if error in self.errors and rng.random() < self.errors[error]:
            answer = wrong_answer(task, error)
        if self.worked:
            return f"{task.metadata['expression']} = {answer}\n<answer>{answer}</answer>"
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
