"""Zebra (Einstein) puzzles: fill in who lives where from clues; the grid is unique.

Houses 1..H stand in a row; each attribute (nationality, house colour, pet, drink, ...) gives
every house a different value. A planted grid is described by clues ("the Brit keeps the dog",
"the tea drinker lives directly right of the red house", "the cat owner does not live in house
2", ...). Clues are added only when they cut off a rival grid found by the propagation-and-search
solver (``_positions``), until the grid is unique; with ``minimal=True`` every unneeded clue is
then removed. Each removal re-proves uniqueness, so large grids cost tens of solver calls: about
70 tasks/s at level 5 and 13 tasks/s at level 10 (CPU time, one core; the uniqueness proof is
the cost). Hardness: solver revisions, search nodes and failures (conflicts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.logic import _positions as ps
from palaestra.generators.shared.logic_answers import scan_words
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

# attribute -> (values, subject template, predicate template, negated predicate template)
ATTRIBUTES = {
    "nationality": (
        ("Brit", "Swede", "Dane", "Norwegian", "German", "Spaniard", "Italian"),
        "the {v}",
        "is the {v}",
        "is not the {v}",
    ),
    "color": (
        ("red", "green", "white", "yellow", "blue", "purple", "pink"),
        "the person in the {v} house",
        "lives in the {v} house",
        "does not live in the {v} house",
    ),
    "pet": (
        ("dog", "bird", "cat", "horse", "fish", "rabbit", "hamster"),
        "the person who keeps the {v}",
        "keeps the {v}",
        "does not keep the {v}",
    ),
    "drink": (
        ("tea", "coffee", "milk", "beer", "water", "juice", "cocoa"),
        "the person who drinks {v}",
        "drinks {v}",
        "does not drink {v}",
    ),
    "hobby": (
        ("chess", "painting", "cycling", "gardening", "knitting", "reading", "hiking"),
        "the person who enjoys {v}",
        "enjoys {v}",
        "does not enjoy {v}",
    ),
    "food": (
        ("pizza", "sushi", "pasta", "tacos", "curry", "salad", "soup"),
        "the person who eats {v}",
        "eats {v}",
        "does not eat {v}",
    ),
    "music": (
        ("jazz", "rock", "pop", "blues", "folk", "opera", "reggae"),
        "the person who listens to {v}",
        "listens to {v}",
        "does not listen to {v}",
    ),
}
KINDS = ("same", "diff", "at", "not_at", "next", "left", "adjacent")
# what may separate words: punctuation of lists, tables and JSON, and a slash between values
# ("House 1 - German / opera"; a hedge such as "German / Dane" places one house's nationality
# twice and is refused by the one-value-per-attribute check); any other sign (¬, ≠, !) refuses
# the answer rather than being skipped
_SEPARATORS = re.compile(r"(?:\s+|->|=>|→|[,;:.=()\[\]{}\-–—*_`\"'|/])+")
MAX_ANSWER_CHARS = 8000  # a 7 x 7 grid as a table or JSON fits several times over
# "House -1" or "House 1.5" is no house number, though the separators would read 1 and 1, 5
_NOT_A_HOUSE_NUMBER = re.compile(r"[-–—]\d|\d[.,]\d")
_FILLER = frozenset({"house", "the", "and", *ATTRIBUTES, "colour", "nation"})


@dataclass(frozen=True)
class ZebraKnobs(Knobs):
    houses: int = knob(3, low=2, high=7, help="number of houses in the row")
    attributes: int = knob(2, low=2, high=7, help="number of attributes (nationality is always one)")
    clue_kinds: str = knob("same,at,next", help="comma-separated clue kinds: " + ", ".join(KINDS))
    minimal: bool = knob(False, help="remove every clue the unique grid does not need")
    extra_clues: int = knob(0, low=0, high=8, help="redundant true clues added after that (noise, variety)")

    def validate(self) -> None:
        kinds = self.kind_list()
        if not kinds or set(kinds) - set(KINDS) or len(set(kinds)) != len(kinds):
            raise ValueError(f"clue_kinds must be distinct names from {list(KINDS)}")

    def kind_list(self) -> list[str]:
        return [k.strip() for k in self.clue_kinds.split(",") if k.strip()]


_ALL = ",".join(KINDS)
_NO_AT = "same,diff,not_at,next,left,adjacent"
LEVELS = {
    1: ZebraKnobs(houses=3, attributes=2, clue_kinds="same,at,next"),
    2: ZebraKnobs(houses=3, attributes=3, clue_kinds="same,at,next,left"),
    3: ZebraKnobs(houses=4, attributes=3, clue_kinds=_ALL, extra_clues=1),
    4: ZebraKnobs(houses=4, attributes=4, clue_kinds=_ALL, minimal=True, extra_clues=1),
    5: ZebraKnobs(houses=5, attributes=4, clue_kinds=_ALL, minimal=True),
    6: ZebraKnobs(houses=5, attributes=5, clue_kinds=_ALL, minimal=True),
    7: ZebraKnobs(houses=5, attributes=5, clue_kinds=_NO_AT, minimal=True),
    8: ZebraKnobs(houses=5, attributes=6, clue_kinds=_NO_AT, minimal=True),
    9: ZebraKnobs(houses=6, attributes=5, clue_kinds=_NO_AT, minimal=True),
    10: ZebraKnobs(houses=6, attributes=6, clue_kinds=_NO_AT, minimal=True),
}


def _candidate(kind: str, rng: np.random.Generator, pos: list[int], h: int, a: int) -> ps.Clue | None:
    def entity_at(attr: int, house: int) -> int:
        return next(attr * h + v for v in range(h) if pos[attr * h + v] == house)

    e = int(rng.integers(a * h))
    if kind == "at":
        return ["at", e, pos[e]]
    if kind == "not_at":
        k = int(rng.integers(h - 1))
        return ["not_at", e, k if k < pos[e] else k + 1]
    x, y = (int(t) for t in rng.permutation(a)[:2]) if a > 1 else (0, 0)
    if kind == "same":
        house = int(rng.integers(h))
        return ["same", entity_at(x, house), entity_at(y, house)]
    p, q = (int(t) for t in rng.permutation(h)[:2])
    if kind == "diff":
        return ["diff", entity_at(x, p), entity_at(y, q)]
    if kind in ("next", "adjacent"):
        p = int(rng.integers(h - 1))
        x, y = int(rng.integers(a)), int(rng.integers(a))
        first, second = entity_at(x, p), entity_at(y, p + 1)
        return (
            ["next", first, second] if kind == "next" or rng.random() < 0.5 else ["adjacent", second, first]
        )
    x, y = int(rng.integers(a)), int(rng.integers(a))  # left
    lo, hi = min(p, q), max(p, q)
    return ["left", entity_at(x, lo), entity_at(y, hi)]


def _drawer(knobs: ZebraKnobs):
    kinds = knobs.kind_list()
    h, a = knobs.houses, knobs.attributes

    def draw(rng: np.random.Generator, pos: list[int], other: list[int] | None) -> ps.Clue | None:
        for _ in range(300):
            clue = _candidate(kinds[int(rng.integers(len(kinds)))], rng, pos, h, a)
            if clue is not None and (other is None or not ps.holds(clue, other, h)):
                return clue
        if other is None:
            return None
        # always possible: place a value whose house differs between the two grids
        differ = [e for e in range(a * h) if pos[e] != other[e]]
        e = differ[int(rng.integers(len(differ)))]
        return ["at", e, pos[e]]

    return draw


def _phrase(kind: int, categories: list[str], values: list[list[str]], e: int, h: int) -> str:
    attr, v = divmod(e, h)
    return ATTRIBUTES[categories[attr]][kind].format(v=values[attr][v])


def render(clue: ps.Clue, categories: list[str], values: list[list[str]], h: int) -> str:
    def subj(e: int) -> str:
        return _phrase(1, categories, values, e, h)

    kind, a = clue[0], clue[1]
    if kind == "at":
        text = f"{subj(a)} lives in house {clue[2] + 1}"
    elif kind == "not_at":
        text = f"{subj(a)} does not live in house {clue[2] + 1}"
    elif kind == "same":
        text = f"{subj(a)} {_phrase(2, categories, values, clue[2], h)}"
    elif kind == "diff":
        text = f"{subj(a)} {_phrase(3, categories, values, clue[2], h)}"
    elif kind == "next":
        text = f"{subj(clue[2])} lives directly to the right of {subj(a)}"
    elif kind == "left":
        text = f"{subj(a)} lives somewhere to the left of {subj(clue[2])}"
    else:
        text = f"{subj(a)} lives next to {subj(clue[2])}"
    return text[:1].upper() + text[1:] + "."


PROMPT = """{h} houses stand in a row, numbered 1 to {h} from left to right. In each house lives \
one person, and each house has a different value of every attribute:
{attributes}

