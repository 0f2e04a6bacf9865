"""equational_proof: every generated proof checks, goals hold in concrete models, single-step
corruptions are rejected naming the step, any valid chain counts, verification is bounded."""

from __future__ import annotations

import functools
import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal.equational_proof import (
    LEMMAS,
    MAX_STEPS,
    MAX_TERM_DEPTH,
    THEORIES,
    WORK_BUDGET,
    check_chain,
    goal_hash,
    positions,
    random_term,
    render_chain,
    replace_at,
    search,
)
from palaestra.registry import get, make_task, verify

FAMILY = "equational_proof"
IMPL = get(FAMILY).impl
GROUP, RING, BOOLEAN = THEORIES["group"], THEORIES["ring"], THEORIES["boolean"]


def wrap(text: str) -> str:
    return f"<answer>\n{text}\n</answer>"


# ---- independent semantics: the goals hold in concrete models of each theory -----------------

S4 = list(itertools.permutations(range(4)))


def evaluate(t, theory: str, env: dict):
    """The value of a term in a model: permutations of 4 points, integers mod 12, or bits."""
    if isinstance(t, str):
        return env[t]
    op, args = t[0], [evaluate(u, theory, env) for u in t[1:]]
    if theory == "group":
        if op == "e":
            return tuple(range(4))
        if op == "*":  # composition: (p*q)(i) = p(q(i))
            return tuple(args[0][i] for i in args[1])
        inverse = [0] * 4
        for i, j in enumerate(args[0]):
            inverse[j] = i
        return tuple(inverse)
    table = {
        "ring": {"0": 0, "1": 1, "+": lambda a, b: (a + b) % 12, "*": lambda a, b: a * b % 12},
        "boolean": {"0": 0, "1": 1, "or": lambda a, b: a | b, "and": lambda a, b: a & b},
    }[theory]
    if op in ("neg", "not"):
        return (-args[0]) % 12 if op == "neg" else 1 - args[0]
    return table[op] if not args else table[op](*args)


def holds_in_models(task) -> bool:
    meta = task.metadata
    theory = THEORIES[meta["theory"]]
    lhs, rhs = theory.parse(meta["lhs"]), theory.parse(meta["rhs"])
    rng = np.random.default_rng(0)
    names = ["a", "b", "c", "d"]
    if meta["theory"] == "boolean":
        envs = [dict(zip(names, bits, strict=True)) for bits in itertools.product((0, 1), repeat=4)]
    elif meta["theory"] == "ring":
        envs = [{n: int(rng.integers(12)) for n in names} for _ in range(40)]
    else:
        envs = [{n: S4[int(rng.integers(24))] for n in names} for _ in range(40)]
    return all(evaluate(lhs, meta["theory"], e) == evaluate(rhs, meta["theory"], e) for e in envs)


def test_the_models_separate_unequal_terms() -> None:
    # the semantic check is not vacuous: non-theorems fail in these models
    assert evaluate(GROUP.parse("a*b"), "group", {"a": S4[1], "b": S4[2]}) != evaluate(
        GROUP.parse("b*a"), "group", {"a": S4[1], "b": S4[2]}
    )
    assert evaluate(RING.parse("a + a"), "ring", {"a": 1}) != evaluate(RING.parse("a"), "ring", {"a": 1})
    assert evaluate(BOOLEAN.parse("a ∧ ¬b"), "boolean", {"a": 1, "b": 0}) != 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 7))
