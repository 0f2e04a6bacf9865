"""Systems of simultaneous congruences x = a_i (mod m_i) (Chinese remainder theorem).

The answer is the least non-negative solution, or "no solution" when the moduli are not coprime
and the congruences contradict each other. The reference solver merges the congruences one at a
time with the extended Euclidean algorithm (effort = Euclid steps), which handles non-coprime
moduli exactly; the weak solver sieves x = 0, 1, 2, ... with a fixed budget.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract, is_no_solution
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import read_integer, unwrap_math

NO_SOLUTION = "no solution"
WEAK_BUDGET = 3000
_UNKNOWN = re.compile(r"^x\s*(?:=|≡|\\equiv|is)\s*", re.IGNORECASE)
_MODULO = re.compile(r"\\pmod|\\bmod|\\mod(?![a-z])|\bmod(?:ulo)?\b", re.IGNORECASE)


@dataclass(frozen=True)
class ChineseRemainderKnobs(Knobs):
    equations: int = knob(2, low=2, high=8, help="number of congruences")
    max_modulus: int = knob(10, low=5, high=10**9, help="largest modulus")
    coprime: bool = knob(True, help="pairwise coprime moduli (otherwise some share a factor)")
    inconsistent_share: float = knob(
        0.0, low=0.0, high=1.0, help="with non-coprime moduli: probability the system has no solution"
    )


LEVELS = {
    1: ChineseRemainderKnobs(equations=2, max_modulus=10),
    2: ChineseRemainderKnobs(equations=2, max_modulus=20),
    3: ChineseRemainderKnobs(equations=3, max_modulus=30),
    4: ChineseRemainderKnobs(equations=3, max_modulus=60, coprime=False, inconsistent_share=0.3),
    5: ChineseRemainderKnobs(equations=4, max_modulus=100),
    6: ChineseRemainderKnobs(equations=4, max_modulus=300, coprime=False, inconsistent_share=0.3),
    7: ChineseRemainderKnobs(equations=4, max_modulus=1000),
    8: ChineseRemainderKnobs(equations=5, max_modulus=3000, coprime=False, inconsistent_share=0.3),
    9: ChineseRemainderKnobs(equations=5, max_modulus=10**5, coprime=False, inconsistent_share=0.3),
    10: ChineseRemainderKnobs(equations=6, max_modulus=10**6, coprime=False, inconsistent_share=0.3),
}


# --------------------------------------------------------------------------------------------
# Exact solver
# --------------------------------------------------------------------------------------------


def extended_gcd(a: int, b: int) -> tuple[int, int, int, int]:
    """(g, s, t, steps) with s*a + t*b = g = gcd(a, b)."""
    old_r, r, old_s, s, old_t, t, steps = a, b, 1, 0, 0, 1, 0
    while r:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
        old_t, t = t, old_t - q * t
        steps += 1
    return old_r, old_s, old_t, steps


def solve_system(residues: list[int], moduli: list[int]) -> tuple[int | None, int, int]:
    """(least non-negative solution or None, lcm of the moduli, Euclid steps)."""
    x, m, steps = 0, 1, 0
    for a, n in zip(residues, moduli, strict=True):
        g, s, _, k = extended_gcd(m, n)
        steps += k + 1
        if (a - x) % g:
            return None, math.lcm(*moduli), steps
        lcm = m // g * n
        x = (x + m * ((a - x) // g * s % (n // g))) % lcm
        m = lcm
    return x, m, steps


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def _draw_moduli(knobs: ChineseRemainderKnobs, rng: np.random.Generator) -> list[int] | None:
    low = max(2, knobs.max_modulus // 4)
    moduli: list[int] = []
    for _ in range(200 * knobs.equations):
        m = int(rng.integers(low, knobs.max_modulus + 1))
        if any(m % n == 0 or n % m == 0 for n in moduli):
            continue  # a modulus dividing another makes one congruence redundant
        if knobs.coprime and any(math.gcd(m, n) > 1 for n in moduli):
            continue
        moduli.append(m)
        if len(moduli) == knobs.equations:
            break
    if len(moduli) < knobs.equations:
        return None
    if not knobs.coprime and all(math.gcd(a, b) == 1 for i, a in enumerate(moduli) for b in moduli[i + 1 :]):
        return None
    return moduli


def draw(knobs: ChineseRemainderKnobs, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    for _ in range(1000):
        moduli = _draw_moduli(knobs, rng)
        if moduli is None:
            continue
        lcm = math.lcm(*moduli)
        x = int(rng.integers(0, lcm)) if lcm < 2**62 else int(rng.integers(0, 2**62)) * lcm // 2**62
        residues = [x % m for m in moduli]
        if not knobs.coprime and rng.random() < knobs.inconsistent_share:
            i = int(rng.integers(len(moduli)))
            residues[i] = (residues[i] + int(rng.integers(1, moduli[i]))) % moduli[i]
            if solve_system(residues, moduli)[0] is not None:
                continue  # the nudge happened to stay consistent: draw again
            return residues, moduli
        # degenerate: the answer is one of the residues, or zero (a guess that needs no work)
        if x in residues or x == 0:
            continue
        return residues, moduli
    raise RuntimeError(f"could not draw a congruence system for {knobs}")


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT = """Find the least non-negative integer x that satisfies all of these congruences:

