"""kinship: every answer recomputed from the prompt text alone — facts re-read and completed by
the stated rules (marriage, siblings), relations with this file's own definitions — never the
family's tree or relation table."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "kinship"
IMPL = palaestra.get(FAMILY).impl
MALE_WORDS = {"son", "husband", "brother"}


class Family:
    """People, sexes, spouses and parent sets read back from the prompt's fact lines."""

    def __init__(self, prompt: str):
        self.sex: dict[str, str] = {}
        self.spouse: dict[str, str] = {}
        self.parents: dict[str, set[str]] = {}
        sibling_of: list[tuple[str, str]] = []
        for a, word, rest in re.findall(r"^- (\w+) is the (\w+) of (.+)\.$", prompt, re.M):
            self.sex[a] = "m" if word in MALE_WORDS else "f"
            others = rest.split(" and ")
            if word in ("husband", "wife"):
                self.spouse[a], self.spouse[others[0]] = others[0], a
            elif word in ("son", "daughter"):
                self.parents.setdefault(a, set()).update(others)
            else:
                sibling_of.append((a, others[0]))
        for parent, word, child in re.findall(r"^- (\w+)'s (son|daughter) is (\w+)\.$", prompt, re.M):
            self.sex[child] = "m" if word == "son" else "f"
            self.parents.setdefault(child, set()).add(parent)
        for child, known in list(self.parents.items()):  # a child of one spouse is the other's
            self.parents[child] = known | {self.spouse[p] for p in known if p in self.spouse}
        for a, b in sibling_of:
            self.parents[a] = set(self.parents[b])
        for person, partner in self.spouse.items():
            self.sex.setdefault(person, "f" if self.sex.get(partner) == "m" else "m")

    def people(self) -> set[str]:
        return set(self.sex)

    def rel(self, word: str, x: str) -> set[str]:
        par = lambda p: self.parents.get(p, set())  # noqa: E731
        kids = lambda p: {c for c, ps in self.parents.items() if p in ps}  # noqa: E731
        sibs = lambda p: {c for c, ps in self.parents.items() if ps and ps == par(p) and c != p}  # noqa: E731
        sp = lambda p: {self.spouse[p]} if p in self.spouse else set()  # noqa: E731
        many = lambda f, s: set().union(*(f(p) for p in s)) if s else set()  # noqa: E731
        male = lambda s: {p for p in s if self.sex[p] == "m"}  # noqa: E731
        female = lambda s: {p for p in s if self.sex[p] == "f"}  # noqa: E731
        defs = {
            "father": lambda: male(par(x)),
            "mother": lambda: female(par(x)),
            "son": lambda: male(kids(x)),
            "daughter": lambda: female(kids(x)),
            "husband": lambda: male(sp(x)),
            "wife": lambda: female(sp(x)),
            "brother": lambda: male(sibs(x)),
            "sister": lambda: female(sibs(x)),
            "grandfather": lambda: male(many(par, par(x))),
            "grandmother": lambda: female(many(par, par(x))),
            "paternal grandmother": lambda: female(many(par, male(par(x)))),
            "maternal grandfather": lambda: male(many(par, female(par(x)))),
            "grandson": lambda: male(many(kids, kids(x))),
            "granddaughter": lambda: female(many(kids, kids(x))),
            "nephew": lambda: male(many(kids, sibs(x))),
            "niece": lambda: female(many(kids, sibs(x))),
            "father-in-law": lambda: male(many(par, sp(x))),
            "mother-in-law": lambda: female(many(par, sp(x))),
            "son-in-law": lambda: male(many(sp, female(kids(x)))),
            "daughter-in-law": lambda: female(many(sp, male(kids(x)))),
            "maternal uncle": lambda: male(many(sibs, female(par(x)))),
            "paternal aunt": lambda: female(many(sibs, male(par(x)))),
            "uncle": lambda: male(many(sibs, par(x)) | many(sp, female(many(sibs, par(x))))),
            "aunt": lambda: female(many(sibs, par(x)) | many(sp, male(many(sibs, par(x))))),
            "cousin": lambda: many(kids, many(sibs, par(x))),
            "brother-in-law": lambda: male(many(sibs, sp(x)) | many(sp, sibs(x))),
            "sister-in-law": lambda: female(many(sibs, sp(x)) | many(sp, sibs(x))),
            "great-grandfather": lambda: male(many(par, many(par, par(x)))),
            "great-grandmother": lambda: female(many(par, many(par, par(x)))),
        }
        return defs[word]()


def question(prompt: str) -> tuple[str, list[str]]:
    text = re.search(r"^Question: who is (.+)\? Exactly one", prompt, re.M)[1]
    start, *chain = text.split("'s ")
    return start, chain


def independent_answers(task: palaestra.Task) -> set[str]:
    family = Family(task.prompt)
    start, chain = question(task.prompt)
    current = {start}
    for word in chain:
        current = set().union(*(family.rel(word, p) for p in current)) if current else set()
    return current


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answer_is_the_one_person_the_relation_reaches(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    family = Family(task.prompt)
    assert family.people() == set(task.metadata["names"]), "every person is named and sexed by the facts"
    assert independent_answers(task) == {task.answer}, task.prompt
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct


def test_every_relation_word_is_asked_and_defined() -> None:
    seen: set[str] = set()
    for seed in range(300):
        task = palaestra.make_task(FAMILY, seed=seed, level=6 + seed % 5)
        _, chain = question(task.prompt)
        seen |= set(chain)
        definitions = re.search(r"^Definitions: (.+)$", task.prompt, re.M)[1]
        assert all(f" {word} is " in definitions for word in chain)
    assert len(seen) == 29


def test_every_other_person_is_wrong_and_strangers_are_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=3, level=7)
    for name in task.metadata["names"]:
        verdict = palaestra.verify(task, f"<answer>{name}</answer>")
        assert verdict.correct == (name == task.answer)
        assert verdict.status in ("correct", "wrong")
    for text in ("Nobody", f"{task.answer} or {task.metadata['start']}", f"{task.answer} Smith", ""):
        assert palaestra.verify(task, f"<answer>{text}</answer>").status == "unparseable", text


def test_answer_forms() -> None:
    task = palaestra.make_task(FAMILY, seed=5, level=4)
    for text in (
        f"<answer>{task.answer.upper()}</answer>",
        f"<answer> {task.answer}. </answer>",
        f"Reasoning...\nAnswer: **{task.answer}**",
        task.answer,
    ):
        assert palaestra.verify(task, text).correct, text


def test_weak_solver_fails_as_sex_starts_to_matter() -> None:
    def rate(level: int) -> float:
        tasks = [palaestra.make_task(FAMILY, seed=s, level=level) for s in range(60)]
        return sum(palaestra.verify(t, IMPL.solve_weak(t).response).correct for t in tasks) / 60

    assert rate(1) > 0.5 > 0.2 > rate(10)


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=10)
    for text in ("A" * 100_000, "Anna " * 20_000, "\n" * 50_000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
