"""The palaestra command: output, exit codes, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from palaestra.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["list"], capsys)
    assert code == 0 and "expression" in out and "shortest_path" in out
    code, out, _ = run(["list", "--json"], capsys)
    rows = json.loads(out)
    assert code == 0 and {r["name"] for r in rows} >= {"expression", "shortest_path"}
    assert all(r["knobs"] and r["env_id"].startswith("palaestra/") for r in rows)


def test_sample_and_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["sample", "expression", "--seed", "3", "--level", "2", "--show-answer"], capsys)
    assert code == 0 and "reference answer" in out
    answer = out.split("--- reference answer ---\n", 1)[1].strip()
    code, out, _ = run(["check", "expression", "--seed", "3", "--level", "2", "--answer", answer], capsys)
    assert code == 0 and out.startswith("correct")
    code, out, _ = run(
        ["check", "expression", "--seed", "3", "--level", "2", "--answer", "<answer>x</answer>"], capsys
    )
    assert code == 1 and out.startswith("format error")
    code, out, _ = run(["sample", "expression", "--seed", "3", "--knob", "digits=3", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["difficulty"]["knobs"]["digits"] == 3 and "answer" not in data


@pytest.mark.parametrize(
    "argv,message",
    [
        (["sample", "nope", "--seed", "1"], "unknown family 'nope'; `palaestra list` names all"),
        (["sample", "sudokku", "--seed", "1"], "unknown family 'sudokku'; did you mean 'sudoku'"),
        (["sample", "expression", "--seed", "-1"], "non-negative integer"),
        (["sample", "expression", "--seed", "abc"], "non-negative integer"),
        (["sample", "expression", "--seed", "1", "--level", "11"], "level must be in 1..10"),
        (["sample", "expression", "--seed", "1", "--level", "x"], "level must be an integer"),
        (["sample", "expression", "--seed", "1", "--knob", "foo=1"], "valid knobs"),
        (["sample", "expression", "--seed", "1", "--knob", "digits=x"], "must be int"),
        (["sample", "expression", "--seed", "1", "--knob", "digits"], "name=value"),
        (["sample", "expression"], "required"),
        ([], "required"),
    ],
)
def test_errors_are_one_line_with_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_console_script_runs_in_a_fresh_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "palaestra.cli", "sample", "shortest_path", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "minimum total weight" in done.stdout


def test_unknown_family_suggests_close_names_instead_of_listing_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Regression: an unknown family printed all 105 names and no suggestion."""
    code, _, err = run(["check", "shortest_pth", "--seed", "1", "--answer", "x"], capsys)
    assert code == 2 and "did you mean 'shortest_path'" in err
    assert "sudoku" not in err  # the unrelated names are left to `palaestra list`


def test_check_says_correct_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a right answer printed ``correct: correct``."""
    code, out, _ = run(["check", "expression", "--seed", "3", "--answer", "<answer>4</answer>"], capsys)
    assert code == 0 and out == "correct\n"
    code, out, _ = run(["check", "expression", "--seed", "3", "--answer", "<answer>5</answer>"], capsys)
    assert code == 1 and out.startswith("wrong: ") and len(out) > len("wrong: \n")
