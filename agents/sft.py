"""Supervised warm start on generator reference solutions.

A short SFT phase teaches the answer format (and some skill) so RL starts from a non-zero solve
rate: GRPO learns nothing from groups that are all wrong. Batches are drawn deterministically
from ``(seed, step)``; the loss covers the response tokens (and the stop token) only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.agents.rollout import ChatFormat

SFT_STREAM = 7_000_001  # keeps SFT task draws apart from the RL steps' draws


def sft_examples(
    chat: ChatFormat, families: Sequence[str], levels: Sequence[int], n: int, rng: np.random.Generator
) -> list[tuple[list[int], list[int]]]:
    """``n`` (prompt ids, response ids) pairs from reference responses of random tasks."""
    import palaestra
    from palaestra.registry import get

    out = []
    for _ in range(n):
        family = families[int(rng.integers(len(families)))]
        level = int(levels[int(rng.integers(len(levels)))])
        task = palaestra.make_task(family, seed=int(rng.integers(2**31)), level=level)
        out.append(
            (chat.prompt_ids(task.prompt), chat.response_ids(get(family).impl.reference_response(task)))
        )
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


def warm_start(
    model: Any,
    chat: ChatFormat,
    *,
    families: Sequence[str],
    levels: Sequence[int],
    steps: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    device: str,
    on_step: Callable[[dict[str, float]], None] | None = None,
) -> list[float]:
    """Run ``steps`` SFT steps in place on ``model`` (AdamW, warmup then cosine decay); the losses."""
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    warmup = max(1, steps // 10)

    def schedule(i: int) -> float:
        if i < warmup:
            return (i + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (i - warmup) / max(1, steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    pad = chat.tokenizer.pad_token_id if chat.tokenizer.pad_token_id is not None else chat.eos_token_id
    model.train()
    losses = []
    for step in range(steps):
        rng = np.random.default_rng([seed, SFT_STREAM, step])
        batch = sft_examples(chat, families, levels, batch_size, rng)
        loss = sft_loss(model, batch, device, pad)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.detach()))
        if on_step is not None:
            on_step({"sft/step": step + 1, "sft/loss": losses[-1], "sft/lr": scheduler.get_last_lr()[0]})
    return losses
