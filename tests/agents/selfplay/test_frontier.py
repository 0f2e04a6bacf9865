"""The frontier measurement (the share of proposals in the solver's weak region against uniform
tasks probed alike), the frozen-proposer ablation, and the run's generated-token count."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pytest

from palaestra.agents.backends import Completion
from palaestra.agents.selfplay import SelfPlay, SelfPlayConfig, make_language
from palaestra.agents.selfplay.arith import evaluate
from palaestra.agents.selfplay.languages import ExpressionLanguage, SelfPlayTask
from palaestra.agents.selfplay.loop import FRONTIER_PASS_RATE
from palaestra.agents.selfplay.rewards import NEAR_DUPLICATE_PENALTY
from palaestra.agents.selfplay.trainer import BackendPolicy, SelfPlayLoop
from palaestra.agents.tasks import TaskSpace

from .test_trainer_loop import CharChat, FakeTrainer

SPACE = TaskSpace(("expression",), {"expression": {"digits": 2}})


def _value(prompt: str) -> Fraction:
    return Fraction(evaluate(prompt.split("\n\n")[1]).answer)


class SignSolver:
    """Always right when the answer is >= 0, right once in n attempts when it is negative."""

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        out = []
        for prompt in prompts:
            value = _value(prompt)
            right = n if value >= 0 else 1
            out.append([f"<answer>{value}</answer>"] * right + ["<answer>0.5</answer>"] * (n - right))
        return out


class Proposer:
    def __init__(self, script: Sequence[str]) -> None:
        self.script = list(script)

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        return [[self.script.pop(0)] for _ in prompts]


class RecordingLanguage(ExpressionLanguage):
    """Keeps the uniform tasks it drew, to check the base rate against them."""

    drawn: list[SelfPlayTask]

    def uniform_task(self, task_type: str, rng: np.random.Generator) -> SelfPlayTask:
        task = super().uniform_task(task_type, rng)
        self.drawn.append(task)
        return task


def _negative_and_positive_training_expressions() -> tuple[str, str]:
    negative = positive = None
    for a in range(10, 99):
        for text in (f"{a} - {a + 1}", f"{a + 1} - {a}"):
            task = ExpressionLanguage.for_space(SPACE).build("expression", f"<task>{text}</task>")
            value = _value(task.prompt)
            if value < 0:
                negative = negative or text
            else:
                positive = positive or text
        if negative and positive:
            return negative, positive
    raise AssertionError("no training-side pair found")


def test_frontier_share_and_its_base_rate() -> None:
    negative, positive = _negative_and_positive_training_expressions()
    language = RecordingLanguage.for_space(SPACE)
    language.drawn = []
    play = SelfPlay(language, SelfPlayConfig(proposals_per_type=2, frontier_probes=40))
    result = play.step(Proposer([f"<task>{negative}</task>", f"<task>{positive}</task>"]), SignSolver())
    # the negative proposal is solved 1 in 8 (weak), the positive one always
    assert result.metrics["frontier_share"] == 0.5
    assert result.metrics["proposal_pass_rate"] == pytest.approx((1 / 8 + 1) / 2)
    assert len(language.drawn) == 40
    assert all(not SPACE.is_heldout(_catalog(t)) for t in language.drawn)
    weak = [_value(t.prompt) < 0 for t in language.drawn]
    assert 0 < sum(weak) < 40  # uniform two-digit differences are negative about half the time
    assert result.metrics["frontier_base_rate"] == pytest.approx(sum(weak) / 40)
    assert 1 / 8 < FRONTIER_PASS_RATE
    # the measurement is not training data: the solver samples are the two proposals' probes
    proposed = {e.task.prompt for e in play.buffers["expression"].entries}
    assert len(proposed) == 2 and {s.prompt for s in result.solver} == proposed
    assert len(result.solver) == 16


def _catalog(task: SelfPlayTask):
    from palaestra.core import Task

    return Task.from_dict(task.payload["task"])


def test_the_measurement_leaves_the_run_unchanged() -> None:
    """The same step with and without frontier probes trains on the same samples."""
    negative, positive = _negative_and_positive_training_expressions()
    script = [f"<task>{negative}</task>", f"<task>{positive}</task>"]
    results = []
    for probes in (0, 24):
        play = SelfPlay(
            ExpressionLanguage.for_space(SPACE), SelfPlayConfig(proposals_per_type=2, frontier_probes=probes)
        )
        result = play.step(Proposer(script), SignSolver())
        results.append((result, play.rng.bit_generator.state))
    (a, rng_a), (b, rng_b) = results
    assert [(s.completion, s.reward, s.advantage) for s in a.proposer + a.solver] == [
        (s.completion, s.reward, s.advantage) for s in b.proposer + b.solver
    ]
    assert rng_a == rng_b and "frontier_base_rate" not in a.metrics and "frontier_base_rate" in b.metrics


class SeedBackend:
    def __init__(self) -> None:
        self.seeds: list[object] = []

    def generate(self, prompt_ids, n, sampling):
        self.seeds.append(sampling.seeds)
        return [[Completion([65, 66, 0], [-0.1] * 3, "stop")] * n for _ in prompt_ids]


def test_a_measurement_call_keeps_the_policys_stream_and_count() -> None:
    policy = BackendPolicy(CharChat(), SeedBackend(), max_tokens=8, seed=3)
    before = policy.rng.bit_generator.state
    policy.generate_each(["x", "y"], 2, 1.0, seeds=[11, 12])
    assert policy.backend.seeds == [(11, 12)]
    assert policy.rng.bit_generator.state == before
    assert policy.generated_tokens == 0 and not policy.tokens
    policy.generate_each(["x", "y"], 2, 1.0)
    assert policy.rng.bit_generator.state != before
    assert policy.generated_tokens == 2 * 2 * 3 and policy.tokens


def test_the_frozen_proposer_trains_on_solving_only() -> None:
    updates = {}
    for train_proposer in (True, False):
        trainer = FakeTrainer()
        config = SelfPlayConfig(proposals_per_type=2, temperature=0.9, train_proposer=train_proposer)
        loop = SelfPlayLoop(trainer, SelfPlay(make_language("arith"), config))
        _, metrics = loop.step()
        episodes, advantages = trainer.updates[0]
        updates[train_proposer] = sorted(
            (e.family, e.text, a) for e, a in zip(episodes, advantages, strict=True)
        )
        # every sampled token counts, trained on or not: 2 proposals and 8 probes of the valid one,
        # each with its stop token
        assert metrics["generated_tokens"] == 2 * len("<task>6*7</task>0") + 8 * len("<answer>42</answer>0")
    full, frozen = updates[True], updates[False]
    assert any(f == "selfplay/proposer/arith" for f, *_ in full)
    assert frozen == [u for u in full if u[0] != "selfplay/proposer/arith"]


def test_a_repeat_of_a_buffered_task_is_reprobed_when_asked() -> None:
    """Off: posing a buffered task again is a duplicate (REWARD_INVALID). On: it is probed and
    rewarded again, and its pass rate goes on the buffered entry, which stays one entry."""
    negative, _ = _negative_and_positive_training_expressions()
    proposal = f"<task>{negative}</task>"
    for repeat in (False, True):
        play = SelfPlay(
            ExpressionLanguage.for_space(SPACE), SelfPlayConfig(proposals_per_type=1, repeat_proposals=repeat)
        )
        play.step(Proposer([proposal]), SignSolver())
        second = play.step(Proposer([proposal]), SignSolver())
        entries = play.buffers["expression"].entries
        assert len(entries) == 1
        if repeat:
            # learnability 7/8, less the near-duplicate penalty: the whole buffer shares its shape
            expected = 7 / 8 * (1 - NEAR_DUPLICATE_PENALTY)
            assert second.proposer[0].reward == pytest.approx(expected) and len(second.solver) == 8
            assert entries[0].pass_rates == [1 / 8, 1 / 8]
        else:
            assert second.proposer[0].reward == -1.0 and not second.solver
            assert play.gate.counts["duplicate"] == 1


def test_the_proposer_loss_share_scales_its_advantages_to_that_share() -> None:
    updates = {}
    for share in (0.0, 0.5):
        trainer = FakeTrainer()
        config = SelfPlayConfig(proposals_per_type=2, temperature=0.9, proposer_loss_share=share)
        loop = SelfPlayLoop(trainer, SelfPlay(make_language("arith"), config))
        _, metrics = loop.step()
        updates[share] = (*trainer.updates[0], metrics["proposer_loss_scale"])
    (_, plain_adv, plain_scale), (eps, adv, scale) = updates[0.0], updates[0.5]
    assert plain_scale == 1.0
    tokens = {"proposer": 0, "solver": 0}
    for episode in eps:
        tokens["proposer" if "proposer" in episode.family else "solver"] += len(episode.completion_ids)
    # proposer weight x scale equals the solver's: each role carries half the loss weight
    assert scale == pytest.approx(tokens["solver"] / tokens["proposer"])
    for e, a, a0 in zip(eps, adv, plain_adv, strict=True):
        assert a == pytest.approx(a0 * scale if "proposer" in e.family else a0)


def test_frontier_probes_are_refused_at_start_where_a_language_has_no_uniform_tasks() -> None:
    with pytest.raises(ValueError, match="arith language has none"):
        SelfPlay(make_language("arith"), SelfPlayConfig(frontier_probes=4))