def test_every_generated_proof_checks_and_the_goal_is_true(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    assert meta["lhs"] != meta["rhs"]
    assert meta["proof_steps"] >= get(FAMILY).levels[level].min_steps
    assert holds_in_models(task)
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    weak = IMPL.solve_weak(task).response
    assert weak is None or verify(task, weak).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


def test_no_goal_is_trivial_at_level_one() -> None:
    # a rewrite can leave a term unchanged (a + a by R2): such a walk must not become a goal
    for seed in range(150):
        task = make_task(FAMILY, seed=seed, level=1)
        assert task.metadata["lhs"] != task.metadata["rhs"] and task.metadata["proof_steps"] == 1


def test_level_ten_goals_hold_and_check() -> None:
    for seed in range(3):
        task = make_task(FAMILY, seed=seed, level=10)
        assert task.metadata["proof_steps"] >= 9 and holds_in_models(task)
        assert verify(task, IMPL.reference_response(task)).correct


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(2, 6), data=st.data())
def test_random_single_step_corruptions_name_the_step(seed: int, level: int, data) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    theory = THEORIES[task.metadata["theory"]]
    lines = task.answer.split("\n")
    k = data.draw(st.integers(1, len(lines) - 1), label="step")
    term, label = lines[k].rsplit("[", 1)
    kind = data.draw(st.sampled_from(["axiom", "leaf", "drop"] if k < len(lines) - 1 else ["axiom", "leaf"]))
    if kind == "axiom":  # cite an axiom that does not justify this step
        prev = theory.parse(lines[k - 1].split("[")[0].lstrip("= "))
        cur = theory.parse(term.lstrip("= "))
        wrong = [
            r.name for r in theory.rules if not check_chain(theory, prev, cur, f"{term}[{r.name}]").correct
        ]
        bad = [f"{term}[{data.draw(st.sampled_from(wrong))}]"]
    elif kind == "leaf":  # one variable occurrence becomes a variable the goal never uses
        body = theory.parse(term.lstrip("= "))
        leaves = [p for p, u in positions(body) if isinstance(u, str)]
        if not leaves:
            return
        body = replace_at(body, data.draw(st.sampled_from(leaves)), "zz")
        bad = [f"= {theory.render(body)}   [{label}"]
    else:  # skip a term: the next citation now has to cover two rewrites
        bad = []
    verdict = verify(task, wrap("\n".join(lines[:k] + bad + lines[k + 1 :])))
    assert not verdict.correct and verdict.format_ok, verdict
    assert verdict.reason.startswith(f"step {k}:"), verdict.reason


def test_two_distinct_valid_proofs_pass() -> None:
    goal = GROUP.parse("inv(inv(a))"), GROUP.parse("a")
    right_inverse = """inv(inv(a))
    = inv(inv(a))*e              [G3 <-]
    = inv(inv(a))*(inv(a)*a)     [G4 <-]
    = (inv(inv(a))*inv(a))*a     [G1 <-]
    = e*a                        [G4]
    = a                          [G2]"""
    left_inverse = """inv(inv(a))
    = e*inv(inv(a))              [G2 <-]
    = a*inv(a)*inv(inv(a))       [G5 <-]
    = a*(inv(a)*inv(inv(a)))     [G1]
    = a*e                        [G5]
    = a                          [G3]"""
    for proof in (right_inverse, left_inverse):
        assert check_chain(GROUP, *goal, proof).correct
    # on a generated task: the reference, a chain with a detour, and the search's own proof
    task = make_task(FAMILY, seed=4, level=3)
    theory = THEORIES[task.metadata["theory"]]
    lines = task.answer.split("\n")
    unit = {"group": ("e*({t})", "G2"), "ring": ("({t}) + 0", "R3"), "boolean": ("({t}) ∨ 0", "B7")}
    shape, axiom = unit[task.metadata["theory"]]
    t1 = lines[1].split("[")[0].lstrip("= ").strip()
    detour = lines[:2] + [f"= {shape.format(t=t1)}  [{axiom} <-]", f"= {t1}  [{axiom}]"] + lines[2:]
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, wrap("\n".join(detour))).correct
    lhs, rhs = theory.parse(task.metadata["lhs"]), theory.parse(task.metadata["rhs"])
    found, _ = search(theory, lhs, rhs, task.metadata["variables"], task.metadata["max_size"] + 2, 2000)
    assert found is not None and verify(task, wrap(render_chain(theory, found))).correct


def test_classic_theorems_in_rings_and_boolean_algebras() -> None:
    times_zero = """a*0
    = a*0 + 0                       [R3 <-]
    = a*0 + (a*0 + (-(a*0)))        [R4 <-]
    = a*0 + a*0 + (-(a*0))          [R1 <-]
    = a*(0 + 0) + (-(a*0))          [R8 <-]
    = a*0 + (-(a*0))                [R3]
    = 0                             [R4]"""
    assert check_chain(RING, RING.parse("a*0"), RING.parse("0"), times_zero).correct
    idempotent = """a ∨ a = (a ∨ a) ∧ 1 [B8 <-] = (a ∨ a) ∧ (a ∨ ¬a) [B9 <-]
    = a ∨ (a ∧ ¬a) [B6 <-] = a ∨ 0 [B10] = a [B7]"""
    assert check_chain(BOOLEAN, BOOLEAN.parse("a ∨ a"), BOOLEAN.parse("a"), idempotent).correct


