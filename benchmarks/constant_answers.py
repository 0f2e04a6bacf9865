"""The best score a constant or content-free answer gets, per family and level.

A verifier whose verdict can be guessed pays a policy that never reads the task: an RL run finds
such a policy quickly. For every family and level this benchmark generates a fixed seed range
and grades, against every task, each of these candidate policies:

- every distinct reference response seen at that level, sent unchanged to every task (a
  constant answer: "yes", "valid", "equivalent", a popular number, a whole certificate);
- the answer vocabulary of the families (yes/no, valid/invalid, equivalent/not equivalent,
  sat/unsat, true/false, knight/knave, 0/1/-1, none, empty list, ...) inside answer tags;
- content-free forms: an empty response, an empty tag, "I don't know", the response with no tag;
- the format example of the task's own prompt sent back (the one echo any policy can learn);
- surface policies for the logic families that read the task's names but not its content
  (everyone a knight, people in the listed order, the first listed date, an all-true or
  all-false assignment, an all-zero or all-one input, an individual in no term, ...).

The score of a candidate is its mean reward over the seeds; the result is the best candidate
and its score (``best_constant_score``), which ``benchmarks/reward_errors.py`` reuses. The target
of issue 16: at levels >= 4 the best such score is at most 0.25 in every family.

    python benchmarks/constant_answers.py                        # every family, levels 1..10
    python benchmarks/constant_answers.py --families syllogisms --levels 4 5 --seeds 200
    python benchmarks/constant_answers.py --jobs 2               # family levels in 2 processes
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import palaestra
from palaestra.core import Task
from palaestra.registry import get
from palaestra.registry import verify as grade

RESULTS = Path(__file__).resolve().parent / "results" / "constant_answers.json"
SEEDS = 100
BOUND = 0.25  # the target for levels >= 4
TOP = 5  # candidates listed per level besides the best

# the answer words of every binary or small-vocabulary family, and common content-free answers
VOCABULARY = (
    "yes", "no", "true", "false", "valid", "invalid", "equivalent", "not equivalent", "equal",
    "sat", "unsat", "satisfiable", "unsatisfiable", "entailed", "not entailed", "knight", "knave",
    "all knights", "all knaves", "everyone is a knight", "everyone is a knave", "0", "1", "-1", "2",
    "10", "none", "None", "null", "empty", "[]", "{}", "()", "⊥", "impossible", "no solution",
    "unknown", "infinite", "yes: p=true", "no: p=true", "invalid: []", "x=0", "A", "B",
)  # fmt: skip
CONTENT_FREE = ("", "<answer></answer>", "<answer> </answer>", "I don't know.", "yes", "no", "valid")
_EXAMPLE = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def _tagged(text: str) -> str:
    return f"<answer>{text}</answer>"


# --------------------------------------------------------------------------------------------
# Surface policies: read the task's names, never its content
# --------------------------------------------------------------------------------------------


def _knights_knaves(task: Task) -> dict[str, str]:
    names = list(task.metadata["names"])

    def say(roles: Iterable[str]) -> str:
        return _tagged(", ".join(f"{n} is a {r}" for n, r in zip(names, roles, strict=False)))

    return {
        "everyone a knight": say(["knight"] * len(names)),
        "everyone a knave": say(["knave"] * len(names)),
        "alternating from knight": say("knight" if i % 2 == 0 else "knave" for i in range(len(names))),
        "alternating from knave": say("knave" if i % 2 == 0 else "knight" for i in range(len(names))),
    }


def _listed_names(task: Task) -> list[str]:
    line = task.prompt.split("\n", 1)[0]
    return [n.strip(" .") for n in line.split(":", 1)[1].split(",")]


def _ordering(task: Task) -> dict[str, str]:
    names = _listed_names(task)
    return {
        "listed order": _tagged(", ".join(names)),
        "listed order reversed": _tagged(", ".join(names[::-1])),
    }


def _zebra(task: Task) -> dict[str, str]:
    h = int(task.metadata["houses"])
    rows = [sorted(v) for v in task.metadata["values"]]
    grid = "\n".join(f"House {k + 1}: " + ", ".join(r[k] for r in rows) for k in range(h))
    back = "\n".join(f"House {k + 1}: " + ", ".join(r[h - 1 - k] for r in rows) for k in range(h))
    return {"listed values in order": _tagged(grid), "listed values reversed": _tagged(back)}


def _epistemic(task: Task) -> dict[str, str]:
    from palaestra.generators.logic.epistemic import MONTHS

    dates = [tuple(d) for d in task.metadata["dates"]]
    text = {k: f"{MONTHS[m]} {d}" for k, (m, d) in (("first", dates[0]), ("last", dates[-1]))}
    return {f"{k} listed date": _tagged(v) for k, v in text.items()}


def _assignments(names: list[str], prefix: str) -> dict[str, str]:
    n = len(names)
    rows = {
        "all true": [True] * n,
        "all false": [False] * n,
        "alternating": [i % 2 == 0 for i in range(n)],
        "alternating from false": [i % 2 == 1 for i in range(n)],
    }
    return {
        label: _tagged(
            prefix + ", ".join(f"{x}={'true' if v else 'false'}" for x, v in zip(names, row, strict=True))
        )
        for label, row in rows.items()
    }


def _entailment(task: Task) -> dict[str, str]:
    return _assignments(list(task.metadata["variables"]), "no: ")


def _sat_model(task: Task) -> dict[str, str]:
    return _assignments([f"x{i + 1}" for i in range(int(task.metadata["variables"]))], "")


def _syllogisms(task: Task) -> dict[str, str]:
    terms = list(task.metadata["terms"])
    return {
        "an individual in no term": _tagged("invalid: []"),
        "an individual in every term": _tagged(f"invalid: [{', '.join(terms)}]"),
        "one individual per term and an empty one": _tagged(
            "invalid: " + ", ".join(f"[{t}]" for t in terms) + ", []"
        ),
    }


def _program_equivalence(task: Task) -> dict[str, str]:
    names, top = list(task.metadata["names"]), (1 << int(task.metadata["width"])) - 1
    values = {
        "all zero": 0,
        "all one bits": top,
        "all 1": 1,
        "all top-bit": 1 << (int(task.metadata["width"]) - 1),
    }
    return {label: _tagged(", ".join(f"{n}={v}" for n in names)) for label, v in values.items()}


SURFACE_POLICIES: dict[str, Callable[[Task], dict[str, str]]] = {
    "knights_knaves": _knights_knaves,
    "ordering_deduction": _ordering,
    "zebra": _zebra,
    "epistemic": _epistemic,
    "propositional_entailment": _entailment,
    "sat_model": _sat_model,
    "syllogisms": _syllogisms,
    "program_equivalence": _program_equivalence,
}


# --------------------------------------------------------------------------------------------
# The measurement
# --------------------------------------------------------------------------------------------


def _policies(family: str, tasks: list[Task], max_references: int | None) -> dict[str, list[str]]:
    """Candidate label -> the response it sends to each task (same order as ``tasks``)."""
    impl = get(family).impl
    n = len(tasks)
    policies: dict[str, list[str]] = {}
    references = Counter(impl.reference_response(t) for t in tasks)
    for response, _ in references.most_common(max_references):
        policies[f"constant: {response}"] = [response] * n
    for word in VOCABULARY:
        policies.setdefault(f"constant: {_tagged(word)}", [_tagged(word)] * n)
    for text in CONTENT_FREE:
        policies.setdefault(f"constant: {text}", [text] * n)
    examples = [_EXAMPLE.findall(t.prompt) for t in tasks]
    for k in range(max((len(e) for e in examples), default=0)):
        policies[f"the prompt's format example {k + 1}"] = [
            _tagged(e[k]) if k < len(e) else "" for e in examples
        ]
    surface = SURFACE_POLICIES.get(family)
    if surface is not None:
        rows = [surface(t) for t in tasks]
        for label in rows[0]:
            policies[f"surface: {label}"] = [r[label] for r in rows]
    return policies


def _mean_reward(tasks: list[Task], responses: list[str], references: list[str], screen: int | None) -> float:
    """Mean reward of ``responses[k]`` for ``tasks[k]``. With ``screen``, a candidate that earns
    nothing on the first ``screen`` tasks whose reference it is not is graded no further: it then
    scores the share of tasks whose reference it is (right by the contract tests), a lower bound
    that misses a true rate of 0.25 with probability 0.75^20 = 0.3% for a screen of 20."""
    own = [k for k, (r, ref) in enumerate(zip(responses, references, strict=True)) if r == ref]
    if screen is not None:
        probe = [k for k in range(len(tasks)) if responses[k] != references[k]][:screen]
        if not any(grade(tasks[k], responses[k]).reward for k in probe):
            return len(own) / len(tasks)
    return sum(grade(t, r).reward for t, r in zip(tasks, responses, strict=True)) / len(tasks)


def best_constant_score(
    family: str,
    level: int,
    seeds: Iterable[int],
    *,
    max_references: int | None = None,
    screen: int | None = None,
) -> dict[str, Any]:
    """The best mean reward any constant or content-free answer gets at ``level`` over ``seeds``.

    Candidates (see the module docstring): every distinct reference response at the level (at
    most ``max_references`` of them, the most frequent first; ``None`` = all), the answer
    vocabulary, content-free forms, the prompt's own format example and the family's surface
    policies. ``screen`` (e.g. 20) first grades each candidate on that many tasks and stops if it
    earns nothing there (see ``_mean_reward``), for families whose verify is slow; ``None``
    grades every candidate on every task. Returns a JSON-ready dict::

        {"family", "family_version", "level", "seeds", "candidates", "max_references", "screen",
         "best_score", "best_answer", "top": [{"answer", "score"}, ...], "seconds"}

    ``best_answer`` names the winning candidate: ``"constant: <the response>"``, ``"the prompt's
    format example 1"`` or ``"surface: <policy>"``. Every verify goes through
    ``palaestra.verify``, so a verifier crash counts as a miss, never as a hit.
    """
    started = time.process_time()
    spec = get(family)
    tasks = [palaestra.make_task(family, seed=s, level=level) for s in seeds]
    if not tasks:
        raise ValueError("seeds must not be empty")
    references = [spec.impl.reference_response(t) for t in tasks]
    scores = {
        label: _mean_reward(tasks, responses, references, screen)
        for label, responses in _policies(family, tasks, max_references).items()
    }
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "family": family,
        "family_version": spec.version,
        "level": level,
        "seeds": len(tasks),
        "candidates": len(scores),
        "max_references": max_references,
        "screen": screen,
        "best_score": ranked[0][1],
        "best_answer": ranked[0][0][:300],
        "top": [{"answer": label[:300], "score": score} for label, score in ranked[1 : TOP + 1]],
        "seconds": round(time.process_time() - started, 2),
    }


def _measure(
    family: str, level: int, seeds: int, max_references: int | None, screen: int | None
) -> dict[str, Any]:
    return best_constant_score(family, level, range(seeds), max_references=max_references, screen=screen)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--families", nargs="*", default=None, help="families to measure (default: all)")
    parser.add_argument(
        "--levels", nargs="*", type=int, default=list(range(1, 11)), help="levels (default 1..10)"
    )
    parser.add_argument("--seeds", type=int, default=SEEDS, help="seeds 0..N-1 per level")
    parser.add_argument(
        "--max-references", type=int, default=None, help="most frequent references tried (default: all)"
    )
    parser.add_argument(
        "--screen", type=int, default=None, help="grade a candidate fully only if it earns on this many tasks"
    )
    parser.add_argument("--jobs", type=int, default=1, help="family levels measured in parallel processes")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON file to merge the results into")
    args = parser.parse_args()

    results: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    results.update(seeds_per_level=args.seeds, bound=BOUND)
    results.setdefault("families", {})
    todo = [(name, level) for name in args.families or palaestra.families() for level in args.levels]
    for name in {n for n, _ in todo}:
        record = results["families"].get(name, {})
        if record.get("family_version") != get(name).version:
            results["families"][name] = {"family_version": get(name).version, "levels": {}}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {
            pool.submit(_measure, name, level, args.seeds, args.max_references, args.screen): (name, level)
            for name, level in todo
        }
        for future in as_completed(futures):
            name, level = futures[future]
            try:
                row = future.result()
            except Exception as exc:  # a family that cannot be measured is reported, not hidden
                print(f"{name:<26} level {level:>2}: FAILED {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            results["families"][name]["levels"][str(level)] = {
                k: row[k]
                for k in (
                    "seeds",
                    "candidates",
                    "max_references",
                    "screen",
                    "best_score",
                    "best_answer",
                    "top",
                    "seconds",
                )
            }
            flag = "  OVER" if level >= 4 and row["best_score"] > BOUND else ""
            print(
                f"{name:<26} level {level:>2}: {row['best_score']:.2f} {row['best_answer'][:70]!r} "
                f"({row['seconds']} s){flag}",
                flush=True,
            )
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(results, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
