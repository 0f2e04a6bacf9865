"""Supervised fine-tuning on teacher demonstrations: the warm start, and the equal-compute control.

:class:`SFT` trains a model in place on demonstrations that a :class:`~palaestra.agents.teacher.Teacher`
writes for training-side problems of a :class:`~palaestra.agents.tasks.TaskSpace` (never a held-out
one). The learning rate warms up linearly, then stays constant: a run can be extended (the
convergence check) or continued (the equal-compute control) at the rate it ended on, with the
same optimizer state. Batches are drawn from ``(seed, step)``, so step ``k`` sees the same
demonstrations however the run got there. The loss covers the response tokens (and the stop
token) only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.agents.rollout import ChatFormat
from palaestra.agents.tasks import TaskSpace
from palaestra.agents.teacher import Teacher

SFT_STREAM = 7_000_001  # keeps SFT task draws apart from the RL steps' draws


def sft_examples(
    chat: ChatFormat,
    space: TaskSpace,
    teacher: Teacher,
    levels: Sequence[int],
    n: int,
    rng: np.random.Generator,
) -> list[tuple[list[int], list[int]]]:
    """``n`` (prompt ids, response ids) pairs: the teacher's demonstrations for random
    training-side problems."""
    out = []
    for _ in range(n):
        family = space.families[int(rng.integers(len(space.families)))]
        level = int(levels[int(rng.integers(len(levels)))])
        task = space.train_task(family, level, rng)
        out.append((chat.prompt_ids(task.prompt), chat.response_ids(teacher.response(task, rng))))
    return out


def sft_loss(model: Any, batch: Sequence[tuple[list[int], list[int]]], device: str, pad_id: int) -> Any:
    """Mean next-token cross-entropy over the response tokens of ``batch``."""
    import torch

    width = max(len(p) + len(r) for p, r in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for j, (p, r) in enumerate(batch):
        seq = p + r
        ids[j, : len(seq)] = torch.tensor(seq)
        labels[j, len(p) : len(seq)] = torch.tensor(r)
        mask[j, : len(seq)] = 1
    ids, labels, mask = ids.to(device), labels.to(device), mask.to(device)
    logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))


def sft_loss_by_parts(
    model: Any, parts: Sequence[Sequence[tuple[list[int], list[int]]]], device: str, pad_id: int
) -> Any:
    """:func:`sft_loss` over the union of ``parts``, each part padded to its own width: one padded
    batch of short solver examples and a few ~4x longer proposer ones spends most of its compute
    on padding. Part means are weighted by their response tokens, so the value is the one-batch
    mean."""
    parts = [part for part in parts if part]
    total = sum(len(r) for part in parts for _, r in part)
    loss = None
    for part in parts:
        term = sft_loss(model, part, device, pad_id) * (sum(len(r) for _, r in part) / total)
        loss = term if loss is None else loss + term
    return loss


class SFT:
    """SFT steps on one model with one AdamW optimizer; ``train(k)`` can be called again to extend."""

    def __init__(
        self,
        model: Any,
        chat: ChatFormat,
        *,
        space: TaskSpace,
        teacher: Teacher,
        levels: Sequence[int],
        batch_size: int,
        learning_rate: float,
        warmup_steps: int,
        seed: int,
        device: str,
        extra: Callable[[np.random.Generator, int], list[tuple[list[int], list[int]]]] | None = None,
        extra_share: float = 0.0,
    ) -> None:
        """``extra(rng, n)`` adds ``n`` more examples of another kind to each batch (self-play's
        proposer demonstrations), ``extra_share`` of ``batch_size``."""
        import torch

        self.model, self.chat, self.space, self.teacher = model, chat, space, teacher
        self.extra = extra
        self.extra_count = int(round(extra_share * batch_size)) if extra is not None else 0
        self.levels, self.batch_size, self.seed, self.device = list(levels), batch_size, seed, device
        self.warmup_steps = max(1, warmup_steps)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
        self.base_lr = learning_rate
        self.step = 0
        tok = chat.tokenizer
        self.pad = tok.pad_token_id if tok.pad_token_id is not None else chat.eos_token_id

    def lr(self, step: int) -> float:
        """Linear warm-up to the base rate, then constant."""
        return self.base_lr * min(1.0, (step + 1) / self.warmup_steps)

    def train(
        self,
        steps: int,
        on_step: Callable[[dict[str, float]], None] | None = None,
        last_batch_size: int | None = None,
    ) -> list[float]:
        """``steps`` more SFT steps; returns their losses. ``last_batch_size``: the last step's batch
        is that many sequences (an equal-compute control trains on exactly as many as RL did)."""
        import torch

        self.model.train()
        losses = []
        for k in range(steps):
            rng = np.random.default_rng([self.seed, SFT_STREAM, self.step])
            size = last_batch_size if last_batch_size and k == steps - 1 else self.batch_size
            extra = round(self.extra_count * size / self.batch_size)
            parts = [sft_examples(self.chat, self.space, self.teacher, self.levels, size - extra, rng)]
            if extra:
                parts.append(self.extra(rng, extra))
            for group in self.optimizer.param_groups:
                group["lr"] = self.lr(self.step)
            loss = sft_loss_by_parts(self.model, parts, self.device, self.pad)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.step += 1
            losses.append(float(loss.detach()))
            if on_step is not None:
                on_step({"sft/step": self.step, "sft/loss": losses[-1], "sft/lr": self.lr(self.step - 1)})
        self.model.eval()
        return losses

    def state_dict(self) -> dict[str, Any]:
        """The optimizer and step counter (the weights are the model's)."""
        import copy

        return {"optimizer": copy.deepcopy(self.optimizer.state_dict()), "step": self.step}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        import copy

        self.optimizer.load_state_dict(copy.deepcopy(state["optimizer"]))
        self.step = int(state["step"])
