"""The family catalog, generated from the registry and the shipped measurements.

``palaestra catalog --out FILE`` writes it (default ``./catalog.md``); the repository keeps it
as ``docs/catalog.md``, and ``palaestra catalog --check --out docs/catalog.md`` exits 1 when
that file is stale (the test suite runs the check, so the catalog never drifts from the code).
The figures come from ``palaestra/measured/`` (package data), so an installed wheel renders the
same catalog as a checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from palaestra import measurements
from palaestra.calibration import current_duplicate_rows, stored_calibration, stored_duplicates
from palaestra.core import LEVELS
from palaestra.registry import FamilySpec, families, get, make_task

EXAMPLE_LEVEL, EXAMPLE_SEED = 3, 0
DUPLICATE_BOUND_FROM = 3  # the duplicate bound (1% of 2,000 tasks) holds from this level on


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _knob_table(spec: FamilySpec) -> list[str]:
    lines = ["| knob | type | allowed | default | meaning |", "|---|---|---|---|---|"]
    for k in spec.knob_specs():
        if k.choices is not None:
            allowed = ", ".join(map(str, k.choices))
        elif k.low is not None or k.high is not None:
            allowed = f"{k.low} .. {k.high}"
        else:
            allowed = "any"
        lines.append(f"| `{k.name}` | {k.type} | {_cell(allowed)} | {_cell(k.default)} | {_cell(k.help)} |")
    return lines


def stored_reward_errors(path: Path = measurements.REWARD_ERRORS) -> dict[str, Any]:
    """The reward-error measurement on file (``benchmarks/reward_errors.py``)."""
    return measurements.load(path, {"families": {}})


def current_reward_errors(record: dict[str, Any] | None, spec: FamilySpec) -> dict[str, Any] | None:
    """A family's stored reward-error record if it was measured on the installed version."""
    if record is None or record.get("family_version") != spec.version:
        return None
    return record


def _level_table(
    spec: FamilySpec, duplicates: dict[int, dict[str, Any]], errors: dict[str, Any] | None = None
) -> list[str]:
    names = spec.knobs.names()
    calibration = stored_calibration(spec.name)
    extra = ["weak solve rate", "mean effort"] if calibration else []
    extra += ["best constant answer", "duplicates"]
    constants = _constant_scores(errors)
    lines = [
        "| level | " + " | ".join(f"`{n}`" for n in names + extra) + " |",
        "|---" * (len(names) + len(extra) + 1) + "|",
    ]
    for level in LEVELS:
        values = spec.levels[level].to_dict()
        cells = [_cell(values[n]) for n in names]
        if calibration:
            row = calibration.get(level, {})
            cells += [
                f"{row.get('weak_solve_rate', float('nan')):.2f}",
                f"{row.get('effort_mean', float('nan')):.4g}",
            ]
        cells.append(f"{constants[level]:.2f}" if level in constants else "not measured")
        cells.append(_duplicates_cell(level, duplicates.get(level)))
        lines.append(f"| {level} | " + " | ".join(cells) + " |")
    return lines


def _constant_scores(errors: dict[str, Any] | None) -> dict[int, float]:
    measured = (errors or {}).get("best_constant_score") or {}
    if measured.get("status") != "measured":
        return {}
    return {int(level): score for level, score in measured["levels"].items()}


def _reward_error_lines(errors: dict[str, Any] | None) -> list[str]:
    """The family's measured reward errors, or a line saying they are not measured."""
    if errors is None:
        return ["Reward errors: not measured for this version (run `benchmarks/reward_errors.py`)."]
    levels = errors["levels"]
    lines = [
        f"Reward errors (`benchmarks/reward_errors.py`, {_levels_text(levels)}, "
        f"{errors['seeds_per_level']} seed{'s' if errors['seeds_per_level'] > 1 else ''} each):",
        "",
        f"- wrong answers paid: {errors['paid']:,} of {errors['wrong_responses']:,} ({_percent(errors['false_positive_rate'])})",
        f"- right answers refused: {errors['refused']:,} of {errors['right_responses']:,} ({_percent(errors['false_negative_rate'])})",
        f"- verifier failures on attacks: {errors['verifier_failures']:,}; slowest verify on hostile input: "
        + _hostile_time(errors),
    ]
    mutation = errors.get("mutation_kill_rate")
    if mutation is not None:
        if mutation.get("status") == "measured":
            lines.append(
                f"- mutation kill rate: {mutation['kill_rate']:.2%} of {mutation['differing']:,} differing mutants"
            )
        else:
            lines.append("- mutation kill rate: not measured")
    return lines


def _levels_text(levels: list[int]) -> str:
    if levels == list(range(levels[0], levels[-1] + 1)):
        return f"levels {levels[0]}-{levels[-1]}"
    return "levels " + ", ".join(map(str, levels))


def _hostile_time(errors: dict[str, Any]) -> str:
    """CPU time when measured (the benchmark runs on shared machines, where wall time is noise)."""
    cpu = errors.get("max_hostile_verify_cpu_s")
    if cpu is None:
        return f"{errors['max_hostile_verify_s'] * 1000:,.0f} ms"
    return f"{cpu * 1000:,.0f} ms CPU"


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.2%}"


def _duplicates_cell(level: int, row: dict[str, Any] | None) -> str:
    if row is not None:
        return f"{row['duplicate_rate']:.2%} of {row['tasks']:,}"
    return "not measured" if level >= DUPLICATE_BOUND_FROM else "-"


