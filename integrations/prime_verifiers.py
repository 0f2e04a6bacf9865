"""palaestra as a prime-intellect ``verifiers`` (>= 0.4, its ``verifiers.v1`` stack) taskset and env.

    from palaestra.integrations.prime_verifiers import load_environment

    env = load_environment(families=["sudoku", "countdown"], n=2000, level=3)            # one answer
    env = load_environment(families=["sudoku"], n=2000, multi_turn=True, max_attempts=3)  # retry on feedback

v1 loads tasksets by id (``verifiers.v1.utils.loaders``: no entry points, no ``load_environment``
hook): the id names an importable top-level module whose ``__all__`` exports one ``vf.Taskset``
subclass and, optionally, the one ``vf.Env`` subclass that plays it. This module exports
``PalaestraTaskset`` and ``PalaestraEnv``, so an installable environment for ``vf-eval`` and
prime-rl is a package ``palaestra_env`` whose ``__init__.py`` reads::

    from palaestra.integrations.prime_verifiers import PalaestraEnv, PalaestraTaskset

    __all__ = ["PalaestraEnv", "PalaestraTaskset"]

Its knobs are config: ``--env.taskset.families sudoku countdown``, ``.n`` (distinct tasks per
family), ``.level``, ``.seed``, ``.split`` (``train``/``test``, disjoint) and ``--env.max-attempts``.
:func:`load_environment` builds the same ``Env`` in-process through ``vf.load_environment``,
naming this module ``palaestra_env`` when no such package is installed. Answers are plain text:
verifiers' tool-less ``null`` harness (``--env.agent.harness.id null``) suits them; its default
``bash`` harness hands the model a shell.

Each task carries the prompt, ``id`` (palaestra's content hash, also the task's ``key``), the
family, the reference answer as JSON text and ``info``, the task record as palaestra exports carry
it. The task's one ``@vf.reward``, ``palaestra``, grades the final reply with the family's exact
verifier and leaves the verdict's reason in ``trace.info["palaestra"]``. ``PalaestraEnv`` takes one
answer per episode; with ``max_attempts > 1`` a wrong answer gets the verifier's reason as the next
user turn until one is right or the attempts are used (metric ``attempts``).

The classic (<= 0.1) ``vf.SingleTurnEnv``/``vf.Rubric`` stack is not built here any more; its
columns and reward function remain: ``vf.SingleTurnEnv(dataset=Dataset.from_list(dataset_rows(...)),
rubric=vf.Rubric(funcs=[palaestra_reward]))``.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from palaestra.core import Verdict
from palaestra.integrations._common import verify_batch
from palaestra.rows import completion_text, task_from_record

SYSTEM_PROMPT = "Solve the task. Give your final answer in exactly the format the task asks for."
TASKSET_ID = "palaestra_env"
NEEDS = "palaestra.integrations.prime_verifiers needs prime-intellect verifiers >= 0.4: pip install 'verifiers>=0.4'"

# verifiers' own subclasses, built by the module __getattr__ on first use
_V1_NAMES = (
    "PalaestraData",
    "PalaestraEnv",
    "PalaestraEnvConfig",
    "PalaestraTask",
    "PalaestraTaskset",
    "PalaestraTasksetConfig",
)
# v1's loader reads __all__ for the one Taskset and the one Env subclass a taskset module exports
__all__ = [
    *_V1_NAMES,
    "dataset_rows",
    "grade",
    "import_verifiers",
    "load_environment",
    "palaestra_reward",
]


def dataset_rows(
    families: Sequence[str], n: int, *, level: int | None = None, seed: int = 0, split: str = "train"
) -> list[dict[str, Any]]:
    """Rows in verifiers' dataset columns, from :func:`palaestra.integrations.trl.task_rows`."""
    from palaestra.integrations.trl import task_rows
    from palaestra.rows import row_to_task

    rows = []
    for row in task_rows(families, n, level=level, seed=seed, split=split):
        task = row_to_task(row)
        rows.append(
            {"question": task.prompt, "answer": row["answer"], "task": task.family, "info": row["extra_info"]}
        )
    return rows


