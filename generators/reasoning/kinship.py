"""Family-relation inference: who is X's maternal uncle (or X's wife's brother's son)?

A family tree is generated over a few generations (a founding couple, their children, the
children's spouses married in, their children...). The prompt states it as facts: marriages
("A is the husband of B"), parentage ("C is the son of A and B", or from level 3 only one
parent, the other following from the marriage) and, from level 6, some children only through
a sibling ("D is the sister of C"). Sex follows from the words used (son/daughter, husband/wife,
brother/sister). The question asks for the person at the end of a chain of named relations
("Who is Eva's mother's brother?", "Who is Tom's wife's nephew's grandfather?"); the prompt
defines every relation word it uses (an uncle is a brother of a parent or the husband of a
parent's sister, etc.), and a chain means "any ... of any ...", so the answer is the set
computed over the tree. Only questions whose set holds exactly one person are kept, so the
answer (a name) is unique; the tests re-read the facts from the prompt text and recompute each
relation with their own definitions.

Difficulty: more generations and children (more people and facts), relation words from
direct (father, sister) to two-step (grandmother, nephew, in-laws, uncle) to three-step
(cousin, great-grandfather), longer chains of them, parentage stated through one parent or a
sibling. The exact solver's effort counts the facts it reads and the person visits of the set
evaluation. The weak solver evaluates the chain ignoring every sex condition (a father is
"a parent", a niece "a sibling's child") and answers the alphabetically first person found,
right only while that shortcut happens to land on the one answer.

Generation: ~2,000 tasks per CPU-second at level 5 and ~300 at level 10 (trees of ~20 and
~33 people; up to 60 questions drawn per tree until one has a unique answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MALE_NAMES = [
    "Adam", "Ben", "Carl", "David", "Eric", "Frank", "George", "Henry", "Ivan", "Jack", "Karl", "Leo",
    "Mark", "Nick", "Oscar", "Paul", "Quentin", "Ray", "Sam", "Tom", "Victor", "Walter", "Xavier",
    "Yuri", "Zack", "Arthur", "Bruno", "Colin", "Dean", "Edgar", "Felix", "Gavin", "Hugo", "Igor",
    "Jonas", "Kevin", "Luke", "Milo", "Noah", "Owen",
]  # fmt: skip
FEMALE_NAMES = [
    "Alice", "Beth", "Clara", "Diana", "Emma", "Fiona", "Grace", "Hannah", "Irene", "Julia", "Kate",
    "Laura", "Mary", "Nora", "Olivia", "Paula", "Rose", "Sarah", "Tina", "Ursula", "Vera", "Wendy",
    "Yvonne", "Zoe", "Anna", "Bella", "Chloe", "Daisy", "Eva", "Flora", "Gina", "Helen", "Ida",
    "Jane", "Kim", "Lily", "Mia", "Nina", "Ruth", "Sofia",
]  # fmt: skip
MAX_ANSWER_CHARS = 200
MAX_PEOPLE = 40  # larger trees are redrawn (prompt length; never more names of one sex than the lists)

# A step maps a person to a set of people: ("parent"|"child"|"spouse"|"sibling", sex or None).
# A relation word is a union of step paths.
Step = tuple[str, str | None]
RELATIONS: dict[str, tuple[tuple[Step, ...], ...]] = {
    # tier 1: one step
    "father": ((("parent", "m"),),),
    "mother": ((("parent", "f"),),),
    "son": ((("child", "m"),),),
    "daughter": ((("child", "f"),),),
    "husband": ((("spouse", "m"),),),
    "wife": ((("spouse", "f"),),),
    "brother": ((("sibling", "m"),),),
    "sister": ((("sibling", "f"),),),
    # tier 2: two steps
    "grandfather": ((("parent", None), ("parent", "m")),),
    "grandmother": ((("parent", None), ("parent", "f")),),
    "paternal grandmother": ((("parent", "m"), ("parent", "f")),),
    "maternal grandfather": ((("parent", "f"), ("parent", "m")),),
    "grandson": ((("child", None), ("child", "m")),),
    "granddaughter": ((("child", None), ("child", "f")),),
    "nephew": ((("sibling", None), ("child", "m")),),
    "niece": ((("sibling", None), ("child", "f")),),
    "father-in-law": ((("spouse", None), ("parent", "m")),),
    "mother-in-law": ((("spouse", None), ("parent", "f")),),
    "son-in-law": ((("child", "f"), ("spouse", "m")),),
    "daughter-in-law": ((("child", "m"), ("spouse", "f")),),
    "maternal uncle": ((("parent", "f"), ("sibling", "m")),),
    "paternal aunt": ((("parent", "m"), ("sibling", "f")),),
    # tier 3: three steps, or unions of paths
    "uncle": ((("parent", None), ("sibling", "m")), (("parent", None), ("sibling", "f"), ("spouse", "m"))),
    "aunt": ((("parent", None), ("sibling", "f")), (("parent", None), ("sibling", "m"), ("spouse", "f"))),
    "cousin": ((("parent", None), ("sibling", None), ("child", None)),),
    "brother-in-law": ((("spouse", None), ("sibling", "m")), (("sibling", None), ("spouse", "m"))),
    "sister-in-law": ((("spouse", None), ("sibling", "f")), (("sibling", None), ("spouse", "f"))),
    "great-grandfather": ((("parent", None), ("parent", None), ("parent", "m")),),
    "great-grandmother": ((("parent", None), ("parent", None), ("parent", "f")),),
}
TIER_SIZES = (8, 22, len(RELATIONS))  # the first n relation words form tiers 1, 2, 3
DEFINITIONS = {
    "father": "a father is a male parent",
    "mother": "a mother is a female parent",
    "son": "a son is a male child",
    "daughter": "a daughter is a female child",
    "husband": "a husband is a male spouse",
    "wife": "a wife is a female spouse",
    "brother": "a brother is a male sibling (siblings share both parents)",
    "sister": "a sister is a female sibling (siblings share both parents)",
    "grandfather": "a grandfather is a father of a parent",
    "grandmother": "a grandmother is a mother of a parent",
    "paternal grandmother": "a paternal grandmother is the father's mother",
    "maternal grandfather": "a maternal grandfather is the mother's father",
    "grandson": "a grandson is a son of a child",
    "granddaughter": "a granddaughter is a daughter of a child",
    "nephew": "a nephew is a son of a sibling",
    "niece": "a niece is a daughter of a sibling",
    "father-in-law": "a father-in-law is the spouse's father",
    "mother-in-law": "a mother-in-law is the spouse's mother",
    "son-in-law": "a son-in-law is a daughter's husband",
    "daughter-in-law": "a daughter-in-law is a son's wife",
    "maternal uncle": "a maternal uncle is a brother of the mother",
    "paternal aunt": "a paternal aunt is a sister of the father",
    "uncle": "an uncle is a brother of a parent, or the husband of a parent's sister",
    "aunt": "an aunt is a sister of a parent, or the wife of a parent's brother",
    "cousin": "a cousin is a child of a parent's sibling",
    "brother-in-law": "a brother-in-law is the spouse's brother, or a sibling's husband",
    "sister-in-law": "a sister-in-law is the spouse's sister, or a sibling's wife",
    "great-grandfather": "a great-grandfather is a father of a grandparent (of a parent's parent)",
    "great-grandmother": "a great-grandmother is a mother of a grandparent (of a parent's parent)",
}


@dataclass(frozen=True)
class KinshipKnobs(Knobs):
    generations: int = knob(2, low=2, high=5, help="generations in the tree")
    max_children: int = knob(2, low=1, high=4, help="children per couple, drawn from 1 to this")
    min_people: int = knob(0, low=0, high=30, help="smaller trees are redrawn")
    tier: int = knob(1, low=1, high=3, help="relation words: 1 direct, 2 up to two steps, 3 up to three")
    chain: int = knob(1, low=1, high=4, help="relation words chained in the question")
    one_parent: bool = knob(False, help="state a child's parentage through one parent only")
    sibling_facts: float = knob(0.0, low=0.0, high=1.0, help="share of later children stated via a sibling")
    sex_matters: float = knob(
        0.0, low=0.0, high=1.0, help="share of questions redrawn when ignoring sex still finds the answer"
    )


LEVELS = {
    1: KinshipKnobs(generations=2, max_children=3, min_people=4, tier=1, chain=1),
    2: KinshipKnobs(generations=3, max_children=2, tier=1, chain=2),
    3: KinshipKnobs(generations=4, max_children=2, min_people=10, tier=2, chain=2, sex_matters=0.3),
    4: KinshipKnobs(generations=4, max_children=3, min_people=12, tier=2, chain=2, one_parent=True, sex_matters=0.4),
    5: KinshipKnobs(generations=4, max_children=3, min_people=14, tier=3, chain=2, one_parent=True, sibling_facts=0.3, sex_matters=0.5),
    6: KinshipKnobs(generations=4, max_children=3, min_people=16, tier=3, chain=3, one_parent=True, sibling_facts=0.3, sex_matters=0.6),
    7: KinshipKnobs(generations=4, max_children=3, min_people=18, tier=3, chain=3, one_parent=True, sibling_facts=0.4, sex_matters=0.7),
    8: KinshipKnobs(generations=4, max_children=4, min_people=20, tier=3, chain=3, one_parent=True, sibling_facts=0.5, sex_matters=0.8),
    9: KinshipKnobs(generations=5, max_children=3, min_people=26, tier=3, chain=3, one_parent=True, sibling_facts=0.5, sex_matters=0.9),
    10: KinshipKnobs(generations=5, max_children=3, min_people=28, tier=3, chain=4, one_parent=True, sibling_facts=0.6, sex_matters=0.95),
}  # fmt: skip


# --------------------------------------------------------------------------------------------
# The tree: people are indices; sex "m"/"f"; parents a (father, mother) pair or None
# --------------------------------------------------------------------------------------------


@dataclass
class Tree:
    sex: list[str]
    parents: list[tuple[int, int] | None]
    spouse: list[int | None]

    def step(self, person: int, kind: str) -> list[int]:
        if kind == "parent":
            return list(self.parents[person] or ())
        if kind == "spouse":
            return [] if self.spouse[person] is None else [self.spouse[person]]
        if kind == "child":
            return [c for c, p in enumerate(self.parents) if p is not None and person in p]
        mine = self.parents[person]  # sibling
        return [c for c, p in enumerate(self.parents) if mine is not None and p == mine and c != person]


def evaluate(tree: Tree, start: int, chain: list[str], ignore_sex: bool = False) -> tuple[set[int], int]:
    """The people at the end of ``chain`` from ``start`` and the person visits it took."""
    current, visits = {start}, 0
    for word in chain:
        reached: set[int] = set()
        for path in RELATIONS[word]:
            frontier = set(current)
            for kind, sex in path:
                following = set()
                for person in frontier:
                    for other in tree.step(person, kind):
                        visits += 1
                        if ignore_sex or sex is None or tree.sex[other] == sex:
                            following.add(other)
                frontier = following
            reached |= frontier
        current = reached
    return current, visits


def weak_pick(tree: Tree, names: list[str], start: int, chain: list[str]) -> str:
    """The weak solver's answer: the chain evaluated ignoring sex, alphabetically first."""
    reached = sorted(names[p] for p in evaluate(tree, start, chain, ignore_sex=True)[0])
    return reached[0] if reached else names[start]


