"""Decrypt a classical cipher (Caesar, Vigenère, substitution) with the help of a crib.

The plaintext is a sequence of common English words (SCOWL sizes 10-20, ``data/SOURCE.md``);
the ciphertext keeps the spaces. The prompt states the cipher, its key space (Caesar: shifts
1-25; Vigenère: keys of k letters; substitution: any one-to-one letter mapping), that every
plaintext word is an English word, and a crib: words the plaintext contains. The decryption is
proven unique by enumerating every key that the crib allows and checking every decrypted word
against the 63,414-word dictionary (SCOWL up to size 50): for Caesar and Vigenère the crib,
placed on each ciphertext word of its length, fixes the key; for substitution a backtracking
search over word patterns (cribs placed first, then the word with fewest candidates) counts the
decryptions up to two. Instances with a second decryption get another crib or are redrawn.

Difficulty: the cipher (Caesar at levels 1-2, Vigenère with a 2-5 letter key at levels 3-6,
substitution at 7-10), the number of words (4 to 12) and, for substitution, fewer crib words.
The weak solver assumes the crib is the first ciphertext word that fits it and fills the rest
of a substitution key by letter frequency. Generation (CPU time, mean over 30 seeds): ~1,350
tasks per second at level 1, ~3,600 at level 5; the substitution levels prove uniqueness by
search, ~110 tasks per second at level 10.
"""

from __future__ import annotations

import functools
import string
from collections import Counter
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from .wordlist import all_dictionary_words, common_words, dictionary_set

ALPHABET = string.ascii_lowercase
ENGLISH_ORDER = "etaoinshrdlcumwfgypbvkjxqz"  # letters by frequency in English text
WORD_LENGTHS = (3, 4, 5, 6, 7, 8)
SEARCH_NODES = 20_000  # a substitution proof that needs more is abandoned (the draw is redone)


@dataclass(frozen=True)
class CiphersKnobs(Knobs):
    cipher: str = knob("caesar", choices=("caesar", "vigenere", "substitution"), help="the cipher")
    words: int = knob(4, low=2, high=30, help="plaintext words")
    key_length: int = knob(3, low=2, high=8, help="Vigenère key length")
    max_cribs: int = knob(
        3, low=1, high=10, help="substitution: most crib words given (fewer make it harder)"
    )


LEVELS = {
    1: CiphersKnobs(cipher="caesar", words=4),
    2: CiphersKnobs(cipher="caesar", words=6),
    3: CiphersKnobs(cipher="vigenere", words=6, key_length=2),
    4: CiphersKnobs(cipher="vigenere", words=7, key_length=3),
    5: CiphersKnobs(cipher="vigenere", words=8, key_length=4),
    6: CiphersKnobs(cipher="vigenere", words=9, key_length=5),
    7: CiphersKnobs(cipher="substitution", words=8, max_cribs=3),
    8: CiphersKnobs(cipher="substitution", words=9, max_cribs=3),
    9: CiphersKnobs(cipher="substitution", words=10, max_cribs=2),
    10: CiphersKnobs(cipher="substitution", words=12, max_cribs=2),
}


# --------------------------------------------------------------------------------------------
# Ciphers
# --------------------------------------------------------------------------------------------


def shift_text(words: list[str], shifts: list[int], sign: int) -> list[str]:
    """Shift each letter by the key (repeating over letters, not spaces); sign -1 decrypts."""
    out, i = [], 0
    for word in words:
        letters = []
        for ch in word:
            letters.append(ALPHABET[(ALPHABET.index(ch) + sign * shifts[i % len(shifts)]) % 26])
            i += 1
        out.append("".join(letters))
    return out


def substitute(words: list[str], mapping: dict[str, str]) -> list[str]:
    return ["".join(mapping[ch] for ch in w) for w in words]


def pattern(word: str) -> tuple[int, ...]:
    """``letter`` -> (0, 1, 2, 2, 1, 3): each letter numbered by its first appearance."""
    first: dict[str, int] = {}
    return tuple(first.setdefault(ch, len(first)) for ch in word)


