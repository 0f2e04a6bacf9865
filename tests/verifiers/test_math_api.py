"""math_equal's contract: time bound, threads, no eval of model text, TRL reward adapter."""

from __future__ import annotations

import builtins
import concurrent.futures

import pytest

from palaestra.core import Verdict
from palaestra.verifiers import mathparse as _mathparse
from palaestra.verifiers._mathcompare import Settings, compare_strings
from palaestra.verifiers.math import _POOL, MathPolicy, make_math_reward, math_equal, math_reward, verify_math
from palaestra.verifiers.workers import WorkerCrashed, WorkerPool, WorkerTimeout

from .math_cases import CASES


def test_timeout_is_an_error_never_a_verdict() -> None:
    # a bound far below any real comparison: the worker is killed and the verdict says so
    verdict = math_equal("x^2 + 2x + 1", "(x+1)^2", policy=MathPolicy(timeout_s=1e-6))
    assert verdict.error == "timeout"
    assert not verdict.correct and verdict.reward == 0.0
    # the pool recovers: the next call gets a fresh worker
    assert math_equal("x^2 + 2x + 1", "(x+1)^2", policy=MathPolicy(timeout_s=60)).correct


def test_pool_kills_a_hung_worker() -> None:
    # the shared pool (warm workers from other tests are reused; a killed one is replaced)
    with pytest.raises(WorkerTimeout):
        _POOL.call({"fn": "sleep", "args": {"seconds": 30}}, timeout_s=0.2)
    assert _POOL.call({"fn": "sleep", "args": {"seconds": 0}}, timeout_s=60) == "slept"


def test_unknown_worker_function_is_refused() -> None:
    with pytest.raises(WorkerCrashed):
        _POOL.call({"fn": "os.system", "args": {}}, timeout_s=60)


def test_a_small_pool_serves_more_threads_than_workers() -> None:
    pool = WorkerPool(max_workers=1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        replies = list(ex.map(lambda _: pool.call({"fn": "sleep", "args": {"seconds": 0}}, 60), range(6)))
    assert replies == ["slept"] * 6
    pool.close()


def test_a_forked_child_gets_its_own_workers() -> None:
    import os

    assert math_equal("x+x", "2x").correct  # the parent now holds a warm worker
    pid = os.fork()
    if pid == 0:  # child: must not talk to the parent's worker pipes
        ok = math_equal("x+x", "2x", policy=MathPolicy(timeout_s=60)).correct
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert math_equal("x*x", "x^2").correct


def test_safe_from_many_threads() -> None:
    pairs = [(g, p, eq) for _c, g, p, eq, pol in CASES[:120:2] if not pol]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        # a generous bound: this tests thread safety, not speed on a loaded machine
        verdicts = list(ex.map(lambda t: math_equal(t[0], t[1], policy=MathPolicy(timeout_s=60)), pairs))
    assert [v.correct for v in verdicts] == [eq for _g, _p, eq in pairs]


def test_verdict_shapes() -> None:
    right = math_equal("1/2", "0.5")
    assert right == Verdict.right(parsed="1/2", reason="equivalent")
    wrong = math_equal("1/2", "0.25")
    assert wrong.format_ok and not wrong.correct
    unparsable = math_equal("1/2", r"\frac{1}{")
    assert not unparsable.format_ok and unparsable.error is None
    assert not math_equal("3", "3" * 1_000_000).format_ok  # 1 MB answer: refused before parsing
    assert math_equal(3, "3").error is not None  # type: ignore[arg-type]  (a caller bug, not a bad answer)
    assert not math_equal("3", 3).format_ok  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("response", "correct", "format_ok"),
    [
        (r"So the answer is $\boxed{42}$.", True, True),
        ("<answer>42,000</answer>", False, True),
        ("<answer> 42 </answer>", True, True),
        (r"\boxed{42} or maybe \boxed{43}", False, False),
        (r"the answer is \boxed{42", False, False),
        ("I think it is 42", False, False),
    ],
)
def test_verify_math_extracts_first(response: str, correct: bool, format_ok: bool) -> None:
    verdict = verify_math(response, "42", policy=MathPolicy(timeout_s=60))
    assert (verdict.correct, verdict.format_ok) == (correct, format_ok), verdict


