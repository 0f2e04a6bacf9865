"""palaestra as a prime-intellect ``verifiers`` environment (``pip install verifiers``).

    import verifiers as vf
    from palaestra.integrations.verifiers import load_environment

    env = load_environment(families=["sudoku", "countdown"], n=2000, level=3)            # one answer
    env = load_environment(families=["sudoku"], n=2000, multi_turn=True, max_attempts=3)  # retry on feedback

An installable environment module only needs ``load_environment``: a package whose module does
``from palaestra.integrations.verifiers import load_environment`` is one (``vf-install``,
``vf-eval``, prime-rl and the verifiers GRPO trainer load it by name).

The dataset has verifiers' columns: ``question`` (the task prompt), ``answer`` (the reference
answer as JSON text), ``task`` (the family name, verifiers' routing label) and ``info`` (the task
record). The rubric's one reward function grades the last assistant message with the family's
exact verifier; a feedback environment (``multi_turn=True``) answers a wrong answer with the
verifier's reason until it is right or ``max_attempts`` are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from palaestra.integrations._common import completion_text, task_from_record, verify_batch

SYSTEM_PROMPT = "Solve the task. Give your final answer in exactly the format the task asks for."


def dataset_rows(
    families: Sequence[str], n: int, *, level: int | None = None, seed: int = 0, split: str = "train"
) -> list[dict[str, Any]]:
    """Rows in verifiers' dataset columns, from :func:`palaestra.integrations.trl.task_rows`."""
    from palaestra.export import row_to_task
    from palaestra.integrations.trl import task_rows

    rows = []
    for row in task_rows(families, n, level=level, seed=seed, split=split):
        task = row_to_task(row)
        rows.append(
            {"question": task.prompt, "answer": row["answer"], "task": task.family, "info": row["extra_info"]}
        )
    return rows


def palaestra_reward(completion: Any, info: dict[str, Any], **kwargs: Any) -> float:
    """A verifiers reward function (arguments by name): the verifier's reward of the last answer."""
    return float(verify_batch([task_from_record(info)], [completion_text(completion)], workers=0)[0].reward)


def load_environment(
    families: Sequence[str] = ("expression",),
    n: int = 1000,
    *,
    level: int | None = None,
    seed: int = 0,
    eval_n: int = 0,
    multi_turn: bool = False,
    max_attempts: int = 3,
    system_prompt: str = SYSTEM_PROMPT,
    **kwargs: Any,
) -> Any:
    """A ``vf.SingleTurnEnv`` (or a feedback ``vf.MultiTurnEnv``) over palaestra tasks."""
    from datasets import Dataset

    import verifiers as vf

    dataset = Dataset.from_list(dataset_rows(families, n, level=level, seed=seed))
    eval_dataset = (
        Dataset.from_list(dataset_rows(families, eval_n, level=level, seed=seed, split="test"))
        if eval_n
        else None
    )
    rubric = vf.Rubric(funcs=[palaestra_reward], weights=[1.0])
    common = {
        "dataset": dataset,
        "eval_dataset": eval_dataset,
        "system_prompt": system_prompt,
        "rubric": rubric,
    }
    if not multi_turn:
        return vf.SingleTurnEnv(**common, **kwargs)
    return _feedback_env_class(vf)(max_attempts=max_attempts, max_turns=max_attempts, **common, **kwargs)


def _feedback_env_class(vf: Any) -> type:
    class PalaestraFeedbackEnv(vf.MultiTurnEnv):
        """Answer, get the verifier's reason, answer again (up to ``max_attempts``)."""

        def __init__(self, *, max_attempts: int = 3, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.max_attempts = max_attempts

        async def is_completed(self, messages: Any, state: dict[str, Any], **kwargs: Any) -> bool:
            return (
                bool(state.get("palaestra_solved")) or state.get("palaestra_attempts", 0) >= self.max_attempts
            )

        async def env_response(
            self, messages: Any, state: dict[str, Any], **kwargs: Any
        ) -> tuple[list, dict]:
            verdict = verify_batch([task_from_record(state["info"])], [completion_text(messages)], workers=0)[
                0
            ]
            state["palaestra_attempts"] = state.get("palaestra_attempts", 0) + 1
            state["palaestra_solved"] = verdict.correct
            left = self.max_attempts - state["palaestra_attempts"]
            text = "Correct." if verdict.correct else f"Wrong: {verdict.reason}. {left} attempt(s) left."
            return [{"role": "user", "content": text}], state

    return PalaestraFeedbackEnv
