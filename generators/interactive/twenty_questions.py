"""Twenty questions over a generated set of objects with attributes.

Every object has a name and a value for each attribute (colour, shape, ...). Single-turn: the
prompt lists the objects and yes/no answers to earlier questions that leave exactly one object
(proven by filtering the whole set); the answer is its name. Interactive
(``palaestra/TwentyQuestions-v0``): ask "is <attribute> <value>?" questions, then "guess
<name>", within a question budget. The reference player asks the question that splits the
remaining objects most evenly.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer

ATTRIBUTES = {
    "colour": ["red", "blue", "green", "yellow", "black", "white"],
    "shape": ["round", "square", "long", "flat", "spiky", "oval"],
    "size": ["tiny", "small", "medium", "large", "huge"],
    "material": ["wood", "metal", "glass", "cloth", "stone", "plastic"],
    "habitat": ["kitchen", "garden", "office", "garage", "forest", "beach"],
    "age": ["new", "old", "antique", "modern"],
}
SYLLABLES = ["ka", "lo", "mi", "ru", "te", "vo", "sa", "ni", "po", "ze", "bu", "fi", "go", "da", "ly", "qu"]
_QUESTION = re.compile(r"(?i)\bis\s+(?:its\s+|the\s+)?([a-z]+)\s+([a-z]+)\s*\?")
_GUESS = re.compile(r"(?i)\bguess\s*:?\s*([a-z]+)\b")


@dataclass(frozen=True)
class TwentyQuestionsKnobs(Knobs):
    objects: int = knob(8, low=4, high=200, help="objects in the set")
    attributes: int = knob(3, low=2, high=len(ATTRIBUTES), help="attributes per object")
    slack: int = knob(3, low=0, high=20, help="questions allowed beyond log2(objects)")


LEVELS = {
    1: TwentyQuestionsKnobs(objects=6, attributes=2, slack=4),
    2: TwentyQuestionsKnobs(objects=8, attributes=3, slack=4),
    3: TwentyQuestionsKnobs(objects=12, attributes=3, slack=3),
    4: TwentyQuestionsKnobs(objects=16, attributes=4, slack=3),
    5: TwentyQuestionsKnobs(objects=24, attributes=4, slack=3),
    6: TwentyQuestionsKnobs(objects=32, attributes=5, slack=3),
    7: TwentyQuestionsKnobs(objects=48, attributes=5, slack=3),
    8: TwentyQuestionsKnobs(objects=64, attributes=6, slack=3),
    9: TwentyQuestionsKnobs(objects=96, attributes=6, slack=3),
    10: TwentyQuestionsKnobs(objects=128, attributes=6, slack=3),
}


def _draw_objects(
    knobs: TwentyQuestionsKnobs, rng: np.random.Generator
) -> tuple[list[str], list[dict[str, str]]]:
    attributes = list(ATTRIBUTES)[: knobs.attributes]
    seen, names, objects = set(), set(), []
    while len(objects) < knobs.objects:
        values = {a: ATTRIBUTES[a][int(rng.integers(len(ATTRIBUTES[a])))] for a in attributes}
        key = tuple(values.values())
        name = "".join(SYLLABLES[int(i)] for i in rng.integers(0, len(SYLLABLES), size=3))
        if key in seen or name in names:
            continue
        seen.add(key)
        names.add(name)
        objects.append({"name": name, **values})
    return attributes, objects


def _matches(obj: dict[str, str], clue: dict) -> bool:
    return (obj[clue["attribute"]] == clue["value"]) == clue["answer"]


def best_question(candidates: list[dict[str, str]], attributes: list[str]) -> tuple[str, str]:
    """The (attribute, value) question whose yes-set is closest to half the candidates."""
    options = sorted({(a, o[a]) for o in candidates for a in attributes})
    return min(
        options, key=lambda q: (abs(2 * sum(o[q[0]] == q[1] for o in candidates) - len(candidates)), q)
    )


def question_budget(knobs: TwentyQuestionsKnobs) -> int:
    return math.ceil(math.log2(knobs.objects)) + knobs.slack


PROMPT = """Objects (name: {columns}):
{table}

I picked one of them. Your earlier questions and my answers:
{clues}