Clues:
{clues}

"Next to" means in a neighbouring house; "directly to the right" means in the next house with \
a higher number. Exactly one arrangement satisfies all the clues. Give it in full: one line \
per house, with the house number and that house's {k} values, for example (values made up):
<answer>
House 1: {example1}
House 2: {example2}
</answer>"""


def parse_grid(text: str, values: list[list[str]], h: int) -> tuple[list[int] | None, str]:
    """House of every value (indexed like the entities), from "House k: v1, v2, ..." text."""
    lookup = {}
    for attr, row in enumerate(values):
        for v, word in enumerate(row):
            lookup[word.lower()] = attr * h + v
    pos: list[int | None] = [None] * (len(values) * h)
    house = None
    if len(text) > MAX_ANSWER_CHARS:
        return None, f"the answer is longer than {MAX_ANSWER_CHARS} characters"
    tokens, why = scan_words(text, _SEPARATORS)
    if tokens is None:
        return None, why
    if bad := _NOT_A_HOUSE_NUMBER.search(text):
        return None, f"{bad.group()!r} is not a house number"
    for token in tokens:
        if token.isdigit():
            if not 1 <= int(token) <= h:
                return None, f"there is no house {token}"
            house = int(token) - 1
        elif token in lookup:
            if house is None:
                return None, f"{token!r} comes before any house number"
            if pos[lookup[token]] is not None:
                return None, f"{token!r} is placed more than once"
            pos[lookup[token]] = house
        elif token not in _FILLER:
            return None, f"unexpected word {token!r}"
    missing = [w for w, e in lookup.items() if pos[e] is None]
    if missing:
        return None, f"not placed: {', '.join(missing[:5])}"
    for attr in range(len(values)):
        houses = sorted(pos[attr * h + v] for v in range(h))  # type: ignore[type-var]
        if houses != list(range(h)):
            return None, "every house needs exactly one value of each attribute"
    return [int(p) for p in pos if p is not None], ""


def format_grid(pos: list[int], values: list[list[str]], h: int) -> str:
    lines = []
    for house in range(h):
        row = [values[attr][v] for attr in range(len(values)) for v in range(h) if pos[attr * h + v] == house]
        lines.append(f"House {house + 1}: {', '.join(row)}")
    return "\n".join(lines)


@family(
    "zebra",
    domain="logic",
    knobs=ZebraKnobs,
    levels=LEVELS,
    description="Einstein/zebra puzzles: deduce the unique house-by-attribute grid from clues; "
    "uniqueness proven by a CSP solver, difficulty calibrated by its revisions and conflicts.",
    verifier_kind="unique grid",
)
class Zebra(Family):
    def generate(self, knobs: ZebraKnobs, rng: np.random.Generator) -> TaskDraft:
        h, a = knobs.houses, knobs.attributes
        others = [c for c in ATTRIBUTES if c != "nationality"]
        categories = ["nationality"] + [others[int(i)] for i in rng.permutation(len(others))[: a - 1]]
        values = [[str(x) for x in rng.permutation(ATTRIBUTES[c][0])[:h]] for c in categories]
        groups = [list(range(i * h, (i + 1) * h)) for i in range(a)]
        for _ in range(50):
            pos = [int(p) for _ in range(a) for p in rng.permutation(h)]
            clues = ps.build_unique(h, a * h, groups, pos, _drawer(knobs), rng, minimal=knobs.minimal)
            if clues is not None:
                break
        else:
            raise RuntimeError(f"could not build a unique zebra puzzle for {knobs}")
        draw = _drawer(knobs)
        for _ in range(knobs.extra_clues):
            clue = draw(rng, pos, None)
            if clue is not None and clue not in clues:
                clues.append(clue)
        clues = [clues[int(i)] for i in rng.permutation(len(clues))]
        stats = ps.solve(h, a * h, groups, clues, limit=2)
        assert stats.solutions == [pos]
        canon = [(e // h) * h + pos[e] for e in range(a * h)]
        attributes = "\n".join(
            f"- {c}: {', '.join(sorted(v))}" for c, v in zip(categories, values, strict=True)
        )
        return TaskDraft(
            prompt=PROMPT.format(
                h=h,
                attributes=attributes,
                clues="\n".join(f"{i}. {render(c, categories, values, h)}" for i, c in enumerate(clues, 1)),
                k=a,
                example1=", ".join(["Zed", "Quinn", "Uma", "Ivo", "Lem", "Kai"][:a]),
                example2=", ".join(["Ash", "Bea", "Cy", "Dot", "Eli", "Fay"][:a]),
            ),
            answer=format_grid(pos, values, h),
            metadata={
                "houses": h,
                "categories": categories,
                "values": values,
                "clues": clues,
                "solution": pos,
                "search_nodes": stats.nodes,
                "conflicts": stats.failures,
                "revisions": stats.revisions,
                "canonical_hash": content_hash(ps.canonical(clues, canon)),
            },
        )

    def _groups(self, task: Task) -> tuple[int, int, list[list[int]]]:
        h, a = int(task.metadata["houses"]), len(task.metadata["categories"])
        return h, a, [list(range(i * h, (i + 1) * h)) for i in range(a)]

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        h, _, _ = self._groups(task)
        pos, why = parse_grid(extraction.text, task.metadata["values"], h)
        if pos is None:
            return Verdict.bad_format(why)
        broken = [i for i, c in enumerate(task.metadata["clues"]) if not ps.holds(c, pos, h)]
        if broken:
            return Verdict.wrong(f"clue {broken[0] + 1} is violated ({len(broken)} in all)", parsed=pos)
        if pos != task.metadata["solution"]:  # cannot happen: the grid is proven unique
            return Verdict.wrong("not the unique solution", parsed=pos)
        return Verdict.right(parsed=pos)

    def solve_exact(self, task: Task) -> SolverRun:
        h, a, groups = self._groups(task)
        stats = ps.solve(h, a * h, groups, task.metadata["clues"], limit=2)
        if len(stats.solutions) != 1:
            raise RuntimeError("expected a unique solution")
        grid = format_grid(stats.solutions[0], task.metadata["values"], h)
        return SolverRun(f"<answer>\n{grid}\n</answer>", float(stats.revisions + stats.nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        # propagation only, no search; if the grid is not pinned down, value v goes to house v
        h, a, groups = self._groups(task)
        stats = ps.solve(h, a * h, groups, task.metadata["clues"], limit=1, search=False)
        pos = stats.solutions[0] if stats.solutions else [e % h for e in range(a * h)]
        return SolverRun(
            f"<answer>\n{format_grid(pos, task.metadata['values'], h)}\n</answer>", float(stats.revisions)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        h, a, _ = self._groups(task)
        pos = list(task.metadata["solution"])
        values = task.metadata["values"]
        out = []
        for attr in (0, int(rng.integers(a))):  # swap the houses of two values of one attribute
            v, w = (attr * h + int(x) for x in rng.permutation(h)[:2])
            swapped = list(pos)
            swapped[v], swapped[w] = pos[w], pos[v]
            out.append(format_grid(swapped, values, h))
        shifted = [(p + 1) % h for p in pos]  # every house moved one step
        out.append(format_grid(shifted, values, h))
        lines = str(task.answer).split("\n")
        out.append("\n".join(lines[:-1]))  # a house missing
        out.append(str(task.answer) + f"\nHouse 1: {values[0][0]}")  # a value twice
        return [f"<answer>\n{r}\n</answer>" for r in dict.fromkeys(out) if r != task.answer]
