"""Task languages the proposer writes in, each with an exact executor and grader.

A language turns proposer text into a :class:`SelfPlayTask` (``build``; raising
:class:`Rejection` with a counted reason), and grades solver responses exactly (``grade``).
``arith`` and ``family`` run in-process (our own parser / the catalog's generators); ``python``
programs run only in the sandbox.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from palaestra.core import content_hash
from palaestra.generators.code.literals import LiteralError, parse_literal, to_json
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import format_rational, parse_rational

if TYPE_CHECKING:
    import numpy as np

from . import arith, pycheck

ANSWER_FORMAT = "Put the final answer inside <answer>...</answer>."


class Rejection(ValueError):
    """A proposal the gate refuses; ``reason`` is the counted category."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


SPLIT_REDRAWS = 64  # seeds a family proposal tries before its family-level counts as all held out


@dataclass(frozen=True)
class SelfPlayTask:
    """A validated proposal: what the solver sees, what grading needs, and its canonical keys."""

    language: str
    task_type: str
    prompt: str
    payload: dict[str, Any]  # JSON: answer / program / hidden tests
    canonical: str  # hash of the normalised form (exact duplicates)
    shape: str  # hash of the constant-free form (near-duplicate clusters)
    source: str  # the proposal text as parsed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SelfPlayTask:
        return cls(**data)


@dataclass
class Language:
    """Base class: ``task_types``, proposer/solver prompts, ``build`` and ``grade``."""

    name: str = ""
    task_types: tuple[str, ...] = ()
    needs_sandbox: bool = False
    needs_determinism: bool = False

    def proposer_prompt(self, task_type: str, references: Sequence[SelfPlayTask]) -> str:
        raise NotImplementedError

    def build(self, task_type: str, text: str, sandbox: Any = None, salt: int = 0) -> SelfPlayTask:
        raise NotImplementedError

    def determinism_program(self, task: SelfPlayTask) -> str | None:
        """The program whose output must not depend on the worker (None: nothing to check)."""
        return None

    def grade(self, task: SelfPlayTask, responses: Sequence[str], sandbox: Any = None) -> list[float]:
        raise NotImplementedError

    def uniform_task(self, task_type: str, rng: np.random.Generator) -> SelfPlayTask:
        """A task drawn uniformly from what the proposer may pose (the frontier's base rate)."""
        raise ValueError(f"the {self.name} language has no uniform task distribution to compare with")


def _block(text: str, tag: str) -> str:
    """The content of ``<tag>...</tag>`` or of the last fenced code block, else the text."""
    match = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.S)
    if match:
        return match.group(1).strip()
    blocks = re.findall(r"```[a-zA-Z]*\n(.*?)```", text, re.S)
    return (blocks[-1] if blocks else text).strip()


# --------------------------------------------------------------------------------------------
# arith
# --------------------------------------------------------------------------------------------


@dataclass
class ArithLanguage(Language):
    name: str = "arith"
    task_types: tuple[str, ...] = ("arith",)

    def proposer_prompt(self, task_type: str, references: Sequence[SelfPlayTask]) -> str:
        refs = "\n".join(f"<task>{t.source}</task>" for t in references)
        return (
            "Invent a new arithmetic task that is hard but solvable. Write it in the DSL: numbers, + - * / % ^, "
            f"parentheses, {', '.join(arith.FUNCTIONS)}, `let name = expr;` bindings, or `solve <expr> = <expr>` "
            f"(linear in x). At most {arith.MAX_CHARS} characters.\n"
            + (f"Examples:\n{refs}\n" if refs else "")
            + "Answer with <task>...</task>."
        )

    def build(self, task_type: str, text: str, sandbox: Any = None, salt: int = 0) -> SelfPlayTask:
        program = _block(text, "task")
        try:
            result = arith.evaluate(program)
        except arith.ArithError as exc:
            raise Rejection("invalid", str(exc)) from None
        except (ZeroDivisionError, OverflowError, ValueError) as exc:
            raise Rejection("invalid", f"{type(exc).__name__}: {exc}") from None
        what = "Solve for x" if result.mode == "solve" else "Compute exactly"
        prompt = f"{what}: {program}\nGive an integer or a fraction p/q. {ANSWER_FORMAT}"
        return SelfPlayTask(
            language=self.name,
            task_type=task_type,
            prompt=prompt,
            payload={"answer": format_rational(result.answer), "mode": result.mode},
            canonical=content_hash(result.canonical),
            shape=content_hash(result.shape),
            source=program,
        )

    def grade(self, task: SelfPlayTask, responses: Sequence[str], sandbox: Any = None) -> list[float]:
        gold = parse_rational(task.payload["answer"])
        out = []
        for response in responses:
            extraction = extract_answer(response, allow_bare=False, max_chars=200)
            value = parse_rational(extraction.text) if extraction.ok and extraction.text else None
            out.append(1.0 if value is not None and value == gold else 0.0)
        return out