def test_reward_function_called_the_way_trl_calls_it() -> None:
    # GRPOTrainer: reward_func(prompts=..., completions=..., completion_ids=..., **columns,
    # trainer_state=...), one entry per completion, and reads reward_func.__name__ for logs
    prompts = ["What is 6*7?", "What is 1/2 + 1/4?", "Solve x+1=2."]
    completions = [r"... \boxed{42}", "<answer>0.75</answer>", "x equals one"]
    rewards = math_reward(
        prompts=prompts,
        completions=completions,
        completion_ids=[[1, 2], [3], [4]],
        answer=["42", r"\frac{3}{4}", "1"],
        trainer_state=object(),
    )
    assert rewards == [1.0, 1.0, 0.0]
    assert isinstance(math_reward.__name__, str)


def test_reward_function_conversational_format_and_custom_column() -> None:
    reward = make_math_reward("solution", policy=MathPolicy(rel_tol=1e-3, timeout_s=60))
    completions = [
        [{"role": "assistant", "content": r"\boxed{3.1416}"}],
        [{"role": "assistant", "content": "<answer>3</answer>"}],
    ]
    assert reward(prompts=[[], []], completions=completions, solution=[r"\pi", r"\pi"]) == [1.0, 0.0]
    with pytest.raises(KeyError):
        reward(completions=completions, answer=["1", "2"])


def test_model_text_never_reaches_eval_or_sympify(monkeypatch: pytest.MonkeyPatch) -> None:
    # run the comparer in this process with the string parsers booby-trapped
    import sympy.parsing.sympy_parser as sympy_parser

    seen: list[str] = []
    real_parse = sympy_parser.parse_expr
    texts = {t for _c, g, p, _e, _pol in CASES for t in (g, p)}

    def trap(source, *args, **kwargs):
        # sympy parses a few fixed strings of its own (unit names); model text must never come
        if not isinstance(source, str) or source in texts or not source.isidentifier():
            seen.append(repr(source)[:80])
        return real_parse(source, *args, **kwargs)

    real_eval, real_exec = builtins.eval, builtins.exec

    def guarded(fn):
        def inner(source, *args, **kwargs):
            if isinstance(source, str) and source in texts:
                seen.append(source)
            return fn(source, *args, **kwargs)

        return inner

    monkeypatch.setattr(sympy_parser, "parse_expr", trap)
    monkeypatch.setattr(builtins, "eval", guarded(real_eval))
    monkeypatch.setattr(builtins, "exec", guarded(real_exec))
    for _c, gold, pred, _e, _pol in CASES:
        compare_strings(gold, pred, Settings())
    assert seen == []


@pytest.mark.parametrize(
    "text",
    [
        r"10^{10^{10}}",
        r"2^{2^{2^{2^{2^{2}}}}}",
        r"100000!",
        "1e100000",
        r"\sqrt[100000]{2}",
        "(" * 5000 + "1" + ")" * 5000,
        r"x^{10^{9}}",
        r"\binom{10^{9}}{3}",
        r"0.\overline{" + "3" * 500 + "}",
    ],
)
def test_unbounded_constructions_are_refused_by_the_parser(text: str) -> None:
    with pytest.raises(_mathparse.ParseError):
        _mathparse.parse_answer(text)


def test_long_unordered_lists_compare_as_sets() -> None:
    policy = MathPolicy(timeout_s=60)
    gold = ", ".join(map(str, range(150)))
    shuffled = ", ".join(map(str, reversed(range(150))))
    assert math_equal(gold, shuffled, policy=policy).correct
    assert not math_equal(gold, shuffled.replace("149", "150"), policy=policy).correct
    assert not math_equal(gold, shuffled + ", 150", policy=policy).correct


def test_several_boxes_are_one_answer_list_only_where_the_reference_is_a_list() -> None:
    response = r"The solutions are \boxed{1} and \boxed{2}."
    assert verify_math(response, "1, 2").correct
    assert verify_math(response, r"\{2, 1\}").correct
    assert verify_math(response, "1").status == "unparseable"  # two answers for one value
    assert verify_math(response, "1, 2, 3").status == "unparseable"
    assert verify_math(response + "\nAnswer: 1", "1, 2").status == "unparseable"
    assert verify_math(r"<answer>1</answer> \boxed{2}", "1, 2").status == "unparseable"
