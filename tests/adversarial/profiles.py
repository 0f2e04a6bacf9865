"""What a family's answers mean, as far as the red-team suite needs to know.

A family that is not listed gets :data:`DEFAULT`: one valid answer (the reference), item
order significant, except on tasks whose prompt says that any of several answers is accepted
(``attacks.accepts_any_answer``), where edits are not claimed wrong without a judge. That is
the strict reading: if it is wrong for a new family (it lists in any order, or accepts other
answers without saying so), the suite fails on its first run and the family's author adds a
profile here (and a judge in ``judges/``) instead of being silently skipped.

Equivalent forms listed in ``rewrites`` are those the family's prompt documents (a separator,
an alternative notation); the generic ones (spacing, ``\\boxed{}``, an ``Answer:`` line, case of
keywords) are built in ``attacks.py`` for every family.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from palaestra.core import Task

Rewrite = Callable[[Task, str], list[str]]


@dataclass(frozen=True)
class Profile:
    """How to read a family's answers.

    ``answers``: ``"unique"`` (every valid answer means the same as the reference), ``"any"``
    (many valid answers; a judge in ``judges/`` decides), or ``"proof"`` (many valid
    answers and no judge: only attacks that are wrong by construction are claimed).
    ``ordered``: whether the order of the answer's items matters. ``numeric``: the answer is
    one number (the shared number reader's rewritings apply). ``keywords``: words whose case
    does not matter. ``options``: the whole option set of a closed question. ``code``:
    ``"python"`` or ``"sql"`` for program answers. ``plan_length``: a plan graded against a
    proven optimum length, so adding or dropping a step is always wrong. ``rewrites``: the
    equivalent forms the prompt documents. ``flips``: family-specific edits that change the
    answer's meaning in ways a sloppy reader misses (a negation, a value of another type).
    """

    answers: str = "unique"
    ordered: bool = True
    numeric: Callable[[Task], bool] | bool = False
    keywords: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    code: str | None = None
    plan_length: bool = False
    rewrites: Rewrite | None = None
    flips: Callable[[Task, str], list[tuple[str, str]]] | None = None
    notes: str = field(default="", compare=False)

    def is_numeric(self, task: Task) -> bool:
        return self.numeric(task) if callable(self.numeric) else self.numeric


DEFAULT = Profile()

BOOLEANS = ("true", "false")


def _items(text: str, sep: str) -> list[str]:
    return [t.strip() for t in re.split(sep, text.strip())]


def _reversed_items(sep: str, joiner: str) -> Rewrite:
    """The items in reverse order (for answers whose items form a set)."""

    def rewrite(task: Task, answer: str) -> list[str]:
        items = _items(answer, sep)
        return [joiner.join(reversed(items))] if len(items) > 1 else []

    return rewrite


def _both(*rewrites: Rewrite) -> Rewrite:
    def rewrite(task: Task, answer: str) -> list[str]:
        return [form for fn in rewrites for form in fn(task, answer)]

    return rewrite


def _chemical(task: Task, answer: str) -> list[str]:
    """The coefficients alone, in the order the species are listed; and every coefficient written."""
    meta = task.metadata
    coefficients = ", ".join(map(str, meta["coefficients"]))
    species = meta["reactants"] + meta["products"]
    written = [f"{c} {s}" for c, s in zip(meta["coefficients"], species, strict=True)]
    left, right = written[: len(meta["reactants"])], written[len(meta["reactants"]) :]
    return [coefficients, " + ".join(left) + " -> " + " + ".join(right)]


def _chinese_remainder(task: Task, answer: str) -> list[str]:
    if not answer.strip().lstrip("-").isdigit():
        return []
    return [f"x = {answer}", f"{answer} (mod {task.metadata['lcm']})"]


def _number_formats(task: Task, answer: str) -> list[str]:
    """Bit strings in groups of 4 separated by spaces, and the 0x hex form of the same bits."""
    meta = task.metadata
    if (
        (meta["kind"], meta["direction"]) != ("int", "encode")
        or not re.fullmatch(r"[01]+", answer)
        or len(answer) % 4
    ):
        return []
    groups = " ".join(answer[i : i + 4] for i in range(0, len(answer), 4))
    hex_form = "0x" + format(int(answer, 2), f"0{len(answer) // 4}X")
    return [groups, hex_form, hex_form.lower()]


def _dimacs(task: Task, answer: str) -> list[str]:
    """``x1=true, x2=false`` as literals ``x1, ¬x2`` and as DIMACS ``1 -2`` (documented)."""
    pairs = re.findall(r"x(\d+)\s*=\s*(true|false)", answer)
    literals = ", ".join(f"x{i}" if v == "true" else f"¬x{i}" for i, v in pairs)
    dimacs = " ".join(i if v == "true" else f"-{i}" for i, v in pairs)
    return [literals, dimacs]


def _spacing_free(task: Task, answer: str) -> list[str]:
    """Spacing does not matter (documented): without spaces, and with extra spaces."""
    return [re.sub(r"\s+", "", answer), re.sub(r"([,:\[\](){}])", r" \1 ", answer)]


def _hidden_function(task: Task, answer: str) -> list[str]:
    return [f"f(x) = {answer}"] if "table" not in task.metadata else []


def _type_renamed(task: Task, answer: str) -> list[str]:
    """Type variables renamed ('a -> 'q, ...): equal up to renaming (documented)."""
    names = sorted(set(re.findall(r"'\w+", answer)))
    fresh = {name: f"'t{i}" for i, name in enumerate(reversed(names))}
    return [re.sub(r"'\w+", lambda m: fresh[m.group(0)], answer)] if names else []


def _hanoi(task: Task, answer: str) -> list[str]:
    return [answer.replace(", ", " ")]


def _path_tight(task: Task, answer: str) -> list[str]:
    return [answer.replace(" -> ", "->")]


def _river(task: Task, answer: str) -> list[str]:
    """Everyone in a boat is a set: each crossing's names in reverse order."""
    trips = [t.strip() for t in answer.split(";")]
    return ["; ".join("+".join(reversed(t.split("+"))) for t in trips)]


def _max_flow(task: Task, answer: str) -> list[str]:
    match = re.fullmatch(r"flow: (\d+); cut: (.+)", answer)
    if not match:
        return []
    nodes = [n.strip() for n in match.group(2).split(",")]
    return [f"flow: {match.group(1)}; cut: {', '.join(reversed(nodes))}"]


def _program_text(task: Task, answer: str) -> list[str]:
    """The same program with a comment and blank lines, and in a fenced block in the tags."""
    return ["# solution\n\n" + answer.rstrip() + "\n\n", "```python\n" + answer.rstrip() + "\n```"]


def _sql_text(task: Task, answer: str) -> list[str]:
    keywords = r"\b(SELECT|FROM|WHERE|GROUP BY|ORDER BY|HAVING|AND|OR|NOT|JOIN|ON|AS|COUNT|MAX|MIN|SUM|AVG|DISTINCT|LIMIT|IN|LIKE|BETWEEN|DESC|ASC|INNER|LEFT)\b"
    lowered = re.sub(keywords, lambda m: m.group(0).lower(), answer)
    return [lowered, answer + ";", answer.replace(" WHERE ", "\nWHERE ").replace(" FROM ", "\n  FROM ")]


def _formula_text(task: Task, answer: str) -> list[str]:
    return [f"({answer})", f"!(!({answer}))"]


def _regex_text(task: Task, answer: str) -> list[str]:
    return [f"({answer})", f"({answer})|({answer})"]


def _ranking_text(task: Task, answer: str) -> list[str]:
    return [f"({answer})", f"2 * ({answer})", f"({answer}) + 3"]


def _calculus_text(task: Task, answer: str) -> list[str]:
    import sympy

    from .judges.certificates import sympy_expr

    expr = sympy_expr(answer, [task.metadata["variable"], "C"])
    forms = [str(sympy.expand(expr)).replace("**", "^")]
    if task.metadata["mode"] == "antiderivative":
        forms.append(f"{answer} + 7")
    return forms


def _linear_algebra(task: Task, answer: str) -> list[str]:
    """Matrices without spaces; a rank certificate's fields one per line (the prompt's alternative)."""
    if task.metadata["operation"] == "rank":
        return [answer.replace("; ", "\n")]
    return [re.sub(r"\s+", "", answer)] if answer.startswith("[") else []


def _knight_flips(task: Task, answer: str) -> list[tuple[str, str]]:
    """One inhabitant's role negated in the notations a reader must not drop."""
    match = re.search(r"(\w+) is a (knight|knave)", answer)
    if match is None:
        return []
    name, role = match.groups()
    whole = match.group(0)
    return [
        (f"not-{role}", answer.replace(whole, f"{name} is not a {role}", 1)),
        (f"colon-negated-{role}", answer.replace(whole, f"{name}: ¬{role}", 1)),
        (f"bang-{role}", answer.replace(whole, f"{name}: !{role}", 1)),
        (f"unequal-{role}", answer.replace(whole, f"{name} ≠ {role}", 1)),
    ]


def _literal_flips(task: Task, answer: str) -> list[tuple[str, str]]:
    """The same printed value with another type: True for 1, 1.0 for 1, a tuple for a list."""
    out = []
    for old, new in (("True", "1"), ("False", "0"), ("1", "True"), ("0", "False")):
        match = re.search(rf"(?<![\w.]){old}(?![\w.])", answer)
        if match:
            out.append((f"{old}-as-{new}", answer[: match.start()] + new + answer[match.end() :]))
    number = re.search(r"(?<![\w.])-?\d+(?![\w.])", answer)
    if number:
        out.append(("int-as-float", answer[: number.end()] + ".0" + answer[number.end() :]))
    bracket = re.search(r"\[([^\[\]]*)\]", answer)
    if bracket:
        inner = bracket.group(1)
        tuple_text = f"({inner},)" if inner and "," not in inner else f"({inner})"
        out.append(("list-as-tuple", answer[: bracket.start()] + tuple_text + answer[bracket.end() :]))
    return out


def _is_number(pattern: str) -> Callable[[Task], bool]:
    def check(task: Task) -> bool:
        return re.fullmatch(pattern, str(task.answer).strip()) is not None

    return check


_INTEGER_OR_FRACTION = r"-?\d+(/\d+)?"
_DECIMAL = r"-?\d+(\.\d+)?(/\d+)?"

# the algorithms families whose answer is one integer (a count, an optimum, a number)
ALGORITHMS_INTEGER = (
    "lattice_paths_blocked",
    "pattern_avoiding_strings",
    "subset_sum_count",
    "inversion_count",
    "weighted_lis",
    "weighted_intervals",
    "lcs_length",
    "rod_cutting",
    "mst_weight",
    "spanning_tree_count",
    "discrete_log",
    "modular_sqrt",
    "josephus",
    "distinct_subsequences",
    "bounded_compositions",
    "dyck_paths_constrained",
    "increasing_subsequences_count",
    "bounded_max_subarray",
    "matrix_chain",
    "coin_change_min",
    "job_deadlines",
    "steiner_tree",
    "scc_count",
    "tree_diameter",
    "bezout_coefficient",
    "polynomial_interpolation",
    "domino_tilings",
    "grid_independent_sets",
    "palindromic_substrings",
    "forbidden_permutations",
    "two_constraint_knapsack",
    "grid_min_path",
    "min_cost_flow",
    "coprime_count",
    "lru_cache_misses",
)

PROFILES: dict[str, Profile] = {
    # --- algorithms: integer answers (the structure answers and their judges follow below)
    **{name: Profile(numeric=True) for name in ALGORITHMS_INTEGER},
    "bipartite_matching": Profile(
        answers="any", ordered=False, rewrites=_reversed_items(r"\s*,\s*", ", "), notes="any maximum matching"
    ),
    "graph_isomorphism": Profile(
        answers="any", ordered=False, rewrites=_reversed_items(r"\s*,\s*", ", "), notes="any isomorphism"
    ),
    "min_vertex_cover": Profile(
        answers="any", ordered=False, rewrites=_reversed_items(r"\s*,\s*", ", "), notes="any minimum cover"
    ),
    "euler_circuit": Profile(
        answers="any", rewrites=_reversed_items(r"\s*->\s*", " -> "), notes="any circuit, either direction"
    ),
    "range_update_queries": Profile(),
    "two_sat": Profile(
        answers="any", ordered=False, keywords=BOOLEANS, rewrites=_reversed_items(r"\s*,\s*", ", ")
    ),
    "hamiltonian_path": Profile(
        answers="any", rewrites=_reversed_items(r"\s*->\s*", " -> "), notes="any path, either direction"
    ),
    "tree_dominating_set": Profile(
        answers="any", ordered=False, rewrites=_reversed_items(r"\s*,\s*", ", "), notes="any minimum set"
    ),
    "articulation_points": Profile(ordered=False, rewrites=_reversed_items(r"\s*,\s*", ", ")),
    "polynomial_remainder": Profile(),
    "stack_sort_pass": Profile(),
    # --- arithmetic
    "chemical_balancing": Profile(rewrites=_chemical, notes="unique minimal coefficients"),
    "chinese_remainder": Profile(
        numeric=_is_number(r"\d+"), keywords=("no solution",), rewrites=_chinese_remainder
    ),
    "combinatorial_counting": Profile(numeric=True),
    "countdown": Profile(answers="any", notes="any expression reaching the best value"),
    "cryptarithm": Profile(ordered=False, rewrites=_reversed_items(r"\s*,\s*", ", ")),
    "expression": Profile(numeric=True),
    "linear_algebra": Profile(numeric=_is_number(_INTEGER_OR_FRACTION), rewrites=_linear_algebra),
    "linear_diophantine": Profile(answers="any", keywords=("no solution",)),
    "long_arithmetic": Profile(numeric=True),
    "number_formats": Profile(
        numeric=lambda task: (
            task.metadata["direction"] == "decode" and re.fullmatch(_DECIMAL, str(task.answer)) is not None
        ),
        rewrites=_number_formats,
    ),
    # --- math (one exact value each)
    "bayes": Profile(numeric=True),
    "bitwise": Profile(numeric=True),
    "calendar": Profile(numeric=_is_number(_INTEGER_OR_FRACTION), notes="dates at some levels"),
    "number_theory": Profile(numeric=True),
    "probability": Profile(numeric=True),
    "statistics": Profile(numeric=True),
    "table_qa": Profile(numeric=True),
    # --- code
    "algorithmic_coding": Profile(answers="any", code="python", rewrites=_program_text),
    "bug_repair": Profile(answers="any", code="python", rewrites=_program_text),
    "function_induction": Profile(answers="any", code="python", rewrites=_program_text),
    "input_inversion": Profile(answers="any"),
    "isa_trace": Profile(ordered=False),
    "output_prediction": Profile(rewrites=_spacing_free, flips=_literal_flips),
    "program_equivalence": Profile(answers="any", keywords=("equivalent",)),
    "regex_synthesis": Profile(answers="any", rewrites=_regex_text),
    "sql_synthesis": Profile(answers="any", code="sql", rewrites=_sql_text),
    "type_inference": Profile(rewrites=_type_renamed),
    # --- formal
    "equational_proof": Profile(answers="proof"),
    "hoare_triple": Profile(answers="any", rewrites=_formula_text),
    "inequality_certificate": Profile(answers="any"),
    "loop_invariant": Profile(answers="any", rewrites=_formula_text),
    "maxsat": Profile(answers="any", keywords=BOOLEANS),
    "natural_deduction": Profile(answers="proof"),
    "pratt_certificate": Profile(answers="any", rewrites=_reversed_items(r"\n", "\n")),
    "ranking_function": Profile(answers="any", rewrites=_ranking_text),
    "resolution_refutation": Profile(answers="proof"),
    "smt_model": Profile(answers="any", rewrites=_reversed_items(r"\s*,\s*", ", ")),
    "symbolic_calculus": Profile(answers="any", rewrites=_calculus_text),
    "unsat_core": Profile(answers="any", rewrites=_reversed_items(r"\s*,\s*", ", ")),
    # --- graphs
    "graph_coloring": Profile(answers="any", rewrites=_reversed_items(r"\s*,\s*", ", ")),
    "max_flow": Profile(answers="any", rewrites=_max_flow),
    "shortest_path": Profile(answers="any", rewrites=_path_tight),
    "topological_order": Profile(answers="any", rewrites=_path_tight),
    # --- interactive (the final answer of the game)
    "game_2048": Profile(answers="any", plan_length=True, notes="the budget is the fewest moves that win"),
    "hidden_function": Profile(rewrites=_hidden_function),
    "mastermind": Profile(),
    "minesweeper": Profile(
        ordered=False,
        rewrites=_reversed_items(r"\s*,\s*(?=\()", ", "),
        notes="the exact set of certainly safe cells, in any order",
    ),
    "number_guessing": Profile(numeric=True),
    "twenty_questions": Profile(),
    # --- logic
    "epistemic": Profile(ordered=False, notes="'18 November' is the same date as 'November 18'"),
    "knights_knaves": Profile(
        ordered=False,
        keywords=("knight", "knave"),
        rewrites=_reversed_items(r"\s*,\s*", ", "),
        flips=_knight_flips,
    ),
    "ordering_deduction": Profile(),
    "propositional_entailment": Profile(
        answers="any", keywords=("yes", "no", *BOOLEANS), options=("yes", "no")
    ),
    "sat_model": Profile(
        answers="any", keywords=BOOLEANS, rewrites=_both(_dimacs, _reversed_items(r"\s*,\s*", ", "))
    ),
    "syllogisms": Profile(answers="any", keywords=("valid", "invalid"), options=("valid", "invalid")),
    "zebra": Profile(ordered=False, rewrites=_reversed_items(r"\n", "\n")),
    "logistics": Profile(answers="any", plan_length=True, keywords=("drive", "load", "unload")),
    # --- languages
    "cfg_membership": Profile(
        answers="proof",
        ordered=False,
        rewrites=_reversed_items(r"\n", "\n"),
        notes="any derivation of each generated string, one per line, lines in any order",
    ),
    # --- puzzles
    "bimaru": Profile(),
    "binairo": Profile(),
    "blocks_world": Profile(answers="any", plan_length=True, keywords=("table",)),
    "hashi": Profile(ordered=False, rewrites=_reversed_items(r"\n", "\n")),
    "kakuro": Profile(),
    "maze": Profile(answers="any", plan_length=True),
    "lights_out": Profile(
        answers="any", plan_length=True, ordered=False, rewrites=_reversed_items(r"\s*,\s*(?=\()", ", ")
    ),
    "nonogram": Profile(),
    "river_crossing": Profile(answers="any", plan_length=True, rewrites=_river),
    "skyscrapers": Profile(),
    "sliding_tiles": Profile(answers="any", plan_length=True),
    "sokoban": Profile(answers="any", notes="only pushes count: extra walking moves may still be optimal"),
    "star_battle": Profile(),
    "sudoku": Profile(),
    "sudoku_jigsaw": Profile(),
    "sudoku_killer": Profile(),
    "tower_of_hanoi": Profile(answers="any", plan_length=True, rewrites=_hanoi),
    # --- words
    "word_ladder": Profile(answers="any", plan_length=True),
}


def profile_for(family: str) -> Profile:
    return PROFILES.get(family, DEFAULT)