# --------------------------------------------------------------------------------------------
# python: AZR deduction / abduction / induction
# --------------------------------------------------------------------------------------------

_INPUT_LINE = re.compile(r"^\s*Input:\s*(.+?)\s*$", re.M)
# the driver reaches builtins through the module, so a program cannot fake them
_DRIVER = "\nimport builtins as _b, json as _j\n_b.print(_j.dumps([_b.repr(f(a)) for a in {inputs}]))\n"
MAX_INPUTS = 10
INDUCTION_SHOWN = 0.5  # fraction of inputs shown as examples; the rest grade the program


def _driver(source: str, inputs: Sequence[Any]) -> str:
    # Inputs are re-printed from their parsed values: model text is never spliced in raw.
    return source + _DRIVER.format(inputs=repr(list(inputs)))


def _run_outputs(sandbox: Any, program: str, timeout_s: float) -> list[Any]:
    result = sandbox.run(program, timeout_s=timeout_s, memory_mb=256)
    if result.status != "ok":
        raise Rejection(
            result.status if result.status in ("timeout", "memory") else "runtime_error", result.stderr[-200:]
        )
    try:
        reprs = json.loads(result.stdout.strip().splitlines()[-1])
        return [parse_literal(r) for r in reprs]
    except (ValueError, IndexError, LiteralError) as exc:
        raise Rejection("output_not_literal", str(exc)) from None