def grade(record: Any, response: str) -> Verdict:
    """The family verifier's verdict on ``response`` for the task in ``record`` (``info``)."""
    return verify_batch([task_from_record(record)], [response], workers=0)[0]


def palaestra_reward(completion: Any, info: dict[str, Any], **kwargs: Any) -> float:
    """A classic verifiers reward function (arguments by name): the verifier's reward of the last answer."""
    return float(grade(info, completion_text(completion)).reward)


def import_verifiers() -> ModuleType:
    """The installed prime-intellect ``verifiers.v1``, never palaestra's own ``verifiers/`` folder.

    The repository root is the package root, so wherever it is on ``sys.path`` (``python -m
    pytest`` or ``python -c`` run from a checkout put the working directory there) a bare ``import
    verifiers`` finds palaestra's subpackage. Such a stray top-level module is dropped and the
    import runs without those ``sys.path`` entries; ``palaestra.verifiers`` is untouched.
    """
    import palaestra

    own = Path(palaestra.__file__).resolve().parent / "verifiers"
    loaded = sys.modules.get("verifiers")
    if loaded is not None and _is_own(loaded, own):
        for name in [m for m in sys.modules if m == "verifiers" or m.startswith("verifiers.")]:
            del sys.modules[name]
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if not _is_own_entry(p, own)]
    try:
        v1 = importlib.import_module("verifiers.v1")
    except ImportError as e:
        raise ImportError(f"{NEEDS} (found {_installed_version()})") from e
    finally:
        sys.path[:] = saved
    return v1


def _is_own(module: ModuleType, own: Path) -> bool:
    where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", [])), "")
    return bool(where) and own in (Path(where).resolve(), Path(where).resolve().parent)


def _is_own_entry(entry: Any, own: Path) -> bool:
    return isinstance(entry, str) and (Path(entry or os.curdir) / "verifiers").resolve() == own


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"verifiers {version('verifiers')}"
    except PackageNotFoundError:
        return "no verifiers distribution"


def load_environment(
    families: Sequence[str] = ("expression",),
    n: int = 1000,
    *,
    level: int | None = None,
    seed: int = 0,
    split: Literal["train", "test"] = "train",
    multi_turn: bool = False,
    max_attempts: int = 3,
    **env_config: Any,
) -> Any:
    """A v1 ``PalaestraEnv`` over ``n`` distinct tasks per family, built by ``vf.load_environment``.

    ``multi_turn`` gives the model ``max_attempts`` answers with the verifier's reason after each
    wrong one; ``env_config`` holds further ``EnvConfig`` fields (e.g. ``agent={"max_turns": 4}``).
    """
    vf = import_verifiers()
    _register_taskset_id()
    taskset = {"id": TASKSET_ID, "families": list(families), "n": n, "level": level, "seed": seed}
    data = {"taskset": {**taskset, "split": split}, "max_attempts": max_attempts if multi_turn else 1}
    return vf.load_environment(vf.resolve_env_config({**data, **env_config}))


def _register_taskset_id() -> None:
    # v1 imports a taskset by its id, a top-level module name; an installed ``palaestra_env``
    # package (see the module docstring) wins, else the id names this module in this process.
    if TASKSET_ID not in sys.modules and importlib.util.find_spec(TASKSET_ID) is None:
        sys.modules[TASKSET_ID] = sys.modules[__name__]


def __getattr__(name: str) -> Any:
    # The v1 classes subclass verifiers' own, so they are built on first use: importing this
    # module stays cheap (verifiers.v1 takes seconds to import) and needs no verifiers.
    if name in _V1_NAMES:
        return _v1_classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _v1_classes() -> dict[str, type]:
    vf = import_verifiers()
    classes = {**_taskset_classes(vf), **_env_classes(vf)}
    for cls in classes.values():  # pickle finds them through this module's __getattr__
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
    return classes


