"""Evaluation harness with honest statistics: ``palaestra eval --suite SUITE --responses FILE``.

A *suite* is a set of tasks: a folder written by ``palaestra export`` (one split, ``test`` by
default), a mixture config (exported into the output folder first, so the run records its tasks) or
a JSONL file of ``Task.to_dict()`` lines. *Responses* are a JSONL file of model outputs,
``{"id": <task id>, "response": "..."}`` or ``{"id": ..., "responses": ["...", ...]}``; several lines
for one id add samples. With ``--model PATH`` the responses are sampled from a local
transformers checkpoint through the agent loop's backend instead.

Statistics:

* **pass@k** -- the unbiased estimator of Chen et al. (2021, "Evaluating Large Language Models
  Trained on Code"): with ``n`` samples of which ``c`` are correct,
  ``pass@k = 1 - C(n - c, k) / C(n, k)``, the probability that a random ``k``-subset of the samples
  holds a correct one. Reported for every requested ``k`` no larger than the fewest samples a task
  has.
* **Confidence intervals** -- percentile bootstrap over tasks (per family, per family x level);
  across families a *stratified* bootstrap (tasks resampled within each family).
* **IQM** -- the interquartile mean of the per-family scores (mean of the middle 50 %, as
  ``scipy.stats.trim_mean(x, 0.25)``), recommended over the mean by Agarwal et al. (2021, "Deep RL
  at the Edge of the Statistical Precipice") because one easy or broken family cannot dominate it.

This module imports no model stack: torch and transformers are imported only for ``--model``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import palaestra
from palaestra.agents.reporting import plural
from palaestra.core import Task

DEFAULT_KS = (1, 2, 4, 8, 16, 32, 64, 128)
PLOT_FILE = "accuracy_vs_level.png"


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` correct (Chen et al. 2021, numerically stable)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    # 1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k / i)
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def iqm(values: Iterable[float]) -> float:
    """Interquartile mean: drop ``floor(n / 4)`` values at each end, average the rest."""
    x = np.sort(np.asarray(list(values), dtype=float), axis=None)
    if x.size == 0:
        raise ValueError("IQM of no values")
    cut = int(0.25 * x.size)
    return float(x[cut : x.size - cut].mean())


def _iqm_rows(matrix: np.ndarray) -> np.ndarray:
    x = np.sort(matrix, axis=1)
    cut = int(0.25 * x.shape[1])
    return x[:, cut : x.shape[1] - cut].mean(axis=1)


def bootstrap_ci(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean of ``values``."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("bootstrap of no values")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    return _percentiles(means, confidence)


def stratified_bootstrap_ci(
    groups: Sequence[Sequence[float]],
    statistic: Callable[[np.ndarray], np.ndarray] = _iqm_rows,
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float]:
    """CI of ``statistic`` over group means, resampling items within each group (the strata).

    ``statistic`` maps a ``(n_boot, n_groups)`` matrix of resampled group means to ``n_boot``
    values (default: IQM across groups).
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return _percentiles(statistic(stratified_resamples(groups, n_boot, rng)), confidence)


def stratified_resamples(
    groups: Sequence[Sequence[float]], n_boot: int, rng: np.random.Generator
) -> np.ndarray:
    """``(n_boot, n_groups)`` bootstrap means: each group's items resampled within the group."""
    if not groups or any(len(g) == 0 for g in groups):
        raise ValueError("stratified bootstrap needs non-empty groups")
    columns = []
    for group in groups:
        x = np.asarray(group, dtype=float)
        columns.append(x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1))
    return np.stack(columns, axis=1)


def stream(seed: int, *key: object) -> np.random.Generator:
    """The bootstrap's own random stream for one estimate, named by ``key`` (e.g. family, level,
    k): an estimate's interval does not depend on which other estimates were computed before it."""
    words = [int.from_bytes(hashlib.sha256(repr(part).encode()).digest()[:4], "little") for part in key]
    return np.random.default_rng([seed, *words])


