"""Data-parallel training through ``accelerate`` (torch.distributed: gloo on CPUs, NCCL on GPUs).

Launched by ``torchrun --nproc_per_node N`` (or ``accelerate launch`` on GPUs), every process runs
the same trainer. Each process draws the same step's tasks from the run seed, generates and grades
a contiguous shard of them on its own engine, and computes its part of the loss with the *global*
token and sequence counts; ``accelerate``'s DistributedDataParallel wrapper then averages gradients,
which the loss undoes by a factor of the world size, so the update equals one process training on
the whole batch. What every process must agree on (the curriculum's view of each group, the logged
metrics) is gathered in task order. Without a launcher this is a single process and every method is
the identity: the single-process path is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


def launched_world_size() -> int:
    """The number of processes the launcher started (1 without one)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


class DataParallel:
    """The process group of one run, or a single process."""

    def __init__(self, use_cpu: bool, sharding: str = "none") -> None:
        self.accelerator: Any = None
        self.sharding = sharding  # "fsdp": parameters, gradients and optimizer state sharded (FSDP2)
        self.rank, self.world = 0, 1
        if launched_world_size() > 1:
            from accelerate import Accelerator

            self.accelerator = Accelerator(cpu=use_cpu)
            self.rank, self.world = self.accelerator.process_index, self.accelerator.num_processes

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def shard(self, count: int) -> tuple[int, int]:
        """This process's contiguous share ``[start, stop)`` of ``count`` items (the first
        ``count % world`` processes take one more)."""
        base, extra = divmod(count, self.world)
        start = self.rank * base + min(self.rank, extra)
        return start, start + base + (1 if self.rank < extra else 0)

    @property
    def sharded(self) -> bool:
        return self.accelerator is not None and self.sharding == "fsdp"

    def wrap(self, model: Any) -> Any:
        """The model whose backward averages gradients over processes (the model itself alone):
        DistributedDataParallel, or with ``sharding="fsdp"`` the model itself sharded in place by
        torch's FSDP2 (one shard group per decoder layer, then the rest), before any optimizer
        sees its parameters."""
        if self.accelerator is None:
            return model
        if not self.sharded:
            return self.accelerator.prepare_model(model)
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard

        mesh = init_device_mesh(self.accelerator.device.type, (self.world,))
        for layer in model.model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
        return model

    @contextmanager
    def no_sync(self, wrapped: Any) -> Iterator[None]:
        """Skip the gradient reduction of one backward (accumulate locally)."""
        if self.accelerator is None:
            yield
        elif self.sharded:
            wrapped.set_requires_gradient_sync(False)
            try:
                yield
            finally:
                wrapped.set_requires_gradient_sync(True)
        else:
            with self.accelerator.no_sync(wrapped):
                yield

    def sum(self, values: Sequence[float]) -> list[float]:
        """Element-wise sum over processes."""
        if self.accelerator is None:
            return [float(v) for v in values]
        import torch

        tensor = torch.tensor([float(v) for v in values], dtype=torch.float64, device=self.accelerator.device)
        torch.distributed.all_reduce(tensor)
        return tensor.tolist()

    def gather(self, items: list[Any]) -> list[Any]:
        """Every process's ``items`` concatenated in rank order (picklable objects)."""
        if self.accelerator is None:
            return list(items)
        import torch

        parts: list[Any] = [None] * self.world
        torch.distributed.all_gather_object(parts, items)
        return [item for part in parts for item in part]

    def barrier(self) -> None:
        if self.accelerator is not None:
            self.accelerator.wait_for_everyone()
