"""Ray engine placement: two CPU vLLM engines in Ray actors on a local Ray started by the test.

The engines come from the trainer's own ``make_backend`` (``use_ray=True, num_engines=2``) and
must agree with the transformers backend token for token, before and after weight syncs.
"""

from __future__ import annotations

import pytest

import palaestra
from palaestra.agents.backends import Sampling, TransformersBackend
from palaestra.agents.config import TrainConfig

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    pytest.importorskip("vllm")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _perturb(model, seed: int, scale: float = 0.05) -> None:
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=g) * scale)


def test_two_ray_engines_match_transformers_after_syncs(tiny_path, tokenizer, local_ray, tmp_path):
    from palaestra.agents.ray_engines import RayEngines
    from palaestra.agents.rollout import ChatFormat
    from palaestra.agents.trainer import make_backend

    config = TrainConfig(
        backend="vllm", use_ray=True, num_engines=2, vllm_kv_cache_mb=64, output_dir=str(tmp_path)
    )
    hf = TransformersBackend.from_pretrained(tiny_path)
    engines = make_backend(config, tiny_path, hf.model, hf.pad_token_id)
    try:
        assert isinstance(engines, RayEngines) and len(engines.engines) == 2
        chat = ChatFormat(tokenizer)
        prompts = [
            chat.prompt_ids(palaestra.make_task("expression", seed=s, level=2).prompt) for s in range(5)
        ]
        greedy = Sampling(max_tokens=8, temperature=0.0, stop_token_ids=chat.stop_token_ids)
        worst = 0.0
        for sync in range(2):
            if sync:
                _perturb(hf.model, seed=sync)
                engines.sync_weights(hf.model.state_dict())
            ours, theirs = engines.generate(prompts, 1, greedy), hf.generate(prompts, 1, greedy)
            assert len(ours) == len(prompts)
            for gr, gh in zip(ours, theirs, strict=True):
                assert gr[0].token_ids == gh[0].token_ids
                worst = max(worst, *(abs(a - b) for a, b in zip(gr[0].logprobs, gh[0].logprobs, strict=True)))
        assert worst < 1e-4, worst
        # both actors did work: prompts are split between them
        assert all(engine.stats.generated_tokens > 0 for engine in engines.engines)
    finally:
        engines.close()


def test_ray_refuses_more_engines_than_the_cluster_holds(tiny_path, local_ray):
    from palaestra.agents.ray_engines import ray_engines

    with pytest.raises(ValueError, match="exceed the Ray cluster's 2 CPUs"):
        ray_engines(tiny_path, 3, engine_kwargs={}, use_gpu=False)
    with pytest.raises(ValueError, match="need 1 GPUs"):
        ray_engines(tiny_path, 1, engine_kwargs={}, use_gpu=True)


def test_use_ray_needs_the_vllm_backend(tmp_path):
    from palaestra.agents.trainer import make_backend

    config = TrainConfig(backend="transformers", use_ray=True, output_dir=str(tmp_path))
    with pytest.raises(ValueError, match="use_ray need backend=vllm"):
        make_backend(config, tmp_path, policy=None, pad_token_id=0)
