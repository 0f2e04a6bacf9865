"""Provenance of the shipped word lists: the files are the ones SOURCE.md records (SCOWL)."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

from palaestra.generators.words import wordlist as _wordlist

DATA = Path(_wordlist.__file__).resolve().parent / "data"


def _recorded() -> dict[str, tuple[int, str]]:
    """file -> (word count, SHA-256) from the table in SOURCE.md."""
    rows = re.findall(
        r"^\| `([^`]+)` \|.*\| (\d+) \| `([0-9a-f]{64})` \|$", (DATA / "SOURCE.md").read_text(), re.M
    )
    return {name: (int(count), digest) for name, count, digest in rows}


def _text(name: str) -> str:
    raw = (DATA / name).read_bytes()
    return (gzip.decompress(raw) if name.endswith(".gz") else raw).decode("ascii")


def test_files_match_the_recorded_counts_and_hashes() -> None:
    recorded = _recorded()
    assert set(recorded) == {"common.txt", "known.txt.gz", "dictionary.txt.gz"}
    for name, (count, digest) in recorded.items():
        text = _text(name)
        assert hashlib.sha256(text.encode()).hexdigest() == digest, name
        assert text.count("\n") == count, name


def test_lists_are_sorted_lowercase_words_and_common_is_in_the_dictionary() -> None:
    common, known = _wordlist.all_common_words(), _wordlist.all_known_words()
    dictionary = _wordlist.all_dictionary_words()
    for words in (common, known, dictionary):
        assert list(words) == sorted(set(words))
        assert all(re.fullmatch(r"[a-z]+", w) for w in words)
    assert set(common) < set(known) < set(dictionary)
    assert {"the", "water", "house", "colour", "color"} <= set(dictionary)
    assert "sex" not in common and "sex" in dictionary  # the exclusions apply to secrets only


def test_licence_and_build_script_ship_beside_the_lists() -> None:
    licence = (DATA / "LICENSE-SCOWL.txt").read_text()
    assert "Kevin Atkinson" in licence and "Permission to use, copy, modify" in licence
    assert "def main" in (DATA / "build.py").read_text()
