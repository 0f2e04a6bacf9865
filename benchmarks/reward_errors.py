"""Reward error rates per family: wrong answers paid, right answers refused, hostile-input time.

Runs the red-team suite's attacks (``tests/adversarial``: near misses, other seeds' answers,
answer dumping, two final answers, format tricks, look-alikes, injected text, code and
certificate exploits, pathological sizes; rewritings and other valid answers built by our own
solvers) on every level (2 seeds each by default; the tests take levels 1, 5 and 10), and
records per family:

- ``false_positive_rate``: paid responses among those known to be wrong (by construction, by the
  family's answer profile or by an independent judge), overall and per attack class;
- ``false_negative_rate``: refused responses among right answers said differently or found by
  our own solvers;
- ``verifier_failures``: verdicts with status ``timeout`` or ``verifier_error`` on our attacks;
- ``max_hostile_verify_s``: the slowest verify (wall and CPU of this process) on hostile input;
- ``mutation_kill_rate`` (code and SQL families): from ``benchmarks/mutation.py``'s stored
  results, or ``{"status": "not measured"}`` while that benchmark is not on this branch;
- ``best_constant_score`` per level: from ``benchmarks/constant_answers.py``'s stored results
  (computed with its ``best_constant_score``), or ``{"status": "not measured"}``.

Results merge into ``measured/reward_errors.json`` (package data) (one record per family, with the
family version; a stale record is shown as not measured in ``docs/catalog.md``).

    python benchmarks/reward_errors.py                                 # every family
    python benchmarks/reward_errors.py --families sudoku countdown --seeds 5
    python benchmarks/reward_errors.py --jobs 2                        # families in 2 processes
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from types import ModuleType
from typing import Any

import palaestra
from palaestra.catalog import stored_reward_errors
from palaestra.core import LEVELS
from palaestra.measurements import REWARD_ERRORS
from palaestra.registry import get

ROOT = Path(__file__).resolve().parents[1]
RESULTS = REWARD_ERRORS
OTHER_SEEDS = (1000, 1001)
SEEDS = 2  # seeds per level; the tests use 2 seeds at levels 1, 5, 10
SIZE_LEVELS = (1, 5, 10)  # hostile-size attacks (megabytes each) on seed 0 of these levels only
EXAMPLES = 5


def _adversarial() -> ModuleType:
    """The red-team package of the test suite (``tests/adversarial``), imported by path."""
    if "adversarial" not in sys.modules:
        sys.path.insert(0, str(ROOT / "tests"))
    import adversarial.attacks  # noqa: F401  (registers the judges)

    return sys.modules["adversarial"]


def _load_benchmark(name: str) -> ModuleType | None:
    path = ROOT / "benchmarks" / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


NOT_MEASURED = "not measured"


def mutation_kill_rate(family: str) -> dict[str, Any] | None:
    """The stored mutation benchmark figure of a code/SQL family (None for other families)."""
    if get(family).domain != "code":
        return None
    module = _load_benchmark("mutation")
    if module is None:
        return {"status": NOT_MEASURED, "why": "benchmarks/mutation.py is not on this branch yet"}
    stored = json.loads(module.OUT.read_text()) if module.OUT.exists() else {}
    row = stored.get("families", {}).get(family)
    if row is None:
        return {"status": NOT_MEASURED, "why": "no stored result in " + os.path.relpath(module.OUT, ROOT)}
    if row.get("version") != get(family).version:
        return {"status": NOT_MEASURED, "why": f"stored for version {row.get('version')}"}
    return {
        "status": "measured",
        "kill_rate": row["kill_rate"],
        "differing": row["differing"],
        "killed": row["killed"],
        "source": os.path.relpath(module.OUT, ROOT),
    }


def best_constant_scores(family: str) -> dict[str, Any]:
    """Best constant or content-free answer's score per level, from constant_answers.py."""
    module = _load_benchmark("constant_answers")
    if module is None:
        return {"status": NOT_MEASURED, "why": "benchmarks/constant_answers.py is not on this branch yet"}
    stored = json.loads(module.RESULTS.read_text()) if module.RESULTS.exists() else {}
    record = stored.get("families", {}).get(family)
    if record is None or record.get("family_version") != get(family).version:
        return {"status": NOT_MEASURED, "why": "no stored result for this family version"}
    levels = {int(k): v["best_score"] for k, v in record.get("levels", {}).items()}
    return {
        "status": "measured",
        "levels": {str(k): levels[k] for k in sorted(levels)},
        "seeds": stored.get("seeds_per_level"),
        "source": os.path.relpath(module.RESULTS, ROOT),
    }


