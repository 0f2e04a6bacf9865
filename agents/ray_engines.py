"""Rollout engines placed by Ray: one vLLM engine per Ray actor, on one machine or many.

``ray_engines(...)`` starts ``num_engines`` actors, each holding a :class:`VLLMBackend` in its
own process: one GPU per engine where the cluster has GPUs, ``cpus_per_engine`` CPU cores
otherwise, placed by Ray wherever those resources are (so several nodes just work). The
trainer drives them through :class:`RayEngines`, a :class:`DataParallelBackend` whose weight
sync puts the state dict into Ray's object store once and hands every engine the same reference.

Ray is joined at ``RAY_ADDRESS`` (or ``address``) when set, else started locally; a Ray this
module started is shut down on ``close()``. Needs the ``ray`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from palaestra.agents.backends import Backend, BackendStats, Completion, DataParallelBackend, Sampling

# The engine inside an actor runs in-process (weights synced in memory, no extra processes) and
# with one OpenMP thread per reserved core, whatever the driver's environment says.
_ACTOR_ENV = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


class _EngineActor:
    """The body of one Ray actor: a VLLMBackend and pass-through methods."""

    def __init__(self, model_path: str, engine_kwargs: dict[str, Any]) -> None:
        from palaestra.agents.backends import VLLMBackend

        self.engine = VLLMBackend(model_path, **engine_kwargs)

    def generate(self, prompt_ids: list[list[int]], n: int, sampling: Sampling) -> list[list[Completion]]:
        return self.engine.generate(prompt_ids, n, sampling)

    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        self.engine.sync_weights(state_dict)

    def sleep(self) -> None:
        self.engine.sleep()

    def wake(self) -> None:
        self.engine.wake()

    def stats(self) -> BackendStats:
        return self.engine.stats

    def close(self) -> None:
        self.engine.close()


class RayEngine(Backend):
    """A handle on one engine actor, behind the token-level interface."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def generate(
        self, prompt_ids: Sequence[Sequence[int]], n: int, sampling: Sampling
    ) -> list[list[Completion]]:
        import ray

        return ray.get(self.actor.generate.remote([list(p) for p in prompt_ids], n, sampling))

    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        import ray

        ray.get(self.actor.sync_weights.remote(_cpu_state(state_dict)))

    def sleep(self) -> None:
        import ray

        ray.get(self.actor.sleep.remote())

    def wake(self) -> None:
        import ray

        ray.get(self.actor.wake.remote())

    @property
    def stats(self) -> BackendStats:
        import ray

        return ray.get(self.actor.stats.remote())

    def close(self) -> None:
        import ray

        try:
            ray.get(self.actor.close.remote())
        finally:
            ray.kill(self.actor)


class RayEngines(DataParallelBackend):
    """Data-parallel rollouts over Ray engine actors; one object-store copy per weight sync."""

    def __init__(self, engines: Sequence[RayEngine], *, started_ray: bool = False) -> None:
        super().__init__(engines)
        self.started_ray = started_ray

    def sync_weights(self, state_dict: Mapping[str, Any]) -> None:
        import ray

        shared = ray.put(_cpu_state(state_dict))
        ray.get([engine.actor.sync_weights.remote(shared) for engine in self.engines])

    def close(self) -> None:
        import ray

        try:
            super().close()
        finally:
            if self.started_ray:
                ray.shutdown()


def ray_engines(
    model_path: str | os.PathLike,
    num_engines: int,
    *,
    engine_kwargs: Mapping[str, Any],
    use_gpu: bool,
    cpus_per_engine: int = 1,
    seed: int = 0,
    address: str | None = None,
) -> RayEngines:
    """Start ``num_engines`` vLLM engine actors (engine ``i`` seeded ``seed + i``)."""
    if num_engines < 1:
        raise ValueError(f"num_engines must be at least 1, got {num_engines}")
    try:
        import ray
    except ImportError:
        raise ValueError("use_ray needs Ray: pip install 'palaestra[ray]'") from None
    started = False
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        local = {} if address else {"num_cpus": max(os.cpu_count() or 1, num_engines * cpus_per_engine)}
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **local)
        started = True
    _check_resources(ray.cluster_resources(), num_engines, use_gpu, cpus_per_engine)
    env = {**_ACTOR_ENV, "OMP_NUM_THREADS": str(cpus_per_engine)}
    actor_class = ray.remote(_EngineActor).options(
        num_gpus=1 if use_gpu else 0,
        num_cpus=cpus_per_engine,
        runtime_env={"env_vars": env},
    )
    actors = [
        actor_class.remote(str(model_path), {**engine_kwargs, "seed": seed + i}) for i in range(num_engines)
    ]
    ray.get([actor.stats.remote() for actor in actors])  # surface a failed engine start here
    return RayEngines([RayEngine(a) for a in actors], started_ray=started)


def _check_resources(resources: Mapping[str, float], engines: int, use_gpu: bool, cpus: int) -> None:
    """Fail before any engine starts when the cluster cannot hold them all."""
    if use_gpu and resources.get("GPU", 0) < engines:
        raise ValueError(
            f"use_ray: {engines} engines need {engines} GPUs; the Ray cluster has {resources.get('GPU', 0):g}"
        )
    if not use_gpu and resources.get("CPU", 0) < engines * cpus:
        raise ValueError(
            f"use_ray: {engines} engines x {cpus} CPUs exceed the Ray cluster's {resources.get('CPU', 0):g} CPUs"
        )


def _cpu_state(state_dict: Mapping[str, Any]) -> dict[str, Any]:
    """Detached CPU tensors: what crosses process (and node) boundaries."""
    return {name: tensor.detach().to("cpu") for name, tensor in state_dict.items()}
