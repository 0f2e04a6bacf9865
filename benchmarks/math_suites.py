"""Math equivalence on labelled suites written elsewhere: palaestra and math-verify side by side.

The labelled pairs come from other projects' own tests (``benchmarks/data/math_suites/*.jsonl``,
each file opening with its source, commit and licence; only the (reference, answer, label) data
was taken, read from their test tables as literals). Each pair is graded by
``palaestra.verifiers.math.verify_math`` (default policy, the answer side read as a response:
its tag, box or ``Answer:`` line, else the whole text) and by math-verify's
``verify(parse(gold), parse(pred))`` (its default extraction: LaTeX and plain expressions; a pair
written without any math delimiter is given to it inside ``$...$``, where its LaTeX reader looks)
in the same process, each under the same hard time bound.

Some labels hold only under one grader's convention that conflicts with palaestra's documented
rule (a comma as a decimal point, a rounding tolerance, a label that the source's own test
names as a non-default setting) or are plainly wrong. Such pairs are *excluded* from the
comparison, each with its reason, and listed in the results; the figures are given with and
without them. Results go to ``benchmarks/results/math_suites.json``: per source and per class
(the test the pair comes from) accuracy, false positives (a pair labelled different but
graded equal) and false negatives, for both graders.

    python benchmarks/math_suites.py            # needs `pip install math-verify` (0.9.0 here)
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from palaestra.verifiers.math import MathPolicy, verify_math

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data" / "math_suites"
RESULTS = ROOT / "results" / "math_suites.json"
TIMEOUT_S = 5.0

# Pairs excluded by hand: (source, gold, pred) -> reason. Each reason names the convention.
DECIMAL_COMMA = "decimal comma: palaestra reads a comma between digits as a thousands or list separator (docs/verifiers.md)"
ROUNDING = "rounding tolerance: the label needs the grader's float rounding; palaestra is exact unless MathPolicy(rel_tol=...) is set"
MISLABEL = "the label contradicts the mathematics"
CHAIN = "a chain with a false step (x = 5+5+1 = 7 = 11) is no answer of its last value (docs/verifiers.md: x = 4 = 3)"
SOLVED = (
    "solved-form rule: an inequality not solved for its variable restates the problem (docs/verifiers.md)"
)
APPROX = (
    "the \\approx rule: an exact value and a decimal that differ by over 1% say two different things (docs)"
)
EXCLUDED: dict[tuple[str, str, str], str] = {
    ("math-verify", "$1 - \\frac{1}{\\mathrm{e}}$", "$1 + \\frac{1}{\\mathrm{e}}$"): MISLABEL
    + " (the sign differs)",
    (
        "math-verify",
        "$9$",
        "Answer $ \n 9 \n $",
    ): "math-verify's extraction convention: inline $...$ may not span lines (the answer is 9 either way)",
    (
        "math-verify",
        "$9$",
        "Answer \\( \n 9 \n \\)",
    ): "math-verify's extraction convention: inline \\(...\\) may not span lines (the answer is 9 either way)",
    (
        "math-verify",
        "\\boxed{1} no no no no no \\boxed{2}",
        "$\\boxed{1,2}$",
    ): "math-verify's convention for words between two boxes of a reference; palaestra reads two boxes as the list 1, 2",
    ("math-verify", "$x = 11$", "$x = 5+5+1 = 7 =11$"): CHAIN,
    ("math-verify", "$z = 1 + 1 = 2$", "$z = 3+3 = 2$"): CHAIN,
    ("math-verify", "$1 = \\zzz = x = 0$", "$0$"): CHAIN,
    ("math-verify", "$x = 1/3$", "$x = 5+5+1 = 1/3 \\approx 11$"): CHAIN + "; " + APPROX,
    ("math-verify", "$1/3$", "$x=1/3\\approx1.3$"): APPROX,
    ("math-verify", "$10/9$", "Answer $ \\frac{1}{2} \\$ = \\frac{10}{9} $"): CHAIN + " (1/2 dollar = 10/9)",
    ("math-verify", "\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(x)=1orW(x)=-1"): (
        "different variable names are different answers (W(x) for W(n); docs/verifiers.md), and the words are glued (orW)"
    ),
    ("math-verify", "$x < 1$", "$-x > -1$"): SOLVED,
    ("math-verify", "$x <= 1$", "$-x >= -1$"): SOLVED,
    (
        "math-verify",
        "$(1,3)$",
        "${1,3}$",
    ): "a set is not an ordered pair (docs/verifiers.md: tuples are ordered, sets are not)",
    ("math-verify", "$\\frac{1}{12}$", "$0.0833333333333333$"): ROUNDING,
    (
        "math-verify",
        "$F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}$",
        "$F_n = \\sum_{k=0}^{n-1} F_{n-k-1} F_k$",
    ): "an unevaluated sum is refused as an answer (docs/verifiers.md)",
    (
        "hendrycks-math",
        "10, 4, -2",
        "4, 10, -2",
    ): "MATH reads a bare list in order; palaestra reads it as a set of answers (docs/verifiers.md)",
    (
        "hendrycks-math",
        "0.1, 4, 2",
        "4, .1, 2",
    ): "MATH reads a bare list in order; palaestra reads it as a set of answers (docs/verifiers.md)",
    (
        "hendrycks-math",
        "\\tfrac{1}{2} +\\! \\frac1{72}",
        "\\\\dfrac{1}{2} +\\frac{1}{72}",
    ): "a doubled backslash (\\\\dfrac) that MATH's string normaliser deletes: not LaTeX",
    ("nemo-skills", "185", "185\\"): "a trailing backslash that NeMo-Skills' normaliser deletes: not LaTeX",
    (
        "nemo-skills",
        "17\\text{ any text}",
        "17",
    ): "free text after a value: palaestra refuses words that may hedge or change it (docs/verifiers.md)",
    (
        "nemo-skills",
        "17",
        "17\\text{ any text}",
    ): "free text after a value: palaestra refuses words that may hedge or change it (docs/verifiers.md)",
}
PROSE = (
    "an unmarked answer in prose: palaestra grades a marked final answer (tag, box, Answer: line, "
    "a short sentence with a lead phrase; docs/verifiers.md), math-verify the last expression of the text"
)
_MARK = re.compile(r"\\boxed|\\fbox|<answer>|^\s*(?:final\s+)?answer\s*[:=]", re.IGNORECASE | re.MULTILINE)
_MATH_SPAN = re.compile(r"\$\$.*?\$\$|\$.*?\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)


def _prose_words(text: str) -> int:
    """Words of running text outside math delimiters."""
    return len(re.findall(r"[A-Za-z]{2,}", _MATH_SPAN.sub(" ", text)))


def load() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every labelled pair, and each source's provenance (the first line of its file)."""
    cases, meta = [], {}
    for path in sorted(DATA.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        head, rows = lines[0]["meta"], lines[1:]
        meta[rows[0]["source"] if rows else path.stem] = head | {"file": str(path.relative_to(ROOT.parent))}
        cases += rows
    return cases, meta


def exclusion(case: dict[str, Any]) -> str | None:
    """Why a pair is set aside (a grader-specific convention or a wrong label), or None."""
    gold, pred = case["gold"], case["pred"]
    if not isinstance(gold, str) or not isinstance(pred, str):
        return "not a text pair (a Python number or None passed to the source's grader)"
    if case["settings"].get("call") or case["settings"].get("strict") is False:
        return f"the label holds under a non-default setting of the source's grader ({case['settings']})"
    if case["settings"].get("precision", 6) != 6:
        return ROUNDING + f" (precision {case['settings']['precision']})"
    if (case["source"], gold, pred) in EXCLUDED:
        return EXCLUDED[(case["source"], gold, pred)]
    if _prose_words(gold) >= 6 and not _MARK.search(gold):
        return "the reference is a whole solution in prose, not an answer"
    doubled = [t for t in (gold, pred) if re.search(r"\\\\[A-Za-z]", t) and not re.search("matrix|array", t)]
    if doubled:
        return "doubled backslashes (\\\\left, \\\\frac) in the source's string: not LaTeX; math-verify's normaliser tolerates them"
    if _prose_words(pred) >= 2 and not _MARK.search(pred):
        return PROSE
    boxes = re.findall(r"\\boxed\{([^{}]*)\}", pred)
    if _prose_words(pred) >= 6 and len(set(boxes)) > 1:
        return "several different boxes in a solution: palaestra refuses them as several final answers, math-verify takes the last"
    return None


def _palaestra(gold: str, pred: str) -> tuple[bool | None, str]:
    # the answer side is read as a response (a tag, a box, an Answer: line, else the whole text),
    # as math-verify's parse reads it
    verdict = verify_math(pred, gold, policy=MathPolicy(timeout_s=TIMEOUT_S), allow_bare=True)
    if verdict.error is not None:
        return None, verdict.status
    return verdict.correct, verdict.reason


_DELIMITED = re.compile(r"\$|\\\(|\\\[|\\boxed")


def _math_verify(gold: str, pred: str) -> tuple[bool | None, str]:
    from math_verify import parse, verify

    if not _DELIMITED.search(gold + pred):  # bare LaTeX: math-verify reads LaTeX inside $...$
        gold, pred = f"${gold}$", f"${pred}$"
    try:
        return bool(verify(parse(gold), parse(pred), timeout_seconds=int(TIMEOUT_S))), ""
    except Exception as exc:  # a grader crash is a miss, reported as such
        return None, f"{type(exc).__name__}: {exc}"[:120]


def _tally() -> dict[str, int]:
    return {"cases": 0, "right": 0, "false_positives": 0, "false_negatives": 0, "failures": 0}


def _count(tally: dict[str, int], said: bool | None, label: bool) -> None:
    tally["cases"] += 1
    if said is None:
        tally["failures"] += 1
    elif said == label:
        tally["right"] += 1
    elif said:
        tally["false_positives"] += 1
    else:
        tally["false_negatives"] += 1


def _summary(tally: dict[str, int]) -> dict[str, Any]:
    return tally | {"accuracy": round(tally["right"] / tally["cases"], 4) if tally["cases"] else None}


def _class(case: dict[str, Any]) -> str:
    return f"{case['source']}:{re.sub(r'^test_', '', case['test'])}"


def run() -> dict[str, Any]:
    cases, meta = load()
    graders = {"palaestra": _palaestra, "math-verify": _math_verify}
    kept: dict[str, dict[str, dict[str, int]]] = {g: defaultdict(_tally) for g in graders}
    every: dict[str, dict[str, dict[str, int]]] = {g: defaultdict(_tally) for g in graders}
    by_class: dict[str, dict[str, dict[str, int]]] = {g: defaultdict(_tally) for g in graders}
    exclusions, misses = [], []
    seconds = {g: 0.0 for g in graders}
    for case in cases:
        why = exclusion(case)
        gold, pred, label = str(case["gold"]), str(case["pred"]), bool(case["label"])
        row = {"source": case["source"], "class": _class(case), "gold": gold, "pred": pred, "label": label}
        for name, grade in graders.items():
            start = time.perf_counter()
            said, reason = grade(gold, pred)
            seconds[name] += time.perf_counter() - start
            row[name] = said
            _count(every[name][case["source"]], said, label)
            if why is None:
                _count(kept[name][case["source"]], said, label)
                _count(by_class[name][row["class"]], said, label)
                if said is not label:
                    misses.append(row | {"grader": name, "reason": reason})
        if why is not None:
            exclusions.append(row | {"why": why})
    return {
        "sources": meta,
        "graders": {
            "palaestra": "math_equal, default MathPolicy",
            "math-verify": "verify(parse(gold), parse(pred))",
        },
        "per_source": {g: {s: _summary(t) for s, t in kept[g].items()} for g in graders},
        "per_source_without_exclusions": {g: {s: _summary(t) for s, t in every[g].items()} for g in graders},
        "overall": {g: _summary(_total(kept[g].values())) for g in graders},
        "overall_without_exclusions": {g: _summary(_total(every[g].values())) for g in graders},
        "per_class": {g: {c: _summary(t) for c, t in sorted(by_class[g].items())} for g in graders},
        "seconds": {g: round(s, 2) for g, s in seconds.items()},
        "exclusions": exclusions,
        "misses": misses,
    }


def _total(tallies: Any) -> dict[str, int]:
    total = _tally()
    for t in tallies:
        for key in total:
            total[key] += t[key]
    return total


def main() -> None:
    results = run()
    RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    for grader, sources in results["per_source"].items():
        for source, s in sources.items():
            print(
                f"{grader:12} {source:16} {s['right']}/{s['cases']} ({s['accuracy']:.1%})  "
                f"FP {s['false_positives']}  FN {s['false_negatives']}  failures {s['failures']}"
            )
    print(f"{len(results['exclusions'])} pairs excluded (reasons in {RESULTS.name})")
    for grader, s in results["overall"].items():
        print(
            f"{grader:12} overall {s['right']}/{s['cases']} ({s['accuracy']:.1%})  FP {s['false_positives']}"
        )


if __name__ == "__main__":
    main()
