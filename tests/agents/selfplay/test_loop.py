"""One self-play step with scripted proposer/solver policies (no model): rewards, reuse of the
probe attempts as solver data, catalog mix, near-duplicates, exact resume, and pipelining."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest

from palaestra.agents.selfplay import REWARD_INVALID, SelfPlay, SelfPlayConfig, make_language, pipelined
from palaestra.agents.selfplay.arith import evaluate
from palaestra.core import content_hash
from palaestra.verifiers.numbers import format_rational


class Proposer:
    """Returns the next scripted proposal per prompt, or (without a script) a task derived
    from the prompt text, so that the references in the prompt shape what it proposes."""

    def __init__(self, script: Sequence[str] = ()) -> None:
        self.script = list(script)

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        assert temperature > 0
        if self.script:
            return [[self.script.pop(0)] for _ in prompts]
        return [
            [f"<task>{int(content_hash([p, k]), 16) % 997} + {k}*3</task>"] for k, p in enumerate(prompts)
        ]


class Solver:
    """Solves an arith task right in ``len(program) % 9`` of its attempts (capped at n)
    unless told a fixed count per program."""

    def __init__(self, right: dict[str, int] | None = None) -> None:
        self.right = right or {}
        self.calls: list[tuple[str, int, float]] = []

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        out = []
        for prompt in prompts:
            self.calls.append((prompt, n, temperature))
            program = prompt.split(": ", 1)[1].split("\n", 1)[0]
            answer = format_rational(evaluate(program).answer)
            k = self.right.get(program, len(program) % 9)
            out.append(
                [f"<answer>{answer}</answer>"] * min(k, n) + ["<answer>wrong</answer>"] * (n - min(k, n))
            )
        return out


def test_step_rewards_and_probe_reuse() -> None:
    play = SelfPlay(make_language("arith"), SelfPlayConfig(proposals_per_type=5, temperature=0.7))
    proposer = Proposer(
        ["<task>1+1</task>", "<task>2*3+4</task>", "<task>1/0</task>", "<task>(1+1)</task>", "junk"]
    )
    solver = Solver({"1+1": 8, "2*3+4": 1})
    out = play.step(proposer, solver)
    assert [s.reward for s in out.proposer] == pytest.approx(
        [0.0, 7 / 8, REWARD_INVALID, REWARD_INVALID, REWARD_INVALID]
    )
    assert [s.completion for s in out.proposer][2] == "<task>1/0</task>"  # the raw text is trained on
    # the 2 x 8 probe attempts are the solver's training data, with their exact rewards
    assert [c[1:] for c in solver.calls] == [(8, 0.7), (8, 0.7)]
    assert len(out.solver) == 16 and {s.source for s in out.solver} == {"probe"}
    assert [s.reward for s in out.solver] == [1.0] * 8 + [1.0] + [0.0] * 7
    assert sum(s.advantage for s in out.solver) == pytest.approx(0.0)
    rejections = out.metrics["rejections"]
    assert (rejections["ok"], rejections["invalid"], rejections["duplicate"]) == (2, 2, 1)
    # the next step's row counts that step's proposals only (it was a running total)
    again = play.step(Proposer(["<task>1/0</task>"] * 5), solver).metrics
    assert (again["rejections"]["ok"], again["rejections"]["invalid"]) == (0, 5)
    assert (again["rejections_total"]["ok"], again["rejections_total"]["invalid"]) == (2, 7)
    assert out.metrics["valid_rate"] == pytest.approx(2 / 5)
    entries = play.buffers["arith"].entries
    assert [(e.step, e.proposer_sample, e.pass_rates) for e in entries] == [
        (0, "0:arith:0", [1.0]),
        (0, "0:arith:1", [0.125]),
    ]
    assert out.metrics["diversity"]["distinct_canonical"] == 2


def test_duplicates_of_the_buffer_and_near_duplicates() -> None:
    play = SelfPlay(make_language("arith"), SelfPlayConfig(proposals_per_type=1, near_duplicate_penalty=0.25))
    solver = Solver({"2*3+4": 4, "5*6+7": 4, "2*3 + 4": 4})
    assert play.step(Proposer(["<task>2*3+4</task>"]), solver).proposer[0].reward == pytest.approx(0.5)
    assert play.step(Proposer(["<task>2*3 + 4</task>"]), solver).proposer[0].reward == REWARD_INVALID
    # same AST shape as the whole buffer, new numbers: valid, its learnability scaled by 1 - 0.25
    result = play.step(Proposer(["<task>5*6+7</task>"]), solver)
    assert result.proposer[0].reward == pytest.approx(0.5 * 0.75)
    assert result.metrics["near_duplicate_penalty"] == pytest.approx(0.5 * 0.25)
    assert result.metrics["proposer_reward_valid"] == pytest.approx(0.375)
    assert play.gate.counts["duplicate"] == 1


def test_configuration_guards() -> None:
    with pytest.raises(ValueError, match="temperature"):
        SelfPlayConfig(temperature=0.0)
    with pytest.raises(ValueError, match="probes"):
        SelfPlayConfig(probes=4)


def test_catalog_mix() -> None:
    config = SelfPlayConfig(proposals_per_type=2, catalog_fraction=1.0, catalog_families=("expression",))
    play = SelfPlay(make_language("arith"), config)
    out = play.step(Proposer(["<task>1+2</task>", "<task>3*4</task>"]), CatalogSolver())
    catalog = [s for s in out.solver if s.source == "catalog"]
    assert len(catalog) == 2 * 8 and {s.task_type for s in catalog} == {"catalog"}
    assert all(s.reward == 0.0 for s in catalog)  # the scripted solver cannot parse these prompts


class CatalogSolver(Solver):
    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        return [["<answer>0.5</answer>"] * n for _ in prompts]


def test_resume_is_exact(tmp_path) -> None:
    config = SelfPlayConfig(proposals_per_type=3, buffer_capacity=4, references=2, seed=5)
    straight = SelfPlay(make_language("arith"), config)
    results = [straight.step(Proposer(), Solver()) for _ in range(4)]
    first = SelfPlay(make_language("arith"), config)
    for _ in range(2):
        first.step(Proposer(), Solver())
    first.save(tmp_path / "selfplay.json")
    resumed = SelfPlay(make_language("arith"), config)
    resumed.load(tmp_path / "selfplay.json")
    assert resumed.state_dict() == first.state_dict()
    later = [resumed.step(Proposer(), Solver()) for _ in range(2)]
    assert [s.__dict__ for r in later for s in r.proposer] == [
        s.__dict__ for r in results[2:] for s in r.proposer
    ]
    assert resumed.state_dict() == straight.state_dict()
    assert straight.buffers["arith"].evicted > 0  # the cap was reached and the buffer kept moving


def test_python_step_in_the_sandbox(sandbox) -> None:
    def prog(body: str, *inputs: str) -> str:
        return "```python\n" + body + "\n```\n" + "".join(f"Input: {i}\n" for i in inputs)

    class PyProposer:
        def generate(self, prompts, n, temperature):
            task_type = prompts[0].split("new ", 1)[1].split(" task", 1)[0]
            body = "def f(x):\n    return x * 3"
            inputs = ("1", "2", "3", "4") if task_type == "induction" else ("5",)
            return [[prog(body, *inputs)] for _ in prompts]

    class PySolver:
        def generate(self, prompts, n, temperature):
            p = prompts[0]
            if "What does" in p:
                good = "<answer>15</answer>"
            elif "Give any input" in p:
                good = "<answer>5</answer>"
            else:
                good = prog("def f(x):\n    return 3 * x")
            return [[good] * 2 + ["<answer>0</answer>"] * (n - 2)]

    play = SelfPlay(make_language("python"), SelfPlayConfig(proposals_per_type=1), sandbox=sandbox)
    out = play.step(PyProposer(), PySolver())
    assert [(s.task_type, s.reward) for s in out.proposer] == [
        ("deduction", pytest.approx(0.75)),
        ("abduction", pytest.approx(0.75)),
        ("induction", pytest.approx(0.75)),
    ]
    assert sum(s.reward for s in out.solver) == 6.0


def test_verification_overlaps_generation() -> None:
    """A slow generator and a slow verifier: batch 0 is verified while batch 1 is generated.
    The verifier of batch 0 waits for the generator to START batch 1; run serially it would
    wait in vain (and record False)."""
    started_second = threading.Event()
    overlapped: list[bool] = []

    def batches():
        for b in range(3):
            if b == 1:
                started_second.set()
            time.sleep(0.05)  # slow generation
            yield [(b, i) for i in range(2)]

    def verify(item):
        batch, index = item
        if batch == 0:
            overlapped.append(started_second.wait(timeout=10))
        time.sleep(0.05)  # slow verification
        return batch * 10 + index

    assert pipelined(batches(), verify, workers=2) == [[0, 1], [10, 11], [20, 21]]
    assert overlapped == [True, True]


def test_proposals_whose_solver_prompt_is_too_long_are_refused_and_counted() -> None:
    play = SelfPlay(make_language("arith"), SelfPlayConfig(proposals_per_type=2, temperature=0.7))
    play.gate.prompt_fits = lambda prompt: "9*9*9" not in prompt  # a stand-in token budget
    out = play.step(Proposer(["<task>1+1</task>", "<task>9*9*9+1</task>"]), Solver({"1+1": 4}))
    assert out.metrics["rejections"]["prompt_too_long"] == 1
    assert out.metrics["rejections"]["ok"] == 1
    assert all("9*9*9" not in s.prompt for s in out.solver)  # never sent to the solver