def _percentiles(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


# --------------------------------------------------------------------------------------------
# Suites and responses
# --------------------------------------------------------------------------------------------


def load_suite(
    path: str | os.PathLike[str], *, split: str = "test", workdir: str | None = None
) -> list[Task]:
    """Tasks of a suite: an export folder, a mixture config (exported to ``workdir``) or JSONL."""
    path = Path(path)
    if path.is_dir():
        return _load_export(path, split)
    if not path.is_file():
        raise ValueError(f"suite {str(path)!r} does not exist")
    if path.suffix in (".yaml", ".yml") or (path.suffix == ".json" and _is_mixture(path)):
        from palaestra.export import export

        target = Path(workdir or path.with_suffix("")) / "suite"
        return _load_export(export(path, target).path, split)
    tasks = []
    for number, data in _jsonl(path):
        try:
            tasks.append(Task.from_dict(data))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path} line {number}: not a task: {exc}") from None
    if not tasks:
        raise ValueError(f"suite {path} holds no tasks")
    return tasks


def _is_mixture(path: Path) -> bool:
    try:
        return isinstance(json.loads(path.read_text()), dict)
    except ValueError:
        return False


def _load_export(root: Path, split: str) -> list[Task]:
    from palaestra.export import read_split
    from palaestra.rows import row_to_task

    return [row_to_task(row) for row in read_split(root, split)]


def _jsonl(path: Path) -> Iterable[tuple[int, Any]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path} line {number}: invalid JSON: {exc.msg}") from None


