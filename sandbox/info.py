"""``palaestra sandbox-info``: print what the host lets the sandbox enforce."""

from __future__ import annotations

import sys

from .probe import DEFAULT_MIN_LEVEL, probe


def sandbox_info_main() -> int:
    """Print the probe report; exit status 0 if the default ``min_level`` is met, else 1."""
    report = probe()
    print(report.format())
    ok = report.level >= DEFAULT_MIN_LEVEL
    verdict = "meets" if ok else "is below"
    print(f"level {report.level} {verdict} the default min_level={DEFAULT_MIN_LEVEL}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(sandbox_info_main())
