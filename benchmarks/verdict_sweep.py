"""Every verdict of a broad sweep, one JSON line each, to compare two versions field by field.

For every family not graded in the sandbox, levels 1, 5 and 10, seeds 0, 1 and 7: the reference
response, the family's own wrong answers (the first two also in four wrappings), the reference
answer in 36 model-style forms (tags of any case, boxes, answer lines, reasoning blocks,
comments, emphasis, fences, repeated and contradicting marks, non-ASCII prose) and, for seeds 0
and 1, every response of the red-team builders in ``tests/adversarial/attacks.py`` (all classes
but programs and other seeds; megabyte responses at level 1 seed 0 only). A change that is meant
to keep every verdict (a faster path) must leave the file byte for byte the same:

    python benchmarks/verdict_sweep.py before.jsonl          # on the old code
    python benchmarks/verdict_sweep.py after.jsonl           # on the new code
    python benchmarks/verdict_sweep.py --compare before.jsonl after.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: tests.adversarial

import palaestra  # noqa: E402
from palaestra.registry import families, get  # noqa: E402
from tests.adversarial import attacks  # noqa: E402

FORMS = [
    "<answer>{a}</answer>",
    "<think>let me think about <answer>9</answer></think>\n<answer>{a}</answer>",
    "Reasoning here.\n\n<answer>\n{a}\n</answer>\n",
    "\\boxed{{{a}}}",
    "Answer: {a}",
    "**Answer:** {a}",
    "<ANSWER>{a}</ANSWER>",
    "<answer>**{a}**</answer>",
    "<answer>{a}</answer>\nAnswer: {a}",
    "<answer>{a}</answer> so that is my answer",
    "<answer>`{a}`</answer>",
    "<answer> {a}. </answer>",
    "{a}",
    "<answer>{al}</answer>",
    "<answer>{au}</answer>",
    "<answer>{a}</answer><!-- c -->",
    "</think><answer>{a}</answer>",
    "<answer>{a}\n</answer>\n\\boxed{{{a}}}",
    "Résumé <answer>{a}</answer>",
    "<answer>{a}</answer>\n<answer>{a}</answer>",
    "<answer>\n```\n{a}\n```\n</answer>",
    "<answer>{a}</answer>\n<answer>0</answer>",
    "<answer>{a} {a}</answer>",
    "<answer>\n\n{a}\n\n</answer>",
    "<answer>{a}\nHouse</answer>",
    "<Answer>{a}</answer>",
    "<answer>{a}",
    "{a}</answer>",
    "<answer>$\\boxed{{{a}}}$</answer>",
    "Final answer: {a}",
    "Answer:\n{a}\n",
    "<answer>{a}</answer>\n\n",
    "<answer>\t{a}\t</answer>",
    "<answer>{a}\r\n</answer>",
    "<answer>{a},</answer>",
    "<answer>[{a}]</answer>",
]
CLASSES = tuple(
    c for c in attacks.WRONG_CLASSES + attacks.RIGHT_CLASSES if c not in ("code_exploit", "other_seed")
)


def sweep(out: Path) -> int:
    count, started = 0, time.time()
    with out.open("w") as fh:

        def record(
            family: str, level: int, seed: int, label: str, task: palaestra.Task, response: str
        ) -> None:
            nonlocal count
            verdict = palaestra.verify(task, response).to_dict()
            fh.write(json.dumps([family, level, seed, label, verdict], sort_keys=True, default=repr) + "\n")
            count += 1

        for family in (f for f in families() if "sandbox" not in get(f).verifier_kind):
            impl = get(family).impl
            for level in (1, 5, 10):
                for seed in (0, 1, 7):
                    task = palaestra.make_task(family, seed=seed, level=level)
                    record(family, level, seed, "ref", task, impl.reference_response(task))
                    for i, wrong in enumerate(impl.mutated_responses(task, np.random.default_rng(seed))):
                        record(family, level, seed, f"mut{i}", task, wrong)
                        inner = (
                            wrong.split("<answer>")[-1].split("</answer>")[0]
                            if "<answer>" in wrong
                            else wrong
                        )
                        for j, form in enumerate(FORMS[:3] + FORMS[18:19] if i < 2 else []):
                            text = form.format(a=inner, al=inner.lower(), au=inner.upper())
                            record(family, level, seed, f"mut{i}form{j}", task, text)
                    answer = attacks.reference_answer(task)
                    for j, form in enumerate(FORMS):
                        text = form.format(a=answer, al=answer.lower(), au=answer.upper())
                        record(family, level, seed, f"form{j}", task, text)
                    if seed == 7:
                        continue
                    classes = CLASSES if (level, seed) == (1, 0) else tuple(c for c in CLASSES if c != "size")
                    for k, attack in enumerate(attacks.attacks_for(task, classes)):
                        record(
                            family, level, seed, f"att:{attack.cls}:{attack.name}:{k}", task, attack.response
                        )
            print(f"{family:<28}{count:>8} verdicts  {time.time() - started:6.0f} s", flush=True)
    return count


def compare(before: Path, after: Path) -> int:
    old, new = before.read_text().splitlines(), after.read_text().splitlines()
    differ = [(a, b) for a, b in zip(old, new, strict=False) if a != b]
    for a, b in differ[:10]:
        print("before", a[:300], "\nafter ", b[:300])
    print(f"{len(old)} and {len(new)} verdicts, {len(differ)} differing")
    return int(bool(differ) or len(old) != len(new))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", help="where to write the verdicts (JSON lines)")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give a file to write, or --compare BEFORE AFTER")
    print(f"{sweep(args.out)} verdicts written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