def test_every_derived_law_has_a_valid_proof() -> None:
    for name, proofs in LEMMAS.items():
        theory = THEORIES[name]
        for proof in proofs:
            parts = proof.split(" = ")
            lhs, rhs = theory.parse(parts[0]), theory.parse(parts[-1].split("[")[0])
            assert lhs != rhs and check_chain(theory, lhs, rhs, proof).correct, proof
    # a goal built on a law: the reference proof has to derive it from the axioms
    task = make_task(FAMILY, seed=1, level=6, theory="group", lemmas=5, steps=5, min_steps=5)
    assert task.metadata["proof_steps"] > 5 and verify(task, IMPL.reference_response(task)).correct


def test_format_variants_are_accepted() -> None:
    goal = GROUP.parse("inv(inv(a))"), GROUP.parse("a")
    ascii_ = """a^-1^-1 = (a^(-1))^-1 · e [G3, reversed] = a⁻¹⁻¹*(a⁻¹×a) [<- G4]
    = ((a^-1^-1)*(a^-1))*a [G1 ←] = e∘a [g4] = ((a)) [G2 ->]"""
    assert check_chain(GROUP, *goal, ascii_).correct
    ring = "a + (-a)*1 = a − a [R7] = 0 [R4]"  # binary minus reads a + (-a)
    assert check_chain(RING, RING.parse("a + (-a)*1"), RING.parse("0"), ring).correct
    boolean = "(a | 0) & b = a & b [B7] = b * a [B2]"
    assert check_chain(BOOLEAN, BOOLEAN.parse("(a ∨ 0) ∧ b"), BOOLEAN.parse("b ∧ a"), boolean).correct
    assert check_chain(
        BOOLEAN, BOOLEAN.parse("¬a ∨ a"), BOOLEAN.parse("1"), "~a + a = a | a' [B1] = ⊤ [B9]"
    ).correct
    # the start may be left implicit
    assert check_chain(BOOLEAN, BOOLEAN.parse("a ∨ 0"), BOOLEAN.parse("a"), "= a [B7]").correct


def test_wrong_chains_fail_with_a_reason() -> None:
    goal = BOOLEAN.parse("(a ∨ 0) ∧ b"), BOOLEAN.parse("b ∧ a")
    cases = {
        "b ∧ (a ∨ 0) = b ∧ a [B7]": "the chain must start",  # starts from the wrong term
        "(a ∨ 0) ∧ b = a ∧ b [B7]": "the chain ends with",  # stops early
        "(a ∨ 0) ∧ b = a ∧ b [B8] = b ∧ a [B2]": "step 1: no single application of B8",
        "(a ∨ 0) ∧ b = a ∧ b [B7 <-] = b ∧ a [B2]": "step 1: no single application of B7 (right to left)",
        "(a ∨ 0) ∧ b = a ∧ b [B7] = b ∧ a [B9]": "step 2:",
        "(a ∨ 0) ∧ b = a ∧ b [B7] = b ∧ a [Q2]": "step 2: there is no axiom Q2",
        "(a ∨ 0) ∧ b = b ∧ a [B2]": "step 1:",  # two rewrites in one step
    }
    for proof, reason in cases.items():
        verdict = check_chain(BOOLEAN, *goal, proof)
        assert not verdict.correct and verdict.format_ok and reason in verdict.reason, (proof, verdict)
    for proof in ("(a ∨ 0) ∧ b = a ∧ b = b ∧ a", "(a ∨ 0) ∧ b = a ∧ ∧ b [B7]", "a ∧ b", "= a ∧ b [B7 lol]"):
        verdict = check_chain(BOOLEAN, *goal, proof)
        assert not verdict.correct and not verdict.format_ok and verdict.error is None, (proof, verdict)


