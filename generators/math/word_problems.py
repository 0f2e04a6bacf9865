"""Procedural word problems with units and one exact answer, in a unit the prompt states.

Ten templates: distance from speed and time, travel time, the area of a rectangle, scaling a
recipe, the cost of a call, average speed over two legs, workers and days, pipes filling a
tank, a purchase with a discount and a tax, and the concentration of a mixture. Quantities may
be given in different units from the one asked (minutes and hours, metres and centimetres,
litres and millilitres, cups and tablespoons, cents and dollars), and irrelevant sentences may
be mixed in. The answer is computed exactly with fractions in base units, so it is unique;
nothing is rounded.

Units in the answer are allowed: the math equivalence verifier (:mod:`palaestra.verifiers.math`)
reads the reference as a quantity with the asked unit, so a bare number (``45``), the number
with the asked unit (``45 min``, ``45 minutes``) and the same quantity in another unit of the
same dimension (``0.75 hours``) are paid, while a wrong unit (``45 seconds``, ``45 km`` for
metres) or a rounded value is not. A percentage answer is a number of percent (``12.5`` or
``12.5%``; ``0.125`` is not paid). Units are read strictly (``MathPolicy(strict_units=True)``):
a unit, percent sign, degree sign or radian that the reference lacks makes an answer wrong
(``360 %``, ``360 rad``, ``360°`` for 360 km; ``12.5 kg`` for 12.5 percent), never dropped.

Difficulty: more templates (the later ones carry a classic wrong shortcut: averaging speeds or
rates, direct instead of inverse proportion, adding a discount and a tax), more unit
conversions, larger and decimal numbers, and distracting sentences. The exact solver's effort
is its arithmetic operations (conversions included) times the digits involved. The weak solver
forgets every unit conversion and takes each template's shortcut; it is right only on the first
templates without conversions.

Generation: ~7,500 tasks per CPU-second at level 5 and ~6,600 at level 10.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import tagged, verify_math_answer
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.math import MathPolicy
from palaestra.verifiers.numbers import format_rational

TEMPLATES = (
    "distance",
    "travel_time",
    "area",
    "recipe",
    "call_cost",
    "average_speed",
    "workers",
    "pipes",
    "purchase",
    "mixture",
)
# unit -> (word in the question, LaTeX unit of the reference answer)
UNITS = {
    "km": ("kilometres", "km"),
    "m": ("metres", "m"),
    "hours": ("hours", "h"),
    "minutes": ("minutes", "min"),
    "cm2": ("square centimetres", "cm^2"),
    "m2": ("square metres", "m^2"),
    "cups": ("cups", "cups"),
    "tbsp": ("tablespoons", "tbsp"),
    "dollars": ("dollars", "dollars"),
    "cents": ("cents", "cents"),
    "km/h": ("kilometres per hour", "km/h"),
    "days": ("days", "days"),
    "percent": ("percent", ""),
}
INGREDIENTS = ("flour", "sugar", "milk", "oats", "rice", "cocoa")
NAMES = ("Ana", "Bilal", "Chen", "Dara", "Emeka", "Freya", "Goran", "Hiro", "Ines", "Jonas", "Kemal", "Lucia")
DISTRACTORS = (
    "{name} has {n} cousins.",
    "The building next door has {n} floors.",
    "It was {n} degrees outside that day.",
    "{name} bought {n} stamps the week before.",
    "The old record was set {n} years ago.",
    "There were {n} people waiting at the corner.",
)
# units read strictly: a bare number or any unit of the asked dimension, converted exactly; a
# unit, % or ° the reference does not have is wrong (360 % or 360 rad is not 360 km)
POLICY = MathPolicy(strict_units=True)


@dataclass(frozen=True)
class WordProblemsKnobs(Knobs):
    templates: int = knob(
        2, low=1, high=len(TEMPLATES), help=f"how many templates are drawn from, in order {TEMPLATES}"
    )
    conversions: float = knob(
        0.0, low=0.0, high=1.0, help="probability that a quantity is given in another unit than the one asked"
    )
    scale: int = knob(1, low=1, high=10, help="size of the numbers")
    decimals: bool = knob(False, help="decimal quantities")
    distractors: int = knob(0, low=0, high=4, help="irrelevant sentences with numbers")
    steps: int = knob(
        1,
        low=1,
        high=2,
        help="stages of the first templates (a second leg, a paved corner, a connection fee)",
    )


LEVELS = {
    1: WordProblemsKnobs(templates=2, conversions=0.0, scale=1),
    2: WordProblemsKnobs(templates=3, conversions=0.2, scale=2),
    3: WordProblemsKnobs(templates=4, conversions=0.4, scale=2, distractors=1, steps=2),
    4: WordProblemsKnobs(templates=5, conversions=0.6, scale=3, distractors=1, steps=2),
    5: WordProblemsKnobs(templates=6, conversions=0.7, scale=4, distractors=1, steps=2),
    6: WordProblemsKnobs(templates=7, conversions=0.8, scale=5, distractors=2, steps=2),
    7: WordProblemsKnobs(templates=8, conversions=0.9, scale=6, distractors=2, steps=2),
    8: WordProblemsKnobs(templates=9, conversions=1.0, scale=7, distractors=2, steps=2),
    9: WordProblemsKnobs(templates=10, conversions=1.0, scale=8, decimals=True, distractors=3, steps=2),
    10: WordProblemsKnobs(templates=10, conversions=1.0, scale=10, decimals=True, distractors=3, steps=2),
}


@dataclass
class Problem:
    template: str
    text: str
    value: Fraction
    unit: str
    naive: Fraction  # the weak solver's answer: no conversions, the template's shortcut
    ops: int
    params: dict = field(default_factory=dict)


class Draw:
    """Random quantities for one problem."""

    def __init__(self, rng: np.random.Generator, knobs: WordProblemsKnobs):
        self.rng, self.knobs = rng, knobs

    def int(self, low: int, high: int) -> int:
        return int(self.rng.integers(low, high + 1))

    def amount(self, low: int, high: int) -> Fraction:
        """An integer, or with decimals on, a number with one decimal place."""
        if self.knobs.decimals and self.rng.random() < 0.5:
            return Fraction(self.int(10 * low, 10 * high), 10)
        return Fraction(self.int(low, high))

    def convert(self) -> bool:
        return bool(self.rng.random() < self.knobs.conversions)

    def name(self) -> str:
        """The problem's protagonist (drawn once, so every mention is the same person)."""
        if not hasattr(self, "_name"):
            self._name = NAMES[int(self.rng.integers(len(NAMES)))]
        return self._name