def grow_tree(knobs: KinshipKnobs, rng: np.random.Generator) -> Tree:
    tree = Tree(sex=["m", "f"], parents=[None, None], spouse=[1, 0])
    couples = [(0, 1)]
    for generation in range(1, knobs.generations):
        children: list[int] = []
        for father, mother in couples:
            for _ in range(int(rng.integers(1, knobs.max_children + 1))):
                tree.sex.append("m" if rng.random() < 0.5 else "f")
                tree.parents.append((father, mother))
                tree.spouse.append(None)
                children.append(len(tree.sex) - 1)
        couples = []
        if generation == knobs.generations - 1:
            break
        for child in children:  # each child marries with probability 0.6 (at least one does)
            if rng.random() < 0.6 or (child == children[-1] and not couples):
                partner = len(tree.sex)
                tree.sex.append("f" if tree.sex[child] == "m" else "m")
                tree.parents.append(None)
                tree.spouse.append(child)
                tree.spouse[child] = partner
                couples.append((child, partner) if tree.sex[child] == "m" else (partner, child))
    return tree


def name_people(tree: Tree, rng: np.random.Generator) -> list[str]:
    males = [MALE_NAMES[int(i)] for i in rng.permutation(len(MALE_NAMES))]
    females = [FEMALE_NAMES[int(i)] for i in rng.permutation(len(FEMALE_NAMES))]
    return [males.pop() if s == "m" else females.pop() for s in tree.sex]