def measure_family(family: str, seeds: int, levels: tuple[int, ...] = LEVELS) -> dict[str, Any]:
    """Run every attack class on seeds 0..seeds-1 at each level; count what was paid."""
    adversarial = _adversarial()
    attacks = adversarial.attacks
    started, cpu_started = time.perf_counter(), time.process_time()
    wrong: Counter[str] = Counter()
    paid: Counter[str] = Counter()
    right: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    undecided = 0
    failures: list[dict[str, Any]] = []
    examples: dict[str, list[dict[str, Any]]] = {"paid": [], "refused": [], "verifier_failures": []}
    hostile_wall = hostile_cpu = 0.0
    slowest = ""
    per_level: dict[str, Counter[str]] = {}
    for level in levels:
        tally = per_level.setdefault(str(level), Counter())
        for seed in range(seeds):
            task = palaestra.make_task(family, seed=seed, level=level)
            classes = [
                c
                for c in attacks.WRONG_CLASSES + attacks.RIGHT_CLASSES
                if c != "size" or (seed == 0 and level in SIZE_LEVELS)
            ]
            for attack in attacks.attacks_for(task, tuple(classes), OTHER_SEEDS):
                if attack.slow and (seed > 0 or level != levels[0]):
                    continue  # runs into a time limit by design: once per family
                cpu, wall = time.process_time(), time.perf_counter()
                verdict = palaestra.verify(task, attack.response)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                statuses[verdict.status] += 1
                case = {
                    "level": level,
                    "seed": seed,
                    "class": attack.cls,
                    "attack": attack.name,
                    "response": _storable(attack.response[:300]),
                    "status": verdict.status,
                    "reason": _storable(verdict.reason[:200]),
                }
                if attack.cls == "size" and wall > hostile_wall:
                    hostile_wall, slowest = wall, attack.name
                if attack.cls == "size":
                    hostile_cpu = max(hostile_cpu, cpu)
                if verdict.status in ("timeout", "verifier_error"):
                    failures.append(case)
                if attack.must_fail is True:
                    wrong[attack.cls] += 1
                    tally["wrong"] += 1
                    if verdict.correct or verdict.reward >= 1.0:
                        paid[attack.cls] += 1
                        tally["paid"] += 1
                        examples["paid"].append(case)
                elif attack.must_fail is False:
                    right[attack.cls] += 1
                    tally["right"] += 1
                    if not verdict.correct:
                        refused[attack.cls] += 1
                        tally["refused"] += 1
                        examples["refused"].append(case)
                else:
                    undecided += 1
    examples["verifier_failures"] = failures
    return {
        "family_version": get(family).version,
        "levels": list(levels),
        "seeds_per_level": seeds,
        "wrong_responses": sum(wrong.values()),
        "paid": sum(paid.values()),
        "false_positive_rate": _rate(sum(paid.values()), sum(wrong.values())),
        "right_responses": sum(right.values()),
        "refused": sum(refused.values()),
        "false_negative_rate": _rate(sum(refused.values()), sum(right.values())),
        # a near miss or exploit that our judge finds valid is a right answer: counted under "right"
        "by_class": {
            "wrong": {
                cls: {"responses": n, "paid": paid[cls], "rate": _rate(paid[cls], n)}
                for cls, n in sorted(wrong.items())
            },
            "right": {
                cls: {"responses": n, "refused": refused[cls], "rate": _rate(refused[cls], n)}
                for cls, n in sorted(right.items())
            },
        },
        "per_level": {
            k: {n: v[n] for n in ("wrong", "paid", "right", "refused")} for k, v in per_level.items()
        },
        "undecided": undecided,
        "statuses": dict(sorted(statuses.items())),
        "verifier_failures": len(failures),
        "max_hostile_verify_s": round(hostile_wall, 4),
        "max_hostile_verify_cpu_s": round(hostile_cpu, 4),
        "slowest_hostile_attack": slowest,
        "mutation_kill_rate": mutation_kill_rate(family),
        "best_constant_score": best_constant_scores(family),
        "examples": {k: v[:EXAMPLES] for k, v in examples.items()},
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu_started, 1),
    }


def _storable(text: str) -> str:
    """Text that UTF-8 can store: a lone surrogate (one of our attacks) becomes ``\\ud800``."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` only once ``text`` is written whole (a failed write keeps the old results)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(text)
    os.replace(partial, path)


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def summary(families: dict[str, Any]) -> dict[str, Any]:
    totals: dict[str, dict[str, Counter[str]]] = {"wrong": {}, "right": {}}
    for row in families.values():
        for side, classes in row["by_class"].items():
            errors = "paid" if side == "wrong" else "refused"
            for cls, cell in classes.items():
                tally = totals[side].setdefault(cls, Counter())
                tally["responses"] += cell["responses"]
                tally[errors] += cell[errors]
    return {
        "families": len(families),
        "families_paying_wrong_answers": sorted(f for f, r in families.items() if r["paid"]),
        "families_refusing_right_answers": sorted(f for f, r in families.items() if r["refused"]),
        "families_with_verifier_failures": sorted(f for f, r in families.items() if r["verifier_failures"]),
        "by_class": {
            side: {
                cls: {**dict(t), "rate": _rate(t["paid" if side == "wrong" else "refused"], t["responses"])}
                for cls, t in sorted(classes.items())
            }
            for side, classes in totals.items()
        },
        "max_hostile_verify_s": max((r["max_hostile_verify_s"] for r in families.values()), default=None),
        "max_hostile_verify_cpu_s": max(
            (r["max_hostile_verify_cpu_s"] for r in families.values()), default=None
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--families", nargs="*", default=None, help="families to measure (default: all)")
    parser.add_argument("--seeds", type=int, default=SEEDS, help="seeds 0..N-1 per level")
    parser.add_argument(
        "--levels", nargs="*", type=int, default=list(LEVELS), help="levels measured (default: all)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="families measured in parallel processes")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON file to merge the results into")
    args = parser.parse_args()
    names = args.families or palaestra.families()
    unknown = sorted(set(names) - set(palaestra.families()))
    if unknown:
        parser.error(f"unknown families: {unknown}")
    results = stored_reward_errors(args.out)
    results.setdefault("families", {})
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(measure_family, name, args.seeds, tuple(args.levels)): name for name in names}
        for future in as_completed(futures):
            name = futures[future]
            row = future.result()
            results["families"][name] = row
            print(
                f"{name:<26} FP {row['paid']}/{row['wrong_responses']}  FN {row['refused']}/{row['right_responses']}"
                f"  failures {row['verifier_failures']}  hostile max {row['max_hostile_verify_s']:.3f}s"
                f"  ({row['seconds']} s)",
                flush=True,
            )
            results["families"] = dict(sorted(results["families"].items()))
            results["summary"] = summary(results["families"])
            _write_atomically(args.out, json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
