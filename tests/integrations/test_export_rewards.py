"""One export feeds palaestra's rewards as a trainer passes it: reference answers pay 1.0, wrong
shapes fail loudly (regressions: math_reward paid 0.0 for export answers stored as JSON text;
palaestra_reward raised TypeError for missing 'task' on export columns)."""

from __future__ import annotations

import pytest

import palaestra
from palaestra import export as ex
from palaestra.integrations.trl import palaestra_reward
from palaestra.rows import row_to_task, tasks_from_columns
from palaestra.verifiers.math import math_reward

datasets = pytest.importorskip("datasets")

MATH_FAMILIES = ["expression", "long_arithmetic", "chinese_remainder", "combinatorial_counting"]
OTHER_FAMILIES = ["sudoku", "knights_knaves", "shortest_path"]


def trl_reward_kwargs(rows: list[dict]) -> dict[str, list]:
    """The keyword lists TRL's GRPOTrainer passes a reward function: every column but the prompt
    and completion ones, one list per column (as `_calculate_rewards` builds them)."""
    keys = [k for k in rows[0] if k not in ("prompt", "completion", "completion_ids")]
    return {k: [row[k] for row in rows] for k in keys}


def exported_train_rows(folder, families: list[str], levels: list[int], count: int, seed: int) -> list[dict]:
    """The train rows of a real export of ``count`` tasks per family and level, loaded back."""
    mixture = [{"family": f, "levels": levels, "counts": {"train": count}} for f in families]
    config = {"name": "rewards", "seed": seed, "calibration_samples": 0, "mixture": mixture}
    out = ex.export(config, folder / "ds").path
    return ex.read_split(out, "train")


@pytest.fixture(scope="module")
def export_rows(tmp_path_factory) -> list[dict]:
    return exported_train_rows(
        tmp_path_factory.mktemp("x"), MATH_FAMILIES + OTHER_FAMILIES, [1, 2], 3, seed=3
    )


def references(rows: list[dict]) -> list[str]:
    return [palaestra.get(r["family"]).impl.reference_response(row_to_task(r)) for r in rows]


def test_palaestra_reward_pays_every_reference_answer_of_an_export(export_rows):
    kwargs = trl_reward_kwargs(export_rows)
    assert palaestra_reward(references(export_rows), **kwargs) == [1.0] * len(export_rows)
    as_chat = [[{"role": "assistant", "content": r}] for r in references(export_rows)]
    assert palaestra_reward(as_chat, **kwargs) == [1.0] * len(export_rows)
    assert palaestra_reward(["<answer>nan</answer>"] * len(export_rows), **kwargs) == [0.0] * len(export_rows)


def test_math_reward_pays_every_reference_answer_of_an_export(export_rows):
    rows = [r for r in export_rows if r["family"] in MATH_FAMILIES]
    assert len(rows) == 6 * len(MATH_FAMILIES)
    rewards = math_reward(references(rows), **trl_reward_kwargs(rows))
    assert rewards == [1.0] * len(rows)
    # the answer column alone (a trainer that passes only `answer`) still pays
    answers_only = {"answer": [r["answer"] for r in rows]}
    assert math_reward(references(rows), **answers_only) == [1.0] * len(rows)
    assert math_reward(["<answer>-12345.5</answer>"] * len(rows), **answers_only) == [0.0] * len(rows)


def test_math_reward_refuses_structured_answers_loudly(export_rows):
    rows = [r for r in export_rows if r["family"] == "knights_knaves"]
    with pytest.raises(ValueError, match="not a single math value"):
        math_reward(references(rows), **trl_reward_kwargs(rows))


def test_export_prompt_is_conversational_and_rows_carry_reverification_columns(export_rows):
    row = export_rows[0]
    assert row["prompt"][-1]["role"] == "user" and isinstance(row["prompt"][-1]["content"], str)
    for column in ("id", "family", "family_version", "level", "knobs", "seed", "palaestra_version"):
        assert row[column] is not None, column
    assert row["palaestra_version"] == palaestra.__version__
    assert row["data_source"] == f"palaestra/{row['family']}"
    assert row["reward_model"]["ground_truth"] == row["answer"]
    task = row_to_task(row)
    assert palaestra.rebuild(task) == task


def test_rewards_fail_loudly_on_a_batch_without_the_task_record(export_rows):
    kwargs = trl_reward_kwargs(export_rows)
    kwargs.pop("extra_info")
    with pytest.raises(ValueError, match="task record"):
        palaestra_reward(references(export_rows), **kwargs)
    with pytest.raises(ValueError, match="task record"):
        tasks_from_columns({"extra_info": [{"split": "train"}]}, 1)


def test_a_tampered_row_is_refused(export_rows):
    row = dict(export_rows[0])
    row["seed"] = row["seed"] + 1
    with pytest.raises(ValueError, match="disagrees"):
        row_to_task(row)


@pytest.fixture(scope="module")
def every_family_rows(tmp_path_factory) -> list[dict]:
    """One exported row per registered family (level 3: level 1 of a few families has one task)."""
    return exported_train_rows(tmp_path_factory.mktemp("all"), palaestra.families(), [3], 1, seed=1)


def test_every_family_export_pays_its_reference_answers(every_family_rows):
    """Registry-wide: a new family is covered the moment it registers."""
    rows = every_family_rows
    assert sorted(r["family"] for r in rows) == sorted(palaestra.families())
    kwargs = trl_reward_kwargs(rows)
    rewards = palaestra_reward(references(rows), **kwargs)
    assert {r["family"]: x for r, x in zip(rows, rewards, strict=True) if x != 1.0} == {}


def test_math_reward_on_any_family_pays_the_reference_or_refuses_loudly(every_family_rows):
    """math_reward never scores a reference answer 0 because of the data's shape: it pays 1.0 or
    raises ValueError (a structured answer is no single math value)."""
    silent = {}
    for row, reference in zip(every_family_rows, references(every_family_rows), strict=True):
        try:
            reward = math_reward([reference], **trl_reward_kwargs([row]))[0]
        except ValueError as exc:
            assert "not a single math value" in str(exc)
            continue
        if reward != 1.0:
            silent[row["family"]] = reward
    assert silent == {}


@pytest.mark.parametrize("column", ["id", "family", "seed", "level", "family_version", "knobs", "answer"])
def test_rewards_refuse_a_row_whose_identity_columns_were_edited(export_rows, column):
    """The rewards read the identity columns verify-dataset checks: an edited row is refused,
    never graded as the task its record holds."""
    rows = [dict(r) for r in export_rows[:2]]
    other = export_rows[-1]
    rows[1][column] = other[column] if other[column] != rows[1][column] else rows[0][column]
    assert rows[1][column] != export_rows[1][column]
    with pytest.raises(ValueError, match="disagrees"):
        palaestra_reward(references(export_rows[:2]), **trl_reward_kwargs(rows))
