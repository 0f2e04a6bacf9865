"""Warm start for the ``arith`` language: teach a fresh (tiny) model the proposal format.

A model that never saw the DSL writes no valid proposals, every proposer reward is
``REWARD_INVALID``, all proposer advantages are zero and self-play cannot start. These helpers
draw random valid DSL programs and turn them into SFT pairs for both roles: (proposer prompt ->
``<task>program</task>``) and (solver prompt -> ``<answer>value</answer>``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .arith import ArithError
from .languages import ArithLanguage, SelfPlayTask

_OPS = ("+", "-", "*", "/")
WARM_START_STREAM = 7919  # keeps warm-start draws apart from the catalog SFT's and the RL steps'


def random_expression(rng: np.random.Generator, depth: int = 2) -> str:
    """A random DSL expression over small integers (may still be refused, e.g. 1/0)."""
    if depth == 0 or rng.random() < 0.3:
        return str(int(rng.integers(0, 20)))
    left, right = random_expression(rng, depth - 1), random_expression(rng, depth - 1)
    op = _OPS[int(rng.integers(len(_OPS)))]
    text = f"{left}{op}{right}"
    return f"({text})" if rng.random() < 0.5 else text


def one_operation(rng: np.random.Generator) -> str:
    """``a + b`` or ``a - b`` over single digits: a task a fresh solver can learn to answer."""
    a, b = (int(rng.integers(0, 10)) for _ in range(2))
    return f"{a}{'+-'[int(rng.integers(2))]}{b}"


def random_program(rng: np.random.Generator, max_depth: int = 3, easy_fraction: float = 0.0) -> str:
    """A random ``eval`` or linear ``solve`` program; with probability ``easy_fraction`` a
    :func:`one_operation` task."""
    if rng.random() < easy_fraction:
        return one_operation(rng)
    depth = int(rng.integers(1, max_depth + 1))
    if rng.random() < 0.3:
        a, b, c = (int(rng.integers(1, 10)) for _ in range(3))
        return f"solve {a}*x+{b}={c}"
    return random_expression(rng, depth)


def random_tasks(
    language: ArithLanguage, n: int, rng: np.random.Generator, easy_fraction: float = 0.0
) -> list[SelfPlayTask]:
    """``n`` valid tasks built from random programs (invalid draws are skipped)."""
    out: list[SelfPlayTask] = []
    while len(out) < n:
        try:
            program = random_program(rng, easy_fraction=easy_fraction)
            out.append(language.build("arith", f"<task>{program}</task>"))
        except (ArithError, ValueError):
            continue
    return out


def warm_start_pairs(
    language: ArithLanguage, n: int, rng: np.random.Generator, references: int = 0, easy_fraction: float = 0.0
) -> list[tuple[str, str]]:
    """``n`` (prompt, response) text pairs, alternating proposer and solver examples;
    ``easy_fraction`` of the tasks are :func:`one_operation` tasks."""
    tasks = random_tasks(language, n + references, rng, easy_fraction)
    pairs = []
    for k, task in enumerate(tasks[:n]):
        if k % 2 == 0:
            refs = tasks[n : n + references]
            pairs.append((language.proposer_prompt("arith", refs), f"<task>{task.source}</task>"))
        else:
            pairs.append((task.prompt, f"<answer>{task.payload['answer']}</answer>"))
    return pairs


def proposer_warm_start(
    trainer: Any,
    language: ArithLanguage,
    *,
    steps: int,
    batch_size: int = 16,
    learning_rate: float = 3e-3,
    seed: int = 0,
    references: int = 3,
    replay_levels: Sequence[int] = (1,),
    replay: int = 0,
    easy_fraction: float = 0.0,
) -> list[float]:
    """SFT ``trainer.policy`` on :func:`warm_start_pairs` (needs torch); returns the losses.

    Each batch's proposer prompts show 0..``references`` example tasks, as the self-play prompts
    do once the buffer fills (``SelfPlayConfig.references``), so the format is learnt for both.
    ``replay`` catalog examples per batch (the teacher's demonstrations of the trainer's families at
    ``replay_levels``, as in the catalog SFT) keep what that SFT taught: without them the tiny
    model forgot the catalog answer format (held-out format rate 1.0 -> 0.05). The learning rate
    warms up over the first 10% of the steps, then decays along a cosine to 0. ``easy_fraction``
    of the tasks are one-operation ones (:func:`one_operation`), so the solver's pass rate on the
    proposer's first tasks can start above zero."""
    import torch

    from palaestra.agents.sft import sft_examples

    chat = trainer.chat
    pad = chat.tokenizer.pad_token_id if chat.tokenizer.pad_token_id is not None else chat.eos_token_id
    optimizer = torch.optim.AdamW(trainer.policy.parameters(), lr=learning_rate, weight_decay=0.0)
    warmup = max(1, steps // 10)

    def schedule(i: int) -> float:
        if i < warmup:
            return (i + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (i - warmup) / max(1, steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    trainer.policy.train()
    losses = []
    for step in range(steps):
        rng = np.random.default_rng([seed, WARM_START_STREAM, step])
        shown = int(rng.integers(0, references + 1))
        pairs = warm_start_pairs(language, batch_size, rng, references=shown, easy_fraction=easy_fraction)
        batch = [(chat.prompt_ids(p), chat.response_ids(r)) for p, r in pairs]
        if replay:  # the trainer's own families, demonstrated by its teacher
            batch += sft_examples(chat, trainer.space, trainer.teacher, list(replay_levels), replay, rng)
        loss = _bucketed_loss(trainer.policy, batch, trainer.device, pad)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainer.policy.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.detach()))
    trainer.policy.eval()
    return losses


def _bucketed_loss(model: Any, batch: Sequence[tuple[list[int], list[int]]], device: str, pad: int) -> Any:
    """``sft_loss`` over ``batch``, computed on two length buckets (the proposer prompts are about
    4x longer than the others): :func:`~palaestra.agents.sft.sft_loss_by_parts`."""
    from palaestra.agents.sft import sft_loss_by_parts

    order = sorted(range(len(batch)), key=lambda i: len(batch[i][0]) + len(batch[i][1]))
    half = len(order) // 2
    return sft_loss_by_parts(
        model, [[batch[i] for i in order[:half]], [batch[i] for i in order[half:]]], device, pad
    )


def pairs_summary(pairs: Sequence[tuple[str, str]]) -> dict[str, int]:
    """How many proposer and solver examples a pair list holds."""
    proposer = sum(1 for _, r in pairs if r.startswith("<task>"))
    return {"proposer": proposer, "solver": len(pairs) - proposer}


def proposer_examples(
    language: Any, chat: Any, space: Any, n: int, rng: np.random.Generator, level: int = 1
) -> list[tuple[list[int], list[int]]]:
    """``n`` proposer demonstrations for the ``expression`` language: the proposer prompt, then a
    random training-side catalog problem as ``<task>...</task>``. They teach the format only: the
    problems are uniform draws, so whatever the proposer learns to prefer, self-play taught it."""
    out = []
    for _ in range(n):
        task = space.train_task("expression", level, rng)
        prompt = language.proposer_prompt(language.task_types[0], [])
        out.append(
            (chat.prompt_ids(prompt), chat.response_ids(f"<task>{task.metadata['expression']}</task>"))
        )
    return out


def family_proposer_examples(
    language: Any, chat: Any, n: int, rng: np.random.Generator, levels: Sequence[int], references: int = 3
) -> list[tuple[list[int], list[int]]]:
    """``n`` proposer demonstrations for the ``family`` language: the proposer prompt with 0 to
    ``references`` earlier choices listed (as self-play shows its buffer), then a uniformly drawn
    allowed family and one of ``levels`` as ``<task>{"family": ..., "level": ...}</task>``. They
    teach the format only: whatever the proposer learns to prefer, self-play taught it."""
    families = language.allowed_families()
    task_type = language.task_types[0]

    def choice() -> dict[str, Any]:
        return {"family": families[int(rng.integers(len(families)))], "level": int(rng.choice(list(levels)))}

    out = []
    for _ in range(n):
        shown = [_reference(task_type, choice()) for _ in range(int(rng.integers(references + 1)))]
        prompt = chat.prompt_ids(language.proposer_prompt(task_type, shown))
        out.append((prompt, chat.response_ids(f"<task>{json.dumps(choice())}</task>")))
    return out


def _reference(task_type: str, choice: dict[str, Any]) -> SelfPlayTask:
    """An earlier choice as the proposer prompt lists it (only its source is shown)."""
    source = json.dumps(choice, sort_keys=True)
    return SelfPlayTask(
        "family", task_type, prompt="", payload={}, canonical=source, shape=source, source=source
    )