{system}

If no integer satisfies them all, answer "no solution". Otherwise give x, for example \
<answer>1234</answer> (writing "x = 1234" or "1234 (mod N)" with N the lcm of the moduli is also fine)."""


def parse_congruence(text: str) -> tuple[int | Verdict, int | None] | None:
    """``x = 23``, ``23``, ``x ≡ 23 (mod 60)``, ``23 \\pmod{60}`` -> (23, 60 or None).

    The solution is read by the shared number reader (a non-integer comes back as a wrong
    verdict); ``None`` when the text is not one congruence.
    """
    body = _UNKNOWN.sub("", unwrap_math(text), count=1)
    modulus: int | None = None
    if mod := _MODULO.search(body):
        suffix = body[mod.end() :].strip().removesuffix(")").strip()
        if suffix.startswith("{") and suffix.endswith("}"):
            suffix = suffix[1:-1]
        read = read_integer(suffix)
        if not isinstance(read, int) or read <= 0:
            return None
        modulus, body = read, body[: mod.start()].strip().removesuffix("(").strip()
    x = read_integer(body)
    if isinstance(x, Verdict) and not x.format_ok:
        return None
    return x, modulus


@family(
    "chinese_remainder",
    domain="arithmetic",
    knobs=ChineseRemainderKnobs,
    levels=LEVELS,
    description="Systems of congruences: the least non-negative solution, or 'no solution'.",
    verifier_kind="exact value",
)
class ChineseRemainder(Family):
    def generate(self, knobs: ChineseRemainderKnobs, rng: np.random.Generator) -> TaskDraft:
        residues, moduli = draw(knobs, rng)
        x, lcm, steps = solve_system(residues, moduli)
        system = "\n".join(f"x ≡ {a} (mod {m})" for a, m in zip(residues, moduli, strict=True))
        pairs = sorted(zip(moduli, residues, strict=True))
        metadata = {
            "residues": residues,
            "moduli": moduli,
            "lcm": str(lcm),
            "solvable": x is not None,
            "euclid_steps": steps,
            "canonical_hash": content_hash([[m, a] for m, a in pairs]),
        }
        answer = NO_SOLUTION if x is None else str(x)
        return TaskDraft(prompt=PROMPT.format(system=system), answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        if is_no_solution(text):
            if task.answer == NO_SOLUTION:
                return Verdict.right(parsed=NO_SOLUTION)
            return Verdict.wrong("the system does have a solution", parsed=NO_SOLUTION)
        parsed = parse_congruence(text)
        if parsed is None:
            return Verdict.bad_format(f"could not read {text[:60]!r} as an integer or 'no solution'")
        x, modulus = parsed
        if isinstance(x, Verdict):
            return x  # a number that is not an integer
        if task.answer == NO_SOLUTION:
            return Verdict.wrong("the congruences have no common solution", parsed=x)
        if modulus is not None and modulus != int(task.metadata["lcm"]):
            return Verdict.wrong(f"solutions repeat modulo {task.metadata['lcm']}, not {modulus}", parsed=x)
        if x == int(task.answer):
            return Verdict.right(parsed=x)
        residues, moduli = task.metadata["residues"], task.metadata["moduli"]
        if all(x % m == a for a, m in zip(residues, moduli, strict=True)):
            return Verdict.wrong(
                f"{x} satisfies the system but is not the least non-negative solution", parsed=x
            )
        return Verdict.wrong(f"{x} does not satisfy every congruence", parsed=x)

    def solve_exact(self, task: Task) -> SolverRun:
        x, _, steps = solve_system(task.metadata["residues"], task.metadata["moduli"])
        answer = NO_SOLUTION if x is None else str(x)
        return SolverRun(response=f"<answer>{answer}</answer>", effort=float(steps))

    def solve_weak(self, task: Task) -> SolverRun:
        # sieve: try x = 0, 1, 2, ... up to a budget; it can only say "no solution" if the
        # whole period fits in the budget
        residues, moduli = task.metadata["residues"], task.metadata["moduli"]
        lcm = int(task.metadata["lcm"])
        for x in range(min(WEAK_BUDGET, lcm)):
            if all(x % m == a for a, m in zip(residues, moduli, strict=True)):
                return SolverRun(response=f"<answer>{x}</answer>", effort=float(x + 1))
        if lcm <= WEAK_BUDGET:
            return SolverRun(response=f"<answer>{NO_SOLUTION}</answer>", effort=float(lcm))
        return SolverRun(response=None, effort=float(WEAK_BUDGET))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        lcm = int(task.metadata["lcm"])
        residues = task.metadata["residues"]
        if task.answer == NO_SOLUTION:
            guesses = [residues[0], residues[-1] + 1, 0, lcm]
            return [f"<answer>{g}</answer>" for g in dict.fromkeys(guesses)] + ["<answer>x = 1</answer>"]
        x = int(task.answer)
        return [
            f"<answer>{x + 1}</answer>",
            f"<answer>{x + lcm}</answer>",
            f"<answer>{NO_SOLUTION}</answer>",
            f"<answer>{x} (mod {lcm + 1})</answer>",
            f"<answer>{(x - 1) % lcm}</answer>",
        ]
