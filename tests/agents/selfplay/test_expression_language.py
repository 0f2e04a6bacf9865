"""The ``expression`` self-play language: proposals posed in the catalog's own surface form,
graded by the catalog verifier, and never on the held-out side of the run's content split."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.agents.selfplay import REWARD_INVALID, SelfPlay, SelfPlayConfig
from palaestra.agents.selfplay.languages import ExpressionLanguage, Rejection
from palaestra.agents.tasks import TaskSpace, content_key
from palaestra.core import Task

SPACE = TaskSpace(("expression",), {"expression": {"digits": 2}})


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_a_proposal_is_the_catalog_problem_it_names(seed: int) -> None:
    """Same prompt, same content key, same verdicts as the catalog task with that expression."""
    catalog = palaestra.make_task("expression", seed=seed, level=1, digits=2)
    built = ExpressionLanguage().build("expression", f"<task>{catalog.metadata['expression']}</task>")
    task = Task.from_dict(built.payload["task"])
    assert task.prompt == catalog.prompt and content_key(task) == content_key(catalog)
    assert task.answer == catalog.answer
    for response in (f"<answer>{catalog.answer}</answer>", "<answer>1000</answer>", "no answer"):
        graded = ExpressionLanguage().grade(built, [response])[0]
        assert graded == float(palaestra.verify(catalog, response).correct)


def test_grammar_follows_the_run_knobs() -> None:
    lang = ExpressionLanguage.for_space(SPACE)
    assert (lang.operands, lang.digits, lang.operators) == (2, 2, "+-")
    assert "1 to 99" in lang.proposer_prompt("expression", [])
    assert lang.parse("<task> 47-85 </task>") == "47 - 85"
    for bad, reason in [
        ("<task>3*4</task>", "invalid"),
        ("<task>100 + 1</task>", "invalid"),
        ("<task>07 + 1</task>", "invalid"),
        ("<task>1 + 2 + 3</task>", "invalid"),
        ("<task>-3 + 4</task>", "syntax"),
        ("<task>1 + 2; import os</task>", "syntax"),
        ("nothing", "syntax"),
    ]:
        with pytest.raises(Rejection) as info:
            lang.parse(bad)
        assert info.value.reason == reason, bad


class Proposer:
    def __init__(self, script: Sequence[str]) -> None:
        self.script = list(script)

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        return [[self.script.pop(0)] for _ in prompts]


class Solver:
    """Right in 3 of its 8 attempts at every problem."""

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        out = []
        for prompt in prompts:
            expression = prompt.split("\n\n")[1]
            answer = palaestra.agents.selfplay.arith.evaluate(expression).answer
            out.append([f"<answer>{answer}</answer>"] * 3 + ["<answer>0.5</answer>"] * (n - 3))
        return out


def _held_out_and_training_expressions() -> tuple[str, str]:
    held = train = None
    for seed in range(500):
        task = palaestra.make_task("expression", seed=seed, level=1, digits=2)
        if SPACE.is_heldout(task):
            held = held or task.metadata["expression"]
        else:
            train = train or task.metadata["expression"]
    assert held and train
    return held, train


def test_held_out_proposals_are_refused_without_a_reward() -> None:
    """A proposal on the held-out side is never probed (the solver never trains on it) and never
    rewarded (the proposer cannot know the split): it drops out of the proposer's group."""
    held, train = _held_out_and_training_expressions()
    play = SelfPlay(ExpressionLanguage.for_space(SPACE), SelfPlayConfig(proposals_per_type=3))
    result = play.step(Proposer([f"<task>{held}</task>", f"<task>{train}</task>", "junk"]), Solver())
    assert result.metrics["held_out_proposals"] == 1
    assert [s.completion for s in result.proposer] == [f"<task>{train}</task>", "junk"]
    assert [s.reward for s in result.proposer] == [pytest.approx(5 / 8), REWARD_INVALID]
    assert {s.prompt.split("\n\n")[1] for s in result.solver} == {train}
    assert play.gate.counts["held_out"] == 1
