"""prune_known.py reads both ways pytest reports a strict xfail that passed."""

from __future__ import annotations

from .prune_known import closed_and_open

NODE = "tests/adversarial/test_reward_integrity.py::"


def test_closed_cases_are_read_from_the_summary_and_from_sections() -> None:
    log = "\n".join(
        [
            "___ test_wrong_answers_are_not_paid[sudoku-near_miss] ___",
            "[XPASS(strict)] finding 9 (rw-shared): Row k: labels are ignored",
            "___ test_wrong_answers_are_not_paid[sql_synthesis-size] ___",
            "[gw0] linux -- Python 3.11.7 /venv/bin/python",
            "[XPASS(strict)] finding 15 (rw-code): a lone surrogate crashes the verifier",
            "___ test_right_answers_are_paid[kakuro-rewriting] ___",
            "",
            "E       AssertionError: 1 problems:",
            f"FAILED {NODE}test_wrong_answers_are_not_paid[sudoku-near_miss]",
            f"FAILED {NODE}test_no_single_final_answer_is_a_format_error[zebra-format] - [XPASS(strict)] finding 3",
            f"FAILED {NODE}test_right_answers_are_paid[kakuro-rewriting]",
            f"FAILED {NODE}test_wrong_answers_are_not_paid[sql_synthesis-size]",
        ]
    )
    closed, still_failing = closed_and_open(log)
    assert closed == {
        ("wrong", "sudoku", "near_miss"),
        ("format", "zebra", "format"),
        ("wrong", "sql_synthesis", "size"),
    }
    assert still_failing == [f"FAILED {NODE}test_right_answers_are_paid[kakuro-rewriting]"]
