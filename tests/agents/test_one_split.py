"""One train/test split everywhere (issue 25): over 100,000 tasks drawn through every mode that
trains on catalog problems (the GRPO loop and SFT, the expression and family self-play languages,
the self-play catalog mix, TRL rows, `palaestra export` train splits) and not one of them is
held-out content; an export's test split is held-out content only.

Before: the family language and the catalog mix had no held-out check (524 of 2,000 built
`expression` level-1 tasks were held out), and TRL's split (1/16 by another hash) put 80% of its
test tasks on the loop's training side. The arith and python languages pose their own programs,
not catalog problems, so no catalog held-out problem can reach them. Exports drew their splits
from seed ranges: about 80% of an export's test rows were training content for every other mode.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from palaestra.agents.selfplay import SelfPlay, SelfPlayConfig
from palaestra.agents.selfplay.languages import ExpressionLanguage, FamilyLanguage, Rejection
from palaestra.agents.selfplay.trainer import SelfPlayLoop
from palaestra.agents.sft import sft_examples
from palaestra.agents.tasks import TaskSpace
from palaestra.agents.teacher import Teacher
from palaestra.core import Task
from palaestra.export import export, read_split
from palaestra.integrations.trl import split_of, task_rows
from palaestra.rows import TEST_SHARE, is_test_content, row_to_task

FAMILIES = ("expression", "long_arithmetic", "chinese_remainder")
SPACE = TaskSpace(FAMILIES, {"expression": {"operands": 3, "digits": 1}}, heldout_share=0.2)
# five draws of PER_MODE (GRPO + SFT, expression, family + catalog mix, TRL, export): 100,000 tasks
PER_MODE = 20_000


class CharChat:
    def prompt_ids(self, prompt: str) -> list[int]:
        return [len(prompt)]

    def response_ids(self, response: str) -> list[int]:
        return [len(response)]


def catalog_task(payload: dict) -> Task:
    return Task.from_json(json.dumps(payload["task"]))


def test_grpo_and_sft_draws_are_never_held_out():
    rng = np.random.default_rng(0)
    drawn = [SPACE.train_task(FAMILIES[k % 3], 1 + k % 3, rng) for k in range(PER_MODE // 2)]
    assert not any(SPACE.is_heldout(t) or is_test_content(t) for t in drawn)
    # SFT draws its demonstrations through the same space; their prompts are the drawn tasks'
    teacher = Teacher.from_config(SimpleNamespace(teacher_errors="", worked_answers=True))
    pairs = sft_examples(CharChat(), SPACE, teacher, [1, 2], PER_MODE // 2, np.random.default_rng(1))
    assert len(pairs) == PER_MODE // 2


def test_expression_proposals_never_build_held_out_tasks():
    language = ExpressionLanguage.for_space(SPACE)
    rng = np.random.default_rng(2)
    built = refused = 0
    for _ in range(PER_MODE):
        a, b, c = (int(x) for x in rng.integers(1, 10, 3))
        ops = rng.choice(["+", "-"], 2)
        try:
            task = language.build("expression", f"<task>{a} {ops[0]} {b} {ops[1]} {c}</task>")
        except Rejection as rejection:
            assert rejection.reason == "held_out"
            refused += 1
            continue
        built += 1
        assert not SPACE.is_heldout(catalog_task(task.payload))
    assert built > 0 and refused > 0  # both sides were reached: the check was exercised


def test_family_proposals_and_the_catalog_mix_draw_the_training_side():
    language = FamilyLanguage(allowed=FAMILIES, space=SPACE)
    rng = np.random.default_rng(3)
    for k in range(PER_MODE):
        proposal = {"family": FAMILIES[k % 3], "level": int(1 + rng.integers(3))}
        task = language.build("family", f"<task>{json.dumps(proposal)}</task>", salt=int(rng.integers(2**31)))
        assert not SPACE.is_heldout(catalog_task(task.payload)), proposal
    # the catalog mix: SelfPlayLoop hands the trainer's space to the loop's catalog language
    play = SelfPlay(
        ExpressionLanguage.for_space(SPACE), SelfPlayConfig(catalog_fraction=1.0, catalog_families=FAMILIES)
    )
    trainer = SimpleNamespace(
        config=SimpleNamespace(max_new_tokens=8), chat=CharChat(), backend=None, space=SPACE
    )
    SelfPlayLoop(trainer, play)
    assert play.catalog.space is SPACE
    salts = np.random.default_rng(4).integers(0, 2**31, 200)
    mixed = [
        play.catalog.build("family", json.dumps({"family": "expression", "level": 1}), int(s)) for s in salts
    ]
    assert not any(SPACE.is_heldout(catalog_task(t.payload)) for t in mixed)


def test_trl_rows_use_the_same_split():
    train = task_rows(list(FAMILIES), PER_MODE // 3, level=2)
    assert len(train) >= PER_MODE - 3
    assert not any(SPACE.is_heldout(row_to_task(r)) for r in train)
    test = [row_to_task(r) for r in task_rows(["expression"], 50, level=3, split="test")]
    assert all(split_of(t) == "test" and SPACE.is_heldout(t) for t in test)  # TRL test = loop held-out
    assert TEST_SHARE == SPACE.heldout_share  # at the defaults the two sides are the same sets


def test_export_splits_use_the_same_split(tmp_path):
    families = ("expression", "long_arithmetic", "chinese_remainder")
    per_cell = {"train": PER_MODE // 9, "test": PER_MODE // 9 // 8}  # 3 families x 3 levels
    mixture = [{"family": f, "levels": [3, 4, 5], "counts": per_cell} for f in families]
    out = export({"seed": 25, "calibration_samples": 0, "mixture": mixture}, tmp_path / "ds", num_proc=2).path
    train = [row_to_task(r) for r in read_split(out, "train")]
    test = [row_to_task(r) for r in read_split(out, "test")]
    assert len(train) == 9 * per_cell["train"] and len(test) == 9 * per_cell["test"]
    assert len(train) + len(test) >= PER_MODE
    assert not any(SPACE.is_heldout(t) for t in train)  # the loop's held-out set never trains
    assert all(SPACE.is_heldout(t) and split_of(t) == "test" for t in test)  # = the loop's and TRL's
