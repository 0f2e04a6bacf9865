"""Balance chemical equations with the smallest positive integer coefficients.

Reactions are generated, not looked up: a random set of real compounds over a few shared
elements is kept when its composition matrix has a one-dimensional null space whose vector has
no zero entry; the signs of that vector split the species into reactants and products. So the
balanced equation exists and is unique up to scale, and the smallest positive integer
coefficients are unique. The verifier reads the equation in any common formatting (arrows ``->``,
``→``, ``=``; coefficient 1 omitted; unicode subscripts; or just the coefficient list in the
order shown), matches species by composition, and checks atom balance and minimality.

Version 2 added 166 real compounds (Ba, Sr, Cr, Sn, Ni, Co, Hg, B, Ti and more of the others):
with 148 compounds, five-species reactions (levels 3-5) repeated ~2% in 2,000 tasks; now ~0.4%.

Speed (CPU time, one core): rejection sampling of reactions costs ~4 ms per task at five species
and ~15 ms at seven (levels 8-10), where few random compound sets close into one reaction.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.arithmetic._common import extract
from palaestra.registry import Family, SolverRun, TaskDraft, family

COMPOUNDS = (
    "H2 O2 N2 Cl2 F2 Br2 I2 S8 P4 C Fe Cu Al Mg Zn Na K Ca Ag Pb Mn Si "
    "H2O H2O2 CO CO2 CH4 C2H6 C3H8 C4H10 C2H4 C2H2 C6H6 C6H12O6 C2H5OH CH3OH C8H18 C12H22O11 "
    "NH3 NO NO2 N2O N2O5 HNO3 NH4NO3 N2H4 NH4Cl HCN "
    "SO2 SO3 H2S H2SO4 FeS2 ZnS CuS PbS Ag2S "
    "HCl NaCl KCl CaCl2 MgCl2 AlCl3 FeCl2 FeCl3 CuCl2 ZnCl2 AgCl PbCl2 MnCl2 PCl3 PCl5 SiCl4 "
    "NaOH KOH Ca(OH)2 Mg(OH)2 Al(OH)3 Fe(OH)3 Cu(OH)2 Zn(OH)2 "
    "Na2O K2O CaO MgO Al2O3 Fe2O3 Fe3O4 FeO CuO Cu2O ZnO Ag2O PbO PbO2 MnO2 SiO2 P4O10 "
    "Na2CO3 NaHCO3 CaCO3 MgCO3 K2CO3 "
    "Na2SO4 K2SO4 CaSO4 MgSO4 Al2(SO4)3 FeSO4 Fe2(SO4)3 CuSO4 ZnSO4 PbSO4 "
    "NaNO3 KNO3 Ca(NO3)2 Mg(NO3)2 Cu(NO3)2 AgNO3 Pb(NO3)2 Zn(NO3)2 Fe(NO3)3 Al(NO3)3 "
    "H3PO4 Na3PO4 Ca3(PO4)2 K3PO4 KClO3 NaClO KMnO4 K2MnO4 MnSO4 NaF HF CaF2 SiF4 "
    "CaC2 Al4C3 Mg3N2 Li Li2O LiOH Li3N NaN3 Na2O2 KO2 NaH CaH2 "
    # version 2: more elements and compounds, so that the reactions at levels 3-5 (five species)
    # are numerous enough for duplicates under 1% in 2,000 tasks (there were ~2%)
    "Ba BaO BaO2 BaCl2 Ba(OH)2 BaCO3 BaSO4 Ba(NO3)2 BaF2 BaS BaH2 "
    "Sr SrO SrCl2 Sr(OH)2 SrCO3 SrSO4 Sr(NO3)2 "
    "Cr Cr2O3 CrO3 CrCl3 K2CrO4 K2Cr2O7 Na2CrO4 Cr2(SO4)3 "
    "Sn SnO SnO2 SnCl2 SnCl4 SnS SnS2 Ni NiO NiCl2 NiSO4 Ni(OH)2 NiS Co CoO Co3O4 CoCl2 CoS "
    "Hg HgO HgCl2 Hg2Cl2 HgS B B2O3 H3BO3 BCl3 BF3 B2H6 Na2B4O7 Ti TiO2 TiCl4 "
    "C3H6 C5H12 C6H14 C7H16 C2H4O2 CH2O2 CH2O C3H6O C2H6O2 C3H8O3 C6H12 C10H8 "
    "CH3Cl CCl4 CHCl3 CS2 COCl2 N2O3 N2O4 HNO2 NH4NO2 (NH4)2SO4 (NH4)3PO4 NH4HCO3 CO(NH2)2 NOCl "
    "SCl2 S2Cl2 SOCl2 SO2Cl2 PH3 H3PO3 POCl3 PBr3 HClO HClO4 Cl2O ClO2 NaClO3 KClO4 "
    "HBr HI NaBr KBr NaI KI AgBr AgI PbI2 CuI KIO3 "
    "FeS FeCO3 FeBr3 Fe(OH)2 FePO4 MnO Mn2O7 Mn3O4 MnCO3 Cu2S CuCO3 "
    "AlF3 AlN Al2S3 AlBr3 AlPO4 MgS MgF2 MgH2 Mg3(PO4)2 "
    "CaS CaSO3 Ca(ClO)2 CaBr2 CaI2 Ca3N2 CaSiO3 SiC SiH4 Na2SiO3 ZnCO3 ZnF2 "
    "LiCl Li2CO3 Li2SO4 LiF LiH LiNO3 LiAlH4 NaBH4 "
    "Na2S Na2SO3 Na2S2O3 NaNO2 NaHSO4 KNO2 KHCO3 K2S KH Ag2CO3 Ag2SO4 Ag3PO4 PbCO3 Pb3O4 PbBr2 Ca(HCO3)2"
).split()
ARROWS = re.compile(r"<=>|<->|⇌|-->|->|=>|→|⟶|⟹|=")  # no \s* around it: split is linear, parts are stripped
_TERM = re.compile(r"^(?P<coef>\d+)?\s*\*?\s*(?P<formula>[A-Z(\[].*)$")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_TOKEN = re.compile(r"([A-Z][a-z]?|\(|\)|\[|\]|\d+)")
ELEMENTS = frozenset(
    "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr "
    "Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm "
    "Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu".split()
)
MAX_SPECIES_TEXT = 2000
POOL_TRIES = 8  # species sets tried per element set before another element set is grown


@dataclass(frozen=True)
class ChemicalBalancingKnobs(Knobs):
    species: int = knob(3, low=3, high=8, help="number of species in the reaction")
    max_coefficient: int = knob(4, low=2, high=200, help="largest coefficient allowed")
    min_largest: int = knob(2, low=1, high=50, help="the largest coefficient is at least this")

    def validate(self) -> None:
        if self.min_largest > self.max_coefficient:
            raise ValueError("min_largest cannot exceed max_coefficient")


LEVELS = {
    1: ChemicalBalancingKnobs(species=3, max_coefficient=3, min_largest=2),
    2: ChemicalBalancingKnobs(species=4, max_coefficient=6, min_largest=2),
    # from level 3 on at least five species: four-species reactions over this compound list
    # are too few to keep duplicates under 1%
    3: ChemicalBalancingKnobs(species=5, max_coefficient=8, min_largest=3),
    4: ChemicalBalancingKnobs(species=5, max_coefficient=10, min_largest=4),
    5: ChemicalBalancingKnobs(species=5, max_coefficient=16, min_largest=5),
    6: ChemicalBalancingKnobs(species=6, max_coefficient=16, min_largest=5),
    7: ChemicalBalancingKnobs(species=6, max_coefficient=30, min_largest=6),
    8: ChemicalBalancingKnobs(species=7, max_coefficient=30, min_largest=6),
    9: ChemicalBalancingKnobs(species=7, max_coefficient=40, min_largest=6),
    10: ChemicalBalancingKnobs(species=7, max_coefficient=60, min_largest=8),
}


# --------------------------------------------------------------------------------------------
# Formulas and linear algebra
# --------------------------------------------------------------------------------------------


def parse_formula(text: str) -> Counter[str] | None:
    """``Ca(OH)2`` -> Counter({'O': 2, 'H': 2, 'Ca': 1}); ``None`` if it is not a formula."""
    text = text.translate(_SUBSCRIPTS).replace(" ", "")
    tokens = _TOKEN.findall(text)
    if not text or len(text) > 60 or "".join(tokens) != text:
        return None
    stack: list[Counter[str]] = [Counter()]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        count = 1
        if token not in "([" and i < len(tokens) and tokens[i].isdigit():
            count = int(tokens[i])
            i += 1
        if token in "([":
            stack.append(Counter())
        elif token in ")]":
            if len(stack) < 2 or not stack[-1]:
                return None
            group = stack.pop()
            for element, n in group.items():
                stack[-1][element] += n * count
        elif token.isdigit():
            return None  # a number that follows nothing
        elif token in ELEMENTS:
            stack[-1][token] += count
        else:
            return None
    if len(stack) != 1 or not stack[0] or any(n <= 0 for n in stack[0].values()):
        return None
    return stack[0]


def null_space(matrix: list[list[int]]) -> tuple[list[list[Fraction]], int]:
    """A basis of the rational null space (reduced row echelon form) and the operations spent."""
    rows = [[Fraction(x) for x in row] for row in matrix]
    n = len(rows[0]) if rows else 0
    pivots: list[int] = []
    ops = 0
    r = 0
    for c in range(n):
        pivot = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        head = rows[r][c]
        rows[r] = [x / head for x in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                factor = rows[i][c]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[r], strict=True)]
                ops += n
        pivots.append(c)
        r += 1
        if r == len(rows):
            break
    basis = []
    for free in (c for c in range(n) if c not in pivots):
        vector = [Fraction(0)] * n
        vector[free] = Fraction(1)
        for i, c in enumerate(pivots):
            vector[c] = -rows[i][free]
        basis.append(vector)
    return basis, ops


def composition_matrix(formulas: list[str]) -> tuple[list[str], list[list[int]]]:
    counts = [_COMPOSITIONS.get(f) or parse_formula(f) or Counter() for f in formulas]
    elements = sorted(set().union(*counts))
    return elements, [[c[e] for c in counts] for e in elements]


def smallest_integers(vector: list[Fraction]) -> list[int]:
    scale = math.lcm(*(x.denominator for x in vector))
    ints = [int(x * scale) for x in vector]
    g = math.gcd(*ints)
    return [x // g for x in ints]


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


_COMPOSITIONS = {f: parse_formula(f) for f in dict.fromkeys(COMPOUNDS)}
_ELEMENT_SETS = {f: frozenset(comp) for f, comp in _COMPOSITIONS.items() if comp}


@cache
def _pool(elements: frozenset[str]) -> tuple[str, ...]:
    """The compounds made only of ``elements``, in list order."""
    return tuple(f for f, own in _ELEMENT_SETS.items() if own <= elements)


def _float_precheck(matrix: list[list[int]], knobs: ChemicalBalancingKnobs) -> bool:
    """Cheap floating-point filter (rank, zero entries, coefficient spread); exact checks follow."""
    array = np.array(matrix, dtype=float)
    _, values, vt = np.linalg.svd(array)
    rank = int(np.sum(values > values[0] * max(array.shape) * np.finfo(float).eps))
    if rank != knobs.species - 1:
        return False
    vector = np.abs(vt[-1])
    return bool(vector.min() > 1e-9 and vector.max() / vector.min() <= knobs.max_coefficient + 1e-6)


def _reaction_from_pool(
    pool: tuple[str, ...], elements: frozenset[str], knobs: ChemicalBalancingKnobs, rng: np.random.Generator
) -> tuple[list[str], list[int], int] | None:
    """A few random species sets from ``pool`` (over ``elements``) tried for a unique reaction."""
    for _ in range(POOL_TRIES):
        chosen = [pool[int(i)] for i in rng.choice(len(pool), size=knobs.species, replace=False)]
        if frozenset().union(*(_ELEMENT_SETS[f] for f in chosen)) != elements:
            continue  # an element unused: the rank is too low
        _, matrix = composition_matrix(chosen)
        if not _float_precheck(matrix, knobs):
            continue
        basis, ops = null_space(matrix)
        if len(basis) != 1 or any(x == 0 for x in basis[0]):
            continue
        coefficients = smallest_integers(basis[0])
        if knobs.min_largest <= max(abs(x) for x in coefficients) <= knobs.max_coefficient:
            return chosen, coefficients, ops
    return None


def draw(
    knobs: ChemicalBalancingKnobs, rng: np.random.Generator
) -> tuple[list[str], list[str], list[int], int]:
    names = list(_ELEMENT_SETS)
    for _ in range(50_000):
        # grow an element set from random compounds to species - 1 elements: a reaction with a
        # one-dimensional null space needs exactly that many
        elements: frozenset[str] = frozenset()
        while len(elements) < knobs.species - 1:
            own = _ELEMENT_SETS[names[int(rng.integers(len(names)))]]
            if len(elements | own) <= knobs.species - 1:
                elements |= own
        pool = _pool(elements)
        if len(pool) < knobs.species:
            continue
        found = _reaction_from_pool(pool, elements, knobs, rng)
        if found is None:
            continue
        chosen, coefficients, ops = found
        sign = 1 if coefficients[0] > 0 else -1
        reactants = [(f, sign * x) for f, x in zip(chosen, coefficients, strict=True) if sign * x > 0]
        products = [(f, -sign * x) for f, x in zip(chosen, coefficients, strict=True) if sign * x < 0]
        order = sorted(reactants, key=lambda p: p[0]) + sorted(products, key=lambda p: p[0])
        left = [f for f, _ in order[: len(reactants)]]
        right = [f for f, _ in order[len(reactants) :]]
        return left, right, [x for _, x in order], ops
    raise RuntimeError(f"could not draw a reaction for {knobs}")


# --------------------------------------------------------------------------------------------
# Reading answers
# --------------------------------------------------------------------------------------------


def _side(text: str) -> list[tuple[int, Counter[str]]] | str:
    terms = []
    for raw in text.split("+"):
        raw = raw.strip().translate(_SUBSCRIPTS)
        match = _TERM.match(raw)
        if not match:
            return f"could not read the term {raw[:30]!r}"
        formula = parse_formula(re.sub(r"\((?:s|l|g|aq)\)$", "", match["formula"]))
        if formula is None:
            return f"could not read the formula {match['formula'][:30]!r}"
        terms.append((int(match["coef"] or 1), formula))
    return terms


def parse_equation(text: str, species: list[str]) -> list[int] | str:
    """Coefficients in the order of ``species`` (reactants then products), or a reason string."""
    text = text.replace("$", "").replace("\\rightarrow", "->").replace("\\to", "->").strip()
    if len(text) > MAX_SPECIES_TEXT:
        return "the answer is too long"
    if re.fullmatch(r"[0-9][0-9\s,;]*[0-9]", text) and not re.search(r"[,;]\s*[,;]", text):
        numbers = [int(x) for x in re.split(r"[\s,;]+", text)]  # at most 2000 characters
        return numbers if len(numbers) == len(species) else f"expected {len(species)} coefficients"
    sides = ARROWS.split(text)
    if len(sides) != 2:
        return "expected one arrow between reactants and products"
    parsed = [_side(s) for s in sides]
    for side in parsed:
        if isinstance(side, str):
            return side
    return [-1, -1]  # placeholder: matched against species by the caller


def match_species(
    text: str, reactants: list[str], products: list[str]
) -> tuple[list[int] | None, str | None, bool]:
    """(coefficients in species order, reason it failed, whether the format was readable)."""
    species = reactants + products
    cleaned = text.replace("$", "").replace("\\rightarrow", "->").replace("\\to", "->").strip()
    result = parse_equation(cleaned, species)
    if isinstance(result, str):
        return None, result, False
    if result != [-1, -1]:
        return result, None, True
    sides = ARROWS.split(cleaned)
    coefficients: list[int] = []
    for side_text, names in zip(sides, (reactants, products), strict=True):
        terms = _side(side_text)
        assert not isinstance(terms, str)
        wanted = [_COMPOSITIONS.get(n) or parse_formula(n) for n in names]
        found: dict[int, int] = {}
        for coef, comp in terms:
            index = next((i for i, w in enumerate(wanted) if w == comp), None)
            if index is None:
                return None, "a species is missing, extra, or on the wrong side", True
            if index in found:
                return None, "a species appears twice", True
            found[index] = coef
        if len(found) != len(names):
            return None, "a species is missing, extra, or on the wrong side", True
        coefficients += [found[i] for i in range(len(names))]
    return coefficients, None, True


def _render(names: list[str], coefficients: list[int]) -> str:
    return " + ".join(f"{c} {n}" if c != 1 else n for n, c in zip(names, coefficients, strict=True))


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


PROMPT = """Balance this chemical equation:

