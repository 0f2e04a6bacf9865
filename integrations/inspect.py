"""palaestra in Inspect AI (``pip install inspect-ai``): an evaluation task graded by the exact verifiers.

    from inspect_ai import eval as inspect_eval     # Inspect's evaluation runner, not Python's eval
    from palaestra.integrations.inspect import palaestra_task

    inspect_eval(palaestra_task(families=["sudoku", "countdown"], n=50, level=3), model="openai/gpt-4o-mini")
    inspect_eval(palaestra_task("data/"), model=...)  # the test split of a `palaestra export`

or from the command line, ``inspect eval $(python -c "import palaestra.integrations.inspect as m; print(m.__file__)")@palaestra_eval
-T families=sudoku,countdown -T n=50``. Each sample's input is the task prompt, its target the
reference answer (shown in logs), and its metadata the task record; the scorer
(:func:`palaestra_scorer`) grades the model's final completion with the family's verifier, so a
right answer in another valid form counts and the verifier's reason is the score's explanation.
Samples come from the held-out side of the content split when no export is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

import palaestra
from palaestra.core import Task as PalaestraTask
from palaestra.rows import row_to_task


def _samples(tasks: Sequence[PalaestraTask]) -> list[Sample]:
    return [
        Sample(
            input=t.prompt,
            target=str(t.answer),
            id=t.id,
            metadata={"task": t.to_json(), "family": t.family, "level": t.level},
        )
        for t in tasks
    ]


def _export_tasks(folder: Path, split: str) -> list[PalaestraTask]:
    from palaestra.export import read_split

    return [row_to_task(row) for row in read_split(folder, split)]


def _held_out_tasks(families: Sequence[str], n: int, level: int | None, seed: int) -> list[PalaestraTask]:
    from palaestra.integrations.trl import task_rows

    return [row_to_task(row) for row in task_rows(families, n, level=level, seed=seed, split="test")]


@scorer(metrics=[accuracy(), stderr()])
def palaestra_scorer() -> Any:
    """Correct iff palaestra's verifier accepts the model's final completion for the sample's task."""

    async def score(state: TaskState, target: Target) -> Score:
        task_record = PalaestraTask.from_json(state.metadata["task"])
        verdict = palaestra.verify(task_record, state.output.completion)
        return Score(
            value=CORRECT if verdict.correct else INCORRECT,
            answer=None if verdict.parsed is None else str(verdict.parsed),
            explanation=verdict.reason,
            metadata={"status": verdict.status, "reward": verdict.reward},
        )

    return score


def palaestra_task(
    export: str | Path | None = None,
    *,
    families: Sequence[str] | None = None,
    n: int = 50,
    level: int | None = None,
    seed: int = 0,
    split: str = "test",
) -> Task:
    """An Inspect task over the ``split`` of an export folder, or over ``n`` held-out tasks per family."""
    if (export is None) == (families is None):
        raise ValueError("give an export folder or a list of families, not both")
    if export is not None:
        tasks = _export_tasks(Path(export), split)
        name = f"palaestra:{Path(export).name}:{split}"
    else:
        tasks = _held_out_tasks(list(families or ()), n, level, seed)
        name = "palaestra:" + "+".join(families or ())
    return Task(
        dataset=MemoryDataset(_samples(tasks), name=name), solver=generate(), scorer=palaestra_scorer()
    )


@task
def palaestra_eval(
    families: str | list[str] = "expression", n: int = 50, level: int | None = None, export: str | None = None
) -> Task:
    """``inspect eval ...@palaestra_eval -T families=a,b -T n=50 [-T level=3] [-T export=DIR]``.
    Inspect reads ``-T families=a,b`` as the list ``["a", "b"]`` (and ``families=a`` as a string)."""
    if export:
        return palaestra_task(export)
    names = families.split(",") if isinstance(families, str) else [str(f) for f in families]
    return palaestra_task(families=[f.strip() for f in names if f.strip()], n=n, level=level)