def state_facts(tree: Tree, names: list[str], knobs: KinshipKnobs, rng: np.random.Generator) -> list[str]:
    facts = []
    for person, partner in enumerate(tree.spouse):
        if partner is not None and person < partner:
            a, b = (person, partner) if rng.random() < 0.5 else (partner, person)
            facts.append(f"{names[a]} is the {'husband' if tree.sex[a] == 'm' else 'wife'} of {names[b]}.")
    stated_via_parent: dict[tuple[int, int], int] = {}
    for child, pair in enumerate(tree.parents):
        if pair is None:
            continue
        word = "son" if tree.sex[child] == "m" else "daughter"
        known = stated_via_parent.get(pair)
        if known is not None and rng.random() < knobs.sibling_facts:
            sibling = "brother" if tree.sex[child] == "m" else "sister"
            facts.append(f"{names[child]} is the {sibling} of {names[known]}.")
            continue
        stated_via_parent.setdefault(pair, child)
        father, mother = pair
        if not knobs.one_parent:
            facts.append(f"{names[child]} is the {word} of {names[father]} and {names[mother]}.")
            continue
        parent = father if rng.random() < 0.5 else mother
        if rng.random() < 0.5:
            facts.append(f"{names[child]} is the {word} of {names[parent]}.")
        else:
            facts.append(f"{names[parent]}'s {word} is {names[child]}.")
    order = rng.permutation(len(facts))
    return [facts[int(i)] for i in order]