@functools.cache
def _by_pattern() -> dict[tuple[int, ...], np.ndarray]:
    """Dictionary words grouped by letter pattern, as rows of letter codes (0-25)."""
    groups: dict[tuple[int, ...], list[str]] = {}
    for word in all_dictionary_words():
        groups.setdefault(pattern(word), []).append(word)
    arrays = {}
    for key, words in groups.items():
        codes = np.frombuffer("".join(words).encode(), dtype=np.uint8).reshape(len(words), -1) - ord("a")
        codes.setflags(write=False)
        arrays[key] = codes
    return arrays


# --------------------------------------------------------------------------------------------
# Key search (the uniqueness proof and the exact solver)
# --------------------------------------------------------------------------------------------


def shift_keys(cipher: list[str], crib: str, key_length: int) -> tuple[list[list[int]], int]:
    """Every shift key (Caesar: length 1) under which the crib decrypts one ciphertext word and
    every word is a dictionary word; and the letters decrypted to find them."""
    words, keys, work = dictionary_set(), [], 0
    offset = 0
    for word in cipher:
        if len(word) == len(crib):
            key: list[int | None] = [None] * key_length
            for j, (c, p) in enumerate(zip(word, crib, strict=True)):
                shift = (ALPHABET.index(c) - ALPHABET.index(p)) % 26
                slot = (offset + j) % key_length
                if key[slot] not in (None, shift):
                    break
                key[slot] = shift
            else:
                if None not in key and (key_length > 1 or key[0] != 0):  # Caesar shifts are 1-25
                    candidate = [int(k) for k in key if k is not None]
                    plain = shift_text(cipher, candidate, -1)
                    work += sum(map(len, cipher))
                    if all(w in words for w in plain) and candidate not in keys:
                        keys.append(candidate)
        work += len(word)
        offset += len(word)
    return keys, work


def substitution_solutions(
    cipher: list[str], cribs: list[str], limit: int = 2, node_cap: int = SEARCH_NODES
) -> tuple[list[list[str]], int, bool]:
    """Decryptions (up to ``limit``) in which every word is a dictionary word and every crib
    appears; the letters checked; and whether the search finished within ``node_cap`` nodes.

    The search binds cipher letters to plain letters one word at a time: cribs are placed first
    (on every ciphertext word of their pattern), then the open word with fewest dictionary words
    still fitting the binding is tried with each of them.
    """
    groups = _by_pattern()
    empty = np.zeros((0, 1), dtype=np.uint8)
    codes = [np.frombuffer(w.encode(), dtype=np.uint8) - ord("a") for w in cipher]
    candidates = [groups.get(pattern(w), empty) for w in cipher]
    found: list[list[str]] = []
    state = {"work": 0, "nodes": 0}
    forward = np.full(26, -1, dtype=np.int16)  # cipher letter -> plain letter
    used = np.zeros(26, dtype=bool)  # plain letters already bound

    def fitting(i: int) -> np.ndarray:
        rows = candidates[i]
        state["work"] += rows.size
        mask = np.ones(len(rows), dtype=bool)
        for pos, c in enumerate(codes[i].tolist()):
            if forward[c] >= 0:
                mask &= rows[:, pos] == forward[c]
            else:
                mask &= ~used[rows[:, pos]]
        return rows[mask]

    def bind(i: int, plain: np.ndarray) -> list[int]:
        added = [c for c in dict.fromkeys(codes[i].tolist()) if forward[c] < 0]
        for c in added:
            p = int(plain[codes[i].tolist().index(c)])
            forward[c], used[p] = p, True
        return added

    def unbind(added: list[int]) -> None:
        for c in added:
            used[forward[c]] = False
            forward[c] = -1

    def fill(plain: list[str | None]) -> bool:
        state["nodes"] += 1
        if state["nodes"] > node_cap:
            return False
        best_i, best = -1, None
        for i, p in enumerate(plain):
            if p is None:
                rows = fitting(i)
                if best is None or len(rows) < len(best):
                    best_i, best = i, rows
                    if not len(rows):
                        return True
        if best is None:
            text = [p for p in plain if p is not None]
            if text not in found:
                found.append(text)
            return len(found) < limit
        for row in best:
            added = bind(best_i, row)
            plain[best_i] = "".join(ALPHABET[int(x)] for x in row)
            go_on = fill(plain)
            plain[best_i] = None
            unbind(added)
            if not go_on:
                return False
        return True

    def place(k: int, plain: list[str | None]) -> bool:
        if k == len(cribs):
            return fill(plain)
        crib = np.frombuffer(cribs[k].encode(), dtype=np.uint8) - ord("a")
        for i, cword in enumerate(cipher):
            if plain[i] is None and pattern(cword) == pattern(cribs[k]):
                rows = fitting(i)
                if (rows == crib).all(axis=1).any():
                    added = bind(i, crib)
                    plain[i] = cribs[k]
                    go_on = place(k + 1, plain)
                    plain[i] = None
                    unbind(added)
                    if not go_on:
                        return False
        return True

    place(0, [None] * len(cipher))
    return found, state["work"], state["nodes"] <= node_cap


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def _plaintext(count: int, rng: np.random.Generator) -> list[str]:
    pool = [w for n in WORD_LENGTHS for w in common_words(n)]
    return [pool[int(i)] for i in rng.integers(0, len(pool), size=count)]