def test_pathological_submissions_are_bounded() -> None:
    task = make_task(FAMILY, seed=0, level=5, theory="ring")
    # every step leaves the term unchanged, so every position is searched: the work budget runs out
    big = RING.parse(" + ".join(["b*b*(b*b)", "c*c*(c*c)"] * 12) + " + (a + a)")
    text = RING.render(big)
    verdict = check_chain(RING, big, big, "\n".join([text] + [f"= {text} [R2]"] * 60))
    assert verdict.error is not None and "budget" in verdict.error and not verdict.correct
    assert verdict.reason == "the verifier gave up"
    short = "\n".join([text] + [f"= {text} [R2]"] * 20)
    assert check_chain(RING, big, big, short).correct  # the same steps within the budget are fine
    verdict = check_chain(RING, big, big, short, budget=WORK_BUDGET, time_limit_s=0.0)
    assert verdict.error is not None and "time" in verdict.error and not verdict.correct
    # size caps are format errors, not crashes
    deep = "(" * (MAX_TERM_DEPTH + 5) + "a" + ")" * (MAX_TERM_DEPTH + 5)
    long_chain = "\n".join(["a"] + ["= a [R2]"] * (MAX_STEPS + 1))
    for text in (f"= {deep} [R3]", f"= {'-' * 500}a [R3]", f"= {' + '.join('a' * 400)} [R2]", long_chain):
        verdict = verify(task, wrap(text))
        assert not verdict.format_ok and verdict.error is None, verdict


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), theory=st.sampled_from(sorted(THEORIES)), leaves=st.integers(1, 9))
def test_render_and_parse_round_trip(seed: int, theory: str, leaves: int) -> None:
    th = THEORIES[theory]
    t = random_term(th, leaves, ("a", "b", "c"), np.random.default_rng(seed))
    assert th.parse(th.render(t)) == t
    assert th.parse(f"(({th.render(t)}))") == t


def test_canonical_hash_ignores_names_and_sides() -> None:
    lhs, rhs = GROUP.parse("inv(a*b)*c"), GROUP.parse("c*e*a")
    renamed = GROUP.parse("inv(c*a)*b"), GROUP.parse("b*e*c")
    assert goal_hash(GROUP, lhs, rhs) == goal_hash(GROUP, *renamed) == goal_hash(GROUP, rhs, lhs)
    assert goal_hash(GROUP, lhs, rhs) != goal_hash(GROUP, lhs, GROUP.parse("c*e*b"))


def test_weak_solver_fades_with_level() -> None:
    low = [IMPL.solve_weak(make_task(FAMILY, seed=s, level=1)).response for s in range(6)]
    high = [IMPL.solve_weak(make_task(FAMILY, seed=s, level=8)).response for s in range(3)]
    assert all(r is not None for r in low) and all(r is None for r in high)


def test_feedback_names_the_failing_step_then_accepts_the_fix() -> None:
    from palaestra.envs.feedback import FeedbackEnv

    env = FeedbackEnv(FAMILY, level=4, max_attempts=2)
    env.reset(seed=5)
    lines = env.task.answer.split("\n")
    broken = lines[:2] + [lines[2].rsplit("[", 1)[0] + "[Z1]"] + lines[3:]
    observation, reward, terminated, truncated, _ = env.step(wrap("\n".join(broken)))
    assert "step 2: there is no axiom Z1" in observation and not terminated and not truncated
    observation, reward, terminated, truncated, _ = env.step(IMPL.reference_response(env.task))
    assert terminated and reward == 1.0


@functools.cache
def _cached_task(seed: int, level: int):
    return make_task(FAMILY, seed=seed, level=level)


FUZZ_ALPHABET = list("abcxyz01()*+-=[]<>~!|&¬∨∧'⁻¹^ GRB0123456789\n") + ["inv(", "[G1]", "[R2 <-]", " = "]


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2),
    level=st.sampled_from([2, 6]),
    edits=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(FUZZ_ALPHABET)), min_size=1, max_size=4),
)
def test_garbled_proofs_never_crash_the_checker(seed: int, level: int, edits) -> None:
    task = _cached_task(seed, level)
    text = task.answer
    for where, piece in edits:
        k = where % (len(text) + 1)
        text = text[:k] + piece + text[k:]
    verdict = verify(task, wrap(text))
    assert verdict.error is None, verdict


def test_a_long_run_of_spaces_in_a_step_is_refused_in_linear_time() -> None:
    import time

    task = make_task(FAMILY, seed=1, level=2)
    first = IMPL.solve_exact(task).response.split("\n")[1]
    started = time.process_time()
    verdict = verify(task, f"<answer>\n{first}\n= a [B1]" + " " * 19_000 + "x\n</answer>")  # 1.2 s before
    assert not verdict.correct and time.process_time() - started < 0.5