# ``vf`` is typed Any: its classes exist only once the library is imported, at run time.
def _taskset_classes(vf: Any) -> dict[str, type]:
    from pydantic import Field

    class PalaestraData(vf.TaskData):
        """One palaestra task: ``prompt``, ``id`` (its content hash) and what grading needs."""

        family: str
        answer: str | None = None
        """The reference answer as JSON text (``null`` where any valid answer counts)."""
        info: dict[str, Any]
        """The task record as palaestra exports carry it (``extra_info``); grading rebuilds the task from it."""

    class PalaestraTask(vf.Task[PalaestraData]):
        """A palaestra task, scored by its family's exact verifier."""

        @property
        def key(self) -> str:
            return self.data.id or self.hash  # the content hash: stable across positions and runs

        @vf.reward
        async def palaestra(self, trace: vf.Trace) -> float:
            # Verifiers are CPU-bound (some run the sandbox): keep them off the event loop.
            verdict = await asyncio.to_thread(grade, self.data.info, trace.last_reply)
            trace.info["palaestra"] = {
                "correct": verdict.correct,
                "reason": verdict.reason,
                "error": verdict.error,
            }
            return float(verdict.reward)

    class PalaestraTasksetConfig(vf.TasksetConfig):
        families: list[str] = Field(default_factory=lambda: ["expression"])
        n: int = Field(1000, ge=1)
        """Distinct tasks per family."""
        level: int | None = Field(None, ge=1, le=10)
        seed: int = 0
        split: Literal["train", "test"] = "train"

    class PalaestraTaskset(vf.Taskset[PalaestraTask, PalaestraTasksetConfig]):
        """``n`` distinct tasks per family; train and test splits are disjoint by content."""

        def load(self) -> list[PalaestraTask]:
            c = self.config
            rows = dataset_rows(c.families, c.n, level=c.level, seed=c.seed, split=c.split)
            return [PalaestraTask(_data(PalaestraData, row), c.task) for row in rows]

    return {
        "PalaestraData": PalaestraData,
        "PalaestraTask": PalaestraTask,
        "PalaestraTasksetConfig": PalaestraTasksetConfig,
        "PalaestraTaskset": PalaestraTaskset,
    }


def _data(cls: type, row: dict[str, Any]) -> Any:
    task_id = task_from_record(row["info"]).id
    return cls(
        id=task_id,
        name=f"{row['task']}/{task_id}",
        prompt=row["question"],
        system_prompt=SYSTEM_PROMPT,
        family=row["task"],
        answer=row["answer"],
        info=row["info"],
    )


def _env_classes(vf: Any) -> dict[str, type]:
    from pydantic import Field

    class PalaestraEnvConfig(vf.SingleAgentEnvConfig):
        max_attempts: int = Field(1, ge=1)
        """Answers per episode; after a wrong one the verifier's reason is the next user turn."""

    # A SingleAgentEnv (one `agent` seat, one trace per episode), so vf-gepa and vf-replay take
    # it; Env[PalaestraEnvConfig] is what narrows the run's config to the one with max_attempts.
    class PalaestraEnv(vf.SingleAgentEnv, vf.Env[PalaestraEnvConfig]):
        """One answer per episode, or up to ``max_attempts`` with the verifier's feedback."""

        async def run(self, task: Any, agents: Any) -> None:
            if self.config.max_attempts == 1:
                await super().run(task, agents)
                return
            async with agents.agent.interaction(task) as interaction:
                attempts = await _feedback_loop(interaction, task, self.config.max_attempts)
                interaction.trace.record_metric("attempts", attempts)

    return {"PalaestraEnvConfig": PalaestraEnvConfig, "PalaestraEnv": PalaestraEnv}


async def _feedback_loop(interaction: Any, task: Any, max_attempts: int) -> int:
    """Answer, hear the verifier's reason, answer again; the number of answers given."""
    segment, attempts = await interaction.turn(), 0
    while not segment.terminated:
        attempts += 1
        verdict = await asyncio.to_thread(grade, task.data.info, segment.last_reply)
        if verdict.correct or attempts >= max_attempts:
            break
        left = max_attempts - attempts
        segment = await interaction.turn(f"Wrong: {verdict.reason}. {left} attempt(s) left.")
    return attempts
