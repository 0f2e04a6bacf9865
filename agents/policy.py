"""Loading and checking the policy: model path, causal LM, chat template, memory, families.

Every check runs before any work starts and fails with one clear ``ValueError`` (the CLI prints
it as one line), so a typo in a path or family never costs a model load or an SFT phase.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from palaestra.agents.config import TrainConfig


def resolve_model_path(model: str) -> Path:
    """``tiny`` -> the built-in model folder (built on first use); otherwise a checked local folder."""
    if model == "tiny":
        from palaestra.agents.tiny import build_tiny

        return build_tiny()
    path = Path(model).expanduser()
    if not path.exists():
        raise ValueError(f"model path {str(path)!r} does not exist (give a local Hugging Face model folder)")
    if not (path / "config.json").is_file():
        raise ValueError(f"model path {str(path)!r} has no config.json: not a Hugging Face model folder")
    return path


def check_causal_lm(path: Path) -> Any:
    """The model's config, or ``ValueError`` if it is not a causal language model."""
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    try:
        config = AutoConfig.from_pretrained(path)
    except Exception as exc:  # transformers raises several types for unreadable configs
        raise ValueError(f"cannot read the model config in {str(path)!r}: {exc}") from None
    archs = list(getattr(config, "architectures", None) or [])
    known = set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.values())
    if config.model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or (
        archs and not any(a in known or a.endswith("ForCausalLM") for a in archs)
    ):
        raise ValueError(
            f"model in {str(path)!r} is not a causal language model "
            f"(model_type={config.model_type!r}, architectures={archs})"
        )
    return config


def load_tokenizer(path: Path) -> Any:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(
            f"the tokenizer in {str(path)!r} has no chat template; add one to tokenizer_config.json "
            "(chat_template) or use an instruction-tuned model"
        )
    if tokenizer.eos_token_id is None:
        raise ValueError(f"the tokenizer in {str(path)!r} has no eos token: completions could never stop")
    return tokenizer


def check_families(names: list[str]) -> None:
    from palaestra.registry import families

    known = families()
    unknown = [n for n in names if n not in known]
    if unknown:
        close = sorted({c for n in unknown for c in difflib.get_close_matches(n, known, n=3, cutoff=0.6)})
        hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
        raise ValueError(
            f"unknown task famil{'y' if len(unknown) == 1 else 'ies'} {unknown}; {hint}"
            f"`palaestra list` names all {len(known)}"
        )


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("device cuda requested but torch sees no GPU")
    return device


def available_memory_bytes(config: TrainConfig, device: str) -> int:
    if config.memory_limit_gb > 0:
        return int(config.memory_limit_gb * 2**30)
    if device.startswith("cuda"):
        import torch

        return int(torch.cuda.mem_get_info()[1])
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def check_memory(model_config: Any, config: TrainConfig, device: str) -> None:
    """Refuse a config whose estimate exceeds the device; resolve the automatic sizes in place
    (``micro_batch_size`` 0: the largest that fits; ``vllm_gpu_memory_utilization`` 0 on a GPU:
    what a colocated engine needs), so ``config.json`` records what ran."""
    from palaestra.agents import memory

    gpu = device.startswith("cuda")
    have = available_memory_bytes(config, device)
    if gpu and not config.vllm_gpu_memory_utilization and config.backend != "transformers":
        config.vllm_gpu_memory_utilization = memory.auto_gpu_memory_utilization(model_config, config, have)
    if not config.micro_batch_size:
        fitted = memory.fit_micro_batch(model_config, config, gpu, have)
        config.micro_batch_size = fitted or 1  # 1 fails the check below with the estimate
    need = memory.estimate(model_config, config, gpu, have)
    if need.total > have:
        raise ValueError(
            f"this config needs about {need.total / 2**30:.1f} GiB but {have / 2**30:.1f} GiB are available "
            f"on {device} (weights {need.weights / 2**30:.1f}, gradients and optimizer "
            f"{need.gradients_and_optimizer / 2**30:.1f}, activations {need.activations / 2**30:.1f}, "
            f"engines {need.engines / 2**30:.1f}); lower micro_batch_size or max_model_len, or turn on "
            "gradient_checkpointing or lora_rank"
        )


def preflight(config: TrainConfig) -> tuple[Path, Any, Any, str]:
    """All input checks, cheapest first: (model path, tokenizer, model config, device)."""
    check_families(config.family_list())
    path = resolve_model_path(config.model)
    model_config = check_causal_lm(path)
    tokenizer = load_tokenizer(path)
    device = resolve_device(config.device)
    check_memory(model_config, config, device)
    return path, tokenizer, model_config, device


def load_policy(path: Path, device: str, config: TrainConfig | None = None) -> Any:
    """The policy in fp32 (mixed precision autocasts on a GPU), with gradient checkpointing and
    LoRA adapters (peft) when ``config`` asks; a frozen LoRA base stays in bf16 on a GPU."""
    import torch
    from transformers import AutoModelForCausalLM

    lora = config is not None and config.lora_rank > 0
    bf16_base = lora and config.bf16 and device.startswith("cuda")
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16 if bf16_base else torch.float32)
    model = model.to(device)
    model.config.use_cache = False
    if config is not None and config.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if lora:
        model = with_lora(model, config)
    return model


def with_lora(model: Any, config: TrainConfig) -> Any:
    """``model`` wrapped with LoRA adapters on every linear layer of its blocks (peft)."""
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError:
        raise ValueError("lora_rank > 0 needs peft: pip install 'palaestra[train]'") from None
    lora = LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=0.0,  # dropout would make the trainer's logprobs differ from the engine's
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )
    if config.gradient_checkpointing:
        model.enable_input_require_grads()  # checkpointed blocks need a grad-carrying input
    return get_peft_model(model, lora)


def is_lora(model: Any) -> bool:
    return hasattr(model, "peft_config")


def is_sharded(model: Any) -> bool:
    """Whether ``model`` was sharded in place by FSDP2 (``sharding=fsdp``)."""
    from torch.distributed.fsdp import FSDPModule

    return isinstance(model, FSDPModule)


def full_weights(model: Any) -> dict[str, Any]:
    """The weights a rollout engine or a model folder needs, under the base model's names: for a
    LoRA policy, the adapters merged into copies of the base weights (the policy is unchanged)."""
    if is_sharded(model):  # every process gathers the whole of every parameter (a collective)
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        return get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
    if not is_lora(model):
        return model.state_dict()
    model.merge_adapter()
    try:
        merged = {}
        for key, value in model.get_base_model().state_dict().items():
            if "lora_" in key:
                continue
            merged[key.replace(".base_layer.", ".")] = value.detach().clone()
    finally:
        model.unmerge_adapter()
    return merged
