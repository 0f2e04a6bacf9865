"""ciphers: unique decryption checked by brute force over the key space (Caesar, Vigenère with
short keys) and by an independent word-by-word search (substitution), against the dictionary
read straight from the data file."""

from __future__ import annotations

import functools
import gzip
import itertools
import string
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.words import wordlist as _wordlist

DATA = Path(_wordlist.__file__).resolve().parent / "data"
ABC = string.ascii_lowercase


@functools.cache
def _words() -> frozenset[str]:
    return frozenset(gzip.decompress((DATA / "dictionary.txt.gz").read_bytes()).decode().split())


def _decrypt(cipher: list[str], key: tuple[int, ...]) -> list[str] | None:
    """Vigenère decryption, stopping at the first word that is not a dictionary word."""
    out, i = [], 0
    for word in cipher:
        plain = ""
        for ch in word:
            plain += ABC[(ABC.index(ch) - key[i % len(key)]) % 26]
            i += 1
        if plain not in _words():
            return None
        out.append(plain)
    return out


def _shift_decryptions(task: palaestra.Task) -> list[list[str]]:
    cipher, crib = task.metadata["ciphertext"], task.metadata["cribs"][0]
    if task.metadata["cipher"] == "caesar":
        keys = [(k,) for k in range(1, 26)]
    else:
        keys = list(itertools.product(range(26), repeat=task.knobs["key_length"]))
    plains = [_decrypt(cipher, key) for key in keys]
    return [p for p in plains if p is not None and crib in p]


def _substitution_decryptions(cipher: list[str], cribs: list[str]) -> list[list[str]]:
    """Every assignment of dictionary words to the cipher words that is a consistent one-to-one
    letter mapping and contains the cribs (up to two), filling the most constrained word first."""
    by_length: dict[int, list[str]] = {}
    for word in _words():
        by_length.setdefault(len(word), []).append(word)
    found: list[list[str]] = []

    def consistent(mapping: dict[str, str], cword: str, pword: str) -> dict[str, str] | None:
        if len(cword) != len(pword):
            return None
        new = dict(mapping)
        for c, p in zip(cword, pword, strict=True):
            if new.setdefault(c, p) != p:
                return None
        return new if len(set(new.values())) == len(new) else None

    def search(mapping: dict[str, str], plain: dict[int, str]) -> None:
        if len(found) >= 2:
            return
        if len(plain) == len(cipher):
            text = [plain[i] for i in range(len(cipher))]
            if all(c in text for c in cribs) and text not in found:
                found.append(text)
            return
        options = {
            i: [p for p in by_length[len(w)] if consistent(mapping, w, p) is not None]
            for i, w in enumerate(cipher)
            if i not in plain
        }
        i = min(options, key=lambda k: len(options[k]))
        for p in options[i]:
            search(consistent(mapping, cipher[i], p), {**plain, i: p})

    for spots in itertools.permutations(range(len(cipher)), len(cribs)):
        mapping: dict[str, str] | None = {}
        for i, crib in zip(spots, cribs, strict=True):
            mapping = consistent(mapping, cipher[i], crib) if mapping is not None else None
        if mapping is not None:
            search(mapping, dict(zip(spots, cribs, strict=True)))
    return found


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=16, deadline=None)
def test_shift_ciphers_have_one_key_by_brute_force(seed: int, level: int) -> None:
    task = palaestra.make_task("ciphers", seed=seed, level=level)
    assert _shift_decryptions(task) == [task.answer.split()]


@given(seed=st.integers(0, 2**63 - 1))
@settings(max_examples=3, deadline=None)
def test_substitution_has_one_decryption_by_an_independent_search(seed: int) -> None:
    task = palaestra.make_task("ciphers", seed=seed, level=7)
    plain = task.answer.split()
    assert _substitution_decryptions(task.metadata["ciphertext"], task.metadata["cribs"]) == [plain]
    mapping = dict(zip("".join(task.metadata["ciphertext"]), "".join(plain), strict=True))
    assert all(c != p for c, p in mapping.items()), "a letter stood for itself"


def test_answer_forms_and_wrong_decryptions() -> None:
    task = palaestra.make_task("ciphers", seed=3, level=5)
    words = task.answer.split()
    assert palaestra.verify(task, f"<answer>{task.answer.upper()}.</answer>").correct
    assert palaestra.verify(task, "<answer>" + "\n".join(words) + "</answer>").correct
    assert not palaestra.verify(task, f"<answer>{' '.join(words[:-1])}</answer>").format_ok
    assert not palaestra.verify(task, f"<answer>{''.join(words)}</answer>").format_ok
    swapped = [*words[:-2], words[-1], words[-2]]
    assert not palaestra.verify(task, f"<answer>{' '.join(swapped)}</answer>").correct
    cipher = " ".join(task.metadata["ciphertext"])
    assert not palaestra.verify(task, f"<answer>{cipher}</answer>").correct


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("ciphers", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "a " * 10**5 + "</answer>", "<answer>" + "é" * 1000 + "</answer>"):
        assert not palaestra.verify(task, response).format_ok
    assert time.process_time() - started < 0.5
