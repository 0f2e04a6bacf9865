"""Propositional logic: notations, z3 equivalence/entailment against a truth-table oracle,
assignment and unsat-claim checking."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.verifiers.logic import (
    LogicParseError,
    check_assignment,
    check_unsat_claim,
    entails,
    equivalent,
    evaluate,
    parse_assignment,
    parse_formula,
    satisfiable,
    variables,
    verify_equivalent_formula,
    verify_sat_answer,
)

NOTATIONS = {
    "ascii": {"not": "~", "and": "&", "or": "|", "imp": "->", "iff": "<->", "xor": "^"},
    "unicode": {"not": "¬", "and": "∧", "or": "∨", "imp": "→", "iff": "↔", "xor": "⊕"},
    "words": {"not": "not ", "and": "and", "or": "or", "imp": "implies", "iff": "iff", "xor": "xor"},
    "latex": {
        "not": r"\neg ",
        "and": r"\land",
        "or": r"\lor",
        "imp": r"\to",
        "iff": r"\leftrightarrow",
        "xor": r"\oplus",
    },
    "c_style": {"not": "!", "and": "&&", "or": "||", "imp": "=>", "iff": "<=>", "xor": "^"},
}


def render(node: tuple, style: dict[str, str]) -> str:
    kind = node[0]
    if kind == "var":
        return node[1]
    if kind == "const":
        return "true" if node[1] else "false"
    if kind == "not":
        return f"{style['not']}({render(node[1], style)})"
    return "(" + f" {style[kind]} ".join(render(child, style) for child in node[1:]) + ")"


def truth_table_equal(a: tuple, b: tuple) -> tuple[bool, dict | None]:
    names = sorted(set(variables(a)) | set(variables(b)))
    for values in itertools.product([False, True], repeat=len(names)):
        model = dict(zip(names, values, strict=True))
        if evaluate(a, model) != evaluate(b, model):
            return False, model
    return True, None


VARS = st.sampled_from(["p", "q", "r", "s"]).map(lambda v: ("var", v))
FORMULAS = st.recursive(
    st.one_of(VARS, st.booleans().map(lambda b: ("const", b))),
    lambda kids: st.one_of(
        kids.map(lambda k: ("not", k)),
        st.tuples(st.sampled_from(["and", "or", "xor", "imp", "iff"]), kids, kids).map(
            lambda t: (t[0], t[1], t[2])
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(FORMULAS, st.sampled_from(sorted(NOTATIONS)))
def test_every_notation_parses_to_an_equivalent_formula(formula: tuple, notation: str) -> None:
    text = render(formula, NOTATIONS[notation])
    parsed = parse_formula(text)
    assert truth_table_equal(formula, parsed)[0], text
    assert equivalent(formula, text).holds is True


@settings(max_examples=150, deadline=None)
@given(FORMULAS, FORMULAS)
def test_equivalence_agrees_with_truth_tables(a: tuple, b: tuple) -> None:
    expected, _ = truth_table_equal(a, b)
    result = equivalent(a, b)
    assert result.holds is expected
    if not expected:  # the countermodel really separates them
        model = {v: result.countermodel.get(v, False) for v in set(variables(a)) | set(variables(b))}
        assert evaluate(a, model) != evaluate(b, model)


@settings(max_examples=100, deadline=None)
@given(st.lists(FORMULAS, min_size=1, max_size=3), FORMULAS)
def test_entailment_agrees_with_truth_tables(premises: list[tuple], conclusion: tuple) -> None:
    names = sorted(set().union(*(variables(p) for p in premises)) | set(variables(conclusion)))
    expected = all(
        evaluate(conclusion, m) or not all(evaluate(p, m) for p in premises)
        for m in (
            dict(zip(names, vs, strict=True)) for vs in itertools.product([False, True], repeat=len(names))
        )
    )
    result = entails(premises, conclusion)
    assert result.holds is expected
    if not expected:
        model = {v: result.countermodel.get(v, False) for v in names}
        assert all(evaluate(p, model) for p in premises) and not evaluate(conclusion, model)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("~(p & q)", "~p | ~q", True),
        ("~(p | q)", "~p & ~q", True),
        ("p -> q", "~q -> ~p", True),
        ("p -> q", "q -> p", False),
        ("p <-> q", "(p -> q) & (q -> p)", True),
        ("p ^ q", "~(p <-> q)", True),
        ("p -> q -> r", "(p & q) -> r", True),
        ("p -> q -> r", "(p -> q) -> r", False),
        ("p | ~p", "true", True),
        ("p & ~p", "⊥", True),
        ("A and not B", "not (not A or B)", True),
        ("p", "q", False),
    ],
)
def test_classic_equivalences(a: str, b: str, same: bool) -> None:
    assert equivalent(a, b).holds is same


def test_precedence_not_and_or_implies() -> None:
    assert parse_formula("~p & q | r -> s") == (
        "imp",
        ("or", ("and", ("not", ("var", "p")), ("var", "q")), ("var", "r")),
        ("var", "s"),
    )


@pytest.mark.parametrize(
    "text", ["", "p &", "(p | q", "p q", "p $ q", "->", "(" * 500 + "p" + ")" * 500, "x" * 200_000]
)
def test_malformed_formulas_are_refused(text: str) -> None:
    with pytest.raises(LogicParseError):
        parse_formula(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A=T, B=F", {"A": True, "B": False}),
        ("A: true; B: false", {"A": True, "B": False}),
        ("{x1: 1, x2: 0}", {"x1": True, "x2": False}),
        ("p, ¬q, r", {"p": True, "q": False, "r": True}),
        ("p and not q", {"p": True, "q": False}),
    ],
)
def test_assignment_notations(text: str, expected: dict) -> None:
    assert parse_assignment(text) == expected


def test_contradictory_assignment_is_refused() -> None:
    with pytest.raises(LogicParseError):
        parse_assignment("p=T, p=F")


def test_check_assignment() -> None:
    formula = "(a | b) & (~a | c) & ~c"
    assert check_assignment(formula, "a=F, b=T, c=F").correct
    assert not check_assignment(formula, "a=T, b=T, c=F").correct
    partial = check_assignment(formula, "b=T")
    assert not partial.correct and not partial.format_ok
    assert not check_assignment(formula, "a=F, b=T, c=F, d=T").correct  # invented variables
    assert not check_assignment(formula, "a=maybe").format_ok


def test_unsat_claims_are_re_solved() -> None:
    assert check_unsat_claim("p & ~p").correct
    wrong = check_unsat_claim("(p | q) & ~p")
    assert not wrong.correct and "q=T" in wrong.reason
    assert verify_sat_answer("p & ~p", "UNSAT").correct
    assert verify_sat_answer("p & q", "p=T, q=T").correct
    assert not verify_sat_answer("p & q", "unsatisfiable").correct


def test_unknown_is_never_credited() -> None:
    # pigeonhole 9 -> 8 is hard for resolution; a 1 ms budget cannot prove it
    holes, pigeons = 8, 9
    clauses = [" | ".join(f"x{p}_{h}" for h in range(holes)) for p in range(pigeons)]
    clauses += [
        f"(~x{p}_{h} | ~x{q}_{h})"
        for h in range(holes)
        for p in range(pigeons)
        for q in range(p + 1, pigeons)
    ]
    formula = " & ".join(f"({c})" for c in clauses)
    verdict = check_unsat_claim(formula, timeout_ms=1)
    assert not verdict.correct
    assert verdict.error == "timeout"
    assert satisfiable(formula, timeout_ms=1).holds is None


def test_verify_equivalent_formula() -> None:
    assert verify_equivalent_formula("p -> q", "¬p ∨ q").correct
    verdict = verify_equivalent_formula("p -> q", "q -> p")
    assert not verdict.correct and "differ" in verdict.reason
    assert not verify_equivalent_formula("p -> q", "p -> ").format_ok
