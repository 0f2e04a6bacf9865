"""Checkpoints with exact resume: policy, optimizer, reference, curriculum, step and RNG states.

Every checkpoint is also a loadable Hugging Face model folder (``config.json``,
``model.safetensors``, the tokenizer and its chat template), so ``AutoModelForCausalLM``, vLLM and
``palaestra eval --model CHECKPOINT`` take it as it is; the training state lies next to the model
files. Every step's randomness is drawn from ``(run seed, step)``, so restoring these pieces makes
the resumed run's next step identical to the uninterrupted run's. A checkpoint is written to a
temporary folder and renamed into place: a kill mid-save never leaves a torn checkpoint.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np

STATE_FILE = "trainer_state.json"
ADAPTER_FILE = "adapters.safetensors"  # LoRA runs: the trained adapters (peft names)
FULL_OPTIMIZER_FILE = "optimizer_full.pt"  # sharded runs: the optimizer state keyed by parameter name


def checkpoint_dir(output_dir: str | os.PathLike, step: int) -> Path:
    return Path(output_dir) / "checkpoints" / f"step_{step:06d}"


def latest_checkpoint(output_dir: str | os.PathLike) -> Path | None:
    root = Path(output_dir) / "checkpoints"
    done = sorted(p for p in root.glob("step_*") if (p / STATE_FILE).exists()) if root.exists() else []
    return done[-1] if done else None


def save_model_folder(model: Any, tokenizer: Any, folder: str | os.PathLike) -> Path:
    """Write ``model`` and ``tokenizer`` as a Hugging Face model folder (the chat template included)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


def full_optimizer_state(trainer: Any) -> dict[str, Any]:
    """A sharded trainer's whole optimizer state, keyed by parameter name (a collective)."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    return get_optimizer_state_dict(trainer.policy, trainer.optimizer, options=options)


def load_weights(model: Any, weights: dict[str, Any]) -> None:
    """Full weights into ``model``, sharded (each process keeps its shard) or not."""
    from palaestra.agents.policy import is_sharded

    if is_sharded(model):
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

        set_model_state_dict(model, weights, options=StateDictOptions(full_state_dict=True, strict=False))
    else:
        model.load_state_dict(weights, strict=False)


def save_checkpoint(trainer: Any, extra: dict[str, Any] | None = None, name: str | None = None) -> Path:
    """Write the trainer's full state to ``output_dir/checkpoints/step_N`` (or ``checkpoints/name``)."""
    import torch
    from safetensors.torch import save_file

    out = trainer.config.output_dir
    target = checkpoint_dir(out, trainer.step_count) if name is None else Path(out) / "checkpoints" / name
    from palaestra.agents.policy import full_weights, is_lora, is_sharded

    sharded = is_sharded(trainer.policy)
    if sharded:  # gathering the shards is a collective: every process takes part, one writes
        weights = {k: v.detach().contiguous().cpu() for k, v in full_weights(trainer.policy).items()}
        optimizer_state = full_optimizer_state(trainer)
    parallel = getattr(trainer, "parallel", None)
    if parallel is not None and not parallel.is_main:  # one copy: every process holds the same state
        parallel.barrier()  # returns once the first process has written it
        return target
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if sharded:
        trainer.policy.save_pretrained(tmp, state_dict=weights, safe_serialization=True)
        trainer.tokenizer.save_pretrained(tmp)
    elif is_lora(trainer.policy):  # a loadable model folder (adapters merged) plus the adapters
        base = trainer.policy.get_base_model()
        base.save_pretrained(tmp, state_dict=full_weights(trainer.policy), safe_serialization=True)
        trainer.tokenizer.save_pretrained(tmp)
        from peft import get_peft_model_state_dict

        adapters = {
            k: v.detach().contiguous().cpu() for k, v in get_peft_model_state_dict(trainer.policy).items()
        }
        save_file(adapters, str(tmp / ADAPTER_FILE))
    else:
        save_model_folder(trainer.policy, trainer.tokenizer, tmp)
    if trainer.reference is not None:
        ref = {k: v.detach().contiguous().cpu().clone() for k, v in trainer.reference.state_dict().items()}
        save_file(ref, str(tmp / "reference.safetensors"))
    if sharded:  # keyed by parameter name: loads into a sharded or a single-process trainer
        torch.save(optimizer_state, tmp / FULL_OPTIMIZER_FILE)
    else:
        torch.save(trainer.optimizer.state_dict(), tmp / "optimizer.pt")
    torch.save(
        {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
        tmp / "rng.pt",
    )
    state = {
        "step": trainer.step_count,
        "generated_tokens": getattr(trainer, "generated_tokens", 0),
        "curriculum": trainer.curriculum.state_dict(),
        "config": trainer.config.to_dict(),
        "extra": extra or {},
    }
    (tmp / STATE_FILE).write_text(json.dumps(state, indent=1))
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    if parallel is not None:
        parallel.barrier()
    return target


def load_checkpoint(trainer: Any, path: str | os.PathLike) -> dict[str, Any]:
    """Restore ``trainer`` from ``path`` (and sync the rollout engine); returns the saved extra."""
    import copy

    import torch
    from safetensors.torch import load_file

    path = Path(path)
    state = json.loads((path / STATE_FILE).read_text())
    legacy = path / "policy.safetensors"  # checkpoints written before they were model folders
    if (path / ADAPTER_FILE).exists():  # a LoRA run: the base is the model's, the adapters are saved
        from peft import set_peft_model_state_dict

        set_peft_model_state_dict(trainer.policy, load_file(str(path / ADAPTER_FILE), device=trainer.device))
    else:
        weights = load_file(
            str(legacy if legacy.exists() else path / "model.safetensors"), device=trainer.device
        )
        load_weights(trainer.policy, weights)
    if (path / "reference.safetensors").exists():
        trainer.reference = copy.deepcopy(trainer.policy).eval()
        trainer.reference.load_state_dict(
            load_file(str(path / "reference.safetensors"), device=trainer.device)
        )
        for p in trainer.reference.parameters():
            p.requires_grad_(False)
    if (path / FULL_OPTIMIZER_FILE).exists():  # written by a sharded run
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

        full = torch.load(path / FULL_OPTIMIZER_FILE, weights_only=False)
        options = StateDictOptions(full_state_dict=True)
        set_optimizer_state_dict(trainer.policy, trainer.optimizer, full, options=options)
    else:
        trainer.optimizer.load_state_dict(torch.load(path / "optimizer.pt", weights_only=False))
    rng = torch.load(path / "rng.pt", weights_only=False)
    torch.set_rng_state(rng["torch"])
    np.random.set_state(rng["numpy"])
    random.setstate(rng["python"])
    trainer.curriculum.load_state_dict(state["curriculum"])
    trainer.step_count = int(state["step"])
    trainer.generated_tokens = int(state.get("generated_tokens", 0))
    trainer.sync()
    return state.get("extra", {})
