"""The validation gate: every rejection reason, the allow-lists, and exact grading (python)."""

from __future__ import annotations

import pytest

from palaestra.agents.selfplay import Gate, PythonLanguage, make_language
from palaestra.agents.selfplay.pycheck import (
    ALLOWED_BUILTINS,
    ALLOWED_IMPORTS,
    StaticRejection,
    check_program,
    rules_text,
)


def proposal(body: str, *inputs: str) -> str:
    return "```python\n" + body.strip() + "\n```\n" + "".join(f"Input: {i}\n" for i in inputs)


GOOD = proposal("def f(x):\n    return sorted(x)[::-1]", "[3, 1, 2]")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("import os\ndef f(x):\n    return x", "forbidden_import"),
        ("from subprocess import run\ndef f(x):\n    return x", "forbidden_import"),
        ("import importlib\ndef f(x):\n    return x", "forbidden_import"),
        ("def f(x):\n    return __import__('o' + 's')", "forbidden_name"),
        ("def f(x):\n    return x.__class__", "forbidden_name"),
        ("def f(x):\n    return getattr(x, 'real')", "forbidden_name"),
        ("def f(x):\n    return eval('1')", "forbidden_name"),
        ("def f(x):\n    return open('/etc/passwd').read()", "forbidden_name"),
        ("def repr(v):\n    return '1'\ndef f(x):\n    return x", "forbidden_name"),
        ("def g(x):\n    return x", "no_entry_point"),
        ("def f(x):\n    global y\n    return x", "forbidden_syntax"),
        ("def f(x) return x", "syntax"),
    ],
)
def test_static_allow_list(body: str, reason: str) -> None:
    with pytest.raises(StaticRejection) as info:
        check_program(body + "\n")
    assert info.value.reason == reason


def test_allowed_program_passes_static_checks() -> None:
    check_program(
        "import math\nfrom collections import Counter\ndef f(x):\n    return math.gcd(*Counter(x).values())\n"
    )


def test_prompt_states_the_gate_rules() -> None:
    text = rules_text()
    assert all(module in text for module in ALLOWED_IMPORTS)
    assert all(name in text for name in ALLOWED_BUILTINS - {"True", "False", "None"})
    assert rules_text() in PythonLanguage().proposer_prompt("deduction", [])


def test_gate_rejections_by_reason(sandbox) -> None:
    gate = Gate(make_language("python"), sandbox)
    ok = gate.check("deduction", GOOD)
    assert ok.ok and ok.task.payload["outputs"] == [[3, 2, 1]]
    renamed = GOOD.replace("x", "values")  # the same program under renaming is a duplicate
    cases = {
        "forbidden_import": proposal("import os\ndef f(x):\n    return os.getpid()", "1"),
        "timeout": proposal("def f(x):\n    while True:\n        x += 1", "1"),
        # hash order of strings differs between the two fresh workers' PYTHONHASHSEED
        "nondeterministic": proposal("def f(n):\n    return list({str(i) for i in range(n)})", "20"),
        "duplicate": renamed,
        "runtime_error": proposal("def f(x):\n    return x[5]", "[1]"),
        "output_not_literal": proposal("def f(x):\n    return x / 3", "1"),
        "bad_input": proposal("def f(x):\n    return x", "os.system('ls')"),
        "syntax": "no code here",
    }
    for reason, text in cases.items():
        result = gate.check("deduction", text, seen={ok.task.canonical})
        assert (result.ok, result.reason) == (False, reason), (reason, result.detail)
    counts = gate.rejection_counts()
    assert counts["ok"] == 1
    assert all(counts[reason] == 1 for reason in cases)


