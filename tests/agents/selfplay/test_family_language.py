"""The ``family`` language inside a run: the run's pinned knobs hold on every proposal, and the
warm start teaches its JSON format over the run's level range."""

from __future__ import annotations

import json

import numpy as np

from palaestra.agents.selfplay import make_language
from palaestra.agents.selfplay.warmstart import family_proposer_examples
from palaestra.agents.tasks import TaskSpace
from palaestra.core import Task

SPACE = TaskSpace(("expression",), {"expression": {"digits": 1}})


def test_pinned_knobs_hold_on_every_level_and_over_proposed_knobs() -> None:
    language = make_language("family", allowed=("expression",), space=SPACE)
    for text in ('{"family": "expression", "level": 3}', '{"family": "expression", "knobs": {"digits": 3}}'):
        task = Task.from_dict(language.build("family", f"<task>{text}</task>", salt=5).payload["task"])
        assert task.difficulty.knobs["digits"] == 1
        assert all(
            len(n) == 1
            for n in task.metadata["expression"].replace("(", " ").replace(")", " ").split()
            if n.isdigit()
        )
    level3 = Task.from_dict(
        language.build("family", '<task>{"family": "expression", "level": 3}</task>').payload["task"]
    )
    assert level3.difficulty.knobs["operands"] == 3 and "*" in level3.difficulty.knobs["operators"]
    unpinned = make_language("family", allowed=("expression",))
    free = Task.from_dict(
        unpinned.build("family", '<task>{"family": "expression", "level": 3}</task>').payload["task"]
    )
    assert free.difficulty.knobs["digits"] == 2  # the catalog's level 3, where the run pins nothing


class CharChat:
    def prompt_ids(self, prompt: str) -> list[int]:
        return [ord(c) for c in prompt]

    def response_ids(self, text: str) -> list[int]:
        return [ord(c) for c in text] + [0]


def test_family_warm_start_examples_are_valid_proposals_over_the_level_range() -> None:
    language = make_language("family", allowed=("expression",), space=SPACE)
    examples = family_proposer_examples(language, CharChat(), 200, np.random.default_rng(0), range(1, 5))
    bare = language.proposer_prompt("family", [])
    levels, shown = set(), set()
    for prompt_ids, response_ids in examples:
        prompt = "".join(map(chr, prompt_ids))
        # the prompt as self-play writes it: bare, or listing up to 3 earlier choices
        listed = prompt.removeprefix(bare).removeprefix("Recent choices:\n").splitlines()
        assert prompt.startswith(bare) and len(listed) <= 3
        for line in listed:
            language.build("family", f"<task>{line}</task>")
        shown.add(len(listed))
        text = "".join(map(chr, response_ids[:-1]))
        language.build("family", text)  # the gate's own parser takes it
        levels.add(json.loads(text.removeprefix("<task>").removesuffix("</task>"))["level"])
    assert levels == {1, 2, 3, 4} and shown == {0, 1, 2, 3}


def test_each_step_counts_valid_proposals_by_level() -> None:
    from palaestra.agents.selfplay.cli import proposed_levels
    from palaestra.agents.selfplay.loop import Sample, StepResult

    language = make_language("family", allowed=("expression",), space=SPACE)
    texts = [
        ('{"family": "expression", "level": 2}', 0.5),
        ('{"family": "expression", "level": 2}', 0.0),
        ('{"family": "expression", "level": 4}', 0.875),
        ("not json", -1.0),
    ]
    result = StepResult(
        0, proposer=[Sample("proposer", "family", "p", f"<task>{t}</task>", r) for t, r in texts]
    )
    assert proposed_levels(result, language) == {"expression/2": 2, "expression/4": 1}
