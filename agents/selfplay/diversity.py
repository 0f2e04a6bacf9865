"""Anti-collapse metrics: distinct canonical tasks, AST-shape clusters and entropy proxies."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any


def entropy(counts: Counter[str] | dict[str, int]) -> float:
    """Shannon entropy (nats) of a count distribution; 0 for empty."""
    total = sum(counts.values())
    if total == 0:
        return 0.0
    return -sum(c / total * math.log(c / total) for c in counts.values() if c)


def token_entropy(texts: Sequence[str]) -> float:
    """Unigram entropy of whitespace/punctuation tokens across proposals (a cheap proxy for
    the proposer's sampling entropy)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(re.findall(r"\w+|\S", text))
    return entropy(counts)


def diversity_metrics(
    canonicals: Sequence[str], shapes: Sequence[str], texts: Sequence[str]
) -> dict[str, Any]:
    """Metrics over one step's (or one buffer's) valid tasks."""
    n = len(canonicals)
    shape_counts = Counter(shapes)
    return {
        "tasks": n,
        "distinct_canonical": len(set(canonicals)),
        "distinct_fraction": len(set(canonicals)) / n if n else 0.0,
        "shape_clusters": len(shape_counts),
        "shape_entropy": entropy(shape_counts),
        "largest_cluster_fraction": max(shape_counts.values()) / n if n else 0.0,
        "token_entropy": token_entropy(texts),
    }
