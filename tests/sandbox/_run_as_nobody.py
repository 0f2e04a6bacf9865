"""Run a subset of the attack catalogue in this (unprivileged) process; print JSON results.

Started by ``test_unprivileged.py`` as uid 65534. Usage: ``python _run_as_nobody.py NAME...``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path


def main(names: list[str]) -> dict:
    spec = importlib.util.spec_from_file_location("nobody_attacks", Path(__file__).with_name("_attacks.py"))
    attacks = importlib.util.module_from_spec(spec)
    sys.modules["nobody_attacks"] = attacks  # dataclasses look their module up there
    spec.loader.exec_module(attacks)
    from palaestra.sandbox import Sandbox, probe

    report = probe()
    out = {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "level": report.level,
        "missing": report.missing,
        "results": {},
    }
    if report.level < 1:
        return out
    by_name = {a.name: a for a in attacks.ATTACKS}
    with Sandbox(workers=1, min_level=0) as sb:
        watch = attacks.HostWatch(tempfile.mkdtemp(prefix="palaestra-nobody-"))
        for name in names:
            attack = by_name[name]
            reason = attacks.skip_reason(attack, report)
            if reason:
                out["results"][name] = "skip: " + reason
                continue
            try:
                attacks.run_attack(sb, attack, watch, sb.backend.uids())
                out["results"][name] = "pass"
            except AssertionError as exc:
                out["results"][name] = f"fail: {exc}"
        watch.close()
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
