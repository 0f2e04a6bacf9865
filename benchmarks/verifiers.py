"""Benchmark: palaestra's math verifier vs math-verify on the project's equivalence suite.

    pip install math-verify   # benchmark only; not a dependency of palaestra
    python benchmarks/verifiers.py [--timeout 5] [--out benchmarks/results/verifiers.json]

Both verifiers see every case of tests/verifiers/math_cases.py in the same run, each under
the same hard wall-clock timeout: ours through its own kill-safe worker, math-verify in a
child process that is killed and restarted when a case runs past the bound (its own
signal-based timeouts only work on the main thread). A timeout counts as "not equal".
Reported per category: accuracy, false negatives (equal pairs rejected), false positives
(different pairs accepted); latency mean/p50/p99/max as seen by the caller; and the
single-core throughput of simple numeric verifications.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def load_cases() -> list[tuple[str, str, str, bool, dict[str, Any]]]:
    spec = importlib.util.spec_from_file_location(
        "math_cases", ROOT / "tests" / "verifiers" / "math_cases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


# ------------------------------------------------------------------------------------------
# math-verify in a killable child
# ------------------------------------------------------------------------------------------


def _math_verify_child(conn: Any) -> None:
    from math_verify import parse, verify

    def read(text: str) -> Any:
        parsed = parse(f"${text}$")
        return parsed if parsed else parse(text)

    conn.send("ready")
    while True:
        gold, pred = conn.recv()
        try:
            conn.send(("ok", bool(verify(read(gold), read(pred)))))
        except Exception as exc:  # math-verify raising counts as "not equal", reported
            conn.send(("error", f"{type(exc).__name__}: {exc}"[:200]))


class MathVerifyRunner:
    """One math-verify process; a case that runs past the timeout kills and replaces it."""

    def __init__(self) -> None:
        self.ctx = mp.get_context("spawn")
        self._start()

    def _start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_math_verify_child, args=(child,), daemon=True)
        self.proc.start()
        if not self.conn.poll(120) or self.conn.recv() != "ready":
            raise RuntimeError("math-verify child failed to start")

    def __call__(self, gold: str, pred: str, timeout_s: float) -> tuple[bool, str | None, float]:
        """(said equal, error, seconds); the restart after a timeout is not timed."""
        start = time.perf_counter()
        self.conn.send((gold, pred))
        if self.conn.poll(timeout_s):
            status, value = self.conn.recv()
            elapsed = time.perf_counter() - start
            return (value, None, elapsed) if status == "ok" else (False, value, elapsed)
        elapsed = time.perf_counter() - start
        self.proc.kill()
        self.proc.join()
        self._start()
        return False, "timeout", elapsed

    def close(self) -> None:
        self.proc.kill()
        self.proc.join()


# ------------------------------------------------------------------------------------------
# Scoring
# ------------------------------------------------------------------------------------------


def run_ours(cases: list, timeout_s: float) -> list[dict[str, Any]]:
    from palaestra.verifiers.math import MathPolicy, math_equal, warm_up

    warm_up(1)
    rows = []
    for category, gold, pred, label, policy in cases:
        start = time.perf_counter()
        verdict = math_equal(gold, pred, policy=MathPolicy(timeout_s=timeout_s, **policy))
        elapsed = time.perf_counter() - start
        rows.append(
            {
                "category": category,
                "gold": gold,
                "pred": pred[:200],
                "label": label,
                "said": verdict.correct,
                "error": verdict.error,
                "seconds": elapsed,
            }
        )
    return rows


def run_math_verify(cases: list, timeout_s: float) -> list[dict[str, Any]]:
    runner = MathVerifyRunner()
    rows = []
    try:
        for category, gold, pred, label, _policy in cases:
            said, error, elapsed = runner(gold, pred, timeout_s)
            rows.append(
                {
                    "category": category,
                    "gold": gold,
                    "pred": pred[:200],
                    "label": label,
                    "said": said,
                    "error": error,
                    "seconds": elapsed,
                }
            )
    finally:
        runner.close()
    return rows


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def stats(subset: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(subset)
        fn = sum(1 for r in subset if r["label"] and not r["said"])
        fp = sum(1 for r in subset if not r["label"] and r["said"])
        return {
            "n": n,
            "accuracy": round((n - fn - fp) / n, 4) if n else None,
            "false_negatives": fn,
            "false_positives": fp,
            "positives": sum(r["label"] for r in subset),
        }

    by_cat: dict[str, list] = collections.defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    default = [r for r in rows if not r["category"].startswith(_POLICY_CATEGORIES)]
    adversarial = [r for r in default if r["category"].startswith("adversarial")]
    times = sorted(r["seconds"] for r in rows)
    return {
        "overall_default_policy": stats(default),
        "equivalence_set": stats([r for r in default if not r["category"].startswith("adversarial")]),
        "adversarial_set": stats(adversarial),
        "overall_all_cases": stats(rows),
        "per_category": {c: stats(v) for c, v in sorted(by_cat.items())},
        "latency_ms": {
            "mean": round(1000 * statistics.fmean(times), 3),
            "p50": round(1000 * times[len(times) // 2], 3),
            "p99": round(1000 * times[min(len(times) - 1, int(0.99 * len(times)))], 3),
            "max": round(1000 * times[-1], 3),
        },
        "timeouts": sum(1 for r in rows if r["error"] == "timeout"),
        "errors": sum(1 for r in rows if r["error"] not in (None, "timeout")),
        "cases_over_5s": sum(1 for r in rows if r["seconds"] > 5.0),
        "mistakes": [
            {k: r[k] for k in ("category", "gold", "pred", "label", "error")}
            for r in rows
            if r["said"] != r["label"]
        ],
    }


# policy categories need a non-default MathPolicy; math-verify has no such switches
_POLICY_CATEGORIES = ("units_stripped", "relative_tolerance", "imaginary_j")


# ------------------------------------------------------------------------------------------
# Throughput
# ------------------------------------------------------------------------------------------


def numeric_pairs(n: int) -> list[tuple[str, str]]:
    import random

    rng = random.Random(7)
    pairs = []
    for _ in range(n):
        a = rng.randint(-(10**6), 10**6)
        kind = rng.randrange(4)
        if kind == 0:
            pairs.append((str(a), f"{a:,}"))
        elif kind == 1:
            pairs.append((str(a), f"{a}.0"))
        elif kind == 2:
            b = rng.randint(1, 999)
            pairs.append((f"{a}/{b}", rf"\frac{{{a}}}{{{b}}}"))
        else:
            pairs.append((str(a), str(a + rng.choice([-1, 1]))))
    return pairs


def throughput(fn: Any, pairs: list[tuple[str, str]], seconds: float = 3.0) -> tuple[float, float]:
    """(verifications per wall second, per CPU second of this process) in one thread.

    The CPU figure is the per-core rate for in-process work and does not depend on how
    loaded the machine is; for work done in a worker it overstates (the worker's CPU is
    not counted), so only the wall figure is reported for that.
    """
    count, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for gold, pred in pairs:
            fn(gold, pred)
        count += len(pairs)
    return count / (time.perf_counter() - start), count / max(time.process_time() - cpu, 1e-9)


def run_throughput() -> dict[str, Any]:
    from math_verify import parse, verify

    from palaestra.verifiers.math import math_equal, warm_up

    warm_up(1)  # worker start-up is not part of the throughput
    pairs = numeric_pairs(500)
    ours_wall, ours_cpu = throughput(lambda g, p: math_equal(g, p), pairs)
    symbolic = [
        (r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt 2}"),
        ("(x+1)^2", "x^2+2x+1"),
        (r"(1,\infty)", "x>1"),
    ]
    symbolic_wall, _ = throughput(lambda g, p: math_equal(g, p), symbolic, seconds=3.0)
    theirs_wall, theirs_cpu = throughput(lambda g, p: verify(parse(f"${g}$"), parse(f"${p}$")), pairs[:100])
    return {
        "simple_numeric_per_cpu_second": round(ours_cpu),
        "simple_numeric_per_wall_second_one_thread": round(ours_wall),
        "symbolic_per_wall_second_one_thread": round(symbolic_wall),
        "math_verify_simple_numeric_per_cpu_second": round(theirs_cpu),
        "math_verify_simple_numeric_per_wall_second_one_thread": round(theirs_wall),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "note": "one calling thread; simple numbers take the in-process exact path (per CPU second = per core), "
        "symbolic pairs go through one worker process",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--timeout", type=float, default=5.0, help="hard per-case bound, seconds")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "verifiers.json"))
    parser.add_argument("--no-throughput", action="store_true", help="skip the throughput figures")
    args = parser.parse_args()

    import math_verify
    import sympy

    cases = load_cases()
    ours = summarize(run_ours(cases, args.timeout))
    theirs = summarize(run_math_verify(cases, args.timeout))
    result = {
        "suite": {
            "cases": len(cases),
            "categories": len({c[0] for c in cases}),
            "source": "tests/verifiers/math_cases.py",
            "timeout_s": args.timeout,
        },
        "environment": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "sympy": sympy.__version__,
            "math_verify": getattr(math_verify, "__version__", _dist_version("math-verify")),
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "ours": ours,
        "math_verify": theirs,
        "throughput": None if args.no_throughput else run_throughput(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    _print_table(result)


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def _print_table(result: dict[str, Any]) -> None:
    ours, theirs = result["ours"], result["math_verify"]
    print(f"{'category':28s} {'n':>4s}  {'ours acc/FN/FP':>16s}  {'math-verify acc/FN/FP':>22s}")
    for cat, o in ours["per_category"].items():
        t = theirs["per_category"][cat]
        print(
            f"{cat:28s} {o['n']:4d}  {o['accuracy']:.3f}/{o['false_negatives']:2d}/{o['false_positives']:2d}"
            f"        {t['accuracy']:.3f}/{t['false_negatives']:2d}/{t['false_positives']:2d}"
        )
    for name, s in (("ours", ours), ("math-verify", theirs)):
        o, e, a = s["overall_default_policy"], s["equivalence_set"], s["adversarial_set"]
        print(
            f"{name}: accuracy {o['accuracy']:.4f} FN {o['false_negatives']} FP {o['false_positives']} "
            f"(equivalence set {e['accuracy']:.4f} of {e['n']}; adversarial FP {a['false_positives']} of {a['n']}) "
            f"latency {s['latency_ms']} timeouts {s['timeouts']} errors {s['errors']}"
        )
    if result["throughput"] is not None:
        print("throughput:", result["throughput"])


if __name__ == "__main__":
    sys.exit(main())
