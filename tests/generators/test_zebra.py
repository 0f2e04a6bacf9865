"""zebra: uniqueness cross-checked with z3, answer formats, solvers and calibration."""

from __future__ import annotations

import json

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "zebra"
IMPL = get(FAMILY).impl


def z3_clue(c: list, p: list, h: int) -> z3.BoolRef:
    kind, a = c[0], p[c[1]]
    if kind == "at":
        return a == c[2]
    if kind == "not_at":
        return a != c[2]
    b = p[c[2]]
    return {
        "same": lambda: a == b,
        "diff": lambda: a != b,
        "left": lambda: a < b,
        "next": lambda: b == a + 1,
        "adjacent": lambda: z3.Or(b == a + 1, a == b + 1),
    }[kind]()


def z3_solutions(task: Task, limit: int = 2) -> list[list[int]]:
    h = task.metadata["houses"]
    a = len(task.metadata["categories"])
    p = [z3.Int(f"e{i}") for i in range(a * h)]
    s = z3.Solver()
    s.add(*[z3.And(0 <= x, x < h) for x in p])
    s.add(*[z3.Distinct(p[i * h : (i + 1) * h]) for i in range(a)])
    s.add(*[z3_clue(c, p, h) for c in task.metadata["clues"]])
    found = []
    while len(found) < limit and s.check() == z3.sat:
        m = s.model()
        found.append([m.eval(x).as_long() for x in p])
        s.add(z3.Or([x != v for x, v in zip(p, found[-1], strict=True)]))
    return found


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 7))
def test_unique_by_z3_and_references_verify(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert z3_solutions(task) == [task.metadata["solution"]]
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutated = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(mutated) >= 3
    for response in mutated:
        assert not verify(task, response).correct, response


def _grid(task: Task) -> dict[int, dict[str, str]]:
    h = task.metadata["houses"]
    grid: dict[int, dict[str, str]] = {house: {} for house in range(1, h + 1)}
    for attr, (category, row) in enumerate(
        zip(task.metadata["categories"], task.metadata["values"], strict=True)
    ):
        for v, word in enumerate(row):
            grid[task.metadata["solution"][attr * h + v] + 1][category] = word
    return grid


def test_answer_formats() -> None:
    task = make_task(FAMILY, seed=5, level=4)
    grid = _grid(task)
    variants = [
        "\n".join(f"House {k}: {', '.join(row.values())}" for k, row in grid.items()),
        "\n".join(f"house {k} - {' '.join(reversed(list(row.values()))).upper()}" for k, row in grid.items()),
        json.dumps({f"House {k}": row for k, row in grid.items()}),
        "| house | "
        + " | ".join(task.metadata["categories"])
        + " |\n"
        + "\n".join(
            f"| {k} | " + " | ".join(row[c] for c in task.metadata["categories"]) + " |"
            for k, row in grid.items()
        ),
        "; ".join(f"{k}: {', '.join(row.values())}" for k, row in reversed(grid.items())),
    ]
    for text in variants:
        assert verify(task, f"<answer>{text}</answer>").correct, text


def test_wrong_and_malformed_answers() -> None:
    task = make_task(FAMILY, seed=5, level=4)
    grid = _grid(task)
    lines = [f"House {k}: {', '.join(row.values())}" for k, row in grid.items()]
    first, second = grid[1]["nationality"], grid[2]["nationality"]
    swapped = "\n".join(lines).replace(first, "@").replace(second, first).replace("@", second)
    verdict = verify(task, f"<answer>{swapped}</answer>")
    assert verdict.format_ok and not verdict.correct
    for text in (
        "\n".join(lines[:-1]),  # a house missing
        "\n".join(lines) + f"\nHouse 1: {first}",  # a value twice
        "\n".join(lines).replace("House 1:", "House 9:"),  # no such house
        "\n".join(lines) + " unicorn",  # a stranger
        ", ".join(grid[1].values()) + "\n" + "\n".join(lines[1:]),  # values before any house number
    ):
        verdict = verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and not verdict.format_ok, text


def test_hostile_and_unclear_answers_are_format_errors() -> None:
    # issue 16: a 5,000-digit house number raised ValueError inside verify; signs were skipped
    task = make_task(FAMILY, seed=5, level=4)
    lines = str(task.answer).split("\n")
    first_value = lines[0].split(": ")[1].split(", ")[1]
    for text in (
        "House " + "9" * 5000 + ": " + lines[0].split(": ")[1],
        "\n".join(lines) + "\n" + "7" * 5000,
        "\n".join(lines).replace("House 1", "House \u0661", 1),  # an Arabic-Indic one
        "\n".join(lines).replace(first_value, "¬" + first_value, 1),
        "\n".join(lines).replace(first_value, "!" + first_value, 1),
        "\n".join(lines).replace(", ", " ≠ ", 1),
    ):
        verdict = verify(task, f"<answer>{text}</answer>")
        assert verdict.error is None and not verdict.format_ok, (text[:40], verdict)


@pytest.mark.parametrize("response", ["", "\x00" * 700, "House 1 " * 150_000, "Ω" * 5000])
def test_bad_input(response: str) -> None:
    verdict = verify(make_task(FAMILY, seed=1, level=2), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_calibration_trend() -> None:
    effort, weak = {}, {}
    for level, seeds in ((1, 20), (5, 20), (9, 8)):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(seeds)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
    assert effort[1] < effort[5] < effort[9]
    assert weak[1] > weak[9]


def test_knobs() -> None:
    task = make_task(FAMILY, seed=3, houses=4, attributes=3, clue_kinds="same,next,left", minimal=True)
    kinds = {c[0] for c in task.metadata["clues"]}
    assert kinds <= {"same", "next", "left", "at"}  # "at" only as the documented fallback
    assert z3_solutions(task) == [task.metadata["solution"]]
    with pytest.raises(ValueError):
        make_task(FAMILY, seed=1, clue_kinds="same,under")


def test_a_signed_or_decimal_house_number_is_refused() -> None:
    """Red-team finding 11: 'House -1: ...' was read as house 1 (the separators skip '-')."""
    task = make_task("zebra", seed=3, level=4)
    reference = get("zebra").impl.reference_response(task)
    assert verify(task, reference).correct
    for label in ("House -1:", "House 1.0:", "House –1:"):
        verdict = verify(task, reference.replace("House 1:", label))
        assert verdict.status == "unparseable", (label, verdict)


def test_values_separated_by_slashes_are_read_and_a_slash_hedge_refused() -> None:
    """``House 1 - German / opera`` (issue 26); a hedge ``Dane / Norwegian`` places a value twice."""
    import palaestra

    task = palaestra.make_task("zebra", seed=0, level=3)
    rows = [line.split(":", 1)[1].split(",") for line in task.answer.splitlines()]
    slashed = "\n".join(f"House {i} - {' / '.join(v.strip() for v in row)}" for i, row in enumerate(rows, 1))
    assert palaestra.verify(task, f"<answer>\n{slashed}\n</answer>").correct
    first, second = rows[0][0].strip(), rows[1][0].strip()
    hedged = slashed.replace(f"House 1 - {first}", f"House 1 - {first} / {second}", 1)
    assert palaestra.verify(task, f"<answer>\n{hedged}\n</answer>").status == "unparseable"
