"""Epistemic puzzles in the style of Cheryl's birthday: public announcements about knowledge.

One agent is told the month, the other the day of a date from a public list of candidates.
They then make true public statements about what they know ("I don't know, but I know that you
don't know either", "now I know", "I don't know whether you know"). Each statement keeps the
candidate dates at which it would be true, given the candidates still open when it is made;
the answer is the single date left after the last statement. Generation draws candidate lists
and statement scripts until every statement removes something and exactly one date remains,
so the answer is unique by construction (the simulation is the proof). Hardness: world-checks
the simulation spends, number of statements, and how many of them are about the other agent.

Small candidate lists admit few puzzles up to renaming months and days, so from level 3 on the
lists are long (18+ dates) to keep duplicates under 1%; finding a script whose every statement
is informative is a search: about 95 tasks/s at level 5 and 56 at level 10 (CPU time, one core).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import networkx as nx
import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer, normalize_space

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
KINDS = ("dont_know", "know", "other_doesnt", "dont_know_other_doesnt", "other_knows", "unsure_other")
NESTED = frozenset({"other_doesnt", "dont_know_other_doesnt", "other_knows", "unsure_other"})
PEOPLE = (("Albert", "Bernard", "Cheryl"), ("Anna", "Boris", "Celia"), ("Amir", "Bella", "Chen"))
Date = tuple[int, int]  # (month index, day)


@dataclass(frozen=True)
class EpistemicKnobs(Knobs):
    dates: int = knob(5, low=3, high=36, help="number of candidate dates")
    months: int = knob(2, low=2, high=12, help="number of distinct months among the candidates")
    statements: int = knob(2, low=1, high=8, help="number of public statements")
    kinds: str = knob("dont_know,know", help="comma-separated statement kinds: " + ", ".join(KINDS))

    def validate(self) -> None:
        kinds = self.kind_list()
        if not kinds or set(kinds) - set(KINDS) or len(set(kinds)) != len(kinds):
            raise ValueError(f"kinds must be distinct names from {list(KINDS)}")
        if self.months > self.dates:
            raise ValueError("months cannot exceed dates")

    def kind_list(self) -> list[str]:
        return [k.strip() for k in self.kinds.split(",") if k.strip()]


_NESTED = "dont_know,know,other_doesnt,dont_know_other_doesnt"
_ALL = ",".join(KINDS)
LEVELS = {
    1: EpistemicKnobs(dates=5, months=2, statements=1, kinds="dont_know,know"),
    2: EpistemicKnobs(dates=8, months=3, statements=2, kinds="dont_know,know"),
    3: EpistemicKnobs(dates=18, months=7, statements=3, kinds=_NESTED),
    4: EpistemicKnobs(dates=18, months=6, statements=4, kinds=_NESTED),
    5: EpistemicKnobs(dates=20, months=6, statements=4, kinds=_ALL),
    6: EpistemicKnobs(dates=22, months=7, statements=4, kinds=_ALL),
    7: EpistemicKnobs(dates=22, months=7, statements=5, kinds=_ALL),
    8: EpistemicKnobs(dates=24, months=8, statements=5, kinds=_ALL),
    9: EpistemicKnobs(dates=24, months=8, statements=6, kinds=_ALL),
    10: EpistemicKnobs(dates=28, months=9, statements=6, kinds=_ALL),
}


def _cls(worlds: list[Date], w: Date, agent: int) -> list[Date]:
    """The worlds ``agent`` (0 knows the month, 1 the day) cannot tell apart from ``w``."""
    return [v for v in worlds if v[agent] == w[agent]]


def announce(
    worlds: list[Date], speaker: int, kind: str, counter: list[int], shallow: bool = False
) -> list[Date]:
    """The worlds at which the statement is true; ``counter[0]`` accumulates world-checks.

    ``shallow`` is the weak solver's classic mistake: "I know that you don't know" read as
    "you don't know" at the true date, forgetting the speaker's own uncertainty.
    """
    other = 1 - speaker

    def knows(agent: int, w: Date) -> bool:
        counter[0] += len(worlds)
        return len(_cls(worlds, w, agent)) == 1

    def keep(w: Date) -> bool:
        if kind == "dont_know":
            return not knows(speaker, w)
        if kind == "know":
            return knows(speaker, w)
        mine = [w] if shallow else _cls(worlds, w, speaker)
        counter[0] += len(worlds)
        other_knows = [knows(other, v) for v in mine]
        if kind == "other_doesnt":
            return not any(other_knows)
        if kind == "dont_know_other_doesnt":
            return not knows(speaker, w) and not any(other_knows)
        if kind == "other_knows":
            return all(other_knows)
        return any(other_knows) and not all(other_knows)  # unsure_other

    return [w for w in worlds if keep(w)]


def simulate(dates: list[Date], script: list[list], shallow: bool = False) -> tuple[list[list[Date]], int]:
    """Worlds left after each statement, and the world-checks spent."""
    counter = [0]
    worlds = list(dates)
    history = []
    for speaker, kind in script:
        worlds = announce(worlds, speaker, kind, counter, shallow)
        history.append(worlds)
    return history, counter[0]


def _draw_dates(knobs: EpistemicKnobs, rng: np.random.Generator) -> list[Date]:
    months = sorted(int(m) for m in rng.permutation(12)[: knobs.months])
    pool = [int(d) for d in rng.permutation(np.arange(10, 29))[: max(3, (3 * knobs.dates + 4) // 5)]]
    dates: set[Date] = {(m, pool[int(rng.integers(len(pool)))]) for m in months}  # every month used
    while len(dates) < knobs.dates:
        dates.add((months[int(rng.integers(len(months)))], pool[int(rng.integers(len(pool)))]))
    return sorted(dates)


def _search_script(
    worlds: list[Date],
    left: int,
    kinds: list[str],
    rng: np.random.Generator,
    budget: list[int],
    nested: bool,
    previous: list | None = None,
) -> list[list] | None:
    """A script of ``left`` statements, each removing some dates, the last leaving exactly one
    (earlier ones leave more than one); depth-first in random order within a budget."""
    if left == 0:
        return [] if len(worlds) == 1 and not nested else None
    options = [[sp, kinds[int(k)]] for sp in (0, 1) for k in range(len(kinds))]
    for o in [options[int(i)] for i in rng.permutation(len(options))]:
        if o == previous:
            continue  # the same speaker repeating the same kind of statement reads like a typo
        budget[0] -= 1
        if budget[0] < 0:
            return None
        after = announce(worlds, o[0], o[1], [0])
        if not 0 < len(after) < len(worlds) or (len(after) == 1) != (left == 1):
            continue
        rest = _search_script(after, left - 1, kinds, rng, budget, nested and o[1] not in NESTED, o)
        if rest is not None:
            return [o, *rest]
    return None


def draw_puzzle(knobs: EpistemicKnobs, rng: np.random.Generator) -> tuple[list[Date], list[list]]:
    kinds = knobs.kind_list()
    want_nested = any(k in NESTED for k in kinds)
    for _ in range(500):
        dates = _draw_dates(knobs, rng)
        script = _search_script(dates, knobs.statements, kinds, rng, [300], want_nested)
        if script is not None:
            return dates, script
    raise RuntimeError(f"could not draw an epistemic puzzle for {knobs}")


def render_statement(kind: str, other: str, first: bool) -> str:
    return {
        "dont_know": "I don't know when the birthday is."
        if first
        else "I still don't know when the birthday is.",
        "know": "I know when the birthday is." if first else "Now I know when the birthday is.",
        "other_doesnt": f"I know that {other} doesn't know when the birthday is.",
        "dont_know_other_doesnt": f"I don't know when the birthday is, but I know that {other} doesn't know either.",
        "other_knows": f"I know that {other} knows when the birthday is.",
        "unsure_other": f"I don't know whether {other} knows when the birthday is.",
    }[kind]


PROMPT = """{a} and {b} have just become friends with {c}, and they want to know when {c}'s \
birthday is. {c} gives them a list of {n} possible dates:

