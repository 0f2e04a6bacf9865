"""Elementary number theory with one integer answer: gcd, lcm, modular powers and inverses,
totients, divisor counts, multiplicative orders and discrete logarithms.

Every question defines its answer uniquely: the residue of a modular power or inverse in
0..m-1, the smallest positive order, the smallest non-negative exponent of a discrete
logarithm. The generator computes each answer with its own integer algorithms (Euclid,
square-and-multiply, trial division, the order from the factorised totient, baby-step
giant-step); the tests check every answer against sympy's number theory. Any exact notation of
the integer is accepted (``1,024``, ``1024.0``); a congruent integer outside the stated range is
wrong.

Difficulty: the numbers grow from two digits to nine (totients and divisor counts of numbers with
two digits more), and more kinds are drawn from (in the
order gcd, lcm, power, inverse, totient, divisors, order, discrete log). Gcd and lcm operands
share a planted common factor, inverses and orders use coprime pairs, and orders and logarithms
avoid the trivial values. The exact solver's effort counts the steps of those algorithms; the
weak solver uses the naive method of each question (counting up, multiplying step by step,
trying every candidate) with a budget of 200 steps, so it fails as the numbers grow.

Generation: ~13,000 tasks per CPU-second at level 5 and ~2,100 at level 10 (trial division up to
the square root of an 11-digit number).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, isqrt

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import tagged, verify_number
from palaestra.registry import Family, SolverRun, TaskDraft, family

KINDS = ("gcd", "lcm", "power", "inverse", "totient", "divisors", "order", "discrete_log")
NAIVE_BUDGET = 200


@dataclass(frozen=True)
class NumberTheoryKnobs(Knobs):
    digits: int = knob(2, low=2, high=9, help="digits of the numbers")
    kinds: int = knob(3, low=1, high=len(KINDS), help=f"how many kinds are drawn from, in order {KINDS}")


LEVELS = {
    1: NumberTheoryKnobs(digits=2, kinds=3),
    2: NumberTheoryKnobs(digits=2, kinds=4),
    3: NumberTheoryKnobs(digits=3, kinds=5),
    4: NumberTheoryKnobs(digits=3, kinds=6),
    5: NumberTheoryKnobs(digits=4, kinds=7),
    6: NumberTheoryKnobs(digits=5, kinds=8),
    7: NumberTheoryKnobs(digits=6, kinds=8),
    8: NumberTheoryKnobs(digits=7, kinds=8),
    9: NumberTheoryKnobs(digits=8, kinds=8),
    10: NumberTheoryKnobs(digits=9, kinds=8),
}


# --------------------------------------------------------------------------------------------
# The generator's integer algorithms, each counting its steps
# --------------------------------------------------------------------------------------------


def euclid(a: int, b: int) -> tuple[int, int]:
    """gcd(a, b) and the number of division steps."""
    steps = 0
    while b:
        a, b = b, a % b
        steps += 1
    return a, steps


def inverse(a: int, m: int) -> tuple[int, int]:
    """a^-1 mod m (gcd(a, m) = 1) by the extended Euclidean algorithm, and its steps."""
    old_r, r, old_s, s, steps = a, m, 1, 0, 0
    while r:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
        steps += 1
    return old_s % m, steps


def power(a: int, e: int, m: int) -> tuple[int, int]:
    """a^e mod m by square-and-multiply, and its multiplications."""
    result, base, steps = 1 % m, a % m, 0
    while e:
        if e & 1:
            result = result * base % m
            steps += 1
        base = base * base % m
        e >>= 1
        steps += 1
    return result, steps


def factorise(n: int) -> tuple[dict[int, int], int]:
    """Prime factorisation by trial division, and the divisions tried."""
    factors: dict[int, int] = {}
    steps, p = 0, 2
    while p * p <= n:
        steps += 1
        while n % p == 0:
            factors[p] = factors.get(p, 0) + 1
            n //= p
        p += 1 if p == 2 else 2
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    return factors, steps


def totient(n: int) -> tuple[int, int]:
    factors, steps = factorise(n)
    result = n
    for p in factors:
        result -= result // p
    return result, steps


def divisor_count(n: int) -> tuple[int, int]:
    factors, steps = factorise(n)
    count = 1
    for e in factors.values():
        count *= e + 1
    return count, steps


def order(a: int, m: int) -> tuple[int, int]:
    """The multiplicative order of a mod m: start from phi(m) and divide out every prime
    factor while a^(k/p) is still 1."""
    k, steps = totient(m)
    factors, more = factorise(k)
    steps += more
    for p in factors:
        while k % p == 0:
            value, cost = power(a, k // p, m)
            steps += cost
            if value != 1:
                break
            k //= p
    return k, steps


def discrete_log(g: int, h: int, p: int) -> tuple[int | None, int]:
    """The smallest x >= 0 with g^x = h (mod p), by baby-step giant-step, and its steps."""
    n = isqrt(p - 1) + 1
    table: dict[int, int] = {}
    value = 1
    for j in range(n):
        table.setdefault(value, j)
        value = value * g % p
    factor, _ = power(inverse(g, p)[0], n, p)
    gamma = h % p
    for i in range(n + 1):
        if gamma in table:
            return i * n + table[gamma], n + i
        gamma = gamma * factor % p
    return None, 2 * n


def is_prime(n: int) -> bool:
    return n > 1 and factorise(n)[0] == {n: 1}


# --------------------------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------------------------


@dataclass
class Question:
    kind: str
    text: str
    answer: int
    steps: int
    naive_steps: int  # steps of the naive method (the weak solver's)
    params: dict


def _number(rng: np.random.Generator, digits: int) -> int:
    return int(rng.integers(10 ** (digits - 1), 10**digits))


def draw_question(kind: str, rng: np.random.Generator, digits: int) -> Question | None:
    if kind in ("gcd", "lcm"):
        g = int(rng.integers(2, 10 ** max(1, digits // 2) + 1))
        x, y = (max(2, _number(rng, digits) // g) for _ in range(2))
        a, b = g * x, g * y
        if a == b:
            return None
        d, steps = euclid(a, b)
        if kind == "gcd":
            text = f"What is the greatest common divisor of {a} and {b}?"
            return Question(kind, text, d, steps, min(a, b) // d, {"a": a, "b": b})
        text = f"What is the least common multiple of {a} and {b}?"
        return Question(kind, text, a // d * b, steps + 2, a * b // d // max(a, b), {"a": a, "b": b})
    if kind == "power":
        m = _number(rng, digits)
        a = int(rng.integers(2, m))
        e = int(rng.integers(2, 10 ** max(1, digits - 1) * 5))
        value, steps = power(a, e, m)
        text = f"What is {a}^{e} mod {m}, that is, the remainder of {a} to the power {e} divided by {m} (an integer from 0 to {m - 1})?"
        return Question(kind, text, value, steps, e, {"a": a, "e": e, "m": m})
    if kind == "inverse":
        m = _number(rng, digits)
        a = int(rng.integers(2, m))
        if gcd(a, m) != 1:
            return None
        value, steps = inverse(a, m)
        text = f"What is the inverse of {a} modulo {m}, that is, the integer x from 1 to {m - 1} with {a}x = 1 (mod {m})?"
        return Question(kind, text, value, steps, value, {"a": a, "m": m})
    if kind == "totient":
        n = _number(rng, digits + 2)
        value, steps = totient(n)
        text = f"What is Euler's totient of {n}, that is, how many integers from 1 to {n} are coprime to {n}?"
        return Question(kind, text, value, steps, n, {"n": n})
    if kind == "divisors":
        n = _number(rng, digits + 2)
        value, steps = divisor_count(n)
        if value < 4:
            return None
        text = f"How many positive divisors does {n} have (counting 1 and {n})?"
        return Question(kind, text, value, steps, n, {"n": n})
    if kind == "order":
        m = _number(rng, min(digits, 7))
        a = int(rng.integers(2, m))
        if gcd(a, m) != 1:
            return None
        value, steps = order(a, m)
        if value < 3:
            return None
        text = f"What is the multiplicative order of {a} modulo {m}, that is, the smallest positive integer k with {a}^k = 1 (mod {m})?"
        return Question(kind, text, value, steps, value, {"a": a, "m": m})
    # discrete_log: a prime modulus, an exponent planted below p - 1
    p = _number(rng, min(digits, 7))
    if not is_prime(p):
        return None
    g = int(rng.integers(2, p - 1))
    x = int(rng.integers(2, p - 1))
    h, _ = power(g, x, p)
    value, steps = discrete_log(g, h, p)
    if value is None or value < 2:
        return None
    text = f"What is the smallest non-negative integer x with {g}^x = {h} (mod {p})? ({p} is prime.)"
    return Question(kind, text, value, steps, value, {"g": g, "h": h, "p": p})


PROMPT = """{question}

