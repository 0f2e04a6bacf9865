"""Write a text that satisfies verifiable constraints (IFEval-style), checked exactly.

The prompt asks for a short text on a topic under 2 to 9 constraints: a first word and words
that must appear (always), words that must not, a number of paragraphs, all lowercase, a word
count (a range, or exact), a number of bullet lines, a number of sentences, how often a letter
appears, a closing phrase.
Every term is defined in the prompt (a word is a run of letters, digits, apostrophes or
hyphens; a sentence ends with ., ! or ?; paragraphs are separated by blank lines; a bullet
line starts with "- "), and the verifier checks each constraint exactly on the text inside the
answer tags (which must end with a complete sentence; control characters are a format
error): any text satisfying all of them is accepted. The constraints are jointly
satisfiable by construction: the generator first writes a reference text, then states each
constraint so that the reference meets it (and re-checks it with the verifier's own code).

Difficulty: more constraints drawn from more kinds, up to counts a writer must track while
writing (sentences, letters, exact word counts), and longer reference texts. The exact solver's effort is the characters
of its text times the constraints it checks. The weak solver writes a fresh text that honours
the word and format constraints (first, required and forbidden words, lowercase, closing
phrase) but ignores every count.

Generation: ~2,500 tasks per CPU-second at level 5 and ~1,700 at level 10.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob, make_rng
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

VOCABULARY = """
river garden window morning quiet bright market letter bridge winter summer candle forest
mountain harbor village painter teacher student kitchen engine signal travel gentle simple
rapid silver golden orange purple yellow shadow thunder whisper journey ancient modern public
private careful curious honest patient clever steady narrow distant nearby hollow frozen
breeze ocean island desert meadow valley canyon castle tower library museum theater concert
story poem novel chapter bottle basket ladder hammer needle pencil paper button pocket jacket
carry build follow gather listen wander notice finish borrow return explain improve measure
compare repair protect collect deliver imagine remember describe balance capture
""".split()
TOPICS = (
    "a walk by the sea", "an old library", "a rainy afternoon", "a small mountain village",
    "learning to cook", "a train journey", "a winter market", "a visit to a museum",
    "a lost umbrella", "a city at night", "planting a garden", "a school concert",
)  # fmt: skip
KINDS = (
    "first_word", "keywords", "forbidden", "paragraphs", "lowercase", "word_range",
    "bullets", "sentences", "letter", "end_phrase", "word_exact",
)  # fmt: skip
OPTIONAL = KINDS[2:]  # a first word and required words are always asked
MAX_ANSWER_CHARS = 20_000
_WORD = re.compile(r"[A-Za-z0-9'\-]+")
_SENTENCE_END = re.compile(r"[.!?]+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class InstructionFollowingKnobs(Knobs):
    constraints: int = knob(
        2, low=2, high=len(KINDS), help="constraints stated (a first word and required words always)"
    )
    kinds: int = knob(
        1, low=1, high=len(OPTIONAL), help=f"further constraint kinds drawn from, in order {OPTIONAL}"
    )
    length: int = knob(2, low=1, high=8, help="sentences per paragraph of the reference text, at most")


LEVELS = {
    1: InstructionFollowingKnobs(constraints=2, kinds=1, length=2),
    2: InstructionFollowingKnobs(constraints=3, kinds=3, length=2),
    3: InstructionFollowingKnobs(constraints=4, kinds=4, length=3),
    4: InstructionFollowingKnobs(constraints=4, kinds=6, length=3),
    5: InstructionFollowingKnobs(constraints=5, kinds=7, length=4),
    6: InstructionFollowingKnobs(constraints=6, kinds=8, length=4),
    7: InstructionFollowingKnobs(constraints=6, kinds=9, length=5),
    8: InstructionFollowingKnobs(constraints=7, kinds=9, length=5),
    9: InstructionFollowingKnobs(constraints=8, kinds=9, length=6),
    10: InstructionFollowingKnobs(constraints=9, kinds=9, length=6),
}


# --------------------------------------------------------------------------------------------
# Measuring a text (the verifier's definitions)
# --------------------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def sentences(text: str) -> int:
    """Pieces of text ending with ., ! or ? that contain a word (a final piece without an end
    mark counts too)."""
    pieces = _SENTENCE_END.split(text)
    return sum(1 for piece in pieces if _WORD.search(piece))


def paragraphs(text: str) -> list[str]:
    return [p for p in _PARAGRAPH_BREAK.split(text.strip()) if p.strip()]


def bullets(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("- "))


def check(constraint: dict, text: str) -> bool:
    kind = constraint["kind"]
    lowered = [w.lower() for w in words(text)]
    if kind == "first_word":
        return bool(lowered) and lowered[0] == constraint["word"]
    if kind == "keywords":
        return all(k in lowered for k in constraint["words"])
    if kind == "forbidden":
        return not any(k in lowered for k in constraint["words"])
    if kind == "paragraphs":
        return len(paragraphs(text)) == constraint["count"]
    if kind == "lowercase":
        return text == text.lower()
    if kind == "word_range":
        return constraint["low"] <= len(lowered) <= constraint["high"]
    if kind == "word_exact":
        return len(lowered) == constraint["count"]
    if kind == "bullets":
        return bullets(text) == constraint["count"]
    if kind == "sentences":
        return sentences(text) == constraint["count"]
    if kind == "letter":
        found = text.lower().count(constraint["letter"])
        return found >= constraint["count"] if constraint["at_least"] else found <= constraint["count"]
    return text.rstrip().endswith(constraint["phrase"])  # end_phrase


def describe(constraint: dict) -> str:
    kind = constraint["kind"]
    if kind == "first_word":
        return f'Start the text with the word "{constraint["word"]}".'
    if kind == "keywords":
        return "Use each of these words at least once: " + ", ".join(constraint["words"]) + "."
    if kind == "forbidden":
        return "Do not use any of these words: " + ", ".join(constraint["words"]) + "."
    if kind == "paragraphs":
        return f"Write exactly {constraint['count']} paragraphs, separated by blank lines."
    if kind == "lowercase":
        return "Write everything in lowercase letters (no capital letters at all)."
    if kind == "word_range":
        return f"Use between {constraint['low']} and {constraint['high']} words in total."
    if kind == "word_exact":
        return f"Use exactly {constraint['count']} words in total."
    if kind == "bullets":
        return f'Include exactly {constraint["count"]} bullet lines (lines starting with "- ").'
    if kind == "sentences":
        return f"Write exactly {constraint['count']} sentences in total."
    if kind == "letter":
        bound = "at least" if constraint["at_least"] else "at most"
        return f'The letter "{constraint["letter"]}" (either case) must appear {bound} {constraint["count"]} times.'
    return f'End the text with the exact phrase "{constraint["phrase"]}".'


# --------------------------------------------------------------------------------------------
# Writing a text
# --------------------------------------------------------------------------------------------


def write(
    rng: np.random.Generator,
    length: int,
    *,
    first: str,
    keywords: list[str],
    avoid: set[str],
    lowercase: bool,
    phrase: str | None,
    bullet_lines: int,
    paragraph_count: int | None = None,
) -> str:
    """A text of random sentences over the vocabulary, with the keywords, without ``avoid``."""
    allowed = [w for w in VOCABULARY if w not in avoid and w not in keywords and w != first]
    count = paragraph_count or int(rng.integers(1, 4))

    def sentence() -> str:
        chosen = [allowed[int(i)] for i in rng.choice(len(allowed), size=int(rng.integers(4, 9)))]
        text = " ".join(chosen)
        return (text if lowercase else text[0].upper() + text[1:]) + "."

    body = [[sentence() for _ in range(int(rng.integers(1, length + 1)))] for _ in range(count)]
    for keyword in keywords:  # each keyword into a random sentence
        p = int(rng.integers(count))
        s = int(rng.integers(len(body[p])))
        head, _, rest = body[p][s].partition(" ")
        body[p][s] = f"{head} {keyword} {rest}"
    head = first if lowercase else first.capitalize()
    body[0][0] = f"{head} {body[0][0][0].lower()}{body[0][0][1:]}"
    texts = [" ".join(paragraph) for paragraph in body]
    if bullet_lines:
        texts[0] += "\n" + "\n".join("- " + sentence() for _ in range(bullet_lines))
    if phrase:
        texts[-1] += " " + phrase
    return "\n\n".join(texts)


PROMPT = """Write a short text about {topic}. It must satisfy every one of these constraints:
{constraints}