{dates}

{c} then tells {a} only the month and {b} only the day of the birthday, and both of them know \
that this is what happened. {a} and {b} are perfect logicians, every statement below is true \
when it is made, and both hear everything that is said:

{statements}

When is {c}'s birthday? Exactly one date fits. Give the month and the day, for example \
<answer>{example}</answer>"""

_UNITS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()  # fmt: skip
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
             "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()  # fmt: skip
DAY_WORDS: dict[str, int] = {}
for _k, (_unit, _ordinal) in enumerate(zip(_UNITS, _ORDINALS, strict=True), start=1):
    DAY_WORDS[_unit] = DAY_WORDS[_ordinal] = _k
for _tens, _name, _nth in ((20, "twenty", "twentieth"), (30, "thirty", "thirtieth")):
    DAY_WORDS[_name] = DAY_WORDS[_nth] = _tens
    for _k in range(1, 10 if _tens == 20 else 2):
        for _sep in ("-", " "):
            DAY_WORDS[f"{_name}{_sep}{_UNITS[_k - 1]}"] = DAY_WORDS[f"{_name}{_sep}{_ORDINALS[_k - 1]}"] = (
                _tens + _k
            )

MAX_DATE_CHARS = 100  # longer is not one date (and keeps the regex linear in practice)
_MONTH = r"(?P<month>[a-z]+)\.?"
_DAY = r"(?:the\s+)?(?P<day>\d{1,2}(?:st|nd|rd|th)?|[a-z]+(?:[- ][a-z]+)?)"
_DATE = re.compile(
    r"(?:(?:[a-z]+'s\s+)?birthday\s+is\s+|it\s+is\s+|it's\s+)?(?:on\s+)?"
    rf"(?:{_MONTH}(?:\s*,\s*|\s+){_DAY}"
    rf"|{_DAY.replace('day>', 'day2>')}(?:\s*,\s*|\s+)(?:of\s+)?{_MONTH.replace('month>', 'month2>')})"
    r"\s*[.!]?"
)