def test_python_grading(sandbox) -> None:
    lang = make_language("python")
    gate = Gate(lang, sandbox, check_determinism=False)
    deduction = gate.check("deduction", GOOD).task
    assert lang.grade(
        deduction, ["<answer>[3, 2, 1]</answer>", "<answer>[1, 2, 3]</answer>", "[3, 2, 1]"]
    ) == [
        1.0,
        0.0,
        0.0,
    ]
    abduction = gate.check("abduction", proposal("def f(x):\n    return sorted(x)[::-1]", "[5, 4]")).task
    answers = [
        "<answer>[4, 5]</answer>",
        "<answer>(5, 4)</answer>",
        "<answer>[5]</answer>",
        "<answer>x</answer>",
    ]
    assert lang.grade(abduction, answers, sandbox) == [1.0, 1.0, 0.0, 0.0]  # any input that works
    induction = gate.check("induction", proposal("def f(x):\n    return 2 * x + 1", "1", "2", "3", "10")).task
    assert "f(10)" not in induction.prompt  # hidden inputs stay hidden
    programs = [
        proposal("def f(y):\n    return y + y + 1"),
        proposal("def f(x):\n    return x + 2"),  # fits the shown examples only
        proposal("import os\ndef f(x):\n    return 2 * x + 1"),  # obeys the rules or scores 0
        "no program",
    ]
    assert lang.grade(induction, programs, sandbox) == [1.0, 0.0, 0.0, 0.0]


def test_python_grading_keeps_bool_and_int_apart(sandbox) -> None:
    """Python's ``True == 1``: a predicted or produced ``True`` is not the output ``1``."""
    lang = make_language("python")
    gate = Gate(lang, sandbox, check_determinism=False)
    deduction = gate.check("deduction", proposal("def f(x):\n    return len(x)", "[7]")).task
    assert lang.grade(deduction, ["<answer>1</answer>", "<answer>True</answer>"]) == [1.0, 0.0]
    abduction = gate.check("abduction", proposal("def f(x):\n    return x", "1")).task
    assert lang.grade(abduction, ["<answer>1</answer>", "<answer>True</answer>"], sandbox) == [1.0, 0.0]


def test_family_mode() -> None:
    lang = make_language("family", allowed=("expression",))
    gate = Gate(lang)
    task = gate.check("family", '{"family": "expression", "level": 2}', salt=1).task
    assert task is not None and task.payload["task"]["family"] == "expression"
    answer = task.payload["task"]["answer"]
    assert lang.grade(task, [f"<answer>{answer}</answer>", "<answer>nonsense</answer>"]) == [1.0, 0.0]
    assert (
        gate.check("family", '{"family": "expression", "level": 2}', salt=2).task.canonical != task.canonical
    )
    for text, reason in [
        ('{"family": "sudoku", "level": 2}', "unknown_family"),
        ('{"family": "expression", "level": 11}', "invalid"),
        ('{"family": "expression", "knobs": {"no_such_knob": 1}}', "invalid"),
        ('{"family": "expression"}', "invalid"),
        ("family=expression", "syntax"),
    ]:
        assert gate.check("family", text).reason == reason, text


def test_a_crashing_builder_is_refused_and_counted() -> None:
    class Broken(type(make_language("arith"))):
        def build(self, task_type, text, sandbox=None, salt=0):
            raise RuntimeError("generator bug")

    gate = Gate(Broken())
    result = gate.check("arith", "<task>1+1</task>")
    assert (result.ok, result.reason) == (False, "build_error") and "generator bug" in result.detail
    assert gate.rejection_counts()["build_error"] == 1


def test_warm_determinism_pair(sandbox) -> None:
    from palaestra.sandbox import Sandbox

    with Sandbox(workers=1, hash_seed=1) as one, Sandbox(workers=1, hash_seed=2) as two:
        gate = Gate(make_language("python"), sandbox, determinism_pair=(one, two))
        assert gate.check("deduction", GOOD).ok
        shaky = proposal("def f(n):\n    return list({str(i) for i in range(n)})", "20")
        assert gate.check("deduction", shaky).reason == "nondeterministic"