{equation}

Use the smallest positive integer coefficients (a coefficient of 1 may be omitted). Give the \
balanced equation, for example <answer>2 H2 + O2 -> 2 H2O</answer>; the coefficients alone, in \
the order the species are listed, are also accepted, for example <answer>2, 1, 2</answer>."""


@family(
    "chemical_balancing",
    domain="arithmetic",
    knobs=ChemicalBalancingKnobs,
    levels=LEVELS,
    description="Balance generated chemical equations with the smallest positive integer coefficients.",
    verifier_kind="constraint check (atom balance, minimal coefficients)",
    version=2,
)
class ChemicalBalancing(Family):
    def generate(self, knobs: ChemicalBalancingKnobs, rng: np.random.Generator) -> TaskDraft:
        reactants, products, coefficients, ops = draw(knobs, rng)
        equation = f"{' + '.join(reactants)} -> {' + '.join(products)}"
        answer = (
            f"{_render(reactants, coefficients[: len(reactants)])} -> "
            f"{_render(products, coefficients[len(reactants) :])}"
        )
        metadata = {
            "reactants": reactants,
            "products": products,
            "coefficients": coefficients,
            "elements": len(composition_matrix(reactants + products)[0]),
            "elimination_ops": ops,
            "canonical_hash": content_hash([sorted(reactants), sorted(products)]),
        }
        return TaskDraft(prompt=PROMPT.format(equation=equation), answer=answer, metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = extract(response)
        if isinstance(text, Verdict):
            return text
        reactants, products = task.metadata["reactants"], task.metadata["products"]
        coefficients, reason, readable = match_species(text, reactants, products)
        if coefficients is None:
            return (
                Verdict.wrong(reason or "", parsed=text[:200])
                if readable
                else Verdict.bad_format(reason or "")
            )
        if any(c <= 0 for c in coefficients):
            return Verdict.wrong("coefficients must be positive integers", parsed=coefficients)
        signed = coefficients[: len(reactants)] + [-c for c in coefficients[len(reactants) :]]
        _, matrix = composition_matrix(reactants + products)
        if any(sum(a * c for a, c in zip(row, signed, strict=True)) for row in matrix):
            return Verdict.wrong("atoms are not balanced", parsed=coefficients)
        if math.gcd(*coefficients) != 1:
            return Verdict.wrong("the coefficients are not the smallest integers", parsed=coefficients)
        return Verdict.right(parsed=coefficients)

    def solve_exact(self, task: Task) -> SolverRun:
        reactants, products = task.metadata["reactants"], task.metadata["products"]
        _, matrix = composition_matrix(reactants + products)
        basis, ops = null_space(matrix)
        coefficients = [abs(x) for x in smallest_integers(basis[0])]
        return SolverRun(
            response="<answer>" + ", ".join(map(str, coefficients)) + "</answer>", effort=float(ops)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        # trial of small coefficients 1..3 only, with a budget
        reactants, products = task.metadata["reactants"], task.metadata["products"]
        _, matrix = composition_matrix(reactants + products)
        n, split = len(reactants) + len(products), len(reactants)
        for tried, index in enumerate(range(3**n)):
            if tried > 2000:
                break
            coefficients = [(index // 3**k) % 3 + 1 for k in range(n)]
            signed = coefficients[:split] + [-c for c in coefficients[split:]]
            if not any(sum(a * c for a, c in zip(row, signed, strict=True)) for row in matrix):
                return SolverRun(
                    response="<answer>" + ", ".join(map(str, coefficients)) + "</answer>", effort=float(tried)
                )
        return SolverRun(response=None, effort=2000.0)

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        coefficients = task.metadata["coefficients"]
        reactants, products = task.metadata["reactants"], task.metadata["products"]
        doubled = [2 * c for c in coefficients]
        bumped = [coefficients[0] + 1, *coefficients[1:]]
        swapped = [*reactants[1:], reactants[0]] if len(reactants) > 1 else reactants
        wrong_side = f"{_render(products, coefficients[len(reactants) :])} -> {_render(reactants, coefficients[: len(reactants)])}"
        return [
            "<answer>" + ", ".join(map(str, doubled)) + "</answer>",
            "<answer>" + ", ".join(map(str, bumped)) + "</answer>",
            "<answer>" + ", ".join("1" for _ in coefficients) + "</answer>",
            f"<answer>{wrong_side}</answer>",
            f"<answer>{_render(swapped, coefficients[: len(reactants)])} -> {_render(products, coefficients[len(reactants) :])}</answer>"
            if len(reactants) > 1 and coefficients[0] != coefficients[1]
            else "<answer>" + ", ".join(map(str, coefficients[:-1])) + "</answer>",
        ]
