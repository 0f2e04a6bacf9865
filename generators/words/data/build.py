"""Rebuild the word lists of the words families from SCOWL (Spell Checker Oriented Word Lists).

    apt-get download scowl && dpkg-deb -x scowl_2020.12.07-2_all.deb /tmp/scowl
    python generators/words/data/build.py /tmp/scowl/usr/share/dict/scowl

writes ``common.txt``, ``known.txt.gz`` and ``dictionary.txt.gz`` beside this file and prints their SHA-256 and
word counts (``SOURCE.md`` records them; ``tests/generators/test_wordlists.py`` checks the
shipped files against that record). Only lowercase ASCII words are kept: proper names,
abbreviations, contractions, possessives and accented words are dropped.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# SCOWL sizes 10 and 20: the most common English words (Moby's 1,000 most common words, Brian
# Kelk's frequency classes, 12dicts' core lists); the secrets and answers come from here
COMMON_FILES = [f"{cat}-words.{size}" for size in (10, 20) for cat in ("english", "american")]
# SCOWL sizes up to 35 ("small"): words an educated reader knows; a word ladder's reference
# steps come from here
KNOWN_FILES = [f"{cat}-words.{size}" for size in (10, 20, 35) for cat in ("english", "american", "british")]
# SCOWL sizes up to 50 ("medium", the usual spell-checker size), American and British
# spellings: every word a solver may use, and the dictionary uniqueness is proven against
DICTIONARY_FILES = [
    f"{cat}-words.{size}" for size in (10, 20, 35, 40, 50) for cat in ("english", "american", "british")
]
# Never a secret or an answer (still accepted where any dictionary word is): vulgar, sexual or
# violent-sexual words that a training set has no need to ask for.
EXCLUDED_FROM_COMMON = frozenset(
    "ass bastard bastards crap damn damnation damned damning damns hell pornography prostitute "
    "rape sex sexes sexist sexual sexuality sexually sexy suicide".split()
)


def read_words(folder: Path, names: list[str]) -> set[str]:
    words: set[str] = set()
    for name in names:
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            word = line.strip()
            if word.isascii() and word.isalpha() and word.islower():
                words.add(word)
    return words


def text_of(words: set[str]) -> str:
    return "".join(f"{w}\n" for w in sorted(words))


def main(folder: Path) -> None:
    common = read_words(folder, COMMON_FILES) - EXCLUDED_FROM_COMMON
    known = read_words(folder, KNOWN_FILES) | common
    dictionary = read_words(folder, DICTIONARY_FILES) | known
    (HERE / "common.txt").write_text(text_of(common))
    for name, words in (("known.txt.gz", known), ("dictionary.txt.gz", dictionary)):
        # mtime=0: the same bytes on every rebuild
        with (
            open(HERE / name, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out,
        ):
            out.write(text_of(words).encode())
    for name, words in (("common.txt", common), ("known.txt.gz", known), ("dictionary.txt.gz", dictionary)):
        print(name, len(words), hashlib.sha256(text_of(words).encode()).hexdigest())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
