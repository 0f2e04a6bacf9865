"""Tests of the evaluation harness (palaestra.agents.suite_eval): estimators, statistics, reports, CLI."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import palaestra
from palaestra.agents import suite_eval as ev
from palaestra.cli import main

# --------------------------------------------------------------------------------------------
# pass@k
# --------------------------------------------------------------------------------------------


def _brute_force_pass_at_k(outcomes: tuple[bool, ...], k: int) -> float:
    """Share of the k-subsets of the samples that contain a correct one."""
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    return sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_matches_brute_force_enumeration(n):
    for outcomes in itertools.product([False, True], repeat=n):  # every sample outcome vector
        c = sum(outcomes)
        for k in range(1, n + 1):
            assert ev.pass_at_k(n, c, k) == pytest.approx(_brute_force_pass_at_k(outcomes, k), abs=1e-12)


def test_pass_at_k_is_unbiased_for_binomial_samples():
    # E_c~Bin(n,p)[pass@k(n, c, k)] = 1 - (1 - p)^k exactly
    for n, p in [(5, 0.1), (10, 0.37), (20, 0.8)]:
        for k in (1, 2, n // 2, n):
            expected = sum(
                math.comb(n, c) * p**c * (1 - p) ** (n - c) * ev.pass_at_k(n, c, k) for c in range(n + 1)
            )
            assert expected == pytest.approx(1 - (1 - p) ** k, abs=1e-12)


def test_pass_at_k_large_n_is_stable_and_closed_form():
    assert ev.pass_at_k(1000, 0, 10) == 0.0
    assert ev.pass_at_k(1000, 995, 10) == 1.0
    assert ev.pass_at_k(200, 7, 50) == pytest.approx(1 - math.comb(193, 50) / math.comb(200, 50), rel=1e-9)
    assert ev.pass_at_k(10, 3, 1) == pytest.approx(0.3)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_pass_at_k_rejects_bad_arguments(n, c, k):
    with pytest.raises(ValueError):
        ev.pass_at_k(n, c, k)


# --------------------------------------------------------------------------------------------
# IQM and bootstrap
# --------------------------------------------------------------------------------------------


def test_iqm_drops_a_quarter_at_each_end():
    assert ev.iqm([1, 2, 3, 4, 5, 6, 7, 100]) == pytest.approx(np.mean([3, 4, 5, 6]))
    assert ev.iqm([0.0, 1.0, 1.0]) == pytest.approx(2 / 3)  # under 4 values: plain mean
    assert ev.iqm(np.arange(12.0)) == pytest.approx(np.mean(np.arange(3, 9)))
    with pytest.raises(ValueError):
        ev.iqm([])


def test_bootstrap_ci_covers_the_true_mean_at_the_nominal_rate():
    rng = np.random.default_rng(1234)
    p, n, reps = 0.3, 150, 300
    hits, widths = 0, []
    for _ in range(reps):
        sample = rng.random(n) < p
        low, high = ev.bootstrap_ci(sample, confidence=0.95, n_boot=1000, seed=rng)
        hits += low <= p <= high
        widths.append(high - low)
    coverage = hits / reps
    # 300 replications: the standard error of the coverage is ~0.013 at 0.95
    assert 0.90 <= coverage <= 0.985, coverage
    assert np.mean(widths) == pytest.approx(2 * 1.96 * math.sqrt(p * (1 - p) / n), rel=0.1)


def test_bootstrap_ci_at_90_percent_is_narrower_and_still_covers():
    rng = np.random.default_rng(99)
    hits = 0
    for _ in range(300):
        sample = rng.exponential(2.0, size=120)  # skewed, continuous
        low, high = ev.bootstrap_ci(sample, confidence=0.9, n_boot=1000, seed=rng)
        hits += low <= 2.0 <= high
    assert 0.84 <= hits / 300 <= 0.95


def test_stratified_iqm_ci_covers_the_iqm_of_the_true_family_means():
    rng = np.random.default_rng(7)
    true_p = np.array([0.05, 0.2, 0.35, 0.5, 0.6, 0.75, 0.85, 0.95])
    target = ev.iqm(true_p)
    hits = 0
    for _ in range(200):
        groups = [rng.random(80) < p for p in true_p]
        low, high = ev.stratified_bootstrap_ci(groups, confidence=0.95, n_boot=1000, seed=rng)
        hits += low <= target <= high
    assert 0.88 <= hits / 200 <= 0.995


# --------------------------------------------------------------------------------------------
# End to end on real tasks
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """expression tasks at levels 1-3 plus one task of every other quick family, as JSONL."""
    tasks = [palaestra.make_task("expression", seed=s, level=lv) for lv in (1, 2, 3) for s in range(6)]
    path = tmp_path_factory.mktemp("suite") / "tasks.jsonl"
    path.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tasks))
    return path, tasks


def _right(task) -> str:
    return palaestra.get(task.family).impl.reference_response(task)


def test_evaluate_scores_known_outcomes_exactly(suite, tmp_path):
    path, tasks = suite
    responses = {}
    for task in tasks:
        # level 1: 4 samples all right; level 2: 1 of 4 right; level 3: none right, one bad format
        if task.level == 1:
            responses[task.id] = [_right(task)] * 4
        elif task.level == 2:
            responses[task.id] = [
                _right(task),
                "<answer>999999999</answer>",
                "<answer>-1</answer>",
                "no idea",
            ]
        else:
            responses[task.id] = ["<answer>999999999</answer>"] * 3 + ["I give up"]
    report = ev.evaluate(path, responses, ks=(1, 2, 4, 8), out=tmp_path / "rep", n_boot=500)
    assert report.ks == [1, 2, 4]
    assert any("k=[8]" in note for note in report.notes)
    cells = report.cells
    assert cells[("expression", 1)][1].value == 1.0
    assert cells[("expression", 2)][1].value == pytest.approx(0.25)
    assert cells[("expression", 2)][2].value == pytest.approx(0.5)
    assert cells[("expression", 2)][4].value == 1.0
    assert cells[("expression", 3)][4].value == 0.0
    assert report.families["expression"][1].value == pytest.approx((1 + 0.25 + 0) / 3)
    assert report.format_rate["expression"] == pytest.approx((24 + 18 + 18) / 72)
    assert report.iqm[1].value == pytest.approx(report.families["expression"][1].value)
    est = report.families["expression"][1]
    assert est.low <= est.value <= est.high

    files = {p.name for p in (tmp_path / "rep").iterdir()}
    assert files == {"report.md", "results.json", ev.PLOT_FILE, "verdicts.jsonl"}
    assert (tmp_path / "rep" / ev.PLOT_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert "| IQM |" in markdown and "| expression | 2 | 6 |" in markdown
    results = json.loads((tmp_path / "rep" / "results.json").read_text())
    assert results["families"]["expression"]["pass@1"]["value"] == pytest.approx(0.4166666, abs=1e-6)
    assert len((tmp_path / "rep" / "verdicts.jsonl").read_text().splitlines()) == 72


def test_iqm_across_families_uses_per_family_scores():
    scores = []
    for f, rate in zip("abcdefgh", [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0], strict=True):
        for i in range(10):
            scores.append(ev.TaskScore(f"{f}{i}", f, 1, 1, int(i < rate * 10), 1, 0))
    report = ev.summarize(scores, ks=(1,), n_boot=300)
    assert report.iqm[1].value == pytest.approx(np.mean([0.2, 0.3, 0.4, 0.5]))
    assert report.mean[1].value == pytest.approx(np.mean([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0]))
    assert report.iqm[1].low <= report.iqm[1].value <= report.iqm[1].high


def test_summary_is_reproducible_for_a_seed(suite):
    path, tasks = suite
    responses = {t.id: [_right(t), "<answer>0.5</answer>"] for t in tasks}
    a = ev.evaluate(path, responses, ks=(1,), seed=3, n_boot=300).to_json()
    b = ev.evaluate(path, responses, ks=(1,), seed=3, n_boot=300).to_json()
    assert a == b


def test_suite_from_an_export_folder(tmp_path):
    pytest.importorskip("datasets", reason="the `datasets` extra is not installed")
    from palaestra.export import export

    config = {
        "seed": 1,
        "calibration_samples": 0,
        "mixture": [{"family": "expression", "levels": [1, 4], "counts": {"test": 3}}],
    }
    out = export(config, tmp_path / "ds").path
    tasks = ev.load_suite(out)
    assert len(tasks) == 6 and {t.level for t in tasks} == {1, 4}
    report = ev.evaluate(out, {t.id: [_right(t)] for t in tasks}, ks=(1,), n_boot=200)
    assert report.families["expression"][1].value == 1.0
    with pytest.raises(ValueError, match="no 'train' split"):
        ev.load_suite(out, split="train")


def test_suite_from_a_mixture_config_is_exported_once(tmp_path):
    pytest.importorskip("datasets", reason="the `datasets` extra is not installed")
    config = tmp_path / "suite.yaml"
    config.write_text(
        "seed: 4\ncalibration_samples: 0\nmixture:\n  - {family: expression, level: 2, counts: {test: 4}}\n"
    )
    out = tmp_path / "report"
    tasks = ev.load_suite(config, workdir=str(out))
    assert len(tasks) == 4 and (out / "suite" / "palaestra_export.json").is_file()
    report = ev.evaluate(config, {t.id: [_right(t)] for t in tasks}, ks=(1,), n_boot=100, out=out)
    assert report.tasks == 4 and report.families["expression"][1].value == 1.0


def test_bad_responses_fail_with_a_clear_message(suite, tmp_path):
    path, tasks = suite
    with pytest.raises(ValueError, match="not in the suite"):
        ev.evaluate(path, {"nope": ["x"]} | {t.id: ["x"] for t in tasks})
    with pytest.raises(ValueError, match="have no responses"):
        ev.evaluate(path, {tasks[0].id: ["x"]})
    report = ev.evaluate(path, {tasks[0].id: [_right(tasks[0])]}, ks=(1,), allow_missing=True, n_boot=100)
    assert report.tasks == 1 and report.missing == len(tasks) - 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    with pytest.raises(ValueError, match="line 1: needs 'response' or 'responses'"):
        ev.load_responses(bad)
    bad.write_text("{not json\n")
    with pytest.raises(ValueError, match="line 1: invalid JSON"):
        ev.load_responses(bad)


def test_cli_eval_from_a_responses_file(suite, tmp_path, capsys):
    path, tasks = suite
    responses = tmp_path / "responses.jsonl"
    lines = [{"id": t.id, "response": _right(t)} for t in tasks]
    lines += [{"id": t.id, "responses": ["<answer>12345678</answer>"]} for t in tasks]
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "cli-report"
    code = main(
        ["eval", "--suite", str(path), "--responses", str(responses), "--k", "1", "2", "--out", str(out)]
    )
    assert code == 0
    assert "IQM pass@1 0.500" in capsys.readouterr().out
    assert (out / "report.md").is_file() and (out / ev.PLOT_FILE).is_file()
    assert main(["eval", "--suite", str(tmp_path / "missing.jsonl"), "--responses", str(responses)]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_eval_module_imports_no_model_stack():
    code = (
        "import sys, palaestra.agents.suite_eval; "
        "bad = [m for m in ('torch', 'transformers', 'vllm') if m in sys.modules]; "
        "sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_docs_example_runs():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "eval.md").read_text()
    blocks = [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]
    assert blocks
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/eval.md block {i}", "exec"), {"__name__": "__docs__"})


def _scores(rates: dict[str, float], n: int = 20, samples: int = 1) -> list:
    return [
        ev.TaskScore(f"{f}{i}", f, 1, samples, samples * int(i < rate * n), samples, 0)
        for f, rate in rates.items()
        for i in range(n)
    ]


def test_iqm_and_mean_of_one_family_have_the_same_interval():
    """Regression: the two across-family bootstraps drew one after the other from one generator,
    so with one family (where IQM and mean are the same statistic) they gave different CIs."""
    report = ev.summarize(_scores({"a": 0.35}), ks=(1,), n_boot=400)
    assert report.iqm[1] == report.mean[1]
    assert report.iqm[1].low < report.iqm[1].value < report.iqm[1].high


def test_each_interval_has_its_own_stream():
    """A family's interval does not move when another family is added before it."""
    alone = ev.summarize(_scores({"b": 0.4}), ks=(1,), n_boot=400)
    both = ev.summarize(_scores({"a": 0.7, "b": 0.4}), ks=(1,), n_boot=400)
    assert both.families["b"][1] == alone.families["b"][1]
    assert both.cells[("b", 1)][1] == alone.cells[("b", 1)][1]


def test_only_k_values_asked_for_get_a_note():
    """Regression: the default k list (up to 128) produced a note about k values nobody asked for."""
    scores = _scores({"a": 0.5}, samples=4)
    default = ev.summarize(scores, n_boot=100)
    assert default.ks == [1, 2, 4] and default.notes == []
    asked = ev.summarize(scores, ks=(1, 8), n_boot=100)
    assert asked.ks == [1] and any("k=[8]" in note for note in asked.notes)
