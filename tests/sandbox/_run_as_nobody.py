"""Run a subset of the attack catalogue in this (unprivileged) process; print JSON results.

Started by ``test_unprivileged.py`` as uid 65534. Usage: ``python _run_as_nobody.py NAME...``,
or ``python _run_as_nobody.py --side-doors`` for the cross-run probes of ``_side_doors.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"nobody{name}", Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"nobody{name}"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def side_doors() -> dict:
    """Every side-door probe, its counts and its violations, as this (unprivileged) user."""
    from palaestra.sandbox import Sandbox, probe

    probes = _load("_side_doors")
    report = probe()
    out = {"uid": os.getuid(), "euid": os.geteuid(), "level": report.level, "layers": report.layers}
    out["privdrop_mode"] = report.details.get("privdrop_mode")
    out["results"] = {}
    if report.level < 2:
        return out
    for name, fn in probes.PROBES.items():
        found = fn(lambda: Sandbox(workers=1, min_level=0))
        out["results"][name] = {"found": found, "violations": probes.violations(name, found)}
    return out


def main(names: list[str]) -> dict:
    attacks = _load("_attacks")
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
    if sys.argv[1:] == ["--side-doors"]:
        print(json.dumps(side_doors()))
    else:
        print(json.dumps(main(sys.argv[1:])))
