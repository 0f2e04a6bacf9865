"""Pratt primality certificates: prove that p is prime by a witness and the factorisation of p-1,
recursively for every odd prime factor.

Primes are built bottom-up with a known factorisation of p-1 (``p = 2·q1·q2···+1`` over primes
that were themselves built the same way, kept when ``sympy.isprime`` agrees), so generation
never factors anything hard. The verifier parses one line per odd prime with its own scanner
(numbers capped in length, at most a few hundred lines) and checks Pratt's theorem exactly:
the listed factors multiply to p-1, a^(p-1) ≡ 1 (mod p), a^((p-1)/q) ≢ 1 for every listed
prime q, and every q is 2 or has its own valid line. Many certificates are valid (any
primitive root works as the witness); all are accepted. Exact solver: recursive
``sympy.factorint`` plus the smallest primitive root (effort: modular exponentiations and
factoring work); weak solver: trial division up to 1000 and witnesses below 20.
Level 5 generates at several hundred tasks/s, level 10 at about 4 tasks/s (one core).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import sympy

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_LINES = 400
POOL_DRAWS = 16
MAX_DIGITS = 80
DRAW_BLOCK = 16  # small-prime candidates drawn per numpy call (about 8 are needed on average)
_LINE = re.compile(
    r"^\s*(?P<p>\d{1,80})\s*:\s*(?:a|g|witness)\s*=\s*(?P<a>\d{1,80})\s*[;,]\s*"
    r"(?:p|\d{1,80})\s*[-\u2212]\s*1\s*=\s*(?P<factors>[\d\s^*·×.]+)$"  # greedy on a stripped line: linear
)
_TWO = re.compile(r"^\s*2\s*:\s*(?:prime|base|base case)?\s*$", re.I)
_FACTOR = re.compile(r"^(\d{1,80})(?:\s*\^\s*(\d{1,4}))?$")


@dataclass(frozen=True)
class PrattKnobs(Knobs):
    digits: int = knob(3, low=2, high=40, help="decimal digits of the prime p")
    # 10 at most: 12-digit factors of a 40-digit p-1 took 6 s to draw, 16 ran past 30 s (issue 27)
    factor_digits: int = knob(2, low=1, high=10, help="at most this many digits in each prime factor of p-1")

    def validate(self) -> None:
        if self.factor_digits >= self.digits:
            raise ValueError("factor_digits must be smaller than digits")


# From level 3 on, primes have at least 9 digits and p-1 factors of up to 4 digits: there are
# only ~1,000 four-digit and ~8,000 five-digit primes, so 2,000 tasks at those sizes repeated
# (74% and 89% duplicates in v1). p-1 multiplies factors from a pool of 16 drawn primes (6 in v1).
LEVELS = {
    1: PrattKnobs(digits=2, factor_digits=1),
    2: PrattKnobs(digits=3, factor_digits=1),
    3: PrattKnobs(digits=9, factor_digits=4),
    4: PrattKnobs(digits=10, factor_digits=4),
    5: PrattKnobs(digits=11, factor_digits=5),
    6: PrattKnobs(digits=12, factor_digits=5),
    7: PrattKnobs(digits=13, factor_digits=6),
    8: PrattKnobs(digits=15, factor_digits=6),
    9: PrattKnobs(digits=17, factor_digits=7),
    10: PrattKnobs(digits=20, factor_digits=8),
}

Tree = dict[int, dict[int, int]]  # prime -> factorisation of prime-1


def _small_factor(n: int) -> dict[int, int]:
    out: dict[int, int] = {}
    d = 2
    while d * d <= n:
        while n % d == 0:
            out[d] = out.get(d, 0) + 1
            n //= d
        d += 1
    if n > 1:
        out[n] = out.get(n, 0) + 1
    return out


def _small_prime(rng: np.random.Generator, low: int, high: int, factor_bound: int) -> int:
    """The first uniform candidate in [low, high) that is prime with every factor of p-1 below
    ``factor_bound``; a candidate is ``low + ((a << 63) | b) % span`` for two words a, b of
    ``rng.integers(0, 2**63)``, drawn one candidate at a time (the stream every task rests on).

    Smooth p-1 is rare (tens of thousands of candidates per level-10 task), so candidates are
    drawn a block per numpy call; then the generator is rewound and advanced past exactly the
    candidates used. Each 63-bit word costs one 64-bit draw (no rejection for a power-of-two
    range), so the stream, and every task, is the same as with one call per candidate
    (``tests/generators/test_pratt_certificate.py`` checks this)."""
    span = high - low
    if span.bit_length() > 64:  # two 63-bit words per candidate would not be uniform enough
        raise ValueError(f"span {span} too wide for two-word candidates")
    bits = rng.bit_generator
    while True:
        saved = bits.state
        # integers(0, 2**63) is one raw 64-bit draw shifted right by one: read them directly
        words = (bits.random_raw(2 * DRAW_BLOCK) >> 1).tolist()
        for i in range(DRAW_BLOCK):
            p = low + ((words[2 * i] << 63) | words[2 * i + 1]) % span
            if sympy.isprime(p) and max(_small_factor(p - 1)) < factor_bound:
                bits.state = saved
                bits.random_raw(2 * (i + 1))
                return p


def build_prime(rng: np.random.Generator, digits: int, factor_digits: int, tree: Tree) -> int:
    """A random prime with ``digits`` digits whose p-1 has factors of at most ``factor_digits``
    digits; records every factorisation it used in ``tree``."""
    low, high = 10 ** (digits - 1), 10**digits
    if digits <= 4:
        p = _small_prime(rng, max(3, low), high, 10**factor_digits)
        _record(p, _small_factor(p - 1), tree)
        return p
    # a pool of factor primes, built once; attempts then only multiply from it (v2: 16 drawn
    # primes, not 6: products of 6 repeated too often to give 2,000 distinct p)
    pool = [2, 3, 5, 7, 11, 13]
    for _ in range(POOL_DRAWS):
        d = int(rng.integers(2, factor_digits + 1)) if factor_digits > 1 else 1
        if d > 1:
            pool.append(build_prime(rng, d, max(1, min(d - 1, factor_digits - 1)), tree))
    big = [q for q in pool if q > 13] or pool
    for _ in range(20_000):
        factors: dict[int, int] = {2: 1}
        m = 2
        while m * 2 < low:
            # mostly large factors, so p-1 really needs the big ones
            choices = big if rng.random() < 0.7 else pool
            q = int(choices[int(rng.integers(len(choices)))])
            factors[q] = factors.get(q, 0) + 1
            m *= q
        if low <= m + 1 < high and sympy.isprime(m + 1):
            _record(m + 1, factors, tree)
            return m + 1
    raise RuntimeError(f"could not build a {digits}-digit prime")


def _record(p: int, factors: dict[int, int], tree: Tree) -> None:
    tree[p] = dict(factors)
    for q in factors:
        if q != 2 and q not in tree:
            _record(q, _small_factor(q - 1), tree)  # small primes: trial division is instant


def witness(p: int, factors: dict[int, int]) -> tuple[int, int]:
    """The smallest primitive root of p and the number of modular exponentiations spent."""
    if p == 2:
        return 1, 0
    spent = 0
    for a in range(2, p):
        spent += 1 + len(factors)
        if pow(a, p - 1, p) == 1 and all(pow(a, (p - 1) // q, p) != 1 for q in factors):
            return a, spent
    raise ValueError(f"{p} has no primitive root: not prime")


def certificate_lines(root: int, tree: Tree) -> tuple[list[str], int]:
    """Lines from the root down (each odd prime once) and the exponentiations spent."""
    lines: list[str] = []
    spent = 0
    seen: set[int] = set()
    stack = [root]
    while stack:
        p = stack.pop()
        if p == 2 or p in seen:
            continue
        seen.add(p)
        a, cost = witness(p, tree[p])
        spent += cost
        product = " * ".join(f"{q}^{e}" if e > 1 else f"{q}" for q, e in sorted(tree[p].items()))
        lines.append(f"{p}: a={a}; p-1 = {product}")
        stack.extend(sorted(tree[p], reverse=True))
    return lines, spent


def parse_certificate(text: str) -> tuple[dict[int, tuple[int, dict[int, int]]] | None, str]:
    lines = [line for line in re.split(r"[\n\r]+", text) if line.strip()]
    if len(lines) > MAX_LINES:
        return None, f"more than {MAX_LINES} lines"
    claims: dict[int, tuple[int, dict[int, int]]] = {}
    for line in lines:
        line = line.strip().strip("`").strip()
        if _TWO.match(line):
            continue
        match = _LINE.match(line)
        if not match:
            return None, f"cannot read the line {line[:60]!r} (expected 'p: a=W; p-1 = q1^e1 * q2 ...')"
        p, a = int(match["p"]), int(match["a"])
        factors: dict[int, int] = {}
        for part in re.split(r"[*·×]", match["factors"]):
            fm = _FACTOR.match(part.strip())
            if not fm:
                return None, f"cannot read the factor {part.strip()[:30]!r} in the line for {p}"
            q, e = int(fm[1]), int(fm[2] or 1)
            if e < 1:
                return None, f"exponent 0 in the line for {p}"
            factors[q] = factors.get(q, 0) + e
        if p in claims:
            return None, f"two lines for {p}"
        claims[p] = (a, factors)
    if not claims:
        return None, "no certificate lines"
    return claims, ""


def check_certificate(p: int, claims: dict[int, tuple[int, dict[int, int]]]) -> str | None:
    """None when every line is valid and p is certified; else the first problem found."""
    for prime in sorted(claims):
        a, factors = claims[prime]
        if prime < 3:
            return f"line {prime}: only odd primes above 2 need lines"
        product = 1
        for q, e in factors.items():
            if q < 2:
                return f"line {prime}: factor {q} is not a prime"
            if e > prime.bit_length():
                return f"line {prime}: exponent {e} of {q} is too large"
            product *= q**e
            if product > prime:
                break
        if product != prime - 1:
            return f"line {prime}: the factors do not multiply to {prime}-1"
        if not 1 < a < prime:
            return f"line {prime}: the witness must satisfy 1 < a < {prime}"
        if pow(a, prime - 1, prime) != 1:
            return f"line {prime}: {a}^({prime}-1) is not 1 mod {prime}"
        for q in sorted(factors):
            if pow(a, (prime - 1) // q, prime) == 1:
                return f"line {prime}: {a}^(({prime}-1)/{q}) is 1 mod {prime}"
            if q != 2 and q not in claims:
                return f"line {prime}: factor {q} has no certificate line"
    if p not in claims:
        return f"no line for {p} itself"
    return None  # each line only refers to smaller primes, so the recursion is well founded


PROMPT = """Prove that p = {p} is prime with a Pratt certificate.

