"""Posterior probabilities in a small Bayesian network, exact rationals.

A random network over true/false variables (a DAG in which each variable has up to a few
parents, with a conditional probability table of rationals strictly between 0 and 1) is
stated in full; some variables are observed, and the task is the posterior probability that
a query variable is true given the observations. The reference is computed exactly with
fractions by enumerating the joint distribution (every assignment of the unobserved
variables), so the answer is unique; any exact notation of the rational is accepted, never a
rounded decimal. The tests recompute every posterior from the prompt's own text with an
independent enumeration. From level 3 on, instances whose evidence does not move the query
(posterior equal to the prior) are redrawn.

Difficulty: more variables, more parents per variable, more observed variables, finer
probabilities (tenths, then twentieths, then any denominator up to 12). The exact solver's
effort is the number of joint-table products it computes. The weak solver is naive Bayes: it
multiplies the query's prior by the likelihood of each observation given the query alone, as
if the observations were independent given the query; that is exact with one observation and
usually wrong with several.

Generation: ~1,500 tasks per CPU-second at level 5 and ~160 at level 10 (the joint table has 2^9
rows there).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import lcm

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.math._common import number_near_misses, tagged, verify_number
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.numbers import format_rational

NAMES = "ABCDEFGHI"
GRAINS = ("tenths", "twentieths", "mixed")


@dataclass(frozen=True)
class BayesKnobs(Knobs):
    variables: int = knob(3, low=3, high=len(NAMES), help="variables in the network")
    max_parents: int = knob(1, low=1, high=3, help="most parents a variable may have")
    observed: int = knob(1, low=1, high=5, help="observed variables (the evidence)")
    grain: str = knob(
        "tenths", choices=GRAINS, help="probabilities in tenths, twentieths, or any denominator up to 12"
    )
    informative: bool = knob(False, help="redraw networks whose evidence leaves the query at its prior")

    def validate(self) -> None:
        if self.observed > self.variables - 1:
            raise ValueError("observed variables must leave at least the query unobserved")


LEVELS = {
    1: BayesKnobs(variables=3, max_parents=1, observed=1, grain="tenths"),
    2: BayesKnobs(variables=4, max_parents=2, observed=1, grain="tenths"),
    3: BayesKnobs(variables=4, max_parents=2, observed=2, grain="tenths", informative=True),
    4: BayesKnobs(variables=5, max_parents=2, observed=2, grain="twentieths", informative=True),
    5: BayesKnobs(variables=5, max_parents=2, observed=3, grain="twentieths", informative=True),
    6: BayesKnobs(variables=6, max_parents=2, observed=3, grain="twentieths", informative=True),
    7: BayesKnobs(variables=6, max_parents=3, observed=3, grain="mixed", informative=True),
    8: BayesKnobs(variables=7, max_parents=3, observed=3, grain="mixed", informative=True),
    9: BayesKnobs(variables=8, max_parents=3, observed=4, grain="mixed", informative=True),
    10: BayesKnobs(variables=9, max_parents=3, observed=4, grain="mixed", informative=True),
}


@dataclass(frozen=True)
class Network:
    """Variables in topological order; ``table[v][parent values]`` = P(v true | parents).

    The probabilities are also kept as integer numerators over one common denominator, so the
    joint table is built with integer products (exact, and much faster than fractions).
    """

    parents: tuple[tuple[int, ...], ...]
    table: tuple[dict[tuple[bool, ...], Fraction], ...]

    @property
    def size(self) -> int:
        return len(self.parents)

    @property
    def denominator(self) -> int:
        return lcm(*(p.denominator for cpt in self.table for p in cpt.values()))

    def joint_table(self) -> dict[tuple[bool, ...], int]:
        """Every full assignment's probability times ``denominator ** size`` (an integer)."""
        d = self.denominator
        scaled = [{key: int(p * d) for key, p in cpt.items()} for cpt in self.table]
        rows = {}
        for values in product((True, False), repeat=self.size):
            weight = 1
            for v, parents in enumerate(self.parents):
                a = scaled[v][tuple(values[u] for u in parents)]
                weight *= a if values[v] else d - a
            rows[values] = weight
        return rows


def _probability(rng: np.random.Generator, grain: str) -> Fraction:
    if grain == "tenths":
        return Fraction(int(rng.integers(1, 10)), 10)
    if grain == "twentieths":
        return Fraction(int(rng.integers(1, 20)), 20)
    denominator = int(rng.integers(2, 13))
    return Fraction(int(rng.integers(1, denominator)), denominator)


def draw_network(knobs: BayesKnobs, rng: np.random.Generator) -> Network:
    parents, table = [], []
    for v in range(knobs.variables):
        count = int(rng.integers(0 if v < 2 else 1, min(v, knobs.max_parents) + 1)) if v else 0
        chosen = tuple(sorted(int(u) for u in rng.choice(v, size=count, replace=False))) if count else ()
        parents.append(chosen)
        table.append(
            {values: _probability(rng, knobs.grain) for values in product((True, False), repeat=count)}
        )
    return Network(tuple(parents), tuple(table))