def render_family(
    name: str, duplicates: dict[str, Any] | None = None, reward_errors: dict[str, Any] | None = None
) -> str:
    """One family's section; ``duplicates`` and ``reward_errors`` are the stored measurements
    (read from their files if None)."""
    spec = get(name)
    if duplicates is None:
        duplicates = stored_duplicates()
    duplicate_rows = current_duplicate_rows(duplicates["families"].get(name, {}), spec)
    if reward_errors is None:
        reward_errors = stored_reward_errors()
    errors = current_reward_errors(reward_errors["families"].get(name), spec)
    example = make_task(name, seed=EXAMPLE_SEED, level=EXAMPLE_LEVEL)
    fence = "````"
    lines = [
        f"## `{name}`",
        "",
        f"{spec.description}",
        "",
        f"- domain: {spec.domain}; version: {spec.version}; Gymnasium id: `{spec.env_id}`",
        f"- verifier: {spec.verifier_kind}",
        "",
        "Knobs:",
        "",
        *_knob_table(spec),
        "",
        "Levels" + (" (with measured calibration):" if stored_calibration(name) else ":"),
        "",
        *_level_table(spec, duplicate_rows, errors),
        "",
        *_reward_error_lines(errors),
        "",
        f"Example prompt (level {EXAMPLE_LEVEL}, seed {EXAMPLE_SEED}):",
        "",
        fence + "text",
        example.prompt,
        fence,
        "",
    ]
    return "\n".join(lines)


def _speed_table(path: Path = measurements.GENERATION) -> list[str]:
    """Milliseconds per task (CPU, mean over a fixed seed range) beside reasoning-gym, from the
    stored comparisons that timed right, wrong and model-style answers (older ones are left out)."""
    peers = measurements.load(path).get("peers", {})
    rows = {key: row for key, row in peers.items() if "ours_over_theirs_speed" in row}
    if not rows:
        return []
    lines = [
        "Speed beside reasoning-gym (`benchmarks/generation.py`: mean CPU ms per task over the same seed range,",
        "ours at level 5; verification of a right / wrong / model-style answer; ratio > 1: ours is faster):",
        "",
        "| family | reasoning-gym | generate ms (ours / theirs) | verify ms right | wrong | model-style |",
        "|---|---|---|---|---|---|",
    ]
    for key, row in sorted(rows.items()):
        ours, theirs, ratio = row["ours_level_5"], row["theirs"], row["ours_over_theirs_speed"]

        def pair(a: dict[str, Any], b: dict[str, Any], r: float) -> str:
            return f"{a['mean_ms']:.3g} / {b['mean_ms']:.3g} ({r:.2g}x)"

        cells = [pair(ours["generation"], theirs["generation"], ratio["generation_mean"])]
        for kind in ("right", "wrong", "model"):
            cells.append(
                pair(ours["verification"][kind], theirs["verification"][kind], ratio[f"verify_{kind}_mean"])
            )
        lines.append(
            f"| `{key.split('~')[0]}` | `{row['reasoning_gym_dataset']}` | " + " | ".join(cells) + " |"
        )
    for key, row in sorted(rows.items()):
        like = row.get("ours_like_for_like")
        if like:  # the peer poses a narrower task than our level 5: ours on the same kind too
            ratio = row["ours_over_theirs_speed"]["generation_mean_like_for_like"]
            lines.append(
                f"\nOn reasoning-gym's own kind of `{key.split('~')[0]}` instance ({like['knobs']}) ours"
                f" generates in {like['generation']['mean_ms']:.3g} ms, theirs in"
                f" {row['theirs']['generation']['mean_ms']:.3g} ms ({ratio:.2g}x)."
            )
    return ["", *lines]


def render_catalog() -> str:
    names = families()
    header = [
        "# palaestra family catalog",
        "",
        "Generated from the registry by `palaestra catalog`; do not edit by hand.",
        "",
        f"{len(names)} families. Every family has 10 calibrated levels, typed knobs and an exact verifier;",
        "calibration records ship in `palaestra/measured/calibration/` and their plots are in",
        "[calibration/](calibration/). Duplicate rates among 2,000 tasks per level (canonical hash; the",
        "bound is 1% at levels >= 3) are measured by `benchmarks/duplicates.py` into",
        "`measured/duplicates.json` and shown in each level table (only figures still current: same",
        "family version and level knobs); generation speed by `benchmarks/generation.py` into",
        "`measured/generation.json`. Reward errors (wrong answers paid and right answers refused under",
        "the red-team suite's attacks, verify time on hostile input, the mutation kill rate of code",
        "families and the best constant answer's score per level) are measured by",
        "`benchmarks/reward_errors.py` into `measured/reward_errors.json`.",
        *_speed_table(),
        "",
        "| family | domain | verifier | description |",
        "|---|---|---|---|",
    ]
    for name in names:
        spec = get(name)
        header.append(
            f"| [`{name}`](#{name}) | {spec.domain} | {_cell(spec.verifier_kind)} | {_cell(spec.description)} |"
        )
    duplicates, reward_errors = stored_duplicates(), stored_reward_errors()
    return "\n".join(header) + "\n\n" + "\n".join(render_family(n, duplicates, reward_errors) for n in names)


def run_cli(args: argparse.Namespace) -> int:
    text = render_catalog()
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run `palaestra catalog`", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


def add_cli(subparsers: Any) -> None:
    p = subparsers.add_parser("catalog", help="write the family catalog (Markdown) from the registry")
    p.add_argument("--out", type=Path, default=Path("catalog.md"), help="output file (default ./catalog.md)")
    p.add_argument("--check", action="store_true", help="exit 1 if the file is stale instead of writing it")
    p.set_defaults(run=run_cli)
