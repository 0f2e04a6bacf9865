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


def estimate_memory_bytes(model_config: Any, config: TrainConfig) -> int:
    """A rough upper estimate of the trainer's memory: weights, grads, AdamW, reference,
    activations of one micro-batch (with logits) and the rollout engine's KV cache."""
    hidden = model_config.hidden_size
    layers = model_config.num_hidden_layers
    vocab = model_config.vocab_size
    inter = getattr(model_config, "intermediate_size", 4 * hidden)
    params = vocab * hidden * (1 if getattr(model_config, "tie_word_embeddings", False) else 2)
    params += layers * (4 * hidden * hidden + 3 * hidden * inter)
    copies = 4 + (1 if config.kl_coef > 0 else 0)  # weights, grads, 2 Adam moments, reference
    seq = config.max_model_len
    activations = config.micro_batch_size * seq * (layers * (16 * hidden + 2 * inter) + 3 * vocab) * 4
    engine = config.vllm_kv_cache_mb * 2**20 * config.num_engines + 2 * params * 4 * config.num_engines
    return params * 4 * copies + activations + engine


def available_memory_bytes(config: TrainConfig, device: str) -> int:
    if config.memory_limit_gb > 0:
        return int(config.memory_limit_gb * 2**30)
    if device.startswith("cuda"):
        import torch

        return int(torch.cuda.mem_get_info()[1])
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def check_memory(model_config: Any, config: TrainConfig, device: str) -> None:
    need = estimate_memory_bytes(model_config, config)
    have = available_memory_bytes(config, device)
    if need > have:
        raise ValueError(
            f"this config needs about {need / 2**30:.1f} GiB but {have / 2**30:.1f} GiB are available "
            f"on {device}; lower micro_batch_size, max_model_len or vllm_kv_cache_mb"
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


def load_policy(path: Path, device: str) -> Any:
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(device)
    model.config.use_cache = False
    return model