def load_responses(path: str | os.PathLike[str]) -> dict[str, list[str]]:
    """Samples per task id from a JSONL file (``response`` or ``responses`` per line)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"responses file {str(path)!r} does not exist")
    samples: dict[str, list[str]] = defaultdict(list)
    for number, data in _jsonl(path):
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise ValueError(f"{path} line {number}: expected an object with a string 'id'")
        if "responses" in data:
            texts = data["responses"]
        elif "response" in data:
            texts = [data["response"]]
        else:
            raise ValueError(f"{path} line {number}: needs 'response' or 'responses'")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError(f"{path} line {number}: responses must be strings")
        samples[data["id"]].extend(texts)
    return dict(samples)


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskScore:
    """How one task fared over its samples."""

    id: str
    family: str
    level: int | None
    n: int
    correct: int
    format_ok: int
    errors: int

    def pass_at(self, k: int) -> float:
        return pass_at_k(self.n, self.correct, k)


def _grade(job: tuple[dict[str, Any], list[str]]) -> tuple[str, list[dict[str, Any]]]:
    task = Task.from_dict(job[0])
    return task.id, [palaestra.verify(task, text).to_dict() for text in job[1]]


def score_responses(
    tasks: Sequence[Task],
    responses: Mapping[str, Sequence[str]],
    *,
    allow_missing: bool = False,
    num_proc: int = 1,
) -> tuple[list[TaskScore], list[dict[str, Any]]]:
    """Verify every sample; returns per-task scores and per-sample verdict records."""
    by_id = {t.id: t for t in tasks}
    unknown = sorted(set(responses) - set(by_id))
    if unknown:
        raise ValueError(f"{len(unknown)} response id(s) are not in the suite, e.g. {unknown[0]!r}")
    missing = [t.id for t in tasks if not responses.get(t.id)]
    if missing and not allow_missing:
        raise ValueError(
            f"{len(missing)} of {len(tasks)} suite tasks have no responses (e.g. {missing[0]!r}); "
            "pass --allow-missing to leave them out"
        )
    jobs = [(t.to_dict(), list(responses[t.id])) for t in tasks if responses.get(t.id)]
    if num_proc > 1:
        import multiprocessing

        with multiprocessing.get_context("forkserver").Pool(num_proc) as pool:
            graded = dict(pool.imap(_grade, jobs, chunksize=16))
    else:
        graded = dict(map(_grade, jobs))
    scores, records = [], []
    for data, _ in jobs:
        task = by_id[data["id"]]
        verdicts = graded[task.id]
        scores.append(
            TaskScore(
                id=task.id,
                family=task.family,
                level=task.level,
                n=len(verdicts),
                correct=sum(v["correct"] for v in verdicts),
                format_ok=sum(v["format_ok"] for v in verdicts),
                errors=sum(v["error"] is not None for v in verdicts),
            )
        )
        for i, v in enumerate(verdicts):
            records.append({"id": task.id, "family": task.family, "level": task.level, "sample": i, **v})
    return scores, records


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval and the number of tasks behind it."""

    value: float
    low: float
    high: float
    tasks: int

    def text(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


@dataclass
class EvalReport:
    """Everything ``palaestra eval`` measured; ``to_json``/``to_markdown`` render it."""

    ks: list[int]
    confidence: float
    tasks: int
    samples: int
    missing: int
    families: dict[str, dict[int, Estimate]] = field(default_factory=dict)  # family -> k -> est
    cells: dict[tuple[str, int | None], dict[int, Estimate]] = field(default_factory=dict)
    iqm: dict[int, Estimate] = field(default_factory=dict)
    mean: dict[int, Estimate] = field(default_factory=dict)
    format_rate: dict[str, float] = field(default_factory=dict)
    verifier_errors: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        def est(e: Estimate) -> dict[str, Any]:
            return {"value": e.value, "ci": [e.low, e.high], "tasks": e.tasks}

        return {
            "ks": self.ks,
            "confidence": self.confidence,
            "tasks": self.tasks,
            "samples": self.samples,
            "missing": self.missing,
            "iqm_across_families": {f"pass@{k}": est(e) for k, e in self.iqm.items()},
            "mean_across_families": {f"pass@{k}": est(e) for k, e in self.mean.items()},
            "families": {
                f: {f"pass@{k}": est(e) for k, e in ks.items()}
                | {"format_rate": self.format_rate[f], "verifier_errors": self.verifier_errors[f]}
                for f, ks in self.families.items()
            },
            "levels": [
                {"family": f, "level": lv, **{f"pass@{k}": est(e) for k, e in ks.items()}}
                for (f, lv), ks in self.cells.items()
            ],
            "notes": self.notes,
        }

    def to_markdown(self, plot: str | None = PLOT_FILE) -> str:
        pct = round(self.confidence * 100)
        ks = self.ks
        lines = [
            "# palaestra evaluation",
            "",
            f"{plural(self.tasks, 'task')}, {plural(self.samples, 'sample')}. pass@k is the unbiased estimator of Chen et al. "
            f"(2021); intervals are {pct}% percentile bootstrap CIs over tasks (stratified by family "
            "across families). IQM = interquartile mean of the per-family scores.",
            "",
        ]
        lines += [f"- {note}" for note in self.notes] + ([""] if self.notes else [])
        lines += ["## Across families", "", "| metric | " + " | ".join(f"pass@{k}" for k in ks) + " |"]
        lines.append("|---|" + "---|" * len(ks))
        lines.append("| IQM | " + " | ".join(self.iqm[k].text() for k in ks) + " |")
        lines.append("| mean | " + " | ".join(self.mean[k].text() for k in ks) + " |")
        lines += ["", "## Per family", ""]
        lines.append(
            "| family | tasks | " + " | ".join(f"pass@{k}" for k in ks) + " | format ok | verifier errors |"
        )
        lines.append("|---|---:|" + "---|" * len(ks) + "---:|---:|")
        for fam, est in self.families.items():
            cols = " | ".join(est[k].text() for k in ks)
            lines.append(
                f"| {fam} | {est[ks[0]].tasks} | {cols} | {self.format_rate[fam]:.3f} | {self.verifier_errors[fam]} |"
            )
        lines += ["", "## Per family and level", ""]
        lines.append("| family | level | tasks | " + " | ".join(f"pass@{k}" for k in ks) + " |")
        lines.append("|---|---:|---:|" + "---|" * len(ks))
        for (fam, level), est in self.cells.items():
            cols = " | ".join(est[k].text() for k in ks)
            lines.append(f"| {fam} | {'-' if level is None else level} | {est[ks[0]].tasks} | {cols} |")
        if plot:
            lines += ["", f"![pass@{ks[0]} against level per family]({plot})"]
        return "\n".join(lines) + "\n"


def summarize(
    scores: Sequence[TaskScore],
    *,
    ks: Sequence[int] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
    missing: int = 0,
) -> EvalReport:
    """pass@k per family, per family x level and across families (IQM and mean), with CIs.

    ``ks``: the k values asked for (a note names those larger than the fewest samples a task has);
    ``None``: every k of ``DEFAULT_KS`` the samples allow, without a note. Every interval has its own
    random stream (:func:`stream`); across families, IQM and mean are two statistics of the same
    resamples, so where they coincide (one family) so do their intervals."""
    if not scores:
        raise ValueError("no scored tasks to summarize")
    fewest = min(s.n for s in scores)
    asked = DEFAULT_KS if ks is None else tuple(ks)
    usable = sorted({k for k in asked if 1 <= k <= fewest})
    notes = []
    if not usable:
        raise ValueError(f"every k in {list(asked)} exceeds the fewest samples per task ({fewest})")
    dropped = sorted(set(asked) - set(usable))
    if dropped and ks is not None:
        notes.append(f"pass@k not reported for k={dropped}: some tasks have only {plural(fewest, 'sample')}")
    if missing:
        notes.append(f"{missing} suite tasks had no responses and are left out")
    by_family: dict[str, list[TaskScore]] = defaultdict(list)
    by_cell: dict[tuple[str, int | None], list[TaskScore]] = defaultdict(list)
    for s in scores:
        by_family[s.family].append(s)
        by_cell[(s.family, s.level)].append(s)
    report = EvalReport(
        ks=usable,
        confidence=confidence,
        tasks=len(scores),
        samples=sum(s.n for s in scores),
        missing=missing,
        notes=notes,
    )

    def estimate(group: Sequence[TaskScore], k: int, *key: object) -> Estimate:
        values = [s.pass_at(k) for s in group]
        low, high = bootstrap_ci(values, confidence=confidence, n_boot=n_boot, seed=stream(seed, *key, k))
        return Estimate(float(np.mean(values)), low, high, len(values))

    for fam in sorted(by_family):
        group = by_family[fam]
        report.families[fam] = {k: estimate(group, k, "family", fam) for k in usable}
        report.format_rate[fam] = sum(s.format_ok for s in group) / sum(s.n for s in group)
        report.verifier_errors[fam] = sum(s.errors for s in group)
    for cell in sorted(by_cell, key=lambda c: (c[0], -1 if c[1] is None else c[1])):
        report.cells[cell] = {k: estimate(by_cell[cell], k, "cell", *cell) for k in usable}
    families = sorted(by_family)
    for k in usable:
        groups = [[s.pass_at(k) for s in by_family[f]] for f in families]
        means = [float(np.mean(g)) for g in groups]
        resamples = stratified_resamples(groups, n_boot, stream(seed, "across families", k))
        iqm_ci = _percentiles(_iqm_rows(resamples), confidence)
        mean_ci = _percentiles(resamples.mean(axis=1), confidence)
        report.iqm[k] = Estimate(iqm(means), *iqm_ci, len(scores))
        report.mean[k] = Estimate(float(np.mean(means)), *mean_ci, len(scores))
    return report


def plot_accuracy_vs_level(report: EvalReport, path: str | os.PathLike[str], k: int | None = None) -> Path:
    """PNG of pass@k (default: the smallest k) against level, one line per family, with CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = report.ks[0] if k is None else k
    families = list(report.families)
    fig, ax = plt.subplots(figsize=(8 + 0.05 * len(families), 5), dpi=110)
    colors = plt.get_cmap("tab10" if len(families) <= 10 else "tab20").colors
    for i, fam in enumerate(families):
        cells = sorted((lv, est[k]) for (f, lv), est in report.cells.items() if f == fam and lv is not None)
        if not cells:
            continue
        # a small horizontal offset per family keeps overlapping error bars apart
        shift = (i - (len(families) - 1) / 2) * min(0.06, 0.5 / max(len(families), 1))
        levels = [lv + shift for lv, _ in cells]
        values = np.array([e.value for _, e in cells])
        err = np.array([[e.value - e.low for _, e in cells], [e.high - e.value for _, e in cells]])
        style = ("-", "--", ":")[(i // len(colors)) % 3]
        ax.errorbar(
            levels,
            values,
            yerr=np.clip(err, 0, None),
            marker="o",
            capsize=3,
            label=fam,
            color=colors[i % len(colors)],
            linestyle=style,
        )
    ax.set_xlabel("level")
    ax.set_ylabel(f"pass@{k}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(range(1, 11))
    ax.set_title(f"pass@{k} against level ({round(report.confidence * 100)}% bootstrap CI)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
    return Path(path)


def write_report(
    report: EvalReport, out: str | os.PathLike[str], records: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Path]:
    """Write ``report.md``, ``results.json``, the plot and per-sample ``verdicts.jsonl`` into ``out``."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot write the report folder {out}: {exc.strerror or exc}") from None
    paths = {
        "report": out / "report.md",
        "results": out / "results.json",
        "plot": out / PLOT_FILE,
        "verdicts": out / "verdicts.jsonl",
    }
    plot_accuracy_vs_level(report, paths["plot"])
    paths["report"].write_text(report.to_markdown(PLOT_FILE), encoding="utf-8")
    paths["results"].write_text(json.dumps(report.to_json(), indent=2), encoding="utf-8")
    with open(paths["verdicts"], "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return paths


def evaluate(
    suite: str | os.PathLike[str] | Sequence[Task],
    responses: str | os.PathLike[str] | Mapping[str, Sequence[str]],
    *,
    split: str = "test",
    ks: Sequence[int] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
    allow_missing: bool = False,
    num_proc: int = 1,
    out: str | os.PathLike[str] | None = None,
) -> EvalReport:
    """Score responses on a suite and summarize them (and write the report when ``out`` is set)."""
    workdir = str(out) if out is not None else None
    tasks = list(suite) if isinstance(suite, Sequence) and not isinstance(suite, str) else None
    if tasks is None:
        tasks = load_suite(suite, split=split, workdir=workdir)
    if not isinstance(responses, Mapping):
        responses = load_responses(responses)
    scores, records = score_responses(tasks, responses, allow_missing=allow_missing, num_proc=num_proc)
    report = summarize(
        scores, ks=ks, confidence=confidence, n_boot=n_boot, seed=seed, missing=len(tasks) - len(scores)
    )
    if out is not None:
        write_report(report, out, records)
    return report


# --------------------------------------------------------------------------------------------
# Sampling responses from a model (needs the agent loop's backend and transformers)
# --------------------------------------------------------------------------------------------


def sample_responses(
    tasks: Sequence[Task],
    model: str,
    *,
    n: int,
    max_tokens: int = 512,
    temperature: float = 1.0,
    seed: int = 0,
) -> dict[str, list[str]]:
    """``n`` sampled responses per task from a local transformers checkpoint (chat template if any)."""
    try:
        from transformers import AutoTokenizer

        from palaestra.agents.backends import Sampling, TransformersBackend
    except ImportError as exc:
        raise ValueError(
            f"--model needs the training stack (pip install 'palaestra[train]'): {exc}"
        ) from None
    if not Path(model).exists():
        raise ValueError(f"model {model!r} does not exist (a local checkpoint folder is expected)")
    import transformers

    transformers.logging.disable_progress_bar()  # the weight-loading bar of a tiny model is noise
    tokenizer = AutoTokenizer.from_pretrained(model)
    backend = TransformersBackend.from_pretrained(model)
    prompts = []
    for task in tasks:
        if getattr(tokenizer, "chat_template", None):
            # render to text, then tokenize: with tokenize=True newer transformers return a
            # mapping, and list() of it would be its keys, not token ids
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": task.prompt}], add_generation_prompt=True, tokenize=False
            )
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        else:
            ids = tokenizer(task.prompt)["input_ids"]
        prompts.append(list(ids))
    stop = () if tokenizer.eos_token_id is None else (int(tokenizer.eos_token_id),)
    sampling = Sampling(max_tokens=max_tokens, temperature=temperature, seed=seed, stop_token_ids=stop)
    completions = backend.generate(prompts, n, sampling)
    return {
        task.id: [tokenizer.decode(c.token_ids, skip_special_tokens=True) for c in outs]
        for task, outs in zip(tasks, completions, strict=True)
    }


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _cmd_eval(args: argparse.Namespace) -> int:
    out = Path(args.out)
    tasks = load_suite(args.suite, split=args.split, workdir=str(out))
    if args.model:
        responses = sample_responses(
            tasks,
            args.model,
            n=args.samples,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            seed=args.seed,
        )
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "responses.jsonl", "w", encoding="utf-8") as handle:
            for task_id, texts in responses.items():
                handle.write(json.dumps({"id": task_id, "responses": texts}, ensure_ascii=False) + "\n")
    else:
        responses = load_responses(args.responses)
    report = evaluate(
        tasks,
        responses,
        ks=args.k,
        confidence=args.confidence,
        n_boot=args.n_boot,
        seed=args.seed,
        allow_missing=args.allow_missing,
        num_proc=args.num_proc,
        out=out,
    )
    k = report.ks[0]
    print(
        f"{plural(report.tasks, 'task')}, {plural(len(report.families), 'family')}: IQM pass@{k} {report.iqm[k].text()}, "
        f"mean pass@{k} {report.mean[k].text()}; report in {out / 'report.md'}"
    )
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"confidence must be in (0, 1), got {text!r}")
    return value


