"""pratt_certificate: generated certificates check, corruptions are caught with the line named."""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import make_rng
from palaestra.generators.formal import pratt_certificate as P
from palaestra.generators.formal.pratt_certificate import check_certificate, parse_certificate
from palaestra.registry import get, make_task, verify

FAMILY = "pratt_certificate"
IMPL = get(FAMILY).impl


def wrap(lines: list[str]) -> str:
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_generated_certificates_check_and_p_is_prime(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    p = int(task.metadata["p"])
    assert sympy.isprime(p) and len(str(p)) == task.knobs["digits"]
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(2, 8), data=st.data())
def test_single_line_corruptions_are_rejected_naming_the_line(seed: int, level: int, data) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    lines = task.answer.split("\n")
    k = data.draw(st.integers(0, len(lines) - 1))
    prime = int(lines[k].split(":")[0])
    a = int(lines[k].split("a=")[1].split(";")[0])
    kind = data.draw(st.sampled_from(["witness", "factor", "exponent"]))
    if kind == "witness":
        # a non-primitive root: a square (a^2) never generates the group of an odd prime
        bad = lines[k].replace(f"a={a};", f"a={a * a % prime};", 1)
    elif kind == "factor":
        bad = lines[k] + " * 3"
    else:
        head, factors = lines[k].split("p-1 = ")
        first, *rest = factors.split(" * ")
        q, _, e = first.partition("^")
        bad = head + "p-1 = " + " * ".join([f"{q}^{int(e or 1) + 1}", *rest])
    corrupted = lines[:k] + [bad] + lines[k + 1 :]
    verdict = verify(task, wrap(corrupted))
    assert not verdict.correct
    assert verdict.format_ok and f"line {prime}:" in verdict.reason, verdict.reason


def test_two_distinct_witnesses_both_pass() -> None:
    task = make_task(FAMILY, seed=3, level=5)
    p = int(task.metadata["p"])
    lines = task.answer.split("\n")
    a = int(lines[0].split("a=")[1].split(";")[0])
    roots = [r for r in range(2, 200) if sympy.is_primitive_root(r, p) and r != a]
    other = lines[0].replace(f"a={a};", f"a={roots[0]};", 1)
    assert verify(task, wrap(lines)).correct
    assert verify(task, wrap([other, *lines[1:]])).correct
    assert verify(task, wrap(list(reversed(lines)) + ["2: prime"])).correct  # any order, 2 optional


def test_unsound_certificates_fail() -> None:
    # 561 = 3·11·17 is a Carmichael number: a^560 ≡ 1 for every a coprime to it
    claims, _ = parse_certificate(
        "561: a=2; p-1 = 2^4 * 5 * 7\n5: a=2; p-1 = 2^2\n7: a=3; p-1 = 2 * 3\n3: a=2; p-1 = 2"
    )
    assert claims is not None and check_certificate(561, claims) is not None
    # a factorisation with a composite factor and no line for it
    claims, _ = parse_certificate("13: a=2; p-1 = 4 * 3\n3: a=2; p-1 = 2")
    assert claims is not None and "4" in (check_certificate(13, claims) or "")
    claims, _ = parse_certificate("13: a=2; p-1 = 2^2 * 3\n3: a=2; p-1 = 2")
    assert claims is not None and check_certificate(13, claims) is None


def test_pathological_submissions_are_bounded_format_errors() -> None:
    task = make_task(FAMILY, seed=2, level=10)
    p = int(task.metadata["p"])
    for response in (
        wrap([f"{p}: a={'9' * 5000}; p-1 = 2"]),
        wrap([f"{p}: a=3; p-1 = 2^99999999"]),
        wrap([f"{k}: a=2; p-1 = 2" for k in range(3, 3000)]),
    ):
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None
    verdict = verify(task, wrap([f"{p}: a=3; p-1 = 2^9999"]))
    assert not verdict.correct and verdict.error is None


def _candidate(rng: np.random.Generator, low: int, high: int) -> int:
    """One small-prime candidate, drawn as the generator's stream defines it: one call per candidate."""
    a, b = (int(w) for w in rng.integers(0, 2**63, size=2))
    return low + ((a << 63) | b) % (high - low)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32), digits=st.integers(1, 4), factor_digits=st.integers(1, 3), warm=st.booleans()
)
def test_block_drawn_small_primes_match_one_draw_at_a_time(
    seed: int, digits: int, factor_digits: int, warm: bool
) -> None:
    """Same prime and same generator state after it as drawing one candidate per call."""
    low, high = max(3, 10 ** (digits - 1)), 10**digits
    one_at_a_time, blocked = make_rng("pratt-draws", seed, 0), make_rng("pratt-draws", seed, 0)
    if warm:  # a 32-bit draw leaves half a word buffered in the generator: it must survive
        one_at_a_time.integers(0, 10, dtype=np.int32)
        blocked.integers(0, 10, dtype=np.int32)
    while True:
        expected = _candidate(one_at_a_time, low, high)
        if sympy.isprime(expected) and max(P._small_factor(expected - 1)) < 10**factor_digits:
            break
    assert P._small_prime(blocked, low, high, 10**factor_digits) == expected
    assert blocked.bit_generator.state == one_at_a_time.bit_generator.state
    assert blocked.random() == one_at_a_time.random()


def test_a_long_run_of_spaces_is_refused_in_linear_time() -> None:
    import time

    started = time.process_time()
    parsed, _ = parse_certificate("7: a = 3; p - 1 = 2 * 3" + " " * 19_000 + "x")  # 2.5 s before
    assert parsed is None and time.process_time() - started < 0.5
