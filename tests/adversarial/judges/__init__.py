"""Independent judges and solvers for the families that accept any valid answer.

A *judge* ``(task, answer_text) -> bool | None`` says whether an answer (the text inside the
tags) is valid, from the task's metadata alone, with code written here: networkx, z3, sympy,
brute force and small simulators, never the family's own verifier, parser or solver. ``None``
means it cannot tell (the suite then makes no claim). Judges read the answer formats that the
families print (the reference answer's format); text they cannot read is not a valid answer.

An *others* function ``task -> list[str]`` builds other valid answers with our own solvers
(another shortest path, another colouring, another model, ...), so the suite can check that a
family pays every valid answer, not only the one it stored.

The attack texts judged here are built by the tests from reference answers, never model output,
so parsing them with ``ast``/``sympy`` in the test process is safe. One module per kind of
family; importing this package registers them all.
"""

from __future__ import annotations

from ..programs import python_judge, sql_judge
from . import (  # noqa: F401 (registers)
    algorithms,
    arithmetic,
    certificates,
    code,
    formulas,
    graphs,
    logic,
    optimization,
    plans,
    text,
    words,
)
from ._registry import JUDGES, OTHERS, is_valid, other_answers

# programs are judged by differential tests (programs.py: they run subprocesses)
JUDGES["bug_repair"] = python_judge
JUDGES["function_induction"] = python_judge
JUDGES["sql_synthesis"] = sql_judge

__all__ = ["JUDGES", "OTHERS", "is_valid", "other_answers"]
