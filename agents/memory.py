"""The trainer's memory preflight: an upper estimate per component, and the largest micro-batch
(and, on a GPU, the vLLM memory fraction) that fits a device.

The estimate is deliberately pessimistic (fp32 logits and their gradient for every token of a
micro-batch, all of ``max_model_len``): a run it admits does not die of memory at step 40.
``KNOWN_ARCHITECTURES`` holds public model configs (the fields the estimate reads) so that the
documented recipes can be checked, and a model built from its config, without any download.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

GIB = 2**30
MICRO_BATCH_CHOICES = (64, 32, 16, 8, 4, 2, 1)  # auto sizing takes the largest that fits
DEVICE_SIZES_GB = (24, 48, 80, 141)  # the GPU sizes docs/training.md's table covers
# sequences whose full-length KV cache the automatic vLLM budget holds at once (more wait their turn)
ENGINE_CONCURRENT_SEQUENCES = 64

# Qwen2.5 instruct models: the published config.json fields the estimate (and the dry run) needs.
_QWEN25 = dict(
    architectures=["Qwen2ForCausalLM"],
    model_type="qwen2",
    vocab_size=151936,
    max_position_embeddings=32768,
    rope_theta=1000000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
)
KNOWN_ARCHITECTURES: dict[str, dict[str, Any]] = {
    "Qwen2.5-0.5B-Instruct": dict(
        _QWEN25,
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
    ),
    "Qwen2.5-1.5B-Instruct": dict(
        _QWEN25,
        hidden_size=1536,
        intermediate_size=8960,
        num_hidden_layers=28,
        num_attention_heads=12,
        num_key_value_heads=2,
    ),
    "Qwen2.5-7B-Instruct": dict(
        _QWEN25,
        hidden_size=3584,
        intermediate_size=18944,
        num_hidden_layers=28,
        num_attention_heads=28,
        num_key_value_heads=4,
        vocab_size=152064,
        tie_word_embeddings=False,
    ),
}


def known_architecture(name: str) -> Any:
    """The config of a model in :data:`KNOWN_ARCHITECTURES` (matched on the folder name)."""
    for key, fields in KNOWN_ARCHITECTURES.items():
        if name.rstrip("/").split("/")[-1] == key:
            return SimpleNamespace(**fields)
    raise KeyError(f"{name!r} is not one of {sorted(KNOWN_ARCHITECTURES)}")


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per component of one training process and its colocated rollout engines."""

    weights: int
    gradients_and_optimizer: int
    reference: int
    activations: int
    engines: int

    @property
    def total(self) -> int:
        return self.weights + self.gradients_and_optimizer + self.reference + self.activations + self.engines


def parameter_count(model_config: Any) -> int:
    hidden, layers = model_config.hidden_size, model_config.num_hidden_layers
    inter = getattr(model_config, "intermediate_size", 4 * hidden)
    embeddings = model_config.vocab_size * hidden
    tied = getattr(model_config, "tie_word_embeddings", False)
    return embeddings * (1 if tied else 2) + layers * (4 * hidden * hidden + 3 * hidden * inter)


def lora_parameter_count(model_config: Any, rank: int) -> int:
    """Adapter parameters of rank ``rank`` on every linear layer of every block."""
    hidden, layers = model_config.hidden_size, model_config.num_hidden_layers
    inter = getattr(model_config, "intermediate_size", 4 * hidden)
    # q, k, v, o: (hidden + hidden); gate, up, down: (hidden + inter) -- an upper bound for GQA
    return layers * rank * (4 * 2 * hidden + 3 * (hidden + inter))


def kv_bytes_per_token(model_config: Any, dtype_bytes: int) -> int:
    heads = model_config.num_attention_heads
    kv_heads = getattr(model_config, "num_key_value_heads", heads)
    head_dim = model_config.hidden_size // heads
    return 2 * model_config.num_hidden_layers * kv_heads * head_dim * dtype_bytes


