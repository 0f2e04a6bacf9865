"""Exact math answer equivalence: ``math_equal``, ``verify_math`` and a TRL reward function.

``math_equal(gold, pred)`` parses both answers with our own restricted grammar
(``mathparse``: LaTeX and plain text to sympy objects, never ``eval``/``sympify``) and
compares them exactly (``_mathcompare``). Anything beyond plain numbers runs in a kill-safe
worker process under a hard time bound, so it is safe inside any thread; a timeout returns
``Verdict.timed_out(...)`` (status ``timeout``), never a hang and never ``correct=True``. Plain numbers
(``42``, ``-3.5``, ``42,000``, ``3/4``, ``\\frac{3}{4}``) take an in-process fast path whose
work is linear in the (capped) input length.

The label policy (what counts as equal) is documented in ``docs/verifiers.md``.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from palaestra.core import Verdict
from palaestra.verifiers._mathwords import box_list
from palaestra.verifiers.extract import extract_answer, find_answer_tags, find_boxes, strip_reasoning
from palaestra.verifiers.workers import WorkerCrashed, WorkerPool, WorkerTimeout

__all__ = ["MathPolicy", "math_equal", "verify_math", "math_reward", "make_math_reward", "warm_up"]

log = logging.getLogger(__name__)

MAX_ANSWER_CHARS = 100_000  # a whole sentence or response around a boxed answer may come in


@dataclass(frozen=True)
class MathPolicy:
    """What counts as equal (defaults: exact; see docs/verifiers.md).

    rel_tol: accept numbers within this relative tolerance (for tasks that ask for
        decimals); ``None`` means exact, so ``0.333333`` is not ``1/3``.
    strip_units: ignore units altogether (``5 cm`` equals ``5 m``, as in math-verify). By
        default units are read: ignored when one side has none, compared (and converted)
        when both sides give one.
    e_is_euler / i_is_imaginary: whether the bare letters e and i are the constants.
    j_is_imaginary: ``True`` or ``False`` fixes how j reads; ``None`` (default) reads j as
        the imaginary unit only where it is the one letter of an answer compared with a
        number (``3 + 4j`` for ``3 + 4i``).
    strict_units: the reference names the one unit asked for, as in a word problem (a
        percentage carries its ``%``): a bare number is a number of that unit, a unit of the
        same dimension is converted, and a unit, ``%``, ``°`` or radian the reference lacks
        makes the answer wrong (``360 %`` or ``360 rad`` is not 360 km). ``%`` and ``°`` then
        read only as the unit, never as 1/100 or pi/180.
    simplified: the task asks for a simplified form (the written-number rule, docs/verifiers.md):
        ``True``: an answer that leaves arithmetic to do (``\\sqrt{225}`` for 15), a radical
        not in simplest form (``\\sqrt{8}``, ``\\sqrt{25/13}``) or a fraction not in lowest
        terms (``\\frac{6}{8}``) is refused; ``False``: such answers are paid unless they restate
        the question; ``None`` (default): ``True`` exactly when the question passed to
        :func:`math_equal` asks for a simplified, simplest or lowest-terms form.
    timeout_s: the hard bound on parsing plus comparing one pair.
    """

    rel_tol: float | None = None
    strip_units: bool = False
    e_is_euler: bool = True
    i_is_imaginary: bool = True
    j_is_imaginary: bool | None = None
    strict_units: bool = False
    simplified: bool | None = None
    timeout_s: float = 3.0

    def settings(self, question: str | None = None) -> dict[str, Any]:
        """The comparison settings for one pair (``simplified`` resolved against ``question``)."""
        out = dataclasses.asdict(self)
        del out["timeout_s"]
        out["simplified"] = self.asks_simplified(question)
        return out

    def asks_simplified(self, question: str | None) -> bool:
        """Whether a simplified form is asked: the policy's choice, else the question's words."""
        if self.simplified is not None:
            return self.simplified
        return question is not None and _ASKS_SIMPLIFIED.search(question[:MAX_QUESTION_CHARS]) is not None


# "Simplify", "in simplest (radical) form", "in lowest terms", "fully reduced": MATH's and
# textbooks' ways of asking for a simplified form.
_ASKS_SIMPLIFIED = re.compile(
    r"\b(?:simplif(?:y|ied|ies)|simplest|lowest\s+terms|fully\s+reduced|reduced\s+form)\b", re.IGNORECASE
)
MAX_QUESTION_CHARS = 200_000  # the question is read up to here (as in _mathcompare)


DEFAULT_POLICY = MathPolicy()
_POOL = WorkerPool()
# the first worker starts with this import: sympy's import and warm-up (seconds on a loaded
# machine) overlap the caller's own work instead of delaying its first comparison
_POOL.start_in_background()


def warm_up(n_workers: int = 1) -> None:
    """Start worker processes now so the first verifications do not pay their start-up."""
    _POOL.warm(n_workers)


def math_equal(
    gold: str, pred: str, *, policy: MathPolicy = DEFAULT_POLICY, question: str | None = None
) -> Verdict:
    """Whether answer ``pred`` equals the reference ``gold`` under ``policy``.

    ``pred`` is an answer, not a whole response (see :func:`verify_math`). ``question``, the
    task's prompt when there is one, lets the written-number rule refuse an answer that restates
    it (``2^{10}`` when the question asks to compute ``2^{10}``) and see whether it asks for a
    simplified form. Returns
    ``Verdict.right``; ``Verdict.wrong`` (parsed but different); ``Verdict.bad_format``
    (unparseable, too long, refused as unbounded); or ``Verdict.failure`` on timeout or crash.
    """
    if not isinstance(gold, str):
        return Verdict.failure(
            "bad reference", reason=f"the reference must be a string, not {type(gold).__name__}"
        )
    if not isinstance(pred, str):
        return Verdict.bad_format(f"the answer must be a string, not {type(pred).__name__}")
    if len(pred) > MAX_ANSWER_CHARS:
        return Verdict.bad_format(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    if len(gold) > MAX_ANSWER_CHARS:
        return Verdict.failure("reference too long", reason="the reference answer is too long to parse")
    if question is not None and not isinstance(question, str):
        return Verdict.failure(
            "bad question", reason=f"the question must be a string, not {type(question).__name__}"
        )
    settings = policy.settings(question)
    fast = _fast_compare(gold, pred, policy, simplified=settings["simplified"])
    if fast is not None:
        return fast
    args = {"gold": gold, "pred": pred, "settings": settings}
    if question is not None:
        args["question"] = question[:MAX_QUESTION_CHARS]
    request = {"fn": "compare", "args": args}
    try:
        result = _POOL.call(request, policy.timeout_s)
    except WorkerTimeout:
        return Verdict.timed_out(f"comparison ran past {policy.timeout_s} s")
    except WorkerCrashed as exc:
        return Verdict.failure(f"crash: {exc}", reason="the comparison failed")
    return _to_verdict(result)


def _to_verdict(result: dict[str, Any]) -> Verdict:
    if result["correct"]:
        return Verdict.right(parsed=result["parsed"], reason=result["reason"])
    if result["format_ok"]:
        return Verdict.wrong(result["reason"], parsed=result["parsed"])
    return Verdict.bad_format(result["reason"], parsed=result["parsed"])


# --------------------------------------------------------------------------------------------
# Fast path: plain numbers compare as exact fractions in-process
# --------------------------------------------------------------------------------------------

_DECIMAL = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_FAST = re.compile(
    rf"^\s*(?P<sign>[-+\u2212]?)\s*(?:(?P<dec>{_DECIMAL})"
    rf"|(?P<p>\d+)\s*/\s*(?P<q>\d+)"
    rf"|\\[dt]?frac\{{\s*(?P<fsign>[-+]?)\s*(?P<fp>\d+)\s*\}}\{{\s*(?P<fq>\d+)\s*\}})\s*$"
)
_WRAPPER = re.compile(
    r"^\s*(?:\$|\\\(|\\\[)?\s*(?:\\boxed\{(?P<box>[^{}]*)\}|(?P<bare>[^$]*?))\s*(?:\$|\\\)|\\\])?\s*$"
)


def _plain_number(text: str) -> Fraction | None:
    """An exact Fraction for a plain number, or None if the text is anything else (also for a
    fraction whose value is an integer: ``12/4`` is a division left undone, for the worker's
    form rules to judge)."""
    if len(text) > 200:
        return None
    wrapped = _WRAPPER.match(text)
    if wrapped is None:
        return None
    inner = wrapped.group("box") if wrapped.group("box") is not None else wrapped.group("bare")
    m = _FAST.match(inner)
    if m is None:
        return None
    if m.group("dec") is not None:
        value = Fraction(m.group("dec").replace(",", ""))
    else:
        p, q = (m.group("p"), m.group("q")) if m.group("p") is not None else (m.group("fp"), m.group("fq"))
        if int(q) == 0 or int(p) % int(q) == 0:
            return None
        value = Fraction(int(p), int(q))
    negative = (m.group("sign") in ("-", "\u2212")) != (m.group("fsign") == "-")
    return -value if negative else value


def _fast_compare(gold: str, pred: str, policy: MathPolicy, simplified: bool = False) -> Verdict | None:
    g = _plain_number(gold)
    if g is None:
        return None
    p = _plain_number(pred)
    if p is None:
        return None
    if simplified and ("/" in pred or "frac" in pred):
        return None  # \frac68 for 3/4: the worker judges whether a fraction is in lowest terms
    shown = str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"
    if g == p:
        return Verdict.right(parsed=shown, reason="equivalent")
    if policy.rel_tol is not None and abs(g - p) <= Fraction(policy.rel_tol) * max(abs(g), abs(p)):
        return Verdict.right(parsed=shown, reason="equivalent")
    if "," in gold + pred:
        return None  # "100,200" may be a list: let the full parser try both readings
    return Verdict.wrong("not equivalent", parsed=shown)


# --------------------------------------------------------------------------------------------
# Whole responses and the TRL reward function
# --------------------------------------------------------------------------------------------


def verify_math(
    response: str,
    gold: str,
    *,
    policy: MathPolicy = DEFAULT_POLICY,
    pattern: str | None = None,
    allow_bare: bool = False,
    question: str | None = None,
) -> Verdict:
    """Extract the final answer from a model ``response`` and compare it with ``gold``
    (``question``: the task's prompt, see :func:`math_equal`).

    A response whose only final-answer marks are several different boxes (reasoning models box
    each solution) states one answer list: it is paid when that list equals the reference list
    or set, and is a format error otherwise (several final answers for a single value).
    """
    extraction = extract_answer(response, pattern=pattern, allow_bare=allow_bare, max_chars=MAX_ANSWER_CHARS)
    if not extraction.ok or extraction.text is None:
        boxes = _boxes_only(response) if pattern is None else None
        if boxes is not None:
            verdict = math_equal(gold, box_list(boxes), policy=policy, question=question)
            if verdict.correct:
                return verdict
        return Verdict.bad_format(extraction.error or "no answer found")
    return math_equal(gold, extraction.text, policy=policy, question=question)


def _boxes_only(response: str) -> list[str] | None:
    """The contents of a response's boxes when boxes are its only final-answer marks (no tag, no
    answer line) and there are several, else None."""
    text, error = strip_reasoning(response)
    if error or len(text) > MAX_ANSWER_CHARS:
        return None
    tags, error = find_answer_tags(text)
    boxes, box_error = find_boxes(text)
    if error or box_error or tags or len(boxes) < 2:
        return None
    if extract_answer(_blank_boxes(text, boxes)).ok:  # an Answer: line or block besides the boxes
        return None
    return [content.strip() for _start, _end, content in boxes]


def _blank_boxes(text: str, boxes: list[tuple[int, int, str]]) -> str:
    pieces, pos = [], 0
    for start, end, _content in boxes:
        pieces += [text[pos:start], " "]
        pos = end
    return "".join(pieces + [text[pos:]])


def _completion_text(completion: Any) -> str:
    """TRL passes strings (standard format) or lists of chat messages (conversational)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    return ""