def num(value: Fraction) -> str:
    """A quantity as the question writes it: an integer or a terminating decimal."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.6f}".rstrip("0")
    assert Fraction(text) == value, value
    return text


# --------------------------------------------------------------------------------------------
# Templates (the first five: the weak solver only forgets conversions; the last five: it also
# takes a classic wrong shortcut)
# --------------------------------------------------------------------------------------------


def _leg_time(d: Draw) -> tuple[Fraction, bool]:
    """A driving time: in minutes (a conversion) or in hours."""
    minutes = d.convert()
    time = Fraction(d.int(10, 60 * (2 + d.knobs.scale))) if minutes else d.amount(1, 3 + d.knobs.scale)
    return time, minutes


def distance(d: Draw) -> Problem:
    legs = [(Fraction(d.int(30, 130)), *_leg_time(d)) for _ in range(d.knobs.steps)]
    in_metres = d.convert()
    km = sum((v * (t / 60 if minutes else t) for v, t, minutes in legs), Fraction(0))
    value, unit = (km * 1000, "m") if in_metres else (km, "km")
    parts = [
        f"at {num(v)} kilometres per hour for {num(t)} {'minutes' if minutes else 'hours'}"
        for v, t, minutes in legs
    ]
    text = f"{d.name()} drives {', then '.join(parts)}. How far does {d.name()} travel in total?"
    naive = sum((v * t for v, t, _ in legs), Fraction(0))  # minutes taken for hours
    ops = sum(2 + minutes for _, _, minutes in legs) + in_metres
    params = {"legs": [[format_rational(v), format_rational(t), m] for v, t, m in legs], "m": in_metres}
    return Problem("distance", text, value, unit, naive, ops, params)


def travel_time(d: Draw) -> Problem:
    legs = [(d.amount(5, 20 * (1 + d.knobs.scale)), Fraction(d.int(10, 40))) for _ in range(d.knobs.steps)]
    in_minutes = d.convert()
    hours = sum((km / v for km, v in legs), Fraction(0))
    value, unit = (hours * 60, "minutes") if in_minutes else (hours, "hours")
    parts = [f"{num(km)} kilometres at {num(v)} kilometres per hour" for km, v in legs]
    text = f"A cyclist rides {', then '.join(parts)}. How long does the whole ride take?"
    params = {"legs": [[format_rational(km), format_rational(v)] for km, v in legs], "min": in_minutes}
    return Problem("travel_time", text, value, unit, hours, 2 * len(legs) + in_minutes, params)


def area(d: Draw) -> Problem:
    length = d.amount(2, 30 * d.knobs.scale)
    width_cm = d.convert()
    width = Fraction(d.int(10, 99)) if width_cm else d.amount(1, 20 * d.knobs.scale)
    ask_cm = d.convert()
    width_m = width / 100 if width_cm else width
    square_metres, naive = length * width_m, length * width
    text = (
        f"A rectangular garden bed is {num(length)} metres long and {num(width)} "
        f"{'centimetres' if width_cm else 'metres'} wide."
    )
    params: dict = {"l": length, "w": width, "wcm": width_cm, "cm": ask_cm}
    if d.knobs.steps > 1:  # a square paving stone in one corner is not planted
        side = Fraction(d.int(10, 99))
        if side / 100 >= min(length, width_m):
            side = Fraction(5)
        square_metres -= (side / 100) ** 2
        naive -= side**2
        text += (
            f" A square paving stone {num(side)} centimetres on a side lies in one corner and is not planted."
        )
        params["stone"] = side
        ask = "What is the planted area?"
    else:
        ask = "What is its area?"
    value, unit = (square_metres * 10_000, "cm2") if ask_cm else (square_metres, "m2")
    return Problem(
        "area", text + " " + ask, value, unit, naive, 2 + width_cm + ask_cm + 3 * ("stone" in params), params
    )


def recipe(d: Draw) -> Problem:
    servings, wanted = d.int(2, 12), d.int(2, 10 * d.knobs.scale)
    if wanted == servings:
        wanted += 1
    cups = Fraction(d.int(1, 8 * d.knobs.scale), 4)
    ingredient = INGREDIENTS[int(d.rng.integers(len(INGREDIENTS)))]
    in_tbsp = d.convert()
    need = cups * wanted / servings
    value, unit = (need * 16, "tbsp") if in_tbsp else (need, "cups")
    text = (
        f"A recipe for {servings} servings uses {format_rational(cups)} cups of {ingredient}. How much {ingredient} is needed for "
        f"{wanted} servings (1 cup = 16 tablespoons)?"
    )
    return Problem(
        "recipe",
        text,
        value,
        unit,
        need,
        3 + in_tbsp,
        {"s": servings, "n": wanted, "c": cups, "tbsp": in_tbsp, "i": ingredient},
    )


def call_cost(d: Draw) -> Problem:
    cents = d.amount(2, 15 * d.knobs.scale)
    hours, minutes = d.int(0, 2), d.int(1, 59)
    fee = Fraction(d.int(5, 99)) if d.knobs.steps > 1 else Fraction(0)
    in_dollars = d.convert() or hours > 0
    total = cents * (60 * hours + minutes) + fee
    value, unit = (total / 100, "dollars") if in_dollars else (total, "cents")
    length = (
        f"{hours} hour{'s' if hours != 1 else ''} and {minutes} minutes" if hours else f"{minutes} minutes"
    )
    connection = f" plus {num(fee)} cents to connect each call" if fee else ""
    text = f"A phone plan charges {num(cents)} cents per minute{connection}. A call lasts {length}. What does the call cost?"
    naive = cents * (hours + minutes) + fee  # hours not turned into minutes, cents not into dollars
    params = {"c": cents, "h": hours, "m": minutes, "d": in_dollars, "fee": fee}
    return Problem("call_cost", text, value, unit, naive, 4 + in_dollars + bool(fee), params)


def average_speed(d: Draw) -> Problem:
    v1, v2 = (Fraction(d.int(4, 14 * d.knobs.scale) * 5) for _ in range(2))
    if v1 == v2:
        v2 += 10
    d1, d2 = d.amount(10, 30 * d.knobs.scale), d.amount(10, 30 * d.knobs.scale)
    in_metres = d.convert()
    shown_d2 = d2 * 1000 if in_metres else d2
    value = (d1 + d2) / (d1 / v1 + d2 / v2)
    text = (
        f"A bus covers {num(d1)} kilometres at {num(v1)} kilometres per hour, then {num(shown_d2)} "
        f"{'metres' if in_metres else 'kilometres'} at {num(v2)} kilometres per hour. What is its average speed over the whole trip?"
    )
    return Problem(
        "average_speed",
        text,
        value,
        "km/h",
        (v1 + v2) / 2,
        6 + in_metres,
        {"v": [v1, v2], "d": [d1, d2], "m": in_metres},
    )


def workers(d: Draw) -> Problem:
    k, m = d.int(2, 6 + 2 * d.knobs.scale), d.int(2, 6 + 2 * d.knobs.scale)
    if k == m:
        m += 1
    h, g = d.int(4, 10), d.int(4, 10)
    days = d.amount(2, 10 + 3 * d.knobs.scale)
    value = Fraction(k * h) * days / (m * g)
    text = (
        f"{k} workers, all working at the same rate for {h} hours a day, finish a job in {num(days)} days. How many "
        f"days would {m} such workers take to finish the same job working {g} hours a day?"
    )
    naive = days * m * g / (k * h)  # direct instead of inverse proportion
    return Problem("workers", text, value, "days", naive, 5, {"k": k, "m": m, "h": h, "g": g, "d": days})


def pipes(d: Draw) -> Problem:
    a = Fraction(d.int(2, 10 + 2 * d.knobs.scale))
    b_minutes = d.convert()
    b = (
        Fraction(d.int(30, 60 * (10 + d.knobs.scale)))
        if b_minutes
        else Fraction(d.int(2, 10 + 2 * d.knobs.scale))
    )
    if not b_minutes and a == b:
        b += 1
    rates = [1 / a, 1 / (b / 60 if b_minutes else b)]
    text = f"Pipe A alone fills a tank in {num(a)} hours; pipe B alone fills it in {num(b)} {'minutes' if b_minutes else 'hours'}"
    params: dict = {"a": a, "b": b, "bm": b_minutes}
    naive_times = [a, b]
    if d.knobs.steps > 1:
        c = Fraction(d.int(2, 10 + 2 * d.knobs.scale))
        rates.append(1 / c)
        naive_times.append(c)
        text += f"; pipe C alone fills it in {num(c)} hours"
        params["c"] = c
    ask_minutes = d.convert()
    together = 1 / sum(rates, Fraction(0))
    value, unit = (together * 60, "minutes") if ask_minutes else (together, "hours")
    text += f". How long do all {len(rates)} pipes take to fill the empty tank together?"
    params["m"] = ask_minutes
    naive = sum(naive_times, Fraction(0)) / len(naive_times)  # the times averaged
    return Problem("pipes", text, value, unit, naive, 3 * len(rates) + b_minutes + ask_minutes, params)


def purchase(d: Draw) -> Problem:
    count = d.int(2, 4 + 2 * d.knobs.scale)
    cents = d.int(99, 2_500 * d.knobs.scale)
    discount, tax = d.int(1, 8) * 5, Fraction(d.int(10, 100), 10)
    price = Fraction(cents, 100)
    value = count * price * (1 - Fraction(discount, 100)) * (1 + tax / 100)
    in_cents = d.convert() and d.rng.random() < 0.3
    text = (
        f"A shop sells a lamp for {float(price):.2f} dollars. {d.name()} buys {count} lamps, gets {discount}% off the total, "
        f"and then pays a {num(tax)}% sales tax on the discounted total. How much does {d.name()} pay (exactly, without rounding to cents)?"
    )
    naive = count * price * (1 - Fraction(discount, 100) + tax / 100)  # discount and tax added up
    return Problem(
        "purchase",
        text,
        value * 100 if in_cents else value,
        "cents" if in_cents else "dollars",
        naive,
        6,
        {"n": count, "p": price, "d": discount, "t": tax, "c": in_cents},
    )


def mixture(d: Draw) -> Problem:
    v1 = d.amount(1, 5 * d.knobs.scale)
    millilitres = d.convert()
    v2 = Fraction(d.int(100, 900 * d.knobs.scale)) if millilitres else d.amount(1, 5 * d.knobs.scale)
    p1, p2 = d.int(1, 19) * 5, d.int(1, 19) * 5
    if p1 == p2:
        p2 = p1 + 5 if p1 < 95 else p1 - 5
    litres2 = v2 / 1000 if millilitres else v2
    value = (v1 * p1 + litres2 * p2) / (v1 + litres2)
    text = (
        f"{num(v1)} litres of a {p1}% salt solution are mixed with {num(v2)} {'millilitres' if millilitres else 'litres'} "
        f"of a {p2}% salt solution. What is the salt concentration of the mixture, in percent?"
    )
    return Problem(
        "mixture",
        text,
        value,
        "percent",
        Fraction(p1 + p2, 2),
        6 + millilitres,
        {"v": [v1, v2], "p": [p1, p2], "ml": millilitres},
    )


DRAWERS = {
    "distance": distance,
    "travel_time": travel_time,
    "area": area,
    "recipe": recipe,
    "call_cost": call_cost,
    "average_speed": average_speed,
    "workers": workers,
    "pipes": pipes,
    "purchase": purchase,
    "mixture": mixture,
}


def _gold_with_unit(task: Task) -> str:
    """The reference as the verifier reads it: a percentage carries its ``%`` (the reference
    text is the bare number of percent), so ``12.5``, ``12.5%`` and ``12.5 percent`` are paid
    and ``0.125`` (a fraction, not a number of percent) or ``12.5 kg`` are not."""
    return f"{task.answer}\\%" if task.metadata["unit"] == "percent" else task.answer


def reference_text(value: Fraction, unit: str) -> str:
    """The reference answer: the exact number with its unit (``\\frac{45}{2}\\,\\text{min}``)."""
    if value.denominator == 1:
        number = str(value.numerator)
    elif 10**6 % value.denominator == 0:  # a terminating decimal: 31.07
        number = num(value)
    else:
        sign = "-" if value < 0 else ""
        number = f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"
    latex = UNITS[unit][1]
    if not latex:
        return number
    base, power = (latex[:-2], latex[-2:]) if latex.endswith("^2") else (latex, "")
    return f"{number}\\,\\text{{{base}}}{power}"  # no plain space: the answer is one item


def _canonical(value: object) -> object:
    """Parameters as JSON: fractions written out, lists and dicts walked."""
    if isinstance(value, Fraction):
        return format_rational(value)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    return value


PROMPT = """{text}

