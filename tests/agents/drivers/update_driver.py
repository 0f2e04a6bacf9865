"""Run by tests/agents/test_distributed.py, in one process or under ``torchrun``: one GRPO update
of the tiny model on a fixed batch with mixed rewards (every process builds the same batch and
trains on its share), then the update's loss and gradient norm as JSON on stdout (first process)."""

from __future__ import annotations

import json
import sys

import palaestra
from palaestra.agents.config import TrainConfig
from palaestra.agents.rollout import Episode
from palaestra.agents.trainer import GRPOTrainer
from palaestra.registry import get


def batch(trainer: GRPOTrainer) -> tuple[list[Episode], list[float]]:
    """Six tasks, four responses each (the reference and three wrong answers), advantages from
    the verifier's rewards: a batch whose gradient is not zero."""
    episodes, advantages = [], []
    for seed in range(6):
        task = palaestra.make_task("expression", seed=seed, level=1)
        prompt = trainer.chat.prompt_ids(task.prompt)
        responses = [get("expression").impl.reference_response(task)] + [
            f"<answer>{int(task.answer) + k}</answer>" for k in (1, 2, 3)
        ]
        for text in responses:
            ids = trainer.chat.response_ids(text)
            verdict = palaestra.verify(task, trainer.chat.decode(ids))
            episodes.append(
                Episode(
                    seed,
                    prompt,
                    ids,
                    [1] * len(ids),
                    [0.0] * len(ids),
                    verdict.reward,
                    verdict.correct,
                    verdict.format_ok,
                    "expression",
                    1,
                )  # fmt: skip
            )
            advantages.append(1.0 if verdict.correct else -1 / 3)
    return episodes, advantages


class NoEngine:
    """The update needs no generation: a backend that only takes weight syncs."""

    def sync_weights(self, state_dict) -> None:
        pass

    def close(self) -> None:
        pass


def main() -> int:
    out, sharding = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "none")
    uneven = "uneven" in sys.argv[3:]  # 21 sequences in micro-batches of 5: 3 on one process, 2 on the other
    config = TrainConfig(
        backend="transformers", micro_batch_size=5 if uneven else 4, output_dir=out, run_subfolder=False,
        progress=False, plots=False, kl_coef=0.0 if sharding == "fsdp" else 0.05, entropy_coef=0.01,
        updates_per_step=2, sharding=sharding,
    )  # fmt: skip
    trainer = GRPOTrainer(config, backend=NoEngine())
    trainer.snapshot_reference()
    episodes, advantages = batch(trainer)
    if uneven:
        episodes, advantages = episodes[:21], advantages[:21]
    metrics = trainer.update(episodes, advantages)
    trainer.sync()  # under FSDP a collective gather of every weight
    if trainer.parallel.is_main:
        print(json.dumps({"world": trainer.parallel.world, "sharded": trainer.parallel.sharded, **metrics}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