def _month_index(word: str) -> int | None:
    for i, name in enumerate(MONTHS):
        if word in (name.lower(), name[:3].lower()) or (word == "sept" and i == 8):
            return i
    return None


def _day_value(word: str) -> int | None:
    digits = word.rstrip("stndrh") if word[:1].isdigit() else None
    value = int(digits) if digits and digits.isdigit() else DAY_WORDS.get(word)
    return value if value is not None and 1 <= value <= 31 else None


def parse_date(text: str) -> tuple[Date | None, str]:
    """One date, "July 14" / "14th of July" / "July fourteenth" / "Cheryl's birthday is Jul 14.",
    read whole: any text the grammar does not consume (a second date, a hedge) is refused."""
    text = normalize_space(text).lower()
    match = _DATE.fullmatch(text) if len(text) <= MAX_DATE_CHARS else None
    if match is None:
        return None, "give one date: a month name and a day, e.g. July 14"
    month = _month_index(match["month"] or match["month2"])
    day = _day_value(match["day"] or match["day2"])
    if month is None:
        return None, f"{(match['month'] or match['month2'])!r} is not a month"
    if day is None:
        return None, f"{(match['day'] or match['day2'])!r} is not a day of the month"
    return (month, day), ""


def _text(date: Date) -> str:
    return f"{MONTHS[date[0]]} {date[1]}"