Give the exact answer in {unit_word}{percent_note}: an integer, a fraction or an exact decimal (no rounding). The unit may follow the number. Put the final answer in <answer>...</answer>."""


@family(
    "word_problems",
    domain="math",
    knobs=WordProblemsKnobs,
    levels=LEVELS,
    description="Procedural word problems (motion, areas, recipes, costs, work rates, mixtures) with unit conversions and one exact answer in a stated unit.",
    verifier_kind="math equivalence",
)
class WordProblems(Family):
    def generate(self, knobs: WordProblemsKnobs, rng: np.random.Generator) -> TaskDraft:
        draw = Draw(rng, knobs)
        template = TEMPLATES[int(rng.integers(knobs.templates))]
        problem = DRAWERS[template](draw)
        sentences = [problem.text]
        for index in rng.choice(len(DISTRACTORS), size=knobs.distractors, replace=False):
            other = NAMES[int(rng.integers(len(NAMES)))]
            filler = DISTRACTORS[int(index)].format(name=other, n=draw.int(2, 60))
            sentences.insert(int(rng.integers(len(sentences))), filler)  # before the question
        word = UNITS[problem.unit][0]
        prompt = PROMPT.format(
            text=" ".join(sentences),
            unit_word=word,
            percent_note=" (a number of percent, such as 12.5)" if problem.unit == "percent" else "",
        )
        digits = max(len(str(abs(problem.value.numerator))), len(str(problem.value.denominator)))
        metadata = {
            "template": template,
            "unit": problem.unit,
            "value": format_rational(problem.value),
            "naive": format_rational(problem.naive),
            "effort": problem.ops * digits,
            "canonical_hash": content_hash([template, _canonical(problem.params)]),
        }
        return TaskDraft(prompt=prompt, answer=reference_text(problem.value, problem.unit), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        return verify_math_answer(response, _gold_with_unit(task), POLICY, question=task.prompt)

    def solve_exact(self, task: Task) -> SolverRun:
        # exact fractions in base units; effort = operations times digits
        return SolverRun(response=tagged(task.metadata["value"]), effort=float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # forgets unit conversions and takes the template's shortcut
        return SolverRun(response=tagged(task.metadata["naive"]), effort=1.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = Fraction(task.metadata["value"])
        wrong = [value + 1, value * 2, value / 10, Fraction(task.metadata["naive"])]
        out = [tagged(format_rational(w)) for w in dict.fromkeys(wrong) if w != value]
        word = UNITS[task.metadata["unit"]][0]
        if task.metadata["unit"] in ("km", "m", "hours", "minutes"):  # the right number in a wrong unit
            other = {"km": "metres", "m": "kilometres", "hours": "minutes", "minutes": "seconds"}[
                task.metadata["unit"]
            ]
            out.append(tagged(f"{format_rational(value)} {other}"))
        elif word != "percent":
            out.append(tagged(f"{format_rational(value + 2)} {word}"))
        return out
