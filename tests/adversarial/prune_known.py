"""Delete the known failures that a fix has closed (their strict xfail now passes).

    python -m pytest tests/adversarial -q -n 0 -p no:cacheprovider -rf > /tmp/adv.log
    python tests/adversarial/prune_known.py /tmp/adv.log

Reads pytest's short summary (``FAILED ...::test_x[family-class] - [XPASS(strict)] ...``)
and rewrites ``known.py`` without those keys. Real failures are listed, never touched.
"""

from __future__ import annotations

import re
import sys
from itertools import pairwise
from pathlib import Path

KNOWN = Path(__file__).with_name("known.py")
TESTS = {
    "test_wrong_answers_are_not_paid": "wrong",
    "test_right_answers_are_paid": "right",
    "test_no_single_final_answer_is_a_format_error": "format",
}
_SUMMARY = re.compile(r"^FAILED \S+::(\w+)\[(\w+)-(\w+)\](.*)$")
# a failure's section header; pytest >= 9 writes "[XPASS(strict)] reason" on the next line
# instead of in the summary line
_SECTION = re.compile(r"^_+ (\w+)\[(\w+)-(\w+)\] _+$")


def closed_and_open(log: str) -> tuple[set[tuple[str, str, str]], list[str]]:
    lines = log.splitlines()
    # under xdist a "[gw0] linux -- Python ..." line comes between the header and the reason
    body = [line for line in lines if not line.startswith("[gw")]
    xpassed = {
        match.groups()
        for line, following in pairwise([*body, ""])
        if (match := _SECTION.match(line)) and following.startswith("[XPASS(strict)]")
    }
    closed, still_failing = set(), []
    for line in lines:
        match = _SUMMARY.match(line)
        if not match:
            continue
        test, family, cls, rest = match.groups()
        if ("XPASS(strict)" in rest or (test, family, cls) in xpassed) and test in TESTS:
            closed.add((TESTS[test], family, cls))
        else:
            still_failing.append(line)
    return closed, still_failing


def _quoted(key: tuple[str, ...]) -> str:
    """A tuple of names with double quotes, as ruff format writes it."""
    return "(" + ", ".join(f'"{part}"' for part in key) + ")"


def write_known(known: dict[tuple[str, str, str], tuple[int, ...]]) -> None:
    """Rewrite the KNOWN_FAILURES block of known.py (one line per case, sorted)."""
    text = KNOWN.read_text()
    start = text.index("KNOWN_FAILURES:")
    end = text.index("\n}\n", start) + 3
    lines = [f"    {_quoted(key)}: {known[key]!r}," for key in sorted(known)]
    block = "KNOWN_FAILURES: dict[tuple[str, str, str], tuple[int, ...]] = {\n" + "\n".join(lines) + "\n}\n"
    KNOWN.write_text(text[:start] + block + text[end:])


def main() -> None:
    closed, still_failing = closed_and_open(Path(sys.argv[1]).read_text())
    namespace: dict[str, object] = {}
    exec(compile(KNOWN.read_text(), str(KNOWN), "exec"), namespace)  # noqa: S102 (our own file)
    known = dict(namespace["KNOWN_FAILURES"])
    kept = {key: numbers for key, numbers in known.items() if key not in closed}
    write_known(kept)
    print(f"removed {len(known) - len(kept)} closed entries; {len(kept)} remain")
    if still_failing:
        print(f"{len(still_failing)} failures that are not closed xfails (look at them):")
        print("\n".join(still_failing))


if __name__ == "__main__":
    main()
