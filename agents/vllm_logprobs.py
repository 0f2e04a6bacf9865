"""Full-vocabulary logprobs from vLLM at any temperature and top-p (imports vllm: load lazily).

The trainer scores a token by ``log_softmax(logits / T)`` over the full vocabulary. vLLM 0.32 has
no logprobs mode for that: ``raw_logprobs`` ignore the temperature, and ``processed_logprobs`` are
renormalised after top-k/top-p truncation (at top_p 0.9 the sampled tokens read about 0.1 nats
too high). Two logits processors close the gap without changing what is sampled:

- :class:`NormalizeAfterTemperature` (argmax-invariant, so vLLM runs it after the temperature
  and before top-k/top-p) subtracts each row's log-sum-exp, turning ``logits / T`` into
  ``log_softmax(logits / T)``, a per-row shift that leaves softmax, the nucleus and the sampled
  token unchanged;
- :class:`NormalizeBeforeTemperature` (not argmax-invariant, so vLLM runs it before the
  temperature, on greedy requests too) does the same to the raw logits, so greedy requests
  report ``log_softmax(logits)``.

With ``logprobs_mode="processed_logits"`` vLLM then returns, for the sampled token, its value
after both shifts and the truncation mask, which for a kept token is exactly its full-vocabulary
logprob at temperature T.
"""

from __future__ import annotations

from typing import Any

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor

LOGPROBS_MODE = "processed_logits"


class _RowNormalizer(LogitsProcessor):
    """Replace each row of logits by its log-softmax (a per-row shift)."""

    def __init__(self, vllm_config: Any, device: Any, is_pin_memory: bool) -> None:
        del vllm_config, device, is_pin_memory  # stateless

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        return logits - torch.logsumexp(logits.float(), dim=-1, keepdim=True).to(logits.dtype)

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        return None


class NormalizeAfterTemperature(_RowNormalizer):
    def is_argmax_invariant(self) -> bool:
        return True


class NormalizeBeforeTemperature(_RowNormalizer):
    def is_argmax_invariant(self) -> bool:
        return False


PROCESSORS = [NormalizeBeforeTemperature, NormalizeAfterTemperature]
