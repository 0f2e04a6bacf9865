"""string_ops: the final string is recomputed by an independent interpreter written here."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra


def _interpret(start: str, edits: list[list]) -> list[str]:
    """Each edit on a list of characters, independently of the family's string slicing."""
    chars, states = list(start), []
    for kind, *args in edits:
        if kind == "reverse":
            chars.reverse()
        elif kind in ("rotate_left", "rotate_right"):
            for _ in range(args[0]):
                if kind == "rotate_left":
                    chars.append(chars.pop(0))
                else:
                    chars.insert(0, chars.pop())
        elif kind == "insert":
            for offset, ch in enumerate(args[1]):
                chars.insert(args[0] - 1 + offset, ch)
        elif kind == "delete":
            del chars[args[0] - 1]
        elif kind == "swap":
            i, j = args[0] - 1, args[1] - 1
            chars[i], chars[j] = chars[j], chars[i]
        elif kind == "append":
            chars.extend(args[0])
        elif kind in ("replace", "remove"):
            old, new = args[0], (args[1] if kind == "replace" else "")
            out, i = [], 0
            while i < len(chars):
                if "".join(chars[i : i + len(old)]) == old:
                    out.extend(new)
                    i += len(old)
                else:
                    out.append(chars[i])
                    i += 1
            chars = out
        elif kind == "reverse_slice":
            i, j = args[0] - 1, args[1] - 1
            while i < j:
                chars[i], chars[j] = chars[j], chars[i]
                i, j = i + 1, j - 1
        elif kind == "upper_slice":
            for k in range(args[0] - 1, args[1]):
                chars[k] = chars[k].upper()
        elif kind == "swapcase":
            chars = [c.lower() if c.isupper() else c.upper() for c in chars]
        elif kind == "shift":
            base = {True: ord("A"), False: ord("a")}
            chars = [chr((ord(c) - base[c.isupper()] + args[0]) % 26 + base[c.isupper()]) for c in chars]
        else:
            raise AssertionError(kind)
        states.append("".join(chars))
    return states


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=60, deadline=None)
def test_final_string_matches_an_independent_interpreter(seed: int, level: int) -> None:
    task = palaestra.make_task("string_ops", seed=seed, level=level)
    states = _interpret(task.metadata["start"], task.metadata["edits"])
    assert states[-1] == task.answer
    before = [task.metadata["start"], *states[:-1]]
    assert all(a != b for a, b in zip(before, states, strict=True)), "an edit changed nothing"
    assert task.answer != task.metadata["start"]
    assert len(task.metadata["edits"]) == task.knobs["ops"]
    assert palaestra.verify(task, f'<answer>"{task.answer}"</answer>').correct


def test_case_spaces_and_near_misses_are_refused() -> None:
    task = palaestra.make_task("string_ops", seed=4, level=8)
    answer = task.answer
    assert palaestra.verify(task, f"<answer>`{answer}`</answer>").correct
    assert "case" in palaestra.verify(task, f"<answer>{answer.swapcase()}</answer>").reason
    for wrong in (answer[:-1], answer + "x", " ".join(answer), f"{answer}!", f'"{answer}'):
        assert not palaestra.verify(task, f"<answer>{wrong}</answer>").correct


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("string_ops", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "a" * 10**6 + "</answer>", "<answer>" + '"' * 10**5 + "</answer>"):
        assert not palaestra.verify(task, response).format_ok
    assert time.process_time() - started < 0.5
