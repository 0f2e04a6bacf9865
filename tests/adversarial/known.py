"""Known failures on main, each a numbered finding of the red-team suite (issue 16).

``FINDINGS`` names each finding (number: owner, what goes wrong). ``KNOWN_FAILURES`` maps a
suite case ``(test, family, attack class)`` to the findings it fails on; test is ``"wrong"``
(a wrong answer paid or a verifier failure), ``"right"`` (a right answer refused) or
``"format"`` (two or no final answers not reported as a format error). Each case is a strict
xfail: when the fix lands the case passes, pytest reports XPASS(strict) as a failure, and the
entry goes (``python tests/adversarial/prune_known.py LOG`` deletes every closed one).
"""

from __future__ import annotations

FINDINGS: dict[int, tuple[str, str]] = {
    1: (
        "rw-shared",
        "a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    ),
    2: (
        "rw-code",
        "two fenced programs inside one tag are paid (a tag plus a different fence outside it is refused)",
    ),
    3: ("rw-shared", "an answer only inside a <think> block is paid"),
    4: ("rw-shared", "an answer only inside an HTML comment is paid"),
    5: ("rw-shared", "a <think> block holding an earlier answer makes the final tag unparseable"),
    6: ("rw-shared", "an `Answer:` line alone is refused"),
    7: ("rw-shared", "markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused"),
    8: ("rw-shared", "`$7$`, `\\(7\\)`, `7.0`, `7,767,531` refused by the family's number reader"),
    9: ("rw-shared", "Row k: labels are ignored: rows in text order with swapped labels are paid"),
    10: ("rw-shared", "a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')"),
    11: ("rw-logic", "a minus sign the parser does not consume is dropped ('November -18', 'House -1')"),
    12: ("rw-shared", "several flow:/cut: answers in one tag: one is taken, the rest ignored"),
    13: ("rw-shared", "two colourings in one tag ('A or B', two lines): one is taken"),
    14: ("rw-code", "hidden databases miss the query's constants: >= for >, constant +-1 paid"),
    15: ("rw-code", "a lone surrogate in the response crashes the verifier (UnicodeEncodeError)"),
    16: ("rw-logic", "an integer over 4,300 digits crashes the verifier (int max str digits)"),
    17: ("rw-logic", "a negated role ('Zoe: ¬knight', 'Zoe: !knight', 'Zoe ≠ knight') is read as the role"),
    18: ("rw-code", "a printed value of another type is paid (True for 1, False for 0)"),
    19: ("rw-shared", "an antiderivative plus C*x is paid (C set to 0 wherever it appears)"),
    20: ("rw-shared", "Row k: labels on the rows are refused"),
    21: (
        "rw-shared",
        "linear_diophantine refuses 'y = 9, x = -9' (labelled values in the other order) for one "
        "solution, but pays it for the general solution",
    ),
}

KNOWN_FAILURES: dict[tuple[str, str, str], tuple[int, ...]] = {}


# families whose near misses the suite cannot judge yet (many valid answers, no judge written):
# test_the_suite_attacks_every_family is a strict xfail for them until a judge lands
MISSING_JUDGES: dict[str, str] = {}


def reason(key: tuple[str, str, str]) -> str | None:
    """The xfail reason of a known failing case, or None."""
    numbers = KNOWN_FAILURES.get(key)
    if numbers is None:
        return None
    return "; ".join(f"finding {n} ({FINDINGS[n][0]}): {FINDINGS[n][1]}" for n in numbers)
