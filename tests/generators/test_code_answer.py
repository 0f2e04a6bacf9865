"""_code_answer: one program per response; several different programs are a format error."""

from __future__ import annotations

import time

import pytest

import palaestra
from palaestra.generators.code._code_answer import SQL, extract_code, extract_program

WRONG = "def f(xs):\n    return list(xs)\n"
FENCE = "```python\n{}```"


def _program_task():
    return palaestra.make_task("function_induction", seed=3, level=5)


def _right(task) -> str:
    return task.answer


@pytest.mark.parametrize(
    "shape",
    [
        "<answer>\n{right}</answer>",
        "<answer>\n```python\n{right}```\n</answer>",
        "```python\n{right}```",
        "Here it is.\n```py\n{right}```\nDone.",
        # the same program repeated (spacing and comments do not matter)
        "<answer>\n{right}</answer>\n```python\n{right_spaced}```",
        "```python\n{right}```\nagain:\n```python\n{right_spaced}```",
        "<answer>\n```python\n{right}```\n```python\n{right}```\n</answer>",
        # a usage example is no second answer
        "```python\n{right}```\nUse it as:\n```python\nprint(f([1, 2]))\n```",
        "<answer>\n{right}</answer>\n```python\nf([3, -1])\n```",
        "<answer>\n{right}</answer>\n```text\ndef f(xs):\n    return xs\n```",
    ],
)
def test_one_program_is_read(shape: str) -> None:
    task = _program_task()
    right = _right(task)
    spaced = "# the function\n" + right.replace(" = ", "  =  ") + "\n\n"
    response = shape.format(right=right, right_spaced=spaced)
    code, reason = extract_code(response, "f")
    assert code is not None, reason
    assert palaestra.verify(task, response).correct, response


@pytest.mark.parametrize(
    "shape",
    [
        "<answer>\n{right}</answer>\n```python\n{wrong}```",
        "<answer>\n{wrong}</answer>\n```python\n{right}```",
        "```python\n{right}```\n<answer>\n{wrong}</answer>",
        "<answer>\n```python\n{right}```\n```python\n{wrong}```\n</answer>",
        "<answer>\n```python\n{wrong}```\n```python\n{right}```\n</answer>",
        "```python\n{wrong}```\nor better:\n```python\n{right}```",
        "```python\n{right}```\n```\n{wrong}```",
        # a second program that does not even parse is still a second program
        "<answer>\n{right}</answer>\n```python\ndef f(xs):\n    return xs[01]\n```",
    ],
)
def test_several_different_programs_are_a_format_error(shape: str) -> None:
    task = _program_task()
    response = shape.format(right=_right(task), wrong=WRONG)
    verdict = palaestra.verify(task, response)
    assert verdict.status == "unparseable", (response, verdict)
    assert "different" in verdict.reason


@pytest.mark.parametrize("family", ["bug_repair", "algorithmic_coding"])
def test_every_program_family_refuses_two_programs(family: str) -> None:
    task = palaestra.make_task(family, seed=1, level=2)
    function = "solve" if family == "algorithmic_coding" else "f"
    wrong = f"def {function}(data):\n    return data\n"
    assert palaestra.verify(task, f"<answer>\n{task.answer}</answer>").correct
    for response in (
        f"<answer>\n{task.answer}</answer>\n```python\n{wrong}```",
        f"<answer>\n```python\n{task.answer}```\n```python\n{wrong}```\n</answer>",
    ):
        assert palaestra.verify(task, response).status == "unparseable", response


def test_sql_one_query_and_several_queries() -> None:
    task = palaestra.make_task("sql_synthesis", seed=0, level=1)
    right = task.answer
    wrong = right.replace(">", ">=")
    for ok in (
        f"<answer>{right}</answer>",
        f"```sql\n{right};\n```",
        f"<answer>{right}</answer>\n```sql\n{right}  ;\n```",
        f"<answer>\n```sql\n{right}\n```\n</answer>",
        f"<answer>{right}</answer>\nThe table:\n```sql\nCREATE TABLE t (x INTEGER);\n```",
    ):
        assert palaestra.verify(task, ok).correct, ok
    for bad in (
        f"<answer>{right}</answer>\n```sql\n{wrong}\n```",
        f"<answer>{wrong}</answer>\n```sql\n{right}\n```",
        f"<answer>\n```sql\n{right}\n```\n```sql\n{wrong}\n```\n</answer>",
        f"```sql\n{right}\n```\n```sql\n{wrong}\n```",
        f"<answer>{right}; {wrong}</answer>",
    ):
        verdict = palaestra.verify(task, bad)
        assert verdict.status == "unparseable", (bad, verdict)


def test_extract_program_reports_why() -> None:
    assert extract_program("no code at all", SQL) == (
        None,
        "no program found: put the SQL code in <answer>...</answer> tags",
    )
    assert extract_program("<answer>SELECT 1", SQL)[0] is None  # unclosed tag
    assert extract_program("```sql\nSELECT 1;\n```\n```sql\nselect 1\n```", SQL)[0] is None
    assert extract_program("```sql\nSELECT 1;\n```\n```sql\nSELECT  1\n```", SQL)[0] is not None


def test_hostile_responses_are_refused_quickly() -> None:
    program = "def f(xs):\n    return xs\n"
    for response in (
        f"```python\n{program}```\n" * 5000,  # thousands of blocks
        "`" * 1_000_000,
        "```python\n" + "x = 1\n" * 200_000 + "```",  # one block far over the program limit
        "```python\n" + "(" * 100_000 + "```",
    ):
        start = time.process_time()
        code, reason = extract_code(response, "f")
        assert code is None and reason
        assert time.process_time() - start < 0.5, reason