def _shift_task(knobs: CiphersKnobs, rng: np.random.Generator) -> dict | None:
    length = 1 if knobs.cipher == "caesar" else knobs.key_length
    plain = _plaintext(knobs.words, rng)
    key = [int(k) for k in rng.integers(1, 26, size=length)]
    if length > 1 and len(set(key)) == 1:
        return None  # a Vigenère key of one repeated letter is a Caesar shift
    fitting = [w for w in plain if len(w) >= max(length, 4)]
    if not fitting:
        return None
    crib = fitting[int(rng.integers(len(fitting)))]
    cipher = shift_text(plain, key, +1)
    keys, _ = shift_keys(cipher, crib, length)
    if keys != [key]:
        return None
    return {"plain": plain, "cipher": cipher, "cribs": [crib], "key": "".join(ALPHABET[k] for k in key)}


def _substitution_task(knobs: CiphersKnobs, rng: np.random.Generator) -> dict | None:
    plain = _plaintext(knobs.words, rng)
    letters = sorted(set("".join(plain)))
    images = [ALPHABET[int(i)] for i in rng.permutation(26)]
    mapping = dict(zip(ALPHABET, images, strict=True))
    if any(mapping[ch] == ch for ch in letters):
        return None  # no letter stands for itself
    cipher = substitute(plain, mapping)
    order = [plain[int(i)] for i in rng.permutation(len(plain)) if len(plain[int(i)]) >= 4]
    cribs: list[str] = []
    for word in dict.fromkeys(order):
        cribs.append(word)
        if len(cribs) > knobs.max_cribs:
            return None
        found, _, finished = substitution_solutions(cipher, cribs)
        if not finished:
            return None
        if found == [plain]:
            key = "".join(mapping[ch] for ch in letters)
            return {"plain": plain, "cipher": cipher, "cribs": sorted(cribs), "key": key}
    return None


PROMPTS = {
    "caesar": "a Caesar cipher: every letter was shifted forward the same number of places (1 to "
    "25) in the alphabet, wrapping from Z to A",
    "vigenere": "a Vigenère cipher with a key of {k} letters: each letter was shifted forward by the "
    "alphabet position of a key letter (A=0, B=1, ..., Z=25), the key repeating over the letters "
    "(spaces were kept and use no key letter)",
    "substitution": "a substitution cipher: every letter was replaced by another letter, the same "
    "one each time, and no two letters by the same one",
}

PROMPT = """This message was encrypted with {cipher}.

{cipher_text}

The plaintext is a sequence of English words (the spaces are kept). It contains the \
word{s} {cribs}. Decrypt it. Answer with the plaintext words in order, separated by spaces, \
inside <answer></answer> tags."""


def read_plaintext(text: str, count: int) -> list[str] | None:
    words = text.strip().strip(".").lower().split()
    if len(words) != count or not all(w.isascii() and w.isalpha() for w in words):
        return None
    return words


