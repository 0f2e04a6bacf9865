"""Known failures on the current main, each a finding in /work/tools/findings-16.md.

Keys are ``(test, family, attack class)`` with test one of ``"wrong"`` (a wrong answer paid or a
verifier failure), ``"right"`` (a right answer refused), ``"format"`` (two or no final answers
not reported as a format error). Each becomes a strict xfail: when the fix lands the case
passes, pytest reports it as failing, and the entry is deleted here.
"""

from __future__ import annotations

KNOWN_FAILURES: dict[tuple[str, str, str], str] = {}