def weight_of(rows: dict[tuple[bool, ...], int], fixed: dict[int, bool]) -> int:
    """The summed weight of the rows where the variables in ``fixed`` take those values."""
    return sum(w for values, w in rows.items() if all(values[v] == x for v, x in fixed.items()))


def posterior(rows: dict[tuple[bool, ...], int], query: int, evidence: dict[int, bool]) -> Fraction:
    """P(query | evidence) = weight(query and evidence) / weight(evidence)."""
    return Fraction(weight_of(rows, {**evidence, query: True}), weight_of(rows, evidence))


def naive_bayes(rows: dict[tuple[bool, ...], int], query: int, evidence: dict[int, bool]) -> Fraction:
    """The weak solver's answer: P(q) * prod P(e_i | q), normalised over q (exact marginals)."""
    scores = {}
    for q in (True, False):
        prior = Fraction(weight_of(rows, {query: q}))
        score = prior
        for v, value in evidence.items():
            score *= weight_of(rows, {query: q, v: value}) / prior
        scores[q] = score
    return scores[True] / (scores[True] + scores[False])


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def _literal(name: str, value: bool) -> str:
    return name if value else f"not {name}"


def describe(network: Network) -> list[str]:
    lines = []
    for v, parents in enumerate(network.parents):
        name = NAMES[v]
        if not parents:
            lines.append(f"- {name} has no parents: P({name}) = {format_rational(network.table[v][()])}.")
            continue
        entries = []
        for values, p in network.table[v].items():
            given = ", ".join(_literal(NAMES[u], x) for u, x in zip(parents, values, strict=True))
            entries.append(f"P({name} | {given}) = {format_rational(p)}")
        lines.append(
            f"- {name} depends on {', '.join(NAMES[u] for u in parents)}: " + "; ".join(entries) + "."
        )
    return lines


def evidence_text(evidence: dict[int, bool]) -> str:
    return ", ".join(f"{NAMES[v]} is {'true' if value else 'false'}" for v, value in sorted(evidence.items()))


PROMPT = """A Bayesian network over the true/false variables {names}. Each variable depends only on the variables it names; P(X | ...) is the probability that X is true given its parents' values ("not Y" means Y is false).
{tables}
Observed: {evidence}. What is the probability that {query} is true given these observations?

Give the exact probability as a fraction (for example 12/37) or an exact decimal; no rounding. Put the final answer in <answer>...</answer>."""


@family(
    "bayes",
    domain="math",
    knobs=BayesKnobs,
    levels=LEVELS,
    description="Exact posterior probabilities in a small Bayesian network, computed by enumerating the joint table.",
    verifier_kind="exact value",
)
class Bayes(Family):
    def generate(self, knobs: BayesKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(1000):
            network = draw_network(knobs, rng)
            query = int(rng.integers(knobs.variables))
            others = [v for v in range(knobs.variables) if v != query]
            observed = rng.choice(others, size=knobs.observed, replace=False)
            evidence = {int(v): bool(rng.random() < 0.5) for v in sorted(observed)}
            rows = network.joint_table()
            value = posterior(rows, query, evidence)
            prior = Fraction(weight_of(rows, {query: True}), network.denominator**network.size)
            if not knobs.informative or value != prior:
                break
        else:  # pragma: no cover - some evidence is informative on a few draws
            raise RuntimeError(f"could not draw an informative network for {knobs}")
        tables = describe(network)
        names = ", ".join(NAMES[: knobs.variables])
        prompt = PROMPT.format(
            names=names, tables="\n".join(tables), evidence=evidence_text(evidence), query=NAMES[query]
        )
        metadata = {
            "parents": [list(p) for p in network.parents],
            "tables": [
                [[list(values), format_rational(p)] for values, p in network.table[v].items()]
                for v in range(knobs.variables)
            ],
            "query": query,
            "evidence": [[v, value] for v, value in evidence.items()],
            "prior": format_rational(prior),
            "naive_bayes": format_rational(naive_bayes(rows, query, evidence)),
            "products": len(rows) * (network.size + 1),  # the joint table, then its sums
            "canonical_hash": content_hash([tables, query, sorted(evidence.items())]),
        }
        return TaskDraft(prompt=prompt, answer=format_rational(value), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        return verify_number(response, Fraction(task.answer), "the posterior probability")

    def solve_exact(self, task: Task) -> SolverRun:
        # enumeration of the joint table: effort = its products and sums
        return SolverRun(response=tagged(task.answer), effort=float(task.metadata["products"]))

    def solve_weak(self, task: Task) -> SolverRun:
        # naive Bayes: exact with one observation, usually wrong with several
        return SolverRun(
            response=tagged(task.metadata["naive_bayes"]), effort=float(2 * len(task.metadata["evidence"]))
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        value = Fraction(task.answer)
        wrong = [1 - value, Fraction(task.metadata["prior"]), Fraction(task.metadata["naive_bayes"])]
        wrong += number_near_misses(value)
        return [tagged(format_rational(w)) for w in dict.fromkeys(wrong) if w != value]