def _prompt_text(prompt: Any) -> str | None:
    """A TRL prompt as text: a string, or the contents of a conversation's messages."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence) and all(isinstance(m, dict) for m in prompt):
        return "\n".join(str(m.get("content", "")) for m in prompt)
    return None


def _reference_answers(columns: dict[str, Any], answer_key: str, n: int) -> list[str]:
    """The gold answers of a batch as text, whatever shape the dataset gave them.

    A palaestra row (export or ``task_rows``) carries its task record in ``extra_info``; its
    ``answer`` column is JSON text (``'"6"'``). The task record is read when present, and a
    JSON-quoted string is unquoted (no math answer starts with a quote), so a reference answer
    never scores 0 because of the storage format. A reference that is not a single value (a grid,
    a list) cannot be a math answer: that is a data-shape mismatch and raises ``ValueError``.
    """
    golds = columns.get(answer_key)
    records = columns.get("extra_info") if answer_key == "answer" else None
    if records is not None and any(isinstance(r, dict) and r.get("task") for r in records):
        golds = [json.loads(r["task"])["answer"] for r in records]
    if golds is None:
        raise KeyError(f"the dataset has no {answer_key!r} column for the math reward")
    if len(golds) != n:
        raise ValueError(f"{n} completions but {len(golds)} references")
    return [_gold_text(gold, i) for i, gold in enumerate(golds)]


def _gold_text(gold: Any, row: int) -> str:
    if isinstance(gold, str) and gold.startswith('"'):
        try:
            gold = json.loads(gold)
        except json.JSONDecodeError:
            pass
    if isinstance(gold, bool) or not isinstance(gold, (str, int, float, Fraction)):
        raise ValueError(
            f"math_reward: row {row}'s reference answer is a {type(gold).__name__} ({str(gold)[:60]!r}), "
            "not a single math value; grade structured answers with palaestra_reward"
        )
    text = gold if isinstance(gold, str) else str(gold)
    if not any(ch.isalnum() for ch in text):  # a bracket word or a grid of symbols: math_equal calls it blank
        raise ValueError(
            f"math_reward: row {row}'s reference answer ({text[:60]!r}) has no letter or digit: "
            "not a single math value; grade structured answers with palaestra_reward"
        )
    return text


def make_math_reward(
    answer_key: str = "answer",
    *,
    policy: MathPolicy = DEFAULT_POLICY,
    pattern: str | None = None,
    allow_bare: bool = False,
) -> Callable[..., list[float]]:
    """A reward function with TRL's signature reading the references from ``answer_key``.

    ``GRPOTrainer(reward_funcs=[make_math_reward("solution")])`` calls it as
    ``f(prompts=..., completions=..., completion_ids=..., **dataset_columns)``; the prompts are
    the questions the written-number rule reads (see :func:`math_equal`).
    A verifier failure (timeout, crash) scores 0.0 and is logged, never rewarded.
    """

    def reward(completions: list[Any], **kwargs: Any) -> list[float]:
        golds = _reference_answers(kwargs, answer_key, len(completions))
        prompts = kwargs.get("prompts")
        if not (isinstance(prompts, Sequence) and len(prompts) == len(completions)):
            prompts = [None] * len(completions)
        rewards = []
        for completion, gold, prompt in zip(completions, golds, prompts, strict=True):
            verdict = verify_math(
                _completion_text(completion),
                gold,
                policy=policy,
                pattern=pattern,
                allow_bare=allow_bare,
                question=_prompt_text(prompt),
            )
            if verdict.error is not None:
                log.warning("math reward: verifier failed (%s); scoring 0", verdict.error)
            rewards.append(float(verdict.reward))
        return rewards

    reward.__name__ = f"math_reward_{answer_key}"
    return reward


math_reward = make_math_reward("answer")
math_reward.__name__ = "math_reward"
