"""Held-out evaluation: greedy and sampled accuracy, per subset, with standard errors.

The held-out problems come from :meth:`TaskSpace.eval_set <palaestra.agents.tasks.TaskSpace.eval_set>`:
distinct problems on the held-out side of the content split, so none of them is ever trained on.
Every figure is a mean over *distinct problems*, and its standard error is the standard deviation
of the per-problem scores over the square root of their number. Sampled accuracy is the mean over
``samples`` completions per problem at the rollout temperature, drawn with a fixed seed, so two
checkpoints are compared on the same random numbers. :func:`paired_gain` gives the difference of
two evaluations and the standard error of the per-problem differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from palaestra.agents.backends import Backend, Sampling
from palaestra.agents.rollout import ChatFormat, SingleTurnRollout
from palaestra.agents.tasks import EVAL_SEED_BASE  # noqa: F401  (re-exported)
from palaestra.core import Task
from palaestra.rows import content_key

EVAL_SAMPLING_SEED = 1234  # the same sampled completions' random numbers for every checkpoint
CHUNK = 64  # prompts per generate call (progress is reported per chunk)


@dataclass
class EvalResult:
    """Flat ``eval/...`` metrics and the per-problem scores behind them."""

    metrics: dict[str, float]
    greedy: dict[str, float] = field(default_factory=dict)  # content key -> 0/1
    sampled: dict[str, float] = field(default_factory=dict)  # content key -> mean over samples


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and its standard error (sample sd / sqrt(n)); the error is nan below 2 values."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
    return float(x.mean()), se


def evaluate(
    backend: Backend,
    chat: ChatFormat,
    tasks: Sequence[Task],
    *,
    max_tokens: int,
    samples: int = 0,
    temperature: float = 1.0,
    subset: Callable[[Task], str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EvalResult:
    """Greedy accuracy (and sampled accuracy when ``samples > 0``) on ``tasks``: overall, per family,
    per (family, level) and per ``subset(task)`` name, each with its standard error and problem count."""
    if not tasks:
        raise ValueError("evaluation needs at least one held-out problem")
    rollout = SingleTurnRollout(chat)
    greedy = Sampling(max_tokens=max_tokens, temperature=0.0, stop_token_ids=chat.stop_token_ids)
    total = len(tasks) * (1 + samples)  # completions: one greedy and ``samples`` sampled per problem
    done = 0
    greedy_eps = []
    for i in range(0, len(tasks), CHUNK):
        greedy_eps += rollout.collect(backend, tasks[i : i + CHUNK], 1, greedy)
        done += len(tasks[i : i + CHUNK])
        if progress:
            progress(done, total)
    sampled_scores: list[float] = []
    if samples:
        for i in range(0, len(tasks), CHUNK):
            part = tasks[i : i + CHUNK]
            sampling = Sampling(
                max_tokens=max_tokens,
                temperature=temperature,
                seed=EVAL_SAMPLING_SEED + i,
                stop_token_ids=chat.stop_token_ids,
            )
            eps = rollout.collect(backend, part, samples, sampling)
            sampled_scores += [
                float(np.mean([e.correct for e in eps[j * samples : (j + 1) * samples]]))
                for j in range(len(part))
            ]
            done += len(part) * samples
            if progress:
                progress(done, total)
    keys = [content_key(t) for t in tasks]
    g = [float(e.correct) for e in greedy_eps]
    result = EvalResult({}, dict(zip(keys, g, strict=True)))
    if samples:
        result.sampled = dict(zip(keys, sampled_scores, strict=True))
    groups: dict[str, list[int]] = {"": list(range(len(tasks)))}
    for j, t in enumerate(tasks):
        groups.setdefault(f"{t.family}/", []).append(j)
        groups.setdefault(f"{t.family}/L{t.difficulty.level}/", []).append(j)
        if subset is not None:
            groups.setdefault(f"subset/{subset(t)}/", []).append(j)
    m = result.metrics
    for prefix, idx in groups.items():
        m[f"eval/{prefix}problems"] = float(len(idx))
        m[f"eval/{prefix}accuracy"], m[f"eval/{prefix}accuracy_se"] = mean_se([g[j] for j in idx])
        if samples:
            m[f"eval/{prefix}sampled_accuracy"], m[f"eval/{prefix}sampled_accuracy_se"] = mean_se(
                [sampled_scores[j] for j in idx]
            )
    m["eval/format_rate"] = float(np.mean([e.format_ok for e in greedy_eps]))
    m["eval/samples_per_problem"] = float(samples)
    return result


def paired_gain(after: EvalResult, before: EvalResult, kind: str = "greedy") -> tuple[float, float]:
    """Accuracy difference ``after - before`` in points over the problems both saw, and the
    standard error of the per-problem differences (in points)."""
    a, b = getattr(after, kind), getattr(before, kind)
    common = sorted(set(a) & set(b))
    mean, se = mean_se([a[k] - b[k] for k in common])
    return 100 * mean, 100 * se