@family(
    "epistemic",
    domain="logic",
    knobs=EpistemicKnobs,
    levels=LEVELS,
    description="Cheryl's-birthday style puzzles: agents told the month or the day make public "
    "statements about their knowledge; the unique date follows by simulating the announcements.",
    verifier_kind="unique date",
)
class Epistemic(Family):
    def generate(self, knobs: EpistemicKnobs, rng: np.random.Generator) -> TaskDraft:
        a, b, c = PEOPLE[int(rng.integers(len(PEOPLE)))]
        dates, script = draw_puzzle(knobs, rng)
        history, checks = simulate(dates, script)
        answer = history[-1][0]
        lines = []
        for i, (speaker, kind) in enumerate(script):
            first = all(s != speaker for s, _ in script[:i])
            who, other = (a, b) if speaker == 0 else (b, a)
            lines.append(f'{i + 1}. {who}: "{render_statement(kind, other, first)}"')
        by_month: dict[int, list[int]] = {}
        for m, d in dates:
            by_month.setdefault(m, []).append(d)
        listing = "\n".join(
            f"{MONTHS[m]}: " + ", ".join(str(d) for d in days) for m, days in sorted(by_month.items())
        )
        # invariant under renaming months and days: each date's degrees and survival pattern
        # invariant under renaming months and days: a Weisfeiler-Lehman hash of the month-day
        # graph whose edges (dates) carry the round each date was ruled out in
        graph = nx.Graph()
        for w in dates:
            out = next((i for i, h in enumerate(history) if w not in h), len(history))
            graph.add_node(("m", w[0]), kind="month")
            graph.add_node(("d", w[1]), kind="day")
            graph.add_edge(("m", w[0]), ("d", w[1]), label=str(out))
        signature = nx.weisfeiler_lehman_graph_hash(graph, node_attr="kind", edge_attr="label", iterations=4)
        return TaskDraft(
            prompt=PROMPT.format(
                a=a, b=b, c=c, n=len(dates), dates=listing, statements="\n".join(lines), example="July 4"
            ),
            answer=_text(answer),
            metadata={
                "dates": [list(d) for d in dates],
                "script": script,
                "solution": list(answer),
                "world_checks": checks,
                "nested_statements": sum(k in NESTED for _, k in script),
                "canonical_hash": content_hash({"signature": signature, "script": script}),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        date, why = parse_date(extraction.text)
        if date is None:
            return Verdict.bad_format(why)
        if list(date) == task.metadata["solution"]:
            return Verdict.right(parsed=_text(date))
        return Verdict.wrong(f"{_text(date)} is not the birthday", parsed=_text(date))

    def solve_exact(self, task: Task) -> SolverRun:
        dates = [tuple(d) for d in task.metadata["dates"]]
        history, checks = simulate(dates, task.metadata["script"])  # type: ignore[arg-type]
        if len(history[-1]) != 1:
            raise RuntimeError("the statements do not single out one date")
        return SolverRun(f"<answer>{_text(history[-1][0])}</answer>", float(checks))

    def solve_weak(self, task: Task) -> SolverRun:
        # reads statements about the other agent shallowly (at the true date only, not over
        # everything the speaker considers possible); then names the earliest date still open
        dates = [tuple(d) for d in task.metadata["dates"]]
        history, checks = simulate(dates, task.metadata["script"], shallow=True)  # type: ignore[arg-type]
        left = history[-1] or dates
        return SolverRun(f"<answer>{_text(left[0])}</answer>", float(checks))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        solution = tuple(task.metadata["solution"])
        others = [tuple(d) for d in task.metadata["dates"] if tuple(d) != solution]
        picks = [others[int(i)] for i in rng.permutation(len(others))[:2]]
        out = [f"<answer>{_text(d)}</answer>" for d in picks]  # type: ignore[arg-type]
        out.append(f"<answer>{MONTHS[solution[0]]} {solution[1] % 28 + 1}</answer>")  # the day off
        out.append(f"<answer>{_text(solution)} or {_text(picks[0])}</answer>")  # hedging
        return list(dict.fromkeys(out))
