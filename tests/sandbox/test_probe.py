"""The capability probe and ``palaestra sandbox-info``."""

from __future__ import annotations

import sys

from palaestra.sandbox import LAYERS, MAX_LEVEL, probe, sandbox_info_main
from palaestra.sandbox.probe import HINTS, level_of

attacks = sys.modules["palaestra_sandbox_tests_attacks"]  # loaded by path in conftest.py


def test_report_is_consistent(report):
    names = [name for name, _ in LAYERS.values()]
    assert set(report.layers) == set(names)
    assert report.level == level_of(report.layers)
    assert report.missing == [n for n in names if not report.layers[n]]
    assert set(report.hints()) == set(report.missing)
    assert 0 <= report.level <= MAX_LEVEL
    print(f"probe level on this host: {report.level}; missing: {report.missing}")


def test_programs_can_import_the_stdlib(report):
    # Lazy imports must work for the dropped uid (the fork server exposes a private prefix).
    if report.level < 1:
        attacks.skip_counted("stdlib check: the fork server does not start on this host")
    assert report.details["stdlib_readable"], report.details.get("errors")


def test_probe_is_cached_and_refreshable(report):
    assert probe() is report
    fresh = probe(refresh=True)
    assert fresh.layers == report.layers


def test_level_is_cumulative():
    all_on = {name: True for name, _ in LAYERS.values()}
    assert level_of(all_on) == MAX_LEVEL
    assert level_of({**all_on, "seccomp": False}) == 1  # a gap caps the level
    assert level_of({**all_on, "process": False}) == 0
    assert level_of({**all_on, "namespaces": False}) == 4


def test_every_layer_has_a_hint():
    assert set(HINTS) == {name for name, _ in LAYERS.values()}


def test_sandbox_info_prints_the_report(capsys, report):
    code = sandbox_info_main()
    out = capsys.readouterr().out
    assert f"protection level: {report.level} of {MAX_LEVEL}" in out
    for name in report.missing:
        assert f"missing {name}" in out
    assert code == (0 if report.level >= 3 else 1)
    assert report.to_dict()["level"] == report.level