@family(
    "ciphers",
    domain="words",
    knobs=CiphersKnobs,
    levels=LEVELS,
    description="Decrypt a Caesar, Vigenère or substitution cipher with a crib; the decryption is proven unique.",
    verifier_kind="exact (unique decryption proven by key enumeration / search against a dictionary)",
)
class Ciphers(Family):
    def generate(self, knobs: CiphersKnobs, rng: np.random.Generator) -> TaskDraft:
        make = _substitution_task if knobs.cipher == "substitution" else _shift_task
        while (drawn := make(knobs, rng)) is None:
            pass
        cribs = drawn["cribs"]
        prompt = PROMPT.format(
            cipher=PROMPTS[knobs.cipher].format(k=knobs.key_length),
            cipher_text=" ".join(drawn["cipher"]).upper(),
            s="s" if len(cribs) > 1 else "",
            cribs=" and ".join(f'"{c}"' for c in cribs),
        )
        metadata = {
            "cipher": knobs.cipher,
            "ciphertext": drawn["cipher"],
            "cribs": cribs,
            "key": drawn["key"],
            "solutions": 1,
            "canonical_hash": content_hash([knobs.cipher, drawn["plain"], cribs, drawn["key"]]),
        }
        return TaskDraft(prompt, " ".join(drawn["plain"]), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        expected = task.answer.split()
        words = read_plaintext(extraction.text, len(expected))
        if words is None:
            return Verdict.bad_format(f"answer with the {len(expected)} plaintext words, separated by spaces")
        if [len(w) for w in words] != [len(w) for w in expected]:
            return Verdict.wrong("the word lengths do not match the ciphertext", parsed=words)
        if words != expected:
            return Verdict.wrong("that is not the decryption", parsed=words)
        return Verdict.right(parsed=words)

    def solve_exact(self, task: Task) -> SolverRun:
        """Caesar/Vigenère: the crib on every ciphertext word of its length fixes a key, each key
        decrypts the text (effort = letters decrypted); substitution: pattern search with the
        cribs placed first (effort = letters checked)."""
        meta = task.metadata
        cipher = meta["ciphertext"]
        if meta["cipher"] == "substitution":
            found, work, _ = substitution_solutions(cipher, meta["cribs"], limit=1, node_cap=10**7)
            plain = found[0]
        else:
            length = 1 if meta["cipher"] == "caesar" else task.knobs["key_length"]
            keys, work = shift_keys(cipher, meta["cribs"][0], length)
            plain = shift_text(cipher, keys[0], -1)
        return SolverRun(f"<answer>{' '.join(plain)}</answer>", float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Places the crib on the first ciphertext word that fits it (no search over positions);
        a substitution key's other letters by English letter frequency."""
        meta = task.metadata
        cipher, crib = meta["ciphertext"], meta["cribs"][0]
        if meta["cipher"] != "substitution":
            spot = next(i for i, w in enumerate(cipher) if len(w) == len(crib))
            length = 1 if meta["cipher"] == "caesar" else task.knobs["key_length"]
            start = sum(len(w) for w in cipher[:spot])
            key = [0] * length
            for j, (c, p) in enumerate(zip(cipher[spot], crib, strict=True)):
                key[(start + j) % length] = (ALPHABET.index(c) - ALPHABET.index(p)) % 26
            plain = shift_text(cipher, key, -1)
        else:
            spot = next(i for i, w in enumerate(cipher) if pattern(w) == pattern(crib))
            mapping = dict(zip(cipher[spot], crib, strict=True))
            ranked = [c for c, _ in Counter("".join(cipher)).most_common()]
            spare = iter(ch for ch in ENGLISH_ORDER if ch not in mapping.values())
            for c in ranked:
                if c not in mapping:
                    mapping[c] = next(spare)
            plain = substitute(cipher, mapping)
        return SolverRun(f"<answer>{' '.join(plain)}</answer>", float(len(cipher)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        words = task.answer.split()
        cipher = task.metadata["ciphertext"]
        wrong = [
            cipher,  # the ciphertext itself
            words[:-1] + [words[-1][::-1]],
            words[1:] + words[:1],
            words[:-1],
            shift_text(words, [1], +1),  # off by one shift
        ]
        texts = {" ".join(w) for w in wrong} - {task.answer}
        return [f"<answer>{t}</answer>" for t in sorted(texts)]