Answer with one integer. Put the final answer in <answer>...</answer>."""


@family(
    "number_theory",
    domain="math",
    knobs=NumberTheoryKnobs,
    levels=LEVELS,
    description="gcd, lcm, modular powers and inverses, totients, divisor counts, multiplicative orders, discrete logs.",
    verifier_kind="exact value",
)
class NumberTheory(Family):
    def generate(self, knobs: NumberTheoryKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(10_000):
            kind = KINDS[int(rng.integers(knobs.kinds))]
            question = draw_question(kind, rng, knobs.digits)
            if question is not None:
                break
        else:  # pragma: no cover - primes and coprime pairs are common
            raise RuntimeError(f"could not draw a number theory question for {knobs}")
        metadata = {
            "kind": kind,
            "params": question.params,
            "steps": question.steps,
            "naive_steps": question.naive_steps,
            "canonical_hash": content_hash([kind, question.params]),
        }
        return TaskDraft(
            prompt=PROMPT.format(question=question.text), answer=str(question.answer), metadata=metadata
        )

    def verify(self, task: Task, response: str) -> Verdict:
        return verify_number(response, int(task.answer))

    def solve_exact(self, task: Task) -> SolverRun:
        # the generator's algorithms; effort = their steps (divisions, multiplications, lookups)
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["steps"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # the naive method (count up, multiply step by step, try every candidate), 200 steps at most
        naive = task.metadata["naive_steps"]
        if naive > NAIVE_BUDGET:
            return SolverRun(response=None, effort=float(NAIVE_BUDGET))
        return SolverRun(response=tagged(task.answer), effort=float(naive))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = int(task.answer)
        params = task.metadata["params"]
        modulus = params.get("m") or params.get("p")
        wrong = [value + 1, value - 1, 2 * value]
        if modulus:
            wrong.append(value + modulus)  # congruent, but outside the stated range
        return [tagged(w) for w in dict.fromkeys(wrong) if w != value]