Pratt's theorem: p is prime if there is a witness a with a^(p-1) ≡ 1 (mod p) and \
a^((p-1)/q) ≢ 1 (mod p) for every prime q dividing p-1. The certificate must then also prove \
that each such q is prime, recursively, down to 2 (which needs no line).

Write one line for p and one for every odd prime appearing in any factorisation, each in the \
form "prime: a=witness; p-1 = factorisation", with the complete prime factorisation of prime-1 \
(powers as q^e). Every line must be valid. Any valid certificate is accepted (any suitable \
witness). Example of the format for 7:
<answer>
7: a=3; p-1 = 2 * 3
3: a=2; p-1 = 2
</answer>"""


@family(
    "pratt_certificate",
    version=2,  # v2: levels 3-7 use larger primes (fewer than 1% duplicates among 2,000 tasks)
    domain="formal",
    knobs=PrattKnobs,
    levels=LEVELS,
    description="Write a Pratt primality certificate (witness + factorisation of p-1, recursively).",
    verifier_kind="recursive certificate check (any valid certificate)",
)
class PrattCertificate(Family):
    def generate(self, knobs: PrattKnobs, rng: np.random.Generator) -> TaskDraft:
        tree: Tree = {}
        p = build_prime(rng, knobs.digits, knobs.factor_digits, tree)
        lines, spent = certificate_lines(p, tree)
        return TaskDraft(
            prompt=PROMPT.format(p=p),
            answer="\n".join(lines),
            metadata={
                "p": str(p),  # big ints stay exact as text
                "certificate_lines": len(lines),
                "exponentiations": spent,
                "largest_factor": str(max(tree[p])),
                "canonical_hash": content_hash(str(p)),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        claims, why = parse_certificate(extraction.text)
        if claims is None:
            return Verdict.bad_format(why)
        problem = check_certificate(int(task.metadata["p"]), claims)
        shown = {str(k): v[0] for k, v in claims.items()}
        if problem is not None:
            return Verdict.wrong(problem, parsed=shown)
        return Verdict.right(parsed=shown)

    def solve_exact(self, task: Task) -> SolverRun:
        p = int(task.metadata["p"])
        tree: Tree = {}
        stack, work = [p], 0
        while stack:
            q = stack.pop()
            if q == 2 or q in tree:
                continue
            tree[q] = {int(k): int(v) for k, v in sympy.factorint(q - 1).items()}
            work += (q - 1).bit_length()  # factoring work, roughly the size of what is factored
            stack.extend(tree[q])
        lines, spent = certificate_lines(p, tree)
        return SolverRun("<answer>\n" + "\n".join(lines) + "\n</answer>", float(work + spent))

    def solve_weak(self, task: Task) -> SolverRun:
        p = int(task.metadata["p"])
        tree: Tree = {}
        stack, steps = [p], 0
        while stack:
            q = stack.pop()
            if q == 2 or q in tree:
                continue
            factors, rest, d = {}, q - 1, 2
            while d <= 1000 and rest > 1:
                steps += 1
                while rest % d == 0:
                    factors[d] = factors.get(d, 0) + 1
                    rest //= d
                d += 1
            if rest > 1:
                if rest > 1000 * 1000:
                    return SolverRun(None, float(steps))  # cofactor too big to know it is prime
                factors[rest] = factors.get(rest, 0) + 1
            tree[q] = factors
            stack.extend(factors)
        for q, factors in tree.items():
            if not any(
                pow(a, q - 1, q) == 1 and all(pow(a, (q - 1) // f, q) != 1 for f in factors)
                for a in range(2, 20)
            ):
                return SolverRun(None, float(steps))
        lines, _ = certificate_lines(p, tree)
        return SolverRun("<answer>\n" + "\n".join(lines) + "\n</answer>", float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        lines = task.answer.split("\n")
        p = int(task.metadata["p"])
        head = lines[0]
        a = int(head.split("a=")[1].split(";")[0])
        out = []
        # a witness that is not a primitive root: 1 is excluded, p-1 has order 2
        out.append("\n".join([head.replace(f"a={a};", f"a={p - 1};", 1), *lines[1:]]))
        # a wrong factorisation: one extra factor 2
        out.append("\n".join([head + " * 2", *lines[1:]]))
        # a missing sub-certificate (or, with none, a line for p-2 claimed prime)
        if len(lines) > 1:
            out.append("\n".join(lines[:-1]))
        else:
            out.append("\n".join([head, f"{p - 2}: a=2; p-1 = {p - 3}"]))
        out.append("\n".join(lines[1:]) or "3: a=2; p-1 = 2")  # no line for p itself
        return [f"<answer>\n{text}\n</answer>" for text in out]