def phrase(start: str, chain: list[str]) -> str:
    return start + "".join(f"'s {word}" for word in chain)


PROMPT = """Facts about one family:
{facts}

Everyone in the family is named above. Every child's parents are a married couple (so a \
child of one spouse is a child of the other), siblings share both parents, nobody married \
twice, and each person's sex follows from the words used about them (son/daughter, \
husband/wife, brother/sister).

Definitions: {definitions}. A chain such as "A's mother's brother" means any brother of any \
mother of A.

Question: who is {question}? Exactly one person fits. Answer with that person's name, for \
example <answer>{example}</answer>."""


@family(
    "kinship",
    domain="reasoning",
    knobs=KinshipKnobs,
    levels=LEVELS,
    description="Infer a family relation from stated facts (who is X's maternal uncle, X's wife's nephew...).",
    verifier_kind="exact name (unique by computing the relation over the tree)",
)
class Kinship(Family):
    def generate(self, knobs: KinshipKnobs, rng: np.random.Generator) -> TaskDraft:
        words = list(RELATIONS)
        pool, top = words[: TIER_SIZES[knobs.tier - 1]], words[: TIER_SIZES[knobs.tier - 1]]
        if knobs.tier > 1:
            top = words[TIER_SIZES[knobs.tier - 2] : TIER_SIZES[knobs.tier - 1]]
        for _ in range(200):
            tree = grow_tree(knobs, rng)
            people = len(tree.sex)
            if not knobs.min_people <= people <= MAX_PEOPLE:
                continue
            names = name_people(tree, rng)
            for _ in range(60):
                chain = [pool[int(rng.integers(len(pool)))] for _ in range(knobs.chain)]
                chain[int(rng.integers(knobs.chain))] = top[int(rng.integers(len(top)))]
                start = int(rng.integers(people))
                found, visits = evaluate(tree, start, chain)
                if len(found) != 1 or start in found:
                    continue
                weak = weak_pick(tree, names, start, chain)
                if weak == names[min(found)] and rng.random() < knobs.sex_matters:
                    continue
                break
            else:
                continue
            break
        else:  # pragma: no cover - a unique question is found in the first few trees
            raise RuntimeError(f"no question with a unique answer for {knobs}")
        facts = state_facts(tree, names, knobs, rng)
        (answer,) = found
        used = sorted(set(chain), key=words.index)
        prompt = PROMPT.format(
            facts="\n".join(f"- {fact}" for fact in facts),
            definitions="; ".join(DEFINITIONS[word] for word in used),
            question=phrase(names[start], chain),
            example=names[(answer + 1) % people],
        )
        structure = [[tree.sex[p], tree.parents[p], tree.spouse[p]] for p in range(people)]
        metadata = {
            "names": names,
            "facts": len(facts),
            "chain": chain,
            "start": names[start],
            "effort": len(facts) + visits,
            "weak": weak,
            "canonical_hash": content_hash([structure, chain, start, answer]),
        }
        return TaskDraft(prompt=prompt, answer=names[answer], metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("name",), allow_bare=True, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        text = re.sub(r"[.!\s]+$", "", extraction.text.strip())
        known = {name.lower(): name for name in task.metadata["names"]}
        name = known.get(text.lower())
        if name is None:
            return Verdict.bad_format(f"{text[:40]!r} is not one name of the family")
        if name == task.answer:
            return Verdict.right(parsed=name)
        return Verdict.wrong(
            f"{name} is not {phrase(task.metadata['start'], task.metadata['chain'])}", parsed=name
        )

    def solve_exact(self, task: Task) -> SolverRun:
        """Rebuilds the tree from the facts and evaluates the chain (effort = facts + visits)."""
        return SolverRun(f"<answer>{task.answer}</answer>", float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """Ignores every sex condition and answers the alphabetically first person reached."""
        return SolverRun(f"<answer>{task.metadata['weak']}</answer>", float(len(task.metadata["chain"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        others = [n for n in task.metadata["names"] if n != task.answer]
        picks = [others[int(i)] for i in rng.choice(len(others), size=min(3, len(others)), replace=False)]
        strangers = [n for n in MALE_NAMES + FEMALE_NAMES if n not in task.metadata["names"]]
        wrong = [task.metadata["start"], task.metadata["weak"], *picks]
        wrong += [strangers[int(rng.integers(len(strangers)))], f"{task.answer} and {others[0]}"]
        return [f"<answer>{n}</answer>" for n in dict.fromkeys(wrong) if n != task.answer]