@dataclass
class PythonLanguage(Language):
    """AZR's task types. Proposal: a fenced program defining ``f(x)`` and ``Input: <literal>``
    lines (one for deduction/abduction, 2..MAX_INPUTS for induction)."""

    name: str = "python"
    task_types: tuple[str, ...] = ("deduction", "abduction", "induction")
    needs_sandbox: bool = True
    needs_determinism: bool = True
    timeout_s: float = 2.0  # wall-clock limit of a proposal's run (and of a solver's program)
    # the two fresh-worker reruns of the determinism check get more room: the program already ran
    # within timeout_s once, and a cold worker on a loaded host must not read as non-determinism
    determinism_timeout_s: float = 6.0

    def proposer_prompt(self, task_type: str, references: Sequence[SelfPlayTask]) -> str:
        refs = "\n\n".join(t.source for t in references)
        inputs = (
            "one `Input: <literal>` line" if task_type != "induction" else "4 to 10 `Input: <literal>` lines"
        )
        return (
            f"Propose a new {task_type} task: a Python program in a ```python block, then {inputs}.\n"
            + pycheck.rules_text()
            + (f"\nReference tasks:\n{refs}" if refs else "")
        )

    def _parse(self, task_type: str, text: str) -> tuple[str, list[Any], Any]:
        match = re.search(r"```(?:python)?\n(.*?)```", text, re.S)
        if not match:
            raise Rejection("syntax", "no ```python block")
        source = match.group(1).strip() + "\n"
        rest = text[match.end() :]
        try:
            inputs = [parse_literal(m.group(1)) for m in _INPUT_LINE.finditer(rest)]
        except LiteralError as exc:
            raise Rejection("bad_input", str(exc)) from None
        wanted = (2, MAX_INPUTS) if task_type == "induction" else (1, 1)
        if not wanted[0] <= len(inputs) <= wanted[1]:
            raise Rejection("bad_input", f"{len(inputs)} inputs, expected {wanted[0]}..{wanted[1]}")
        try:
            tree = pycheck.check_program(source)
        except pycheck.StaticRejection as exc:
            raise Rejection(exc.reason, exc.detail) from None
        return source, inputs, tree

    def build(self, task_type: str, text: str, sandbox: Any = None, salt: int = 0) -> SelfPlayTask:
        if task_type not in self.task_types:
            raise ValueError(f"unknown task type {task_type!r}")
        source, inputs, tree = self._parse(task_type, text)
        outputs = _run_outputs(sandbox, _driver(source, inputs), self.timeout_s)
        exact, shape = pycheck.canonical_forms(tree)
        pairs = [[repr(i), repr(o)] for i, o in zip(inputs, outputs, strict=True)]
        payload: dict[str, Any] = {
            "program": source,
            "pairs": pairs,
            "outputs": [to_json(o) for o in outputs],
        }
        if task_type == "deduction":
            prompt = f"```python\n{source}```\nWhat does f({pairs[0][0]}) return? Give a Python literal. {ANSWER_FORMAT}"
        elif task_type == "abduction":
            prompt = (
                f"```python\n{source}```\nGive any input x (a Python literal) such that f(x) == {pairs[0][1]}. "
                f"{ANSWER_FORMAT}"
            )
        else:
            shown = max(1, int(len(pairs) * INDUCTION_SHOWN))
            payload["shown"] = shown
            examples = "\n".join(f"f({i}) == {o}" for i, o in pairs[:shown])
            prompt = (
                f"Write a Python function f(x) consistent with these examples (it is also tested on hidden "
                f"inputs):\n{examples}\n{pycheck.rules_text()}\nPut the program in a ```python block."
            )
        return SelfPlayTask(
            language=self.name,
            task_type=task_type,
            prompt=prompt,
            payload=payload,
            canonical=content_hash([task_type, exact, [p[0] for p in pairs]]),
            shape=content_hash([task_type, shape]),
            source=text.strip(),
        )

    def determinism_program(self, task: SelfPlayTask) -> str | None:
        return _driver(task.payload["program"], [parse_literal(i) for i, _ in task.payload["pairs"]])

    def grade(self, task: SelfPlayTask, responses: Sequence[str], sandbox: Any = None) -> list[float]:
        if task.task_type == "deduction":
            return [self._grade_deduction(task, r) for r in responses]
        jobs: list[tuple[int, str, list[Any]]] = []
        for k, response in enumerate(responses):
            program = self._solver_program(task, response)
            if program is not None:
                jobs.append((k, *program))
        scores = [0.0] * len(responses)
        if jobs:
            results = sandbox.run_many(
                [{"code": code, "timeout_s": self.timeout_s, "memory_mb": 256} for _, code, _ in jobs]
            )
            for (k, _, expected), result in zip(jobs, results, strict=True):
                scores[k] = 1.0 if _outputs_match(result, expected) else 0.0
        return scores

    def _grade_deduction(self, task: SelfPlayTask, response: str) -> float:
        extraction = extract_answer(response, allow_bare=False, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return 0.0
        try:
            return (
                1.0
                if _same_value(to_json(parse_literal(extraction.text)), task.payload["outputs"][0])
                else 0.0
            )
        except LiteralError:
            return 0.0

    def _solver_program(self, task: SelfPlayTask, response: str) -> tuple[str, list[Any]] | None:
        """The sandbox program that checks one abduction/induction answer, with expected outputs."""
        if task.task_type == "abduction":
            extraction = extract_answer(response, allow_bare=False, max_chars=2000)
            if not extraction.ok or extraction.text is None:
                return None
            try:
                guess = parse_literal(extraction.text)
            except LiteralError:
                return None
            return _driver(task.payload["program"], [guess]), task.payload["outputs"][:1]
        match = re.search(r"```(?:python)?\n(.*?)```", response, re.S)
        if not match:
            return None
        source = match.group(1).strip() + "\n"
        try:
            pycheck.check_program(source)  # the solver's program obeys the same allow-lists
        except pycheck.StaticRejection:
            return None
        hidden = task.payload["pairs"][task.payload["shown"] :]
        return _driver(source, [parse_literal(i) for i, _ in hidden]), task.payload["outputs"][
            task.payload["shown"] :
        ]


def _outputs_match(result: Any, expected: list[Any]) -> bool:
    if result.status != "ok":
        return False
    try:
        reprs = json.loads(result.stdout.strip().splitlines()[-1])
        return _same_value([to_json(parse_literal(r)) for r in reprs], expected)
    except (ValueError, IndexError, LiteralError):
        return False


def _same_value(a: Any, b: Any) -> bool:
    """Typed equality of two ``to_json`` values: Python's ``True == 1`` would pay ``True`` for ``1``,
    their JSON texts (``true``, ``1``) differ."""
    return json.dumps(a) == json.dumps(b)


# --------------------------------------------------------------------------------------------
# family: the proposer picks a catalog family and its difficulty
# --------------------------------------------------------------------------------------------


@dataclass
class FamilyLanguage(Language):
    """Proposal: JSON ``{"family": name, "level": 1..10}`` or ``{"family": name, "knobs": {...}}``,
    validated against the registry; the task comes from ``palaestra.make_task``."""

    name: str = "family"
    task_types: tuple[str, ...] = ("family",)
    allowed: tuple[str, ...] = field(default_factory=tuple)  # empty: every non-interactive family
    # the run's TaskSpace: a proposal's task is redrawn (other seeds) until it lies on the space's
    # training side, so self-play never trains on a held-out problem; None: no split (tests, eval)
    space: Any = None

    def allowed_families(self) -> list[str]:
        from palaestra import registry

        names = list(self.allowed) or registry.families()
        return [n for n in names if not registry.get(n).impl.interactive]

    def proposer_prompt(self, task_type: str, references: Sequence[SelfPlayTask]) -> str:
        refs = "\n".join(t.source for t in references)
        return (
            'Choose a task for the solver as JSON {"family": NAME, "level": 1-10} or {"family": NAME, "knobs": {...}}. '
            f"Families: {', '.join(self.allowed_families())}.\n"
            + (f"Recent choices:\n{refs}" if refs else "")
        )

    def build(self, task_type: str, text: str, sandbox: Any = None, salt: int = 0) -> SelfPlayTask:
        from palaestra import registry

        block = _block(text, "task")
        try:
            data = json.loads(block)
        except ValueError as exc:
            raise Rejection("syntax", f"not JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("family"), str):
            raise Rejection("invalid", "expected an object with a 'family' string")
        if set(data) - {"family", "level", "knobs"} or ("level" in data) == ("knobs" in data):
            raise Rejection("invalid", "give exactly one of 'level' or 'knobs'")
        if data["family"] not in self.allowed_families():
            raise Rejection("unknown_family", data["family"])
        knobs = data.get("knobs", {})
        if not isinstance(knobs, dict):
            raise Rejection("invalid", "'knobs' must be an object")
        spec = registry.get(data["family"])
        try:
            registry.resolve_difficulty(spec, data.get("level"), knobs)
            task = self._training_side_task(data, knobs, salt)
        except (ValueError, TypeError) as exc:
            raise Rejection("invalid", str(exc)) from None
        return SelfPlayTask(
            language=self.name,
            task_type=task_type,
            prompt=task.prompt,
            payload={"task": json.loads(task.to_json())},
            canonical=task.id,
            shape=content_hash([task.family, task.difficulty.to_dict()]),
            source=json.dumps(data, sort_keys=True),
        )

    def _training_side_task(self, data: dict[str, Any], knobs: dict[str, Any], salt: int) -> Any:
        """The proposal's task, with the run's pinned knobs: the first of its seeds whose problem is
        on the training side of the run's split (``held_out`` when a family-level has none in
        :data:`SPLIT_REDRAWS` seeds)."""
        from palaestra import registry

        # the run's pinned knobs hold on every proposal, as on every level of the run's own tasks
        pinned = dict(self.space.knobs.get(data["family"], {})) if self.space is not None else {}
        knobs = {k: v for k, v in knobs.items() if k not in pinned}
        for draw in range(SPLIT_REDRAWS):
            key = [data, salt] if draw == 0 else [data, salt, draw]  # draw 0: the seed it always had
            seed = int(content_hash(key), 16) % 2**31
            task = registry.make_task(data["family"], seed=seed, level=data.get("level"), **knobs, **pinned)
            if self.space is None or not self.space.is_heldout(task):
                return task
        raise Rejection("held_out", f"no training-side {data['family']} task in {SPLIT_REDRAWS} seeds")

    def grade(self, task: SelfPlayTask, responses: Sequence[str], sandbox: Any = None) -> list[float]:
        from palaestra import registry
        from palaestra.core import Task

        catalog_task = Task.from_json(json.dumps(task.payload["task"]))
        return [1.0 if registry.verify(catalog_task, r).correct else 0.0 for r in responses]


# --------------------------------------------------------------------------------------------
# expression: catalog `expression` problems, posed exactly as the catalog poses them
# --------------------------------------------------------------------------------------------

_EXPR_TOKEN = re.compile(r"\s*(?:(\d+)|([+\-*/]))")


@dataclass
class ExpressionLanguage(Language):
    """Proposal: ``<task>47 - 85</task>``, a flat chain of whole numbers and operators within the
    catalog ``expression`` knobs of the run (operand count, digits, operators). The solver sees the
    proposal as the catalog family's own prompt (the surface form it is evaluated on), and the
    family's verifier grades it. ``space`` is the run's :class:`~palaestra.agents.tasks.TaskSpace`:
    a proposal that lands on its held-out side is refused (``held_out``), so self-play never trains
    on a held-out problem."""

    name: str = "expression"
    task_types: tuple[str, ...] = ("expression",)
    operands: int = 2
    digits: int = 2
    operators: str = "+-"
    space: Any = None
    level: int = 1  # the catalog level of the uniform draws (the run's first SFT level)

    @classmethod
    def for_space(cls, space: Any, level: int = 1) -> ExpressionLanguage:
        """The language of the ``expression`` problems a task space trains on."""
        knobs = dict(space.knobs.get("expression", {})) if space is not None else {}
        return cls(
            operands=int(knobs.get("operands", 2)),
            digits=int(knobs.get("digits", 2)),
            operators=str(knobs.get("operators", "+-")).replace("^", ""),
            space=space,
            level=level,
        )

    def uniform_task(self, task_type: str, rng: np.random.Generator) -> SelfPlayTask:
        """A training-side catalog problem of the run's space, as a proposal of it would be built."""
        if self.space is None:
            raise ValueError("uniform expression tasks need the run's task space")
        task = self.space.train_task("expression", self.level, rng)
        return self.build(task_type, f"<task>{task.metadata['expression']}</task>")

    def proposer_prompt(self, task_type: str, references: Sequence[SelfPlayTask]) -> str:
        high = 10**self.digits - 1
        ops = " or ".join(self.operators)
        return (
            f"Invent an arithmetic problem for the solver: {self.operands} whole numbers from 1 to {high} "
            f"joined by {ops}. Answer with <task>...</task>."
        )

    def parse(self, text: str) -> str:
        """The proposal in the catalog's rendering (``47 - 85``), or :class:`Rejection`."""
        program = _block(text, "task")
        tokens, pos = [], 0
        while pos < len(program):
            match = _EXPR_TOKEN.match(program, pos)
            if not match or match.end() == pos:
                if program[pos:].strip():
                    raise Rejection("syntax", f"unexpected text {program[pos : pos + 20]!r}")
                break
            tokens.append(match.group(1) or match.group(2))
            pos = match.end()
        numbers, ops = tokens[0::2], tokens[1::2]
        if not tokens or len(tokens) % 2 == 0 or not all(n.isdigit() for n in numbers):
            raise Rejection("syntax", "expected number (operator number)*")
        if any(o.isdigit() or o not in self.operators for o in ops):
            raise Rejection("invalid", f"operators must be among {self.operators!r}")
        if len(numbers) != self.operands:
            raise Rejection("invalid", f"{len(numbers)} numbers, expected {self.operands}")
        if any(not 1 <= int(n) < 10**self.digits or n != str(int(n)) for n in numbers):
            raise Rejection("invalid", f"numbers must be whole numbers from 1 to {10**self.digits - 1}")
        return " ".join(tokens)

    def build(self, task_type: str, text: str, sandbox: Any = None, salt: int = 0) -> SelfPlayTask:
        from palaestra import registry
        from palaestra.core import Difficulty, Task
        from palaestra.generators.arithmetic.expression import PROMPT

        expression = self.parse(text)
        value = arith.evaluate(expression).answer  # our exact evaluator, never eval
        spec = registry.get("expression")
        knobs = {"operators": self.operators, "operands": self.operands, "digits": self.digits}
        task = Task(
            family="expression",
            family_version=spec.version,
            difficulty=Difficulty(level=None, knobs=knobs),
            seed=0,
            prompt=PROMPT.format(expression=expression),
            answer=format_rational(value),
            metadata={"expression": expression, "operations": 0, "proposed": True},
        )
        if self.space is not None and self.space.is_heldout(task):
            raise Rejection("held_out", expression)
        shape = re.sub(r"\d+", "N", expression) + (" neg" if value < 0 else "")
        return SelfPlayTask(
            language=self.name,
            task_type=task_type,
            prompt=task.prompt,
            payload={"task": json.loads(task.to_json())},
            canonical=content_hash(expression),
            shape=content_hash(shape),
            source=expression,
        )

    def grade(self, task: SelfPlayTask, responses: Sequence[str], sandbox: Any = None) -> list[float]:
        from palaestra import registry
        from palaestra.core import Task

        catalog_task = Task.from_json(json.dumps(task.payload["task"]))
        return [1.0 if registry.verify(catalog_task, r).correct else 0.0 for r in responses]


LANGUAGES: dict[str, type[Language]] = {
    "arith": ArithLanguage,
    "expression": ExpressionLanguage,
    "python": PythonLanguage,
    "family": FamilyLanguage,
}


def make_language(name: str, **kwargs: Any) -> Language:
    """A language by name (``arith``, ``python`` or ``family``)."""
    if name not in LANGUAGES:
        raise ValueError(f"unknown task language {name!r}; choose from {sorted(LANGUAGES)}")
    return LANGUAGES[name](**kwargs)
