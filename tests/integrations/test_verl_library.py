"""verl 0.9.1 itself: the documented main_ppo overrides, verl's own reward loader and the call its
reward manager makes, on the rows of a real export.

verl 0.9.1 needs transformers < 5.11, so it runs in its own virtual environment:
``.ci/real-libs verl`` builds it (cached) and runs this module there with PALAESTRA_REAL_LIB=verl,
where a missing verl is a failure. In the main environment the module is skipped, counted.
The overrides are read from docs/integrations.md, so the documented command is what is tested.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
from pathlib import Path

import pytest

PINNED = "0.9.1"
if os.environ.get("PALAESTRA_REAL_LIB") == "verl":  # its own venv: missing verl is an error
    verl = importlib.import_module("verl")
else:
    verl = pytest.importorskip("verl", reason=f"verl {PINNED} runs in its own venv: bash .ci/real-libs verl")

import pyarrow.parquet as pq  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from verl.trainer.ppo.reward import get_custom_reward_fn  # noqa: E402

import palaestra  # noqa: E402
import palaestra.integrations.verl as adapter  # noqa: E402
from palaestra.export import export  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
CONFIG_DIR = Path(verl.__file__).parent / "trainer" / "config"


def documented_overrides(data_file: Path) -> list[str]:
    """The key=value overrides of the docs' main_ppo command, its shell substitutions made."""
    section = DOCS.read_text().split("## verl", 1)[1]
    command = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    words = command.replace("\\\n", " ").split()
    module = words.index("verl.trainer.main_ppo")
    text = " ".join(words[module + 1 :])
    text = re.sub(
        r"\$\(python -c \"import palaestra\.integrations\.verl as m; print\(m\.__file__\)\"\)",
        adapter.__file__,
        text,
    )
    text = text.replace("$DATA/data/train-00000-of-00001.parquet", str(data_file))
    return text.split()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verl") / "data"
    mixture = {
        "name": "verl-check",
        "seed": 3,
        "version": 1,
        "splits": ["train"],
        "mixture": [
            {"family": family, "level": 3, "counts": {"train": 4}}
            for family in ("expression", "sudoku", "countdown", "shortest_path", "knights_knaves")
        ],
    }
    export(mixture, out)
    return out / "data" / "train-00000-of-00001.parquet"


def compose_main_ppo(overrides: list[str]):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def test_the_release_is_the_one_pinned() -> None:
    print("verl", importlib.metadata.version("verl"))
    assert importlib.metadata.version("verl") == PINNED


def test_documented_overrides_reach_verls_reward_loader(exported: Path) -> None:
    overrides = documented_overrides(exported)
    assert any(o.startswith("reward.custom_reward_function.path=") for o in overrides), overrides
    config = compose_main_ppo(overrides)
    assert config.data.train_files == str(exported) and config.data.prompt_key == "prompt"
    score = get_custom_reward_fn(config)  # what main_ppo's reward loop loads
    assert score is not None, "verl loaded no custom reward: the documented keys were ignored"


def test_the_old_keys_are_silently_ignored_by_main_ppo(exported: Path) -> None:
    """The defect the docs had: `custom_reward_function.*` composes, but main_ppo never reads it."""
    config = compose_main_ppo(
        [f"custom_reward_function.path={adapter.__file__}", "custom_reward_function.name=compute_score"]
    )
    assert get_custom_reward_fn(config) is None


def test_verls_call_grades_every_exported_row(exported: Path) -> None:
    """The arguments verl's naive reward manager passes: data_source, solution_str, ground_truth,
    extra_info (with the keys it adds); right answers pay 1.0, wrong ones 0.0."""
    score = get_custom_reward_fn(compose_main_ppo(documented_overrides(exported)))
    rows = pq.read_table(exported).to_pylist()
    assert len({row["family"] for row in rows}) == 5
    for row in rows:
        task = palaestra.rebuild(palaestra.Task.from_json(row["extra_info"]["task"]))
        right = palaestra.get(task.family).impl.reference_response(task)
        for response, expected in ((right, 1.0), ("<answer>surely not</answer>", 0.0)):
            extra_info = {**row["extra_info"], "num_turns": 2, "rollout_reward_scores": {}}
            result = score(
                data_source=row["data_source"],
                solution_str=response,
                ground_truth=row["reward_model"]["ground_truth"],
                extra_info=extra_info,
            )
            assert result["score"] == expected, (task.family, response[:60], result)


def test_curriculum_kwargs_from_the_documented_override(exported: Path) -> None:
    section = DOCS.read_text().split("In verl, the reward records through the server", 1)[1]
    command = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    kwarg = next(word for word in command.split() if "reward_kwargs.curriculum_url" in word)
    config = compose_main_ppo([*documented_overrides(exported), kwarg])
    assert config.reward.custom_reward_function.reward_kwargs.curriculum_url == "http://127.0.0.1:8000"
