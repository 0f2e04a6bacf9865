"""One self-play step, model-agnostic: propose -> gate -> probe the solver -> rewards -> buffers.

The proposer and solver are :class:`Policy` objects (``generate(prompts, n, temperature) ->
list[list[str]]``): scripted in tests, the trainer's backend in a real run. ``SelfPlay.step``
returns the proposer and solver training samples with rewards and per-(role, task type)
advantages; the n probe attempts that measured a proposal's pass rate ARE solver training data.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from palaestra.core import content_hash

from . import rewards as R
from .buffer import Buffers
from .diversity import diversity_metrics
from .gate import Gate, GateResult
from .languages import FamilyLanguage, Language
from .pipeline import pipelined

# A task is in the solver's weak region when it solves it less often than this over its probes.
FRONTIER_PASS_RATE = 0.5
MEASUREMENT_STREAM = 7  # the third seed word of the frontier measurement's random stream


class Policy(Protocol):
    """``n`` completions per prompt. A policy may also offer ``generate_each`` (the completions of
    one ``generate`` call per prompt, from one engine call); the loop batches its probes with it."""

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]: ...


@dataclass
class SelfPlayConfig:
    """Self-play settings (each field's comment is its help text)."""

    proposals_per_type: int = 4  # proposer samples per task type per step
    probes: int = R.MIN_PROBES  # solver attempts per valid proposal (>= 8)
    temperature: float = 1.0  # sampling temperature of proposer and probes (> 0)
    reward_form: str = "azr"  # learnability form: azr | rzero | stp
    references: int = 3  # K buffer tasks shown in the proposer prompt
    buffer_capacity: int = 256  # tasks kept per task type
    # valid proposals keep learnability x (1 - this x share of the buffer with their AST shape)
    near_duplicate_penalty: float = R.NEAR_DUPLICATE_PENALTY
    catalog_fraction: float = 0.0  # extra catalog tasks, as a fraction of valid proposals per step
    catalog_families: tuple[str, ...] = ()  # families for the catalog mix (empty: all)
    catalog_level: int = 2  # level of the catalog-mix tasks
    verify_workers: int = 2  # threads feeding the sandbox while the next batch generates
    # "group": reward minus the mean of its group (the n probe attempts of one task; one step's
    # proposals of one task type), so a group whose rewards are all equal gives no gradient;
    # "running": reward minus a running mean per (role, task type) (AZR's TRR++), which on the tiny
    # model kept pushing down batches that were all invalid or all wrong until it collapsed
    baseline: str = "group"
    # group baseline: divide each group's advantages by its reward std, as GRPO's scale_rewards
    # (the CLI takes --scale-rewards); off, advantages are plain differences (Dr. GRPO)
    scale_advantages: bool = True
    baseline_momentum: float = 0.9  # running mean per (role, task type)
    # off: the proposer's samples get no gradient (the frozen-proposer ablation); the same model
    # still proposes, so its proposals drift only as solving changes the shared weights
    train_proposer: bool = True
    # tasks drawn uniformly from the run's training side each step, probed like proposals but
    # never trained on: the base rate that the frontier share of the proposals is compared with
    frontier_probes: int = 0
    # the proposer's share of each update's loss weight (its advantages scaled to it, role by
    # role as SPIRAL balances roles); 0: whatever its tokens weigh. Its ~16 short proposals sit
    # beside ~128 probe answers, so under a token mean it otherwise gets a few percent
    proposer_loss_share: float = 0.0
    # on: a proposal equal to a buffered task is probed and rewarded again (the pass rate goes on
    # its entry) instead of refused as a duplicate, so posing a problem the solver still fails
    # keeps paying while it fails; off: any repeat of the buffer scores REWARD_INVALID. (Off, a
    # proposer that learned where the solver is weak was pushed away from its own past proposals.)
    repeat_proposals: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.temperature > 0:
            raise ValueError("temperature must be > 0: greedy probes all agree and measure nothing")
        if self.probes < R.MIN_PROBES:
            raise ValueError(f"probes must be >= {R.MIN_PROBES}")
        if self.reward_form not in R.FORMS:
            raise ValueError(f"reward_form must be one of {R.FORMS}")
        if self.baseline not in ("group", "running"):
            raise ValueError("baseline must be 'group' or 'running'")
        if not 0.0 <= self.catalog_fraction <= 1.0:
            raise ValueError("catalog_fraction must lie in [0, 1]")
        if self.frontier_probes < 0:
            raise ValueError("frontier_probes must be >= 0")
        if not 0.0 <= self.proposer_loss_share < 1.0:
            raise ValueError("proposer_loss_share must lie in [0, 1)")


@dataclass
class Sample:
    """One training sample: prompt, completion, reward and advantage."""

    role: str  # "proposer" or "solver"
    task_type: str
    prompt: str
    completion: str
    reward: float
    advantage: float = 0.0
    source: str = ""  # "probe" (a pass-rate attempt reused as solver data) or "catalog"


@dataclass
class StepResult:
    step: int
    proposer: list[Sample] = field(default_factory=list)
    solver: list[Sample] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)