def add_cli(subparsers: Any) -> None:
    """Register ``palaestra eval``."""
    p = subparsers.add_parser("eval", help="score model responses on a suite: pass@k, CIs, IQM, plot")
    p.add_argument("--suite", required=True, help="export folder, mixture config or tasks JSONL")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--responses", help="JSONL of {id, response|responses}")
    source.add_argument("--model", help="local transformers checkpoint to sample responses from")
    p.add_argument("--split", default="test", help="split of an export folder (default: test)")
    p.add_argument(
        "--k",
        type=_positive_int,
        nargs="+",
        default=None,
        help=f"values of k (default: those of {list(DEFAULT_KS)} that the samples per task allow)",
    )
    p.add_argument("--samples", type=_positive_int, default=1, help="samples per task with --model")
    p.add_argument("--max-tokens", type=_positive_int, default=512, help="tokens per sample with --model")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature with --model")
    p.add_argument("--confidence", type=_confidence, default=0.95, help="CI level (default 0.95)")
    p.add_argument("--n-boot", type=_positive_int, default=2000, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (and of sampling)")
    p.add_argument("--allow-missing", action="store_true", help="leave out tasks without responses")
    p.add_argument("--num-proc", type=_positive_int, default=1, help="processes for verification")
    p.add_argument("--out", default="eval-report", help="report folder (default: ./eval-report)")
    p.set_defaults(run=_cmd_eval)