Exactly one object fits every answer. Which one? Answer with its name, like <answer>{example}</answer>."""


@family(
    "twenty_questions",
    domain="interactive",
    knobs=TwentyQuestionsKnobs,
    levels=LEVELS,
    description="Identify a hidden object from yes/no attribute questions; interactive: ask the questions yourself.",
    verifier_kind="exact (unique object proven by filtering)",
)
class TwentyQuestions(Family):
    def generate(self, knobs: TwentyQuestionsKnobs, rng: np.random.Generator) -> TaskDraft:
        attributes, objects = _draw_objects(knobs, rng)
        secret = objects[int(rng.integers(len(objects)))]
        alive, clues = objects, []
        while len(alive) > 1:
            attribute = attributes[int(rng.integers(len(attributes)))]
            value = ATTRIBUTES[attribute][int(rng.integers(len(ATTRIBUTES[attribute])))]
            clue = {"attribute": attribute, "value": value, "answer": secret[attribute] == value}
            narrowed = [o for o in alive if _matches(o, clue)]
            if len(narrowed) < len(alive):
                alive, clues = narrowed, clues + [clue]
        table = "\n".join(f"{o['name']}: " + ", ".join(o[a] for a in attributes) for o in objects)
        clue_text = "\n".join(
            f"Is its {c['attribute']} {c['value']}? {'yes' if c['answer'] else 'no'}" for c in clues
        )
        prompt = PROMPT.format(
            columns=", ".join(attributes), table=table, clues=clue_text, example=objects[0]["name"]
        )
        metadata = {
            "attributes": attributes,
            "objects": objects,
            "secret": secret["name"],
            "clues": clues,
            "canonical_hash": content_hash([sorted(tuple(o[a] for a in attributes) for o in objects), clues]),
        }
        return TaskDraft(prompt, secret["name"], metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=100)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        name = extraction.text.strip().strip(".").lower()
        names = {o["name"] for o in task.metadata["objects"]}
        if name not in names:
            return Verdict.bad_format(f"{name[:30]!r} is not one of the objects")
        if name == task.answer:
            return Verdict.right(parsed=name)
        return Verdict.wrong(f"{name} does not fit every answer", parsed=name)

    def solve_exact(self, task: Task) -> SolverRun:
        """Filter every object through every answer."""
        objects, clues = task.metadata["objects"], task.metadata["clues"]
        fits = [o["name"] for o in objects if all(_matches(o, c) for c in clues)]
        return SolverRun(f"<answer>{fits[0]}</answer>", float(len(objects) * len(clues)))

    def solve_weak(self, task: Task) -> SolverRun:
        """Uses only the 'yes' answers and names the first object that fits them."""
        objects = task.metadata["objects"]
        yes = [c for c in task.metadata["clues"] if c["answer"]]
        fits = [o["name"] for o in objects if all(_matches(o, c) for c in yes)]
        return SolverRun(f"<answer>{fits[0]}</answer>", float(len(objects) * len(yes)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        others = [o["name"] for o in task.metadata["objects"] if o["name"] != task.answer]
        picks = [others[int(i)] for i in rng.choice(len(others), size=min(3, len(others)), replace=False)]
        return [f"<answer>{p}</answer>" for p in picks] + [f"<answer>{task.answer}x</answer>"]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return QuestionGame(TwentyQuestionsKnobs.build(task.knobs), task.metadata, rng)


class QuestionGame(Episode):
    """Ask yes/no questions about attributes, then guess the object's name."""

    def __init__(self, knobs: TwentyQuestionsKnobs, metadata: dict, rng: np.random.Generator):
        self.attributes, self.objects, self.secret = (
            metadata["attributes"],
            metadata["objects"],
            metadata["secret"],
        )
        self.secret_object = next(o for o in self.objects if o["name"] == self.secret)
        self.questions_left = question_budget(knobs)
        self.max_turns = self.questions_left + 10
        self.alive = list(self.objects)

    def opening(self) -> str:
        table = "\n".join(f"{o['name']}: " + ", ".join(o[a] for a in self.attributes) for o in self.objects)
        return (
            f"Objects (name: {', '.join(self.attributes)}):\n{table}\n\nI picked one. Ask yes/no questions like "
            f"'is {self.attributes[0]} {ATTRIBUTES[self.attributes[0]][0]}?', then say 'guess NAME'. You have "
            f"{self.questions_left} questions or guesses in all; a wrong guess ends the game."
        )

    def act(self, action: str) -> Turn:
        text = action[:500]
        guess = _GUESS.search(text)
        question = _QUESTION.search(text)
        if guess and not question:
            name = guess.group(1).lower()
            if name == self.secret:
                return Turn("yes, that's it!", reward=1.0, outcome="solved")
            if name in {o["name"] for o in self.objects}:
                return Turn(f"no, it was {self.secret}.", outcome="failed")
        if question and not guess:
            attribute, value = question.group(1).lower(), question.group(2).lower()
            if attribute in self.attributes and value in ATTRIBUTES[attribute]:
                self.questions_left -= 1
                answer = self.secret_object[attribute] == value
                self.alive = [o for o in self.alive if (o[attribute] == value) == answer]
                if self.questions_left == 0:
                    return Turn(
                        f"{'yes' if answer else 'no'}. No questions left; it was {self.secret}.",
                        outcome="failed",
                    )
                return Turn(f"{'yes' if answer else 'no'}. {self.questions_left} left.")
        return Turn(
            f"invalid: ask 'is <attribute> <value>?' with attributes {', '.join(self.attributes)}, or 'guess NAME'.",
            info={"invalid": True},
        )

    def reference_action(self) -> str:
        if len(self.alive) == 1:
            return f"guess {self.alive[0]['name']}"
        attribute, value = best_question(self.alive, self.attributes)
        return f"is {attribute} {value}?"

    def random_action(self, rng: np.random.Generator) -> str:
        if rng.random() < 0.3:
            return f"guess {self.objects[int(rng.integers(len(self.objects)))]['name']}"
        attribute = self.attributes[int(rng.integers(len(self.attributes)))]
        return f"is {attribute} {ATTRIBUTES[attribute][int(rng.integers(len(ATTRIBUTES[attribute])))]}?"
