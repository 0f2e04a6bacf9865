"""instruction_following: constraints re-read from the prompt's wording and checked by this
file's own counting code; other valid texts built here (words shuffled inside sentences) must be
accepted, and texts breaking one constraint refused."""

from __future__ import annotations

import re
import time

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "instruction_following"
IMPL = palaestra.get(FAMILY).impl
WORD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'-")


def my_words(text: str) -> list[str]:
    out, current = [], ""
    for ch in text + " ":
        if ch in WORD_CHARS:
            current += ch
        elif current:
            out.append(current.lower())
            current = ""
    return out


def my_sentences(text: str) -> int:
    count, has_word = 0, False
    for ch in text:
        if ch in ".!?":
            count += has_word
            has_word = False
        elif ch in WORD_CHARS:
            has_word = True
    return count + has_word


def prompt_checks(prompt: str) -> list:
    """One predicate per constraint line of the prompt, from its wording alone."""
    checks = []
    for line in re.findall(r"^\d+\. (.+)$", prompt, re.M):
        if m := re.fullmatch(r'Start the text with the word "(.+)"\.', line):
            checks.append(lambda t, w=m[1]: my_words(t)[:1] == [w])
        elif m := re.fullmatch(r"Use each of these words at least once: (.+)\.", line):
            need = m[1].split(", ")
            checks.append(lambda t, need=need: all(w in my_words(t) for w in need))
        elif m := re.fullmatch(r"Do not use any of these words: (.+)\.", line):
            banned = m[1].split(", ")
            checks.append(lambda t, banned=banned: not set(banned) & set(my_words(t)))
        elif m := re.fullmatch(r"Write exactly (\d+) paragraphs, separated by blank lines\.", line):
            checks.append(
                lambda t, n=int(m[1]): len([p for p in re.split(r"\n\s*\n", t.strip()) if p.strip()]) == n
            )
        elif line.startswith("Write everything in lowercase"):
            checks.append(lambda t: not any(c.isupper() for c in t))
        elif m := re.fullmatch(r"Use between (\d+) and (\d+) words in total\.", line):
            checks.append(lambda t, a=int(m[1]), b=int(m[2]): a <= len(my_words(t)) <= b)
        elif m := re.fullmatch(r"Use exactly (\d+) words in total\.", line):
            checks.append(lambda t, n=int(m[1]): len(my_words(t)) == n)
        elif m := re.fullmatch(r'Include exactly (\d+) bullet lines \(lines starting with "- "\)\.', line):
            checks.append(lambda t, n=int(m[1]): sum(x[:2] == "- " for x in t.split("\n")) == n)
        elif m := re.fullmatch(r"Write exactly (\d+) sentences in total\.", line):
            checks.append(lambda t, n=int(m[1]): my_sentences(t) == n)
        elif m := re.fullmatch(
            r'The letter "(\w)" \(either case\) must appear (at least|at most) (\d+) times\.', line
        ):
            letter, most, n = m[1], m[2] == "at most", int(m[3])
            checks.append(
                lambda t, c=letter, most=most, n=n: (
                    (sum(ch.lower() == c for ch in t) <= n)
                    if most
                    else (sum(ch.lower() == c for ch in t) >= n)
                )
            )
        elif m := re.fullmatch(r'End the text with the exact phrase "(.+)"\.', line):
            checks.append(lambda t, p=m[1]: t.rstrip().endswith(p))
        else:
            raise AssertionError(f"unknown constraint wording: {line}")
    return checks


def shuffled_variant(text: str, rng: np.random.Generator) -> str:
    """The same words shuffled inside each sentence but the first and the last (counts, words,
    letters, the first word and the closing phrase unchanged); bullet markers stay in place."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        marker, body = ("- ", line[2:]) if line.startswith("- ") else ("", line)
        parts = re.split(r"(?<=\.) ", body)
        keep_last = i == len(lines) - 1
        new = []
        for j, part in enumerate(parts):
            ws = part.rstrip(".").split(" ")
            if len(ws) > 1 and not (keep_last and j == len(parts) - 1) and not (i == 0 and j == 0):
                lower = part == part.lower()
                ws = [ws[int(k)] for k in rng.permutation(len(ws))]
                part = " ".join(ws).lower() + "."
                part = part if lower else part[0].upper() + part[1:]
            new.append(part)
        out.append(marker + " ".join(new))
    return "\n".join(out)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_reference_and_other_valid_texts_pass_every_stated_constraint(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    checks = prompt_checks(task.prompt)
    assert len(checks) == len(task.metadata["constraints"])
    assert all(check(task.answer) for check in checks)
    variant = shuffled_variant(task.answer, np.random.default_rng(seed % 1000))
    assert all(c(variant) for c in checks), variant
    assert palaestra.verify(task, f"<answer>{variant}</answer>").correct
    weak = IMPL.solve_weak(task).response
    text = weak[len("<answer>") : -len("</answer>")]
    assert palaestra.verify(task, weak).correct == all(check(text) for check in checks)


def test_breaking_one_constraint_is_wrong() -> None:
    for seed in range(40):
        task = palaestra.make_task(FAMILY, seed=seed, level=10)
        kinds = {c["kind"]: c for c in task.metadata["constraints"]}
        keyword = kinds["keywords"]["words"][0]
        removed = re.sub(rf"\b{keyword}\b", "", task.answer)
        assert palaestra.verify(task, f"<answer>{removed}</answer>").status == "wrong"
        if "forbidden" in kinds:
            added = task.answer.replace(keyword, f"{keyword} {kinds['forbidden']['words'][0]}", 1)
            assert palaestra.verify(task, f"<answer>{added}</answer>").status == "wrong"
        if "lowercase" in kinds:
            assert palaestra.verify(task, f"<answer>{task.answer} Yes.</answer>").status == "wrong"


def test_answer_must_be_tagged_and_end_with_a_sentence() -> None:
    task = palaestra.make_task(FAMILY, seed=0, level=3)
    for junk in (f"{task.answer} qqq", f"{task.answer}\nqqq 7", f"\x00{task.answer}"):
        assert palaestra.verify(task, f"<answer>{junk}</answer>").status == "unparseable"
    assert palaestra.verify(task, f"<answer>qqq {task.answer}</answer>").status == "wrong"  # first word
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct
    assert palaestra.verify(task, f"<think>plan</think>\n<answer>{task.answer}</answer>").correct
    assert palaestra.verify(task, "<answer></answer>").status == "unparseable"
    assert not palaestra.verify(
        task, f"<answer>{task.answer}</answer><answer>{task.answer}!</answer>"
    ).correct


def test_weak_solver_fails_once_counts_are_asked() -> None:
    def rate(level: int) -> float:
        tasks = [palaestra.make_task(FAMILY, seed=s, level=level) for s in range(60)]
        return sum(palaestra.verify(t, IMPL.solve_weak(t).response).correct for t in tasks) / 60

    assert rate(1) == 1.0 and rate(10) < 0.05


def test_hostile_answers_are_quick() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=10)
    for text in ("a " * 9_000, "." * 19_000, "x" * 100_000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
