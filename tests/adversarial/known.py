"""Known failures on the current main, each a finding in /work/tools/findings-16.md.

Keys are ``(test, family, attack class)`` with test one of ``"wrong"`` (a wrong answer paid or a
verifier failure), ``"right"`` (a right answer refused), ``"format"`` (two or no final answers
not reported as a format error). Each becomes a strict xfail: when the fix lands the case
passes, pytest reports it as failing, and the entry is deleted here.
"""

from __future__ import annotations

KNOWN_FAILURES: dict[tuple[str, str, str], str] = {
    (
        "format",
        "algorithmic_coding",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "algorithmic_coding",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "format",
        "bimaru",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "bimaru",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "binairo",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "binairo",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "blocks_world",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "blocks_world",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "bug_repair",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "bug_repair",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "format",
        "chemical_balancing",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "chemical_balancing",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "chinese_remainder",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "chinese_remainder",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "combinatorial_counting",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "combinatorial_counting",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "countdown",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "countdown",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "cryptarithm",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "cryptarithm",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "epistemic",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "epistemic",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "equational_proof",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "equational_proof",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "expression",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "expression",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "function_induction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "function_induction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "format",
        "graph_coloring",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "graph_coloring",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "hashi",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "hashi",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "hidden_function",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "hidden_function",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "hoare_triple",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "hoare_triple",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "inequality_certificate",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "inequality_certificate",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "input_inversion",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "input_inversion",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "isa_trace",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "isa_trace",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "kakuro",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "kakuro",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "knights_knaves",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "knights_knaves",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "lights_out",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "lights_out",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "linear_algebra",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "linear_algebra",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "linear_diophantine",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "linear_diophantine",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "long_arithmetic",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "long_arithmetic",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "loop_invariant",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "loop_invariant",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "mastermind",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "mastermind",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "max_flow",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "max_flow",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "maxsat",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "maxsat",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "minesweeper",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "minesweeper",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "natural_deduction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "natural_deduction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "nonogram",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "nonogram",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "number_formats",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "number_formats",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "number_guessing",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "number_guessing",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "ordering_deduction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "ordering_deduction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "output_prediction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "output_prediction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "pratt_certificate",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "pratt_certificate",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "program_equivalence",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "program_equivalence",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "propositional_entailment",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "propositional_entailment",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "ranking_function",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "ranking_function",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "regex_synthesis",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "regex_synthesis",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "resolution_refutation",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "resolution_refutation",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "river_crossing",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "river_crossing",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sat_model",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sat_model",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "shortest_path",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "shortest_path",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "skyscrapers",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "skyscrapers",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sliding_tiles",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sliding_tiles",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "smt_model",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "smt_model",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sokoban",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sokoban",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sql_synthesis",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sql_synthesis",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "format",
        "star_battle",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "star_battle",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sudoku",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sudoku",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sudoku_jigsaw",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sudoku_jigsaw",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "sudoku_killer",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "sudoku_killer",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "syllogisms",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "syllogisms",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "symbolic_calculus",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "symbolic_calculus",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "topological_order",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "topological_order",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "tower_of_hanoi",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "tower_of_hanoi",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "twenty_questions",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "twenty_questions",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "type_inference",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "type_inference",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "unsat_core",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "unsat_core",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "format",
        "zebra",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "format",
        "zebra",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "right",
        "algorithmic_coding",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "bimaru",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "binairo",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "blocks_world",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "bug_repair",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "chemical_balancing",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "chinese_remainder",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused; finding 8: `$7$`, `\\(7\\)`, `7.0`, `7,767,531` refused by the family's number reader",
    (
        "right",
        "combinatorial_counting",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "countdown",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "cryptarithm",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "epistemic",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "equational_proof",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "expression",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "function_induction",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "graph_coloring",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "hashi",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "hidden_function",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "hoare_triple",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "inequality_certificate",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "input_inversion",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "isa_trace",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "kakuro",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 20: Row k: labels on the rows are refused",
    (
        "right",
        "knights_knaves",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "lights_out",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "linear_algebra",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "linear_diophantine",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "long_arithmetic",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "loop_invariant",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "mastermind",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "max_flow",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "maxsat",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "minesweeper",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "natural_deduction",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "nonogram",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "number_formats",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "number_guessing",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused; finding 8: `$7$`, `\\(7\\)`, `7.0`, `7,767,531` refused by the family's number reader",
    (
        "right",
        "ordering_deduction",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "output_prediction",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "pratt_certificate",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "program_equivalence",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "propositional_entailment",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "ranking_function",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "regex_synthesis",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "resolution_refutation",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "river_crossing",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "sat_model",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "shortest_path",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "skyscrapers",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "sliding_tiles",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "smt_model",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "sokoban",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "sql_synthesis",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "star_battle",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "sudoku",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "sudoku_jigsaw",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "sudoku_killer",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "right",
        "syllogisms",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "symbolic_calculus",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "topological_order",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "tower_of_hanoi",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "twenty_questions",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "type_inference",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 6: an `Answer:` line alone is refused; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "unsat_core",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable; finding 7: markdown bold (`**Answer:** X`, `<answer>**X**</answer>`) is refused",
    (
        "right",
        "zebra",
        "rewriting",
    ): "finding 5: a <think> block holding an earlier answer makes the final tag unparseable",
    (
        "wrong",
        "algorithmic_coding",
        "dumping",
    ): "finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "algorithmic_coding",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "algorithmic_coding",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "bimaru",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "bimaru",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid",
    (
        "wrong",
        "bimaru",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "binairo",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "binairo",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid; finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "binairo",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "blocks_world",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "blocks_world",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "bug_repair",
        "dumping",
    ): "finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "bug_repair",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "bug_repair",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "chemical_balancing",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "chemical_balancing",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "chinese_remainder",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "chinese_remainder",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "combinatorial_counting",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "combinatorial_counting",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "countdown",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "countdown",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "cryptarithm",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "cryptarithm",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "epistemic",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "epistemic",
        "near_miss",
    ): "finding 11: a minus sign the parser does not consume is dropped ('November -18', 'House -1')",
    (
        "wrong",
        "epistemic",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "equational_proof",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "equational_proof",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "expression",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "expression",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "function_induction",
        "dumping",
    ): "finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "function_induction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "function_induction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "graph_coloring",
        "dumping",
    ): "finding 13: two colourings in one tag ('A or B', two lines): one is taken",
    (
        "wrong",
        "graph_coloring",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "graph_coloring",
        "near_miss",
    ): "finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "graph_coloring",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "hashi",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "hashi",
        "near_miss",
    ): "finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "hashi",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "hidden_function",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "hidden_function",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "hoare_triple",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "hoare_triple",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "inequality_certificate",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "inequality_certificate",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "input_inversion",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "input_inversion",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "isa_trace",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "isa_trace",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "kakuro",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "kakuro",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "knights_knaves",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "knights_knaves",
        "near_miss",
    ): "finding 17: a negated role ('Zoe: ¬knight', 'Zoe: !knight', 'Zoe ≠ knight') is read as the role",
    (
        "wrong",
        "knights_knaves",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "lights_out",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "lights_out",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "linear_algebra",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "linear_algebra",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "linear_diophantine",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "linear_diophantine",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "long_arithmetic",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "long_arithmetic",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "loop_invariant",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "loop_invariant",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "mastermind",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "mastermind",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "max_flow",
        "dumping",
    ): "finding 12: several flow:/cut: answers in one tag: one is taken, the rest ignored",
    (
        "wrong",
        "max_flow",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "max_flow",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "maxsat",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "maxsat",
        "size",
    ): "finding 16: an integer over 4,300 digits crashes the verifier (int max str digits)",
    (
        "wrong",
        "maxsat",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "minesweeper",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "minesweeper",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "natural_deduction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "natural_deduction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "nonogram",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "nonogram",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid",
    (
        "wrong",
        "nonogram",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "number_formats",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "number_formats",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "number_guessing",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "number_guessing",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "ordering_deduction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "ordering_deduction",
        "size",
    ): "finding 16: an integer over 4,300 digits crashes the verifier (int max str digits)",
    (
        "wrong",
        "ordering_deduction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "output_prediction",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "output_prediction",
        "near_miss",
    ): "finding 18: a printed value of another type is paid (True for 1, False for 0)",
    (
        "wrong",
        "output_prediction",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "pratt_certificate",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "pratt_certificate",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "program_equivalence",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "program_equivalence",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "propositional_entailment",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "propositional_entailment",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "ranking_function",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "ranking_function",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "regex_synthesis",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "regex_synthesis",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "resolution_refutation",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "resolution_refutation",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "river_crossing",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "river_crossing",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sat_model",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sat_model",
        "size",
    ): "finding 16: an integer over 4,300 digits crashes the verifier (int max str digits)",
    (
        "wrong",
        "sat_model",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "shortest_path",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "shortest_path",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "skyscrapers",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "skyscrapers",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid; finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "skyscrapers",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sliding_tiles",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sliding_tiles",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "smt_model",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "smt_model",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sokoban",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sokoban",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sql_synthesis",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sql_synthesis",
        "near_miss",
    ): "finding 14: hidden databases miss the query's constants: >= for >, constant +-1 paid",
    (
        "wrong",
        "sql_synthesis",
        "size",
    ): "finding 15: a lone surrogate in the response crashes the verifier (UnicodeEncodeError)",
    (
        "wrong",
        "sql_synthesis",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid; finding 2: a program in the tags plus a different fenced program (or two fences in one tag) is paid",
    (
        "wrong",
        "star_battle",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "star_battle",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid",
    (
        "wrong",
        "star_battle",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sudoku",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sudoku",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid; finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "sudoku",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sudoku_jigsaw",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sudoku_jigsaw",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid; finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "sudoku_jigsaw",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "sudoku_killer",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "sudoku_killer",
        "near_miss",
    ): "finding 9: Row k: labels are ignored: rows in text order with swapped labels are paid; finding 10: a minus sign the parser does not consume is dropped (row '-3421', '4:-2', '-1,1')",
    (
        "wrong",
        "sudoku_killer",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "syllogisms",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "syllogisms",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "symbolic_calculus",
        "certificate_exploit",
    ): "finding 19: an antiderivative plus C*x is paid (C set to 0 wherever it appears)",
    (
        "wrong",
        "symbolic_calculus",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "symbolic_calculus",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "topological_order",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "topological_order",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "tower_of_hanoi",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "tower_of_hanoi",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "twenty_questions",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "twenty_questions",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "type_inference",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "type_inference",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "unsat_core",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "unsat_core",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
    (
        "wrong",
        "zebra",
        "format",
    ): "finding 3: an answer only inside a <think> block is paid; finding 4: an answer only inside an HTML comment is paid",
    (
        "wrong",
        "zebra",
        "near_miss",
    ): "finding 11: a minus sign the parser does not consume is dropped ('November -18', 'House -1')",
    (
        "wrong",
        "zebra",
        "size",
    ): "finding 16: an integer over 4,300 digits crashes the verifier (int max str digits)",
    (
        "wrong",
        "zebra",
        "two_answers",
    ): "finding 1: a tag plus a contradicting Answer:/Final answer:/**Answer:** line (or a box plus one) is paid",
}
