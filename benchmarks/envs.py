"""Env steps per second for a pool of 256 envs: single-turn, feedback, interactive and tool envs.

Each measurement resets a 256-env ``EnvPool`` and steps every env with a fixed scripted
action until ``--steps`` pool steps are done (autoreset keeps every env busy). The figure is
env steps (one action graded or answered) per second of wall time, with the pool's threads.
Results: ``benchmarks/results/envs.json``.

    python benchmarks/envs.py
    python benchmarks/envs.py --envs 64 --steps 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium

import palaestra
from palaestra.envs import EnvPool, FeedbackEnv, ToolEnv
from palaestra.envs.interactive import InteractiveEnv
from palaestra.envs.tools import LazySandbox

RESULTS = Path(__file__).resolve().parent / "results" / "envs.json"


def measure(
    name: str,
    factory: Callable[[], gymnasium.Env],
    action: Callable[[EnvPool, int], str],
    envs: int,
    steps: int,
) -> dict:
    pool = EnvPool([factory for _ in range(envs)], seed=0)
    pool.reset()
    started = time.perf_counter()
    for _ in range(steps):
        pool.step({i: action(pool, i) for i in range(envs)})
    elapsed = time.perf_counter() - started
    pool.close()
    rate = envs * steps / elapsed
    print(f"{name:<14} {rate:>10.1f} env steps/s  ({envs} envs x {steps} steps in {elapsed:.1f} s)")
    return {"env_steps_per_s": round(rate, 1), "envs": envs, "steps": steps, "seconds": round(elapsed, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", type=int, default=256, help="envs in the pool")
    parser.add_argument("--steps", type=int, default=10, help="pool steps per measurement")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    sandbox = LazySandbox(workers=os.cpu_count() or 1)  # one sandbox shared by every tool env

    def answer(pool: EnvPool, i: int) -> str:
        return f"<answer>{pool.envs[i].unwrapped.task.answer}</answer>"

    def wrong(pool: EnvPool, i: int) -> str:
        return "<answer>0</answer>"

    def mastermind_move(pool: EnvPool, i: int) -> str:
        return pool.envs[i].unwrapped.episode.reference_action()

    def tool_call(pool: EnvPool, i: int) -> str:
        return '<tool name="python">print(sum(range(1000)))</tool>'

    results = {
        "single_turn": measure(
            "single_turn", lambda: gymnasium.make("palaestra/Expression-v0"), answer, args.envs, args.steps
        ),
        "feedback": measure(
            "feedback", lambda: FeedbackEnv("expression", max_attempts=3), wrong, args.envs, args.steps
        ),
        "interactive": measure(
            "interactive",
            lambda: InteractiveEnv("mastermind", level=5),
            mastermind_move,
            args.envs,
            args.steps,
        ),
        "tool": measure(
            "tool",
            lambda: ToolEnv("expression", tools=("python",), sandbox=sandbox, max_tool_calls=10**6),
            tool_call,
            args.envs,
            args.steps,
        ),
    }
    sandbox.close()
    record = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "palaestra_version": palaestra.__version__,
        "note": "tool env steps run a real sandboxed Python program per step",
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