class SelfPlay:
    """Buffers, baselines, gate counts and the step counter of one self-play run."""

    def __init__(
        self,
        language: Language,
        config: SelfPlayConfig | None = None,
        sandbox: Any = None,
        determinism_pair: tuple[Any, Any] | None = None,
    ) -> None:
        self.language = language
        self.config = config or SelfPlayConfig()
        if self.config.frontier_probes and type(language).uniform_task is Language.uniform_task:
            raise ValueError(
                f"frontier_probes needs uniform tasks to compare with; the {language.name} language has "
                "none (the expression language has)"
            )
        self.gate = Gate(language, sandbox, determinism_pair=determinism_pair)
        self.sandbox = sandbox
        self.buffers = Buffers(language.task_types, self.config.buffer_capacity, seed=self.config.seed)
        self.baselines = R.Baselines(momentum=self.config.baseline_momentum)
        self.step_count = 0
        self.rng = np.random.default_rng(self.config.seed)
        self.catalog = (
            FamilyLanguage(allowed=self.config.catalog_families) if self.config.catalog_fraction else None
        )

    # ------------------------------------------------------------------ one step
    def step(self, proposer: Policy, solver: Policy) -> StepResult:
        cfg, step = self.config, self.step_count
        out = StepResult(step)
        counts_before = self.gate.rejection_counts()
        prompts = {t: self._proposer_prompts(t) for t in self.language.task_types}
        seen: dict[str, set[str]] = {
            t: set() if cfg.repeat_proposals else self.buffers[t].canonicals() for t in prompts
        }

        raw: dict[str, list[str]] = {}

        def batches() -> Iterator[list[tuple[str, int, str]]]:
            for task_type, ps in prompts.items():
                raw[task_type] = [group[0] for group in proposer.generate(ps, 1, cfg.temperature)]
                yield [(task_type, k, text) for k, text in enumerate(raw[task_type])]

        def verify(item: tuple[str, int, str]) -> GateResult:
            task_type, k, text = item
            # a salt that is the same in every process (family mode seeds come from it)
            salt = int(content_hash([step, task_type, k]), 16) % 2**31
            return self.gate.check(task_type, text, seen[task_type], salt=salt)

        checked = pipelined(batches(), verify, cfg.verify_workers)
        held_out = total = 0
        plan: list[tuple[str, list[tuple[int, str, str, GateResult]]]] = []  # the step's proposals
        for (task_type, ps), results in zip(prompts.items(), checked, strict=True):
            entries = []
            in_batch: set[str] = set()
            for k, result in enumerate(results):
                if result.reason == "held_out":  # not the proposer's fault: no reward, no gradient
                    held_out += 1
                    continue
                total += 1
                if result.ok and result.task.canonical in in_batch:  # the same task twice in one batch
                    self.gate.counts["ok"] -= 1
                    self.gate.counts["duplicate"] += 1
                    result = GateResult(None, "duplicate")
                if result.ok:
                    in_batch.add(result.task.canonical)
                entries.append((k, ps[k], raw[task_type][k], result))
            plan.append((task_type, entries))
        # every valid proposal's probes in one engine call, then rewards in proposal order
        valid_tasks = [result.task for _, entries in plan for *_, result in entries if result.ok]
        measured = self._probe_all(valid_tasks, solver, out)
        pass_rates = iter(measured)
        learn: list[float] = []
        penalties: list[float] = []
        buffered = {t: self.buffers[t].canonicals() for t in self.language.task_types}
        valid = 0
        for task_type, entries in plan:
            graded: list[tuple[str, str, float]] = []  # (prompt, proposal, reward after penalties)
            for k, prompt, text, result in entries:
                if not result.ok:
                    graded.append((prompt, text, R.REWARD_INVALID))
                    continue
                task = result.task
                valid += 1
                p = next(pass_rates)
                shapes = self.buffers[task_type].shapes()
                share = shapes.count(task.shape) / len(shapes) if shapes else 0.0
                reward = R.proposer_reward(
                    p, form=cfg.reward_form, near_share=share, penalty=cfg.near_duplicate_penalty
                )
                learn.append(R.learnability(p, cfg.reward_form))
                penalties.append(learn[-1] - reward)
                if task.canonical in buffered[task_type]:  # a repeat (repeat_proposals): re-measured
                    self.buffers[task_type].record(task.canonical, p)
                else:
                    self.buffers[task_type].add(task, step, f"{step}:{task_type}:{k}", p)
                graded.append((prompt, text, reward))
            advs = self._advantages("proposer", task_type, [g[2] for g in graded])
            for (prompt, text, reward), adv in zip(graded, advs, strict=True):
                out.proposer.append(Sample("proposer", task_type, prompt, text, reward, adv))
        self._catalog_mix(valid, solver, out)
        self._solver_advantages(out)
        out.metrics = self._metrics(out, valid, total, learn)
        out.metrics.update(self._frontier_metrics(measured, solver, step))
        totals = out.metrics["rejections_total"]
        out.metrics["rejections"] = {k: totals[k] - counts_before[k] for k in totals}
        out.metrics["held_out_proposals"] = held_out
        out.metrics["near_duplicate_penalty"] = float(np.mean(penalties)) if penalties else 0.0
        self.step_count += 1
        return out

    def _proposer_prompts(self, task_type: str) -> list[str]:
        """The step's proposer prompts; a prompt too long for the model drops example tasks until
        it fits (the trainer refuses to start if one without examples does not)."""
        prompts = []
        for _ in range(self.config.proposals_per_type):
            references = self.buffers[task_type].sample(self.config.references)
            prompt = self.language.proposer_prompt(task_type, references)
            while references and self.gate.prompt_fits is not None and not self.gate.prompt_fits(prompt):
                references = references[:-1]
                prompt = self.language.proposer_prompt(task_type, references)
            prompts.append(prompt)
        return prompts

    def _probe_all(self, tasks: list[Any], solver: Policy, out: StepResult) -> list[float]:
        """Sample ``probes`` solver attempts per task at the training temperature, all in one
        engine call where the solver can (``generate_each``: each task sampled as its own call
        would be), grade them exactly, keep them as solver training data; the pass rates."""
        attempts = self._generate_each(solver, [t.prompt for t in tasks])
        rates = []
        for task, group in zip(tasks, attempts, strict=True):
            scores = self.language.grade(task, group, self.sandbox)
            for attempt, score in zip(group, scores, strict=True):
                out.solver.append(
                    Sample("solver", task.task_type, task.prompt, attempt, score, source="probe")
                )
            rates.append(R.pass_rate(scores, self.config.temperature, self.config.probes))
        return rates

    def _frontier_metrics(self, measured: list[float], solver: Policy, step: int) -> dict[str, Any]:
        """The solver's mean pass rate on the step's valid proposals, the share of them in its weak
        region (pass rate below ``FRONTIER_PASS_RATE``), and, with ``frontier_probes``, the same
        share among tasks drawn uniformly from the training side (the base rate), probed alike and
        never trained on."""
        out: dict[str, Any] = {
            "proposal_pass_rate": float(np.mean(measured)) if measured else None,
            "frontier_share": float(np.mean([p < FRONTIER_PASS_RATE for p in measured]))
            if measured
            else None,
        }
        if self.config.frontier_probes:
            # its own random stream: measuring the base rate leaves the run's draws unchanged
            rng = np.random.default_rng([self.config.seed, step, MEASUREMENT_STREAM])
            task_type = self.language.task_types[0]
            tasks = [self.language.uniform_task(task_type, rng) for _ in range(self.config.frontier_probes)]
            seeds = [int(rng.integers(2**31)) for _ in tasks]
            rates = []
            for task, group in zip(
                tasks, self._measure(solver, [t.prompt for t in tasks], seeds), strict=True
            ):
                scores = self.language.grade(task, group, self.sandbox)
                rates.append(R.pass_rate(scores, self.config.temperature, self.config.probes))
            out["frontier_base_rate"] = float(np.mean([p < FRONTIER_PASS_RATE for p in rates]))
            out["uniform_pass_rate"] = float(np.mean(rates))
        return out

    def _measure(self, solver: Policy, prompts: list[str], seeds: list[int]) -> list[list[str]]:
        """Probe attempts seeded from ``seeds``, not the policy's own stream (``generate_each``'s
        ``seeds``); a policy without it is sampled as in training."""
        each = getattr(solver, "generate_each", None)
        if each is not None:
            return each(prompts, self.config.probes, self.config.temperature, seeds=seeds)
        return [solver.generate([p], self.config.probes, self.config.temperature)[0] for p in prompts]

    def _generate_each(self, solver: Policy, prompts: list[str]) -> list[list[str]]:
        if not prompts:
            return []
        cfg = self.config
        each = getattr(solver, "generate_each", None)
        if each is not None:
            return each(prompts, cfg.probes, cfg.temperature)
        return [solver.generate([prompt], cfg.probes, cfg.temperature)[0] for prompt in prompts]

    def _catalog_mix(self, valid: int, solver: Policy, out: StepResult) -> None:
        if self.catalog is None:
            return
        count = int(round(self.config.catalog_fraction * max(valid, 1)))
        families = self.catalog.allowed_families()
        tasks = []
        for k in range(count):
            name = families[int(self.rng.integers(len(families)))]
            proposal = json.dumps({"family": name, "level": self.config.catalog_level})
            task = self.catalog.build("family", proposal, salt=int(self.rng.integers(2**31)) + k)
            if self.gate.prompt_fits is not None and not self.gate.prompt_fits(task.prompt):
                continue  # counted nowhere else: the catalog mix is not the proposer's doing
            tasks.append(task)
        for task, attempts in zip(tasks, self._generate_each(solver, [t.prompt for t in tasks]), strict=True):
            for attempt, score in zip(attempts, self.catalog.grade(task, attempts), strict=True):
                out.solver.append(Sample("solver", "catalog", task.prompt, attempt, score, source="catalog"))

    def _advantages(self, role: str, task_type: str, rewards: list[float]) -> list[float]:
        """Advantages of one group of rewards under the configured baseline."""
        if self.config.baseline == "running":
            return self.baselines.advantages(role, task_type, rewards)
        if not rewards:
            return []
        mean = float(np.mean(rewards))
        scale = float(np.std(rewards)) + 1e-4 if self.config.scale_advantages else 1.0
        return [(r - mean) / scale for r in rewards]

    def _solver_advantages(self, out: StepResult) -> None:
        # group: the attempts at one task (same type and prompt); running: one group per type
        groups: dict[tuple[str, str], list[Sample]] = {}
        for sample in out.solver:
            key = (sample.task_type, sample.prompt if self.config.baseline == "group" else "")
            groups.setdefault(key, []).append(sample)
        for (task_type, _), samples in groups.items():
            advs = self._advantages("solver", task_type, [s.reward for s in samples])
            for sample, adv in zip(samples, advs, strict=True):
                sample.advantage = adv

    def _metrics(self, out: StepResult, valid: int, total: int, learn: list[float]) -> dict[str, Any]:
        entries = [e for t in self.language.task_types for e in self.buffers[t].entries]
        return {
            "step": out.step,
            "valid_rate": valid / total if total else 0.0,
            "mean_learnability": float(np.mean(learn)) if learn else 0.0,
            # after penalties: the reward the proposer is trained on
            "proposer_reward": float(np.mean([s.reward for s in out.proposer])) if out.proposer else 0.0,
            "proposer_reward_valid": float(
                np.mean([s.reward for s in out.proposer if s.reward > R.REWARD_INVALID])
            )
            if any(s.reward > R.REWARD_INVALID for s in out.proposer)
            else 0.0,
            "solver_reward": float(np.mean([s.reward for s in out.solver])) if out.solver else 0.0,
            "solver_samples": len(out.solver),
            # the running totals; ``step`` sets ``rejections`` to this step's counts
            "rejections_total": self.gate.rejection_counts(),
            "buffer_sizes": {t: len(self.buffers[t]) for t in self.language.task_types},
            "diversity": diversity_metrics(
                [e.task.canonical for e in entries],
                [e.task.shape for e in entries],
                [e.task.source for e in entries],
            ),
        }

    # ------------------------------------------------------------------ checkpoint
    def state_dict(self) -> dict[str, Any]:
        return {
            "step": self.step_count,
            "config": asdict(self.config),
            "buffers": self.buffers.state_dict(),
            "baselines": self.baselines.state_dict(),
            "gate_counts": dict(self.gate.counts),
            "rng": self.rng.bit_generator.state,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.step_count = state["step"]
        self.buffers.load_state_dict(state["buffers"])
        self.baselines = R.Baselines.from_state(state["baselines"])
        self.gate.counts.clear()
        self.gate.counts.update(state["gate_counts"])
        self.rng.bit_generator.state = state["rng"]

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.state_dict()))

    def load(self, path: str | Path) -> None:
        self.load_state_dict(json.loads(Path(path).read_text()))