Definitions: a word is a run of letters, digits, apostrophes or hyphens; a sentence is a piece \
of text ending with ".", "!" or "?"; paragraphs are separated by a blank line; a bullet line \
is a line starting with "- ". Any text satisfying every constraint is accepted; the text \
inside <answer></answer> is what is checked (nothing else) and must end with a complete sentence, \
e.g. <answer>your text</answer>."""


@family(
    "instruction_following",
    domain="reasoning",
    knobs=InstructionFollowingKnobs,
    levels=LEVELS,
    description="Write a text satisfying verifiable constraints (required/forbidden words, counts of words, sentences, paragraphs, bullets, letters; lowercase; closing phrase), IFEval-style.",
    verifier_kind="constraint check (every constraint exactly; any satisfying text accepted)",
)
class InstructionFollowing(Family):
    def generate(self, knobs: InstructionFollowingKnobs, rng: np.random.Generator) -> TaskDraft:
        drawn = rng.choice(
            len(OPTIONAL[: knobs.kinds]), size=min(knobs.constraints - 2, knobs.kinds), replace=False
        )
        kinds = ["first_word", "keywords"] + sorted((OPTIONAL[int(i)] for i in drawn), key=KINDS.index)
        if "word_exact" in kinds and "word_range" in kinds:
            kinds.remove("word_range")
        vocab = [VOCABULARY[int(i)] for i in rng.permutation(len(VOCABULARY))]
        keywords = sorted(vocab[: int(rng.integers(2, 5))]) if "keywords" in kinds else []
        forbidden = sorted(vocab[-int(rng.integers(2, 5)) :]) if "forbidden" in kinds else []
        lowercase = "lowercase" in kinds
        phrase = None
        if "end_phrase" in kinds:
            phrase = " ".join(vocab[10:13]) + "."
            phrase = phrase if lowercase else phrase[0].upper() + phrase[1:]
        bullet_lines = int(rng.integers(2, 6)) if "bullets" in kinds else 0
        first = vocab[14]
        reference = write(
            rng,
            knobs.length,
            first=first,
            keywords=keywords,
            avoid=set(forbidden),
            lowercase=lowercase,
            phrase=phrase,
            bullet_lines=bullet_lines,
        )
        constraints = [
            self._constraint(kind, reference, rng, keywords, forbidden, phrase, first) for kind in kinds
        ]
        assert all(check(c, reference) for c in constraints), (constraints, reference)
        topic = TOPICS[int(rng.integers(len(TOPICS)))]
        prompt = PROMPT.format(
            topic=topic, constraints="\n".join(f"{i + 1}. {describe(c)}" for i, c in enumerate(constraints))
        )
        metadata = {
            "constraints": constraints,
            "effort": len(reference) * len(constraints),
            "canonical_hash": content_hash(constraints),
        }
        return TaskDraft(prompt=prompt, answer=reference, metadata=metadata)

    @staticmethod
    def _constraint(
        kind: str,
        text: str,
        rng: np.random.Generator,
        keywords: list,
        forbidden: list,
        phrase: str | None,
        first: str,
    ) -> dict:
        n_words = len(words(text))
        if kind == "first_word":
            return {"kind": kind, "word": first}
        if kind == "keywords":
            return {"kind": kind, "words": keywords}
        if kind == "forbidden":
            return {"kind": kind, "words": forbidden}
        if kind == "paragraphs":
            return {"kind": kind, "count": len(paragraphs(text))}
        if kind == "lowercase":
            return {"kind": kind}
        if kind == "word_range":
            low = max(1, n_words - int(rng.integers(0, 10)))
            return {"kind": kind, "low": low, "high": low + 10 + int(rng.integers(0, 10))}
        if kind == "word_exact":
            return {"kind": kind, "count": n_words}
        if kind == "bullets":
            return {"kind": kind, "count": bullets(text)}
        if kind == "sentences":
            return {"kind": kind, "count": sentences(text)}
        if kind == "letter":
            letter = "etaoinsrlcdmpgbwvkhy"[int(rng.integers(20))]
            found = text.lower().count(letter)
            at_least = bool(rng.random() < 0.5)
            return {"kind": kind, "letter": letter, "at_least": at_least, "count": found}
        return {"kind": kind, "phrase": phrase}

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=MAX_ANSWER_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer in <answer></answer>")
        text = extraction.text
        if any(ord(c) < 32 and c not in "\n\t\r" for c in text):
            return Verdict.bad_format("the text holds control characters")
        if not _SENTENCE_END.fullmatch(text.rstrip()[-1:]):
            return Verdict.bad_format('the text must end with a complete sentence (".", "!" or "?")')
        broken = [i + 1 for i, c in enumerate(task.metadata["constraints"]) if not check(c, text)]
        if broken:
            return Verdict.wrong(f"constraints not met: {broken}", parsed=len(text))
        return Verdict.right(parsed=len(text))

    def solve_exact(self, task: Task) -> SolverRun:
        """Writes the reference text and checks it (effort = characters times constraints)."""
        return SolverRun(f"<answer>{task.answer}</answer>", float(task.metadata["effort"]))

    def reference_response(self, task: Task) -> str:
        return f"<answer>{task.answer}</answer>"

    def solve_weak(self, task: Task) -> SolverRun:
        """A fresh text honouring word and format constraints, ignoring every count."""
        by_kind = {c["kind"]: c for c in task.metadata["constraints"]}
        text = write(
            make_rng("instruction_following-weak", 1, 0, task.id),
            3,
            first=by_kind["first_word"]["word"],
            keywords=by_kind.get("keywords", {}).get("words", []),
            avoid=set(by_kind.get("forbidden", {}).get("words", [])),
            lowercase="lowercase" in by_kind,
            phrase=by_kind.get("end_phrase", {}).get("phrase"),
            bullet_lines=0,
        )
        return SolverRun(f"<answer>{text}</answer>", float(len(text)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        text, wrong = task.answer, []
        for constraint in task.metadata["constraints"]:
            kind = constraint["kind"]
            if kind == "first_word":
                wrong.append("Well. " + text)
            elif kind == "keywords":
                wrong.append(re.sub(rf"\b{constraint['words'][0]}\b", "", text))
            elif kind == "forbidden":
                wrong.append(text + " " + constraint["words"][0])
            elif kind in ("word_exact", "word_range", "sentences", "paragraphs", "bullets"):
                wrong.append(text + "\n\n- " + " ".join(["extra"] * 30) + ".")
            elif kind == "lowercase":
                wrong.append(text.upper())
            elif kind == "end_phrase":
                wrong.append(text + " And more.")
            else:
                extra = constraint["letter"] * 5
                wrong.append(
                    text + " " + extra
                    if not constraint["at_least"]
                    else text.replace(constraint["letter"], "", 1)
                )
        near = [f"<answer>{w}</answer>" for w in dict.fromkeys(wrong)]
        near = [w for w in near if not self.verify(task, w).correct]
        # always refused: an empty answer, no answer tags, two different answers
        return near + ["<answer></answer>", text, f"<answer>{text}</answer><answer>{text}.</answer>"]
