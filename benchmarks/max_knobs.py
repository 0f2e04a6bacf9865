"""make_task at every family's maximum valid knob values: time per call, and what it raises.

For each family the knobs are the hardest level's, with every numeric knob set to the top of its
range (``KnobSpec.high``); a choice or boolean knob keeps the hardest level's value. With
``--each``, every numeric knob is also set to its top alone (the other knobs at the hardest
level's values), since the top of one knob may be slow only with the others moderate. Each call runs
in its own forked process with a wall-clock limit (``--limit-s``, default 120 s): a call past it is
killed and reported as ``timeout``. A call may finish, raise ``ValueError`` (including
``GenerationError``: a clear refusal naming the knob), or raise anything else (a defect: no
``RuntimeError`` may reach a user). Results go to ``benchmarks/results/max_knobs.json``.

    python benchmarks/max_knobs.py [--limit-s 120] [--seeds 0 1 2] [--families a b]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

import palaestra
from palaestra.registry import get

RESULTS = Path(__file__).resolve().parent / "results" / "max_knobs.json"


def max_knobs(family: str) -> dict[str, Any]:
    """The hardest level's knobs with every numeric knob at the top of its range."""
    spec = get(family)
    knobs = spec.levels[max(spec.levels)].to_dict()
    for k in spec.knob_specs():
        if k.choices is None and k.high is not None and k.type in ("int", "float"):
            knobs[k.name] = int(k.high) if k.type == "int" else float(k.high)
    return knobs


def each_at_max(family: str) -> list[dict[str, Any]]:
    """The hardest level's knobs with one numeric knob at a time at the top of its range."""
    spec = get(family)
    base = spec.levels[max(spec.levels)].to_dict()
    out = []
    for k in spec.knob_specs():
        if k.choices is None and k.high is not None and k.type in ("int", "float"):
            top = int(k.high) if k.type == "int" else float(k.high)
            if top != base[k.name]:
                out.append(base | {k.name: top})
    return out


def _child(family: str, seed: int, knobs: dict[str, Any], conn: Any) -> None:
    start = time.process_time()
    try:
        palaestra.make_task(family, seed=seed, **knobs)
        outcome, message = "ok", ""
    except ValueError as exc:  # GenerationError is a ValueError
        outcome, message = type(exc).__name__, str(exc)[:300]
    except Exception as exc:  # a defect: reported, never raised to a user
        outcome, message = type(exc).__name__, str(exc)[:300]
    conn.send((outcome, message, time.process_time() - start))


def measure(family: str, seed: int, knobs: dict[str, Any], limit_s: float) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(family, seed, knobs, child))
    started = time.perf_counter()
    proc.start()
    child.close()
    if parent.poll(limit_s):
        outcome, message, cpu = parent.recv()
    else:
        outcome, message, cpu = "timeout", f"killed after {limit_s} s", None
    proc.kill()
    proc.join()
    wall = time.perf_counter() - started
    return {"seed": seed, "outcome": outcome, "message": message, "wall_s": round(wall, 2),
            "cpu_s": None if cpu is None else round(cpu, 2)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-s", type=float, default=120.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--families", nargs="+", default=None)
    parser.add_argument("--each", action="store_true", help="also each numeric knob alone at its top")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    families = args.families or palaestra.families()
    rows = []
    for family in families:
        for knobs in [max_knobs(family)] + (each_at_max(family) if args.each else []):
            for seed in args.seeds:
                row = {"family": family, "knobs": knobs} | measure(family, seed, knobs, args.limit_s)
                rows.append(row)
                print(f"{family:28} seed {seed} {row['outcome']:16} {row['wall_s']:7.2f} s  {row['message'][:100]}"
                      f"  {knobs}", flush=True)  # fmt: skip
    slow = sorted({r["family"] for r in rows if r["outcome"] == "timeout"})
    defects = sorted(
        {r["family"] for r in rows if r["outcome"] not in ("ok", "ValueError", "GenerationError", "timeout")}
    )
    summary = {"families": len(families), "limit_s": args.limit_s, "seeds": args.seeds,
               "timeouts": slow, "defects": defects,
               "max_wall_s": max(r["wall_s"] for r in rows if r["outcome"] != "timeout")}  # fmt: skip
    args.out.write_text(json.dumps({"summary": summary, "calls": rows}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
