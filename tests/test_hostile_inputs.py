"""Hostile responses against every registered family: each verify must answer (never raise, never report its own crash) within a
generous CPU bound, and must never pay a response that is not the reference answer given once.

The bound is generous on purpose (timing targets live in benchmarks/): it catches a regex that
backtracks quadratically (seconds on 100k characters) or an unbounded ``int()``, not a slow
machine. Look-alike characters: superscript and circled digits are not digits (and must not
crash a parser that asks ``str.isdigit``); decimal digits of other scripts are digits.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import palaestra
from palaestra.registry import families, get
from palaestra.verifiers.extract import _same_key

FAMILIES = families()  # every domain: a family is covered the moment it registers
ONE_LINE_PROGRAMS = ("sql_synthesis",)  # a query is read from <answer> tags or a ```sql block, no answer line
CPU_BOUND_S = 2.0  # per verify call; a quadratic regex on 100k characters takes minutes
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
CIRCLED = str.maketrans("0123456789", "⓪①②③④⑤⑥⑦⑧⑨")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")  # digits: may read as the reference


def _hostile(reference: str) -> dict[str, str]:
    return {
        "100k letters": "a" * 100_000,
        "100k mixed": ("x1 = 3, (1, 2) -> A; Row 1: 12 " * 3400)[:100_000],
        "100k newlines": "\n" * 100_000 + "<answer>1</answer>",
        "100k spaces in a line": "Answer: 1" + " " * 100_000 + "2",
        "huge integer": "<answer>" + "9" * 5000 + "</answer>",
        "huge negative integer": "<answer>-" + "7" * 4400 + "</answer>",
        "huge integer assignment": "<answer>x1 = " + "9" * 5000 + ", x2 = 1</answer>",
        "huge letter assignment": "<answer>A = " + "9" * 5000 + ", B = 1</answer>",
        "huge numbered line": "<answer>1: " + "9" * 5000 + "\n2. " + "8" * 5000 + "</answer>",
        "huge pair": "<answer>(" + "9" * 5000 + ", 1) -> (1, " + "9" * 5000 + ")</answer>",
        "huge exponent": "<answer>10^" + "9" * 50 + "</answer>",
        "deep parentheses": "<answer>" + "(" * 9000 + "1" + ")" * 9000 + "</answer>",
        "deep brackets": "<answer>" + "[" * 9000 + "]" * 9000 + "</answer>",
        "deep braces": "\\boxed{" * 5000 + "1" + "}" * 5000,
        "many tags": "<answer>1</answer>" * 5000,
        "nan and inf": "<answer>nan</answer>\n<answer>inf</answer>",
        "null bytes": "<answer>\x00\x00" + reference[:50] + "</answer>",
        "unclosed think": "<think>" + reference,
        "reference with a trailing junk word": f"<answer>{reference} qqq</answer>",  # text left unread
        "reference with a leading junk word": f"<answer>qqq {reference}</answer>",
        "reference with a trailing junk line": f"<answer>{reference}\nqqq 7</answer>",
        "reference inside an unclosed tag": "<answer>" + reference,
        "superscript digits": f"<answer>{reference.translate(SUPERSCRIPTS)}</answer>",
        "circled digits": f"<answer>{reference.translate(CIRCLED)}</answer>",
        "arabic-indic digits": f"<answer>{reference.translate(ARABIC_INDIC)}</answer>",
        "reference plus a huge tail": f"<answer>{reference}</answer>\nAnswer: " + "1" * 50_000,
        # payloads inside the answer cap (20,000 characters) reach the family's own parser
        "19k letters in the tag": "<answer>" + "a" * 19_000 + "</answer>",
        "19k spaces in the tag": "<answer>1" + " " * 19_000 + "2</answer>",
        "19k spaces after a word": "<answer>x = 1" + " " * 19_000 + "and</answer>",
        "19k spaces after a comma": "<answer>1," + " " * 19_000 + "x</answer>",
        "19k separators in the tag": "<answer>" + "1, " * 6_000 + "</answer>",
        "19k digits in the tag": "<answer>" + "7" * 19_000 + "</answer>",
        "19k-line tag": "<answer>" + "1\n" * 9_000 + "</answer>",
    }


def _verify_timed(task: palaestra.Task, response: str) -> tuple[palaestra.Verdict, float]:
    started = time.process_time()
    verdict = get(task.family).impl.verify(task, response)  # the family's own verify: no safety net
    return verdict, time.process_time() - started


def _reference(task: palaestra.Task) -> str:
    response = get(task.family).impl.solve_exact(task).response
    assert response is not None, task.family
    return response.split("<answer>", 1)[1].rsplit("</answer>", 1)[0] if "<answer>" in response else response


@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILIES)
def test_hostile_responses_are_refused_quickly_and_never_raise(name: str) -> None:
    task = palaestra.make_task(name, seed=11, level=3)
    reference = _reference(task)
    for label, response in _hostile(reference).items():
        verdict, cpu = _verify_timed(task, response)
        assert verdict.error is None, (name, label, verdict.error)  # raised or crashed inside
        assert cpu < CPU_BOUND_S, (name, label, f"{cpu:.2f}s CPU")
        same = response == f"<answer>{reference}</answer>" or reference.strip() == "1"
        # decimal digits of any script are digits; the math parser reads circled digits as digits
        if not same and label not in ("arabic-indic digits", "circled digits"):
            assert not verdict.correct, (name, label, response[:80])


@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILIES)
def test_a_second_different_final_answer_is_never_paid(name: str) -> None:
    task = palaestra.make_task(name, seed=11, level=3)
    impl = get(name).impl
    reference = _reference(task)
    tagged = f"<answer>{reference}</answer>"
    assert impl.verify(task, tagged).correct, name
    # reasoning blocks are never read as the answer
    think = f"<think>Maybe <answer>{reference}x</answer>? Answer: 12</think>\n"
    assert impl.verify(task, think + tagged).correct, name
    assert not impl.verify(task, f"<think>{tagged}</think>\nAnswer: wrong").correct, name
    mutants = impl.mutated_responses(task, np.random.default_rng(0))
    for mutant in mutants[:3]:
        other = _reference_text(mutant).strip()
        if _same_key(other) == _same_key(reference):
            continue
        single_line = "\n" not in other.strip()
        forms = [tagged + f"\n\\boxed{{{other}}}", f"\\boxed{{{other}}}\n" + tagged]
        if single_line:
            forms += [tagged + f"\nAnswer: {other}", tagged + f"\n**Final Answer:** {other}"]
        for response in forms:
            verdict = impl.verify(task, response)
            assert verdict.status == "unparseable", (name, response[:120], verdict)


def _reference_text(response: str) -> str:
    return response.split("<answer>", 1)[1].rsplit("</answer>", 1)[0] if "<answer>" in response else response


@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILIES)
def test_the_reference_is_read_in_every_final_answer_form(name: str) -> None:
    """False negatives: the same answer behind markdown, think blocks or an answer line is paid."""
    task = palaestra.make_task(name, seed=11, level=3)
    impl = get(name).impl
    reference = _reference(task).strip()
    forms = [
        f"<think>Answer: 3? <answer>4</answer></think>\n<answer>{reference}</answer>",
        f"so it is done.</think>\n<answer>{reference}</answer>",  # the template opened <think>
        f"<!-- <answer>draft</answer> -->\n<answer>{reference}</answer>",
    ]
    if "\n" not in reference:  # bold around a grid is not markdown: '*' may be a cell
        forms += [f"<answer>**{reference}**</answer>"]
        if name not in ONE_LINE_PROGRAMS:  # programs: tags or fences only (docs/verifiers.md)
            forms += [
                f"Reasoning...\nAnswer: {reference}",
                f"Reasoning...\n**Answer:** {reference}",
                f"Reasoning.\n\nFinal answer: {reference}",
                f"**Final Answer:** {reference}\n<answer>{reference}</answer>",
            ]
    for response in forms:
        verdict = impl.verify(task, response)
        assert verdict.correct, (name, response[:120], verdict.reason)
