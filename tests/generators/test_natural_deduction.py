"""natural_deduction: prover output checks, single-step corruptions are named, any proof counts,
eigenvariable and scope violations fail, pathological input is bounded, feedback names the step."""

from __future__ import annotations

import itertools
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Difficulty, Task
from palaestra.envs.feedback import FeedbackEnv
from palaestra.generators.formal import natural_deduction
from palaestra.generators.formal.natural_deduction import (
    ATOMS,
    canonical_form,
    corrupt_citation,
    corrupt_formula,
    parse_formula,
    render,
)
from palaestra.registry import get, make_task, verify

FAMILY = "natural_deduction"
IMPL = get(FAMILY).impl
_FIRST = re.compile(r"^line (\d+):")


def wrap(lines: list[str]) -> str:
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


def sequent_task(premises: list[str], conclusion: str) -> Task:
    """A hand-made task: the verifier reads only the premises and conclusion."""
    return Task(
        family=FAMILY,
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs={}),
        seed=0,
        prompt="",
        answer="",
        metadata={"premises": premises, "conclusion": conclusion, "first_order": True},
    )


def holds(f: tuple, row: dict[str, bool]) -> bool:
    """An independent truth-table evaluator (propositional formulas only)."""
    tag = f[0]
    if tag == "A":
        return row[f[1]]
    if tag == "F":
        return False
    if tag == "N":
        return not holds(f[1], row)
    a, b = holds(f[1], row), holds(f[2], row)
    return a and b if tag == "&" else a or b if tag == "|" else (not a) or b


def entails(premises: list[tuple], conclusion: tuple, atoms: tuple[str, ...]) -> bool:
    rows = [
        dict(zip(atoms, bits, strict=True)) for bits in itertools.product((False, True), repeat=len(atoms))
    ]
    return all(holds(conclusion, r) for r in rows if all(holds(p, r) for p in premises))


def padded(f: tuple) -> bool:
    """A binary connective with two equal sides somewhere in ``f`` (A ∧ A, A → A, ...)."""
    if f[0] in ("&", "|", ">"):
        return f[1] == f[2] or padded(f[1]) or padded(f[2])
    return f[0] in ("N", "all", "ex") and padded(f[1])


# --------------------------------------------------------------------------------------------
# Generated tasks: every reference proof checks, mutations fail, validity cross-checked
# --------------------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_every_generated_proof_checks(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response
    formulas = [parse_formula(p) for p in [*task.metadata["premises"], task.metadata["conclusion"]]]
    assert not any(padded(f) for f in formulas), formulas
    assert len(task.metadata["distractors"]) == task.knobs["distractors"]
    assert set(task.metadata["distractors"]) <= set(task.metadata["premises"])
    if not task.metadata["first_order"]:
        premises = [parse_formula(p) for p in task.metadata["premises"]]
        conclusion = parse_formula(task.metadata["conclusion"])
        atoms = ATOMS[: task.knobs["atoms"]]
        rows = [
            dict(zip(atoms, bits, strict=True))
            for bits in itertools.product((False, True), repeat=len(atoms))
        ]
        models = [r for r in rows if all(holds(p, r) for p in premises)]
        assert models, "the premises must be satisfiable"
        assert all(holds(conclusion, r) for r in models), "the sequent must be valid"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 9), data=st.data())
