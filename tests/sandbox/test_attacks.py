"""Hostile programs against the sandbox: each must end safely and leave the host untouched."""

from __future__ import annotations

import sys

import pytest

attacks = sys.modules["palaestra_sandbox_tests_attacks"]  # loaded by path in conftest.py


@pytest.fixture(scope="module")
def watch(tmp_path_factory):
    w = attacks.HostWatch(str(tmp_path_factory.mktemp("world")))
    yield w
    w.close()


def test_catalogue_is_complete():
    names = [a.name for a in attacks.ATTACKS]
    assert len(names) == len(set(names))
    assert len(names) >= 35


@pytest.mark.parametrize("attack", attacks.ATTACKS, ids=lambda a: a.name)
def test_attack(attack, sandbox, report, watch):
    reason = attacks.skip_reason(attack, report)
    if reason:
        attacks.skip_counted(f"{attack.name}: {reason}")
    attacks.run_attack(sandbox, attack, watch, sandbox.backend.uids())


def test_path_escape_in_files_is_refused(sandbox, watch):
    for name in ("../escape", "/tmp/escape", "a/../../escape", ""):
        result = sandbox.run("print('ran')", files={name: "x"})
        assert result.status == "refused", (name, result)
        assert result.stdout == ""
    watch.check(result, sandbox.backend.uids())