def estimate(model_config: Any, config: Any, gpu: bool, device_bytes: int | None = None) -> MemoryEstimate:
    """The upper estimate for ``config`` (a :class:`~palaestra.agents.config.TrainConfig`) on a
    GPU of ``device_bytes`` (``gpu``) or on the CPU."""
    params = parameter_count(model_config)
    mixed = gpu and config.bf16
    lora = config.lora_rank > 0
    weight_bytes = 2 if (mixed and lora) else 4  # a frozen LoRA base stays in bf16 on a GPU
    trainable = lora_parameter_count(model_config, config.lora_rank) if lora else params
    weights = params * weight_bytes + (trainable * 4 if lora else 0)
    optimizer = trainable * 4 * 3  # gradients and two AdamW moments, fp32
    reference = params * weight_bytes if config.kl_coef > 0 and not lora else 0
    hidden, layers = model_config.hidden_size, model_config.num_hidden_layers
    inter = getattr(model_config, "intermediate_size", 4 * hidden)
    act_bytes = 2 if mixed else 4
    per_layer = (16 * hidden + 2 * inter) * act_bytes
    if config.gradient_checkpointing:  # one block's inputs kept per layer, one block recomputed
        per_token = layers * 2 * hidden * act_bytes + per_layer
    else:
        per_token = layers * per_layer
    per_token += 3 * model_config.vocab_size * 4  # fp32 logits, log-softmax and their gradient
    if config.sharding == "fsdp":  # each process holds its shard of weights, gradients and moments
        from palaestra.agents.distributed import launched_world_size

        shards = launched_world_size()
        weights, optimizer = weights // shards, optimizer // shards
    micro = config.micro_batch_size or MICRO_BATCH_CHOICES[0]
    activations = micro * config.max_model_len * per_token
    engines = _engine_bytes(model_config, config, gpu, device_bytes)
    return MemoryEstimate(weights, optimizer, reference, activations, engines)


def _engine_bytes(model_config: Any, config: Any, gpu: bool, device_bytes: int | None) -> int:
    if config.backend == "transformers":
        return 0  # the policy generates: no second copy
    if config.use_ray:
        return 0  # Ray places each engine in its own process, on its own GPU
    if gpu:
        fraction = config.vllm_gpu_memory_utilization or auto_gpu_memory_utilization(
            model_config, config, device_bytes or 0
        )
        return int(fraction * (device_bytes or 0))
    weights = parameter_count(model_config) * 4
    return (config.vllm_kv_cache_mb * 2**20 + 2 * weights) * config.num_engines


def auto_gpu_memory_utilization(model_config: Any, config: Any, device_bytes: int) -> float:
    """The vLLM memory fraction a colocated engine needs: bf16 weights plus the KV cache of up to
    :data:`ENGINE_CONCURRENT_SEQUENCES` of one step's sequences at full length (vLLM queues the
    rest), with 30% and 2 GiB of headroom for its own buffers."""
    if device_bytes <= 0:
        return 0.3
    sequences = min(ENGINE_CONCURRENT_SEQUENCES, config.prompts_per_step * config.group_size)
    kv = sequences * config.max_model_len * kv_bytes_per_token(model_config, 2)
    need = 1.3 * (parameter_count(model_config) * 2 + kv) + 2 * GIB
    return round(min(0.9, max(0.05, need / device_bytes)), 3)


def fit_micro_batch(model_config: Any, config: Any, gpu: bool, device_bytes: int) -> int | None:
    """The largest micro-batch in :data:`MICRO_BATCH_CHOICES` whose estimate fits, or None."""
    from dataclasses import replace

    for micro in MICRO_BATCH_CHOICES:
        trial = replace(config, micro_batch_size=micro)
        if estimate(model_config, trial, gpu, device_bytes).total <= device_bytes:
            return micro
    return None


def memory_table(model_config: Any, config: Any, sizes_gb: tuple[int, ...] = DEVICE_SIZES_GB) -> list[dict]:
    """Per GPU size: whether ``config`` fits, with which micro-batch and vLLM fraction, and the
    estimate (docs/training.md prints these rows)."""
    from dataclasses import replace

    rows = []
    for size in sizes_gb:
        device = size * 10**9
        if config.micro_batch_size:  # a fixed micro-batch fits or not
            fits = estimate(model_config, config, True, device).total <= device
            micro = config.micro_batch_size if fits else None
        else:
            micro = fit_micro_batch(model_config, config, True, device)
        fitted = replace(config, micro_batch_size=micro or 1)
        rows.append(
            {
                "device_gb": size,
                "fits": micro is not None,
                "micro_batch_size": micro,
                "vllm_gpu_memory_utilization": config.vllm_gpu_memory_utilization
                or auto_gpu_memory_utilization(model_config, config, device),
                "estimate_gb": round(estimate(model_config, fitted, True, device).total / 10**9, 1),
            }
        )
    return rows