def test_random_single_step_corruptions_name_the_step(seed: int, level: int, data) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    lines = task.answer.split("\n")
    k = data.draw(st.integers(0, len(lines) - 1))
    kind = data.draw(st.sampled_from(["citation", "formula", "rule"]))
    if kind == "citation":
        bad = corrupt_citation(lines[k])
    elif kind == "formula":
        bad = corrupt_formula(lines[k])
    else:
        head, rule, cites = re.match(r"^(.*) \[(\S+)(.*)\]$", lines[k]).groups()
        bad = f"{head} [{'∨I' if rule == '∧I' else '∧I'}{cites}]"
    verdict = verify(task, wrap(lines[:k] + [bad] + lines[k + 1 :]))
    assert not verdict.correct and verdict.format_ok and verdict.error is None, verdict
    named = _FIRST.match(verdict.reason)
    assert named, verdict.reason
    if kind == "formula":
        assert k + 1 <= int(named[1]) <= len(lines)  # the line itself or the first one that uses it
    else:
        assert int(named[1]) == k + 1, verdict.reason


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([3, 4, 5, 8]))
def test_distractors_are_not_needed_and_cannot_replace_a_needed_premise(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert not task.metadata["first_order"] and task.knobs["distractors"] >= 1
    distractors = [parse_formula(p) for p in task.metadata["distractors"]]
    needed = [parse_formula(p) for p in task.metadata["premises"] if p not in task.metadata["distractors"]]
    conclusion = parse_formula(task.metadata["conclusion"])
    atoms = ATOMS[: task.knobs["atoms"]]
    assert entails(needed, conclusion, atoms), "the needed premises alone entail the conclusion"
    for k in range(len(needed)):
        rest = needed[:k] + needed[k + 1 :] + distractors
        assert not entails(rest, conclusion, atoms), f"premise {render(needed[k])} is not needed"


def test_canonical_hash_ignores_renaming_of_atoms() -> None:
    a = [parse_formula("P → (Q ∧ R)"), parse_formula("¬R ∨ S")]
    b = [parse_formula("¬Q ∨ S"), parse_formula("R → (P ∧ Q)")]  # P->R, Q->P, R->Q; premises swapped
    assert canonical_form(a, parse_formula("P → S")) == canonical_form(b, parse_formula("R → S"))
    assert canonical_form(a, parse_formula("P → S")) != canonical_form(a, parse_formula("S → P"))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_render_parse_round_trip(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    for text in [*task.metadata["premises"], task.metadata["conclusion"]]:
        f = parse_formula(text)
        assert render(f) == text and parse_formula(render(f)) == f


# --------------------------------------------------------------------------------------------
# Hand-written proofs: several valid ones pass, wrong ones fail at the named line
# --------------------------------------------------------------------------------------------

MODUS_TOLLENS = sequent_task(["P → Q", "¬Q"], "¬P")


def test_two_different_valid_proofs_of_modus_tollens_pass() -> None:
    intuitionistic = [
        "1. P → Q [premise]",
        "2. ¬Q [premise]",
        "3. | P [assume]",
        "4. | Q [→E 1, 3]",
        "5. | ⊥ [¬E 4, 2]",
        "6. ¬P [¬I 3-5]",
    ]
    classical = [
        "1. ¬Q [premise]",
        "2. P → Q [premise]",
        "3. | ¬¬P [assume]",
        "4. | P [¬¬E 3]",
        "5. | Q [→E 2, 4]",
        "6. | ⊥ [¬E 1, 5]",
        "7. ¬P [RAA 3-6]",
    ]
    ascii_variant = [  # ASCII connectives, bars before the number, rule aliases, a separator line
        "1: P -> Q [Premise]",
        "2: ~Q [premise]",
        "| 3. P [Assumption]",
        "|----",
        "| 4. Q [MP 1,3]",
        "| 5. Q [R 4]",
        "| 6. _|_ [~E 2, 5]",
        "7) ~P [~I 3 – 6]",
    ]
    for proof in (intuitionistic, classical, ascii_variant):
        verdict = IMPL.verify(MODUS_TOLLENS, wrap(proof))
        assert verdict.correct, (proof, verdict.reason)
    fenced = "Proof:\n<answer>\n```\n" + "\n".join(intuitionistic) + "\n```\n</answer>"
    assert IMPL.verify(MODUS_TOLLENS, fenced).correct


def test_wrong_proofs_fail_at_the_named_line() -> None:
    good = ["1. P → Q [premise]", "2. ¬Q [premise]", "3. | P [assume]", "4. | Q [→E 1, 3]"]
    wrong = [
        # the subproof is never closed: the conclusion sits inside it
        ("line 6", good + ["5. | ⊥ [¬E 4, 2]", "6. | ¬P [¬I 3-5]"]),
        # cites a line inside a closed subproof
        ("line 6", good + ["5. | ⊥ [¬E 4, 2]", "6. Q [R 4]", "7. ¬P [¬I 3-5]"]),
        # →E with the wrong minor premise
        ("line 3", ["1. P → Q [premise]", "2. ¬Q [premise]", "3. ¬P [→E 1, 2]"]),
        # not a premise of this sequent
        ("line 2", ["1. P → Q [premise]", "2. Q [premise]"]),
        # ¬I from a subproof that does not end in ⊥
        ("line 5", good + ["5. ¬P [¬I 3-4]"]),
        # a line with bars but no open subproof
        ("line 1", ["1. | P → Q [premise]"]),
    ]
    for where, proof in wrong:
        verdict = IMPL.verify(MODUS_TOLLENS, wrap(proof))
        assert not verdict.correct and verdict.reason.startswith(where + ":"), (where, verdict.reason)
    unfinished = IMPL.verify(MODUS_TOLLENS, wrap(good + ["5. | ⊥ [¬E 4, 2]"]))
    assert not unfinished.correct and "line 5" in unfinished.reason
    ends_elsewhere = IMPL.verify(MODUS_TOLLENS, wrap(["1. P → Q [premise]"]))
    assert not ends_elsewhere.correct and "not the conclusion" in ends_elsewhere.reason


def test_classical_and_disjunction_proofs() -> None:
    lem = sequent_task([], "P ∨ ¬P")
    proof = [
        "1. | ~(P | ~P) [assume]",
        "2. | | P [assume]",
        "3. | | P | ~P [|I 2]",
        "4. | | _|_ [~E 3, 1]",
        "5. | ~P [~I 2-4]",
        "6. | P | ~P [|I 5]",
        "7. | _|_ [~E 6, 1]",
        "8. P | ~P [RAA 1-7]",
    ]
    assert IMPL.verify(lem, wrap(proof)).correct
    commute = sequent_task(["P ∨ Q"], "Q ∨ P")
    proof = [
        "1. P ∨ Q [premise]",
        "2. | P [assume]",
        "3. | Q ∨ P [∨I 2]",
        "4. | Q [assume]",
        "5. | Q ∨ P [∨I 4]",
        "6. Q ∨ P [∨E 1, 4-5, 2-3]",
    ]
    assert IMPL.verify(commute, wrap(proof)).correct
    wrong_side = proof[:5] + ["6. Q ∨ P [∨E 1, 2-3, 2-3]"]
    verdict = IMPL.verify(commute, wrap(wrong_side))
    assert not verdict.correct and verdict.reason.startswith("line 6:")


def test_first_order_rules_and_eigenvariable_conditions() -> None:
    task = sequent_task(["∀x (P(x) → Q(x))", "∃x P(x)"], "∃x Q(x)")
    proof = [
        "1. ∀x (P(x) → Q(x)) [premise]",
        "2. ∃x P(x) [premise]",
        "3. | P(c) [assume]",
        "4. | P(c) → Q(c) [∀E 1]",
        "5. | Q(c) [→E 4, 3]",
        "6. | ∃y Q(y) [∃I 5]",  # bound variables may be renamed
        "7. exists z Q(z) [exists E 2, 3-6]",
    ]
    assert IMPL.verify(task, wrap(proof)).correct
    assert IMPL.verify(task, wrap([line.replace("(c)", "(d)") for line in proof])).correct
    spelled = [  # ASCII quantifiers, a dotted and a parenthesised prefix, rule aliases
        "1. forall x. (P(x) -> Q(x)) [premise]",
        "2. (exists x) P(x) [premise]",
        "3. | P(a) [assume]",
        "4. | P(a) -> Q(a) [UI 1]",
        "5. | Q(a) [MP 4, 3]",
        "6. | exists y Q(y) [EG 5]",
        "7. ∃x Q(x) [EI 2, 3-6]",
    ]
    assert IMPL.verify(task, wrap(spelled)).correct
    # the eigenvariable escapes into the conclusion of ∃E
    escaped = proof[:5] + ["6. Q(c) [∃E 2, 3-5]", "7. ∃x Q(x) [∃I 6]"]
    verdict = IMPL.verify(task, wrap(escaped))
    assert not verdict.correct and verdict.reason.startswith("line 6:") and "c" in verdict.reason

    generalise = sequent_task(["∃x P(x)"], "∀x P(x)")
    bogus = ["1. ∃x P(x) [premise]", "2. | P(a) [assume]", "3. | ∀x P(x) [∀I 2]", "4. ∀x P(x) [∃E 1, 2-3]"]
    verdict = IMPL.verify(generalise, wrap(bogus))
    assert (
        not verdict.correct and verdict.reason.startswith("line 3:") and "open assumption" in verdict.reason
    )

    from_premise = sequent_task(["P(a)"], "∀x P(x)")
    verdict = IMPL.verify(from_premise, wrap(["1. P(a) [premise]", "2. ∀x P(x) [∀I 1]"]))
    assert not verdict.correct and verdict.reason.startswith("line 2:") and "premise" in verdict.reason

    swap = sequent_task(["∀x ∀y R(x, y)"], "∀y ∀x R(x, y)")
    proof = [
        "1. ∀x ∀y R(x, y) [premise]",
        "2. ∀y R(b, y) [∀E 1]",
        "3. R(b, a) [∀E 2]",
        "4. ∀x R(x, a) [∀I 3]",
        "5. ∀y ∀x R(x, y) [∀I 4]",
    ]
    assert IMPL.verify(swap, wrap(proof)).correct
    wrong_instance = proof[:2] + ["3. R(a, b) [∀E 2]"]
    verdict = IMPL.verify(swap, wrap(wrong_instance))
    assert not verdict.correct and verdict.reason.startswith("line 3:")


def test_format_errors_name_the_line() -> None:
    cases = [
        ["1. P → Q [premise]", "2. ¬Q"],  # no justification
        ["1. P → Q [premise]", "3. ¬Q [premise]"],  # numbering
        ["1. P → Q [premise]", "2. ¬Q [teleport 1]"],  # unknown rule
        ["1. P → Q [premise]", "2. (¬Q [premise]"],  # unbalanced parenthesis
        ["1. P(x) [premise]"],  # free variable
    ]
    for proof in cases:
        verdict = IMPL.verify(MODUS_TOLLENS, wrap(proof))
        assert not verdict.format_ok and not verdict.correct, proof
        assert verdict.reason.startswith(f"line {len(proof)}:"), verdict.reason
    assert not IMPL.verify(MODUS_TOLLENS, "P -> Q, so not P").format_ok


def test_pathological_submissions_are_bounded() -> None:
    task = make_task(FAMILY, seed=3, level=5)
    too_long = wrap([f"{k}. P [premise]" for k in range(1, 400)])
    deep = wrap(["1. " + "¬" * 10_000 + "P [premise]"])
    parens = wrap(["1. " + "(" * 3000 + "P" + ")" * 3000 + " [premise]"])
    wide = wrap(["1. " + " ∧ ".join(["P"] * 2000) + " [premise]"])
    huge_cite = wrap(["1. P [R " + "9" * 5000 + "]"])
    nested_not = wrap(["1. " + "¬" * 100 + "P [premise]"])  # short, but nested past the cap
    nested_parens = wrap(["1. " + "(" * 150 + "P" + ")" * 150 + " [premise]"])
    for response in (too_long, deep, parens, wide, huge_cite, nested_not, nested_parens):
        verdict = verify(task, response)
        assert not verdict.correct and not verdict.format_ok and verdict.error is None, verdict
    # a long but well-formed proof of many steps is checked in full, still not correct
    many = ["1. P → Q [premise]", "2. ¬Q [premise]"] + [f"{k}. ¬Q [R {k - 1}]" for k in range(3, 300)]
    verdict = IMPL.verify(MODUS_TOLLENS, wrap(many))
    assert not verdict.correct and verdict.format_ok and "not the conclusion" in verdict.reason


def test_a_check_past_its_time_limit_is_a_verifier_error(monkeypatch) -> None:
    task = make_task(FAMILY, seed=4, level=3)
    monkeypatch.setattr(natural_deduction, "VERIFY_SECONDS", -1.0)  # every check is already late
    verdict = verify(task, IMPL.reference_response(task))
    assert verdict.error == "timeout" and not verdict.correct
    monkeypatch.undo()
    assert verify(task, IMPL.reference_response(task)).correct


def test_feedback_env_returns_the_first_failing_step() -> None:
    env = FeedbackEnv(FAMILY, level=4, max_attempts=2)
    env.reset(seed=5)
    task = env.task
    lines = task.answer.split("\n")
    k = len(lines) // 2
    broken = lines[:k] + [corrupt_citation(lines[k])] + lines[k + 1 :]
    observation, reward, terminated, truncated, info = env.step(wrap(broken))
    assert observation.startswith(f"Incorrect: line {k + 1}:") and reward == 0.0
    assert not terminated and not truncated
    observation, reward, terminated, truncated, info = env.step(IMPL.reference_response(task))
    assert observation == "correct" and reward == 1.0 and terminated and not truncated


# --------------------------------------------------------------------------------------------
# Independent cross-checks: z3 on first-order validity, truth tables on every accepted line
# --------------------------------------------------------------------------------------------


def to_z3(f: tuple, sort, preds: dict, names: dict, bound: list):
    import z3

    tag = f[0]
    if tag == "A":
        args = [bound[-1 - t] if isinstance(t, int) else names.setdefault(t, z3.Const(t, sort)) for t in f[2]]
        if f[1] not in preds:
            preds[f[1]] = z3.Function(f[1], *([sort] * len(args)), z3.BoolSort())
        return preds[f[1]](*args)
    if tag == "F":
        return z3.BoolVal(False)
    if tag == "N":
        return z3.Not(to_z3(f[1], sort, preds, names, bound))
    if tag in ("&", "|", ">"):
        a, b = (to_z3(g, sort, preds, names, bound) for g in f[1:])
        return z3.And(a, b) if tag == "&" else z3.Or(a, b) if tag == "|" else z3.Implies(a, b)
    var = z3.Const(f"v{len(bound)}", sort)
    body = to_z3(f[1], sort, preds, names, [*bound, var])
    return z3.ForAll([var], body) if tag == "all" else z3.Exists([var], body)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([6, 7, 8, 10]))
def test_first_order_sequents_are_valid_according_to_z3(seed: int, level: int) -> None:
    import z3

    task = make_task(FAMILY, seed=seed, level=level)
    sort = z3.DeclareSort("D")
    preds: dict = {}
    names: dict = {}
    solver = z3.Solver()
    solver.set("timeout", 10_000)
    for p in task.metadata["premises"]:
        if p not in task.metadata["distractors"]:  # valid without them, so valid with them
            solver.add(to_z3(parse_formula(p), sort, preds, names, []))
    solver.add(z3.Not(to_z3(parse_formula(task.metadata["conclusion"]), sort, preds, names, [])))
    assert solver.check() != z3.sat, "z3 found a countermodel"


def accepted_lines_are_sound(premises: list[str], text: str) -> None:
    """Every line of an accepted propositional proof follows (truth tables) from the premises
    stated before it and the assumptions open at it."""
    from palaestra.generators.formal.natural_deduction import parse_proof

    lines, _ = parse_proof(text)
    assert lines is not None
    rows = [
        dict(zip(ATOMS, bits, strict=True)) for bits in itertools.product((False, True), repeat=len(ATOMS))
    ]
    stack: list[tuple] = []
    stated: list[tuple] = []
    for line in lines:
        if line.rule == "assume":
            del stack[line.depth - 1 :]
            stack.append(line.formula)
        else:
            del stack[line.depth :]
        if line.rule == "premise":
            stated.append(line.formula)
        context = stated + stack
        assert all(holds(line.formula, r) for r in rows if all(holds(g, r) for g in context)), line


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 5), data=st.data())
def test_whatever_the_checker_accepts_is_sound(seed: int, level: int, data) -> None:
    """Random edits to real proofs: the checker rejects most; any it accepts must be sound."""
    task = make_task(FAMILY, seed=seed, level=level)
    lines = task.answer.split("\n")
    formulas = [re.match(r"^\d+\. (?:\| )*(.*) \[", line)[1] for line in lines]
    for _ in range(6):
        k = data.draw(st.integers(0, len(lines) - 1))
        head, body, just = re.match(r"^(\d+\. (?:\| )*)(.*) (\[.*\])$", lines[k]).groups()
        edit = data.draw(st.sampled_from(["formula", "cite", "rule", "depth"]))
        if edit == "formula":
            body = data.draw(st.sampled_from(formulas + ["⊥", "P", "¬P", "Q ∨ ¬Q"]))
        elif edit == "cite":
            cite = str(data.draw(st.integers(1, len(lines))))
            just = re.sub(r"\d+", cite, just, count=1)
        elif edit == "rule":
            rule = data.draw(
                st.sampled_from(["R", "∧I", "∧E", "∨I", "→E", "¬E", "⊥E", "¬¬E", "premise", "assume"])
            )
            just = re.sub(r"^\[[^\s\]]+", "[" + rule, just)
        else:
            head = head + "| " if data.draw(st.booleans()) else head.replace("| ", "", 1)
        lines = lines[:k] + [f"{head}{body} {just}"] + lines[k + 1 :]
        verdict = verify(task, wrap(lines))
        if verdict.correct or verdict.reason.startswith("line") and verdict.format_ok:
            # the accepted prefix (everything before the named line) must be sound
            upto = len(lines) if verdict.correct else int(_FIRST.match(verdict.reason)[1]) - 1
            if upto:
                accepted_lines_are_sound(task.metadata["premises"], "\n".join(lines[:upto]))


def test_a_long_justification_is_refused_in_linear_time() -> None:
    import time

    task = make_task(FAMILY, seed=1, level=2)
    started = time.process_time()
    verdict = verify(task, "<answer>\n1. P [premise" + " 1" * 9_000 + "x]\n</answer>")  # 4.8 s before
    assert not verdict.correct and time.process_time() - started < 0.5
