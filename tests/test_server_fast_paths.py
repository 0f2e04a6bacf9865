"""The server's cheaper paths decide as the general ones do.

- ``json_body`` parses with orjson where it is installed: what orjson accepts must be the very
  value the standard library reads (types included: ``1``, ``1.0`` and ``true`` stay apart), and
  the depth measured on the parsed value must be the bracket depth ``_nesting`` reads from the
  text; what orjson refuses goes to the standard library unchanged.
- A record sent again is found by its task id and taken only when it equals the record proven;
  an item may name a checked task by its id (``task_ref``), and nothing else: an unknown id is a
  400, and a task the server never checked (a forged one) can never be named.
- :class:`palaestra.client.Client` sends checked records as ids and sends the records again when
  the server no longer holds them.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import palaestra  # noqa: E402
from palaestra.integrations import http_json  # noqa: E402
from palaestra.integrations.http_json import MAX_JSON_DEPTH, _fast_parse, _nesting  # noqa: E402
from palaestra.rows import task_to_row  # noqa: E402
from palaestra.server import create_app  # noqa: E402

TOKEN = "test-token-fast-paths-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 3, max_value=2**70)
    | st.integers(min_value=-(2**70), max_value=-(2**63) + 3)
    | st.sampled_from([1e308, 1e-320, -0.0, 0.1, 2.5e-7])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.sampled_from('ab[]{}"\\/\n\u00e9\ud800\U0001f600 '), max_size=8)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
)


def typed(value: object) -> str:
    """The value with its JSON types spelled out (``1 == 1.0 == True`` in Python)."""
    return json.dumps(value, default=repr, sort_keys=False) + repr(_types(value))


def _types(value: object) -> object:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


@settings(max_examples=3000, deadline=None)
@given(VALUES, st.booleans())
def test_what_orjson_reads_is_what_the_standard_library_reads(value: object, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    parsed, depth = _fast_parse(raw)
    if depth is None:  # refused by orjson: the standard library decides, as before
        return
    assert typed(parsed) == typed(json.loads(raw))
    assert min(depth, MAX_JSON_DEPTH + 1) == min(_nesting(raw), MAX_JSON_DEPTH + 1)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet='[]{}"\\ a1,:.e-\n', max_size=40).map(str.encode) | st.binary(max_size=30))
def test_any_bytes_orjson_accepts_are_json_the_standard_library_reads_alike(raw: bytes) -> None:
    parsed, depth = _fast_parse(raw)
    if depth is not None:
        assert typed(parsed) == typed(json.loads(raw))
        assert depth == _nesting(raw)


def test_deep_bodies_are_refused_by_depth_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = {"items": json.loads("[" * 70 + "]" * 70)}
    raw = json.dumps(deep).encode()
    assert _fast_parse(raw)[1] == MAX_JSON_DEPTH + 1  # stops counting one past the bound
    app = create_app(workers=0, tokens=[TOKEN])
    with TestClient(app, headers=AUTH) as c:
        for orjson in (http_json.orjson, None):
            monkeypatch.setattr(http_json, "orjson", orjson)
            for body in (
                raw,
                b"[" * 100_000 + b"]" * 100_000,
                b'{"items": ' + b"[" * 2000 + b"]" * 2000 + b"}",
            ):
                reply = c.post("/v1/verify", content=body)
                assert reply.status_code == 400 and "nests deeper" in reply.json()["detail"]
            assert c.post("/v1/verify", content=b'{"items": NaN}').status_code == 400


def reference(task: palaestra.Task) -> str:
    return palaestra.get(task.family).impl.reference_response(task)


def test_checked_tasks_are_named_by_id_and_nothing_else_is() -> None:
    task = palaestra.make_task("expression", seed=11, level=2)
    other = palaestra.make_task("expression", seed=12, level=2)
    right, wrong = reference(task), "<answer>-12345</answer>"
    app = create_app(workers=1, tokens=[TOKEN], generation_timeout_s=20.0)
    with TestClient(app, headers=AUTH) as c:
        ref = {"task_ref": task.id, "response": right}
        reply = c.post("/v1/verify", json={"items": [ref]})  # never sent: unknown
        assert reply.status_code == 400 and "unknown 'task_ref'" in reply.json()["detail"]
        items = [{"task": task.to_dict(), "response": right}]
        assert c.post("/v1/verify", json={"items": items}).json()["rewards"] == [1.0]
        both = [ref, {"task_ref": task.id, "response": wrong}]
        assert c.post("/v1/verify", json={"items": both}).json()["rewards"] == [1.0, 0.0]
        # a forged task with a consistent id is refused, and its id never becomes a reference
        forged = dataclasses.replace(task, answer="7", id="")
        reply = c.post(
            "/v1/verify", json={"items": [{"task": forged.to_dict(), "response": "<answer>7</answer>"}]}
        )
        assert reply.status_code == 400 and "'answer'" in reply.json()["detail"]
        reply = c.post(
            "/v1/verify", json={"items": [{"task_ref": forged.id, "response": "<answer>7</answer>"}]}
        )
        assert reply.status_code == 400 and "unknown 'task_ref'" in reply.json()["detail"]
        # a record that claims a proven task's id but differs from it is checked again: refused
        naive = {**task.to_dict(), "answer": "7"}
        reply = c.post("/v1/verify", json={"items": [{"task": naive, "response": "<answer>7</answer>"}]})
        assert reply.status_code == 400 and "does not match" in reply.json()["detail"]
        for bad_ref in (None, 5, ["x"], {"id": task.id}, other.id):
            reply = c.post("/v1/verify", json={"items": [{"task_ref": bad_ref, "response": right}]})
            assert reply.status_code == 400, bad_ref
        # a row's extra_info, once checked, is found again and its task named by id too
        row = {"task": task_to_row(other, "train")["extra_info"], "response": reference(other)}
        assert c.post("/v1/verify", json={"items": [row, row]}).json()["rewards"] == [1.0, 1.0]
        named = {"task_ref": other.id, "response": reference(other)}
        assert c.post("/v1/verify", json={"items": [named]}).json()["rewards"] == [1.0]


def test_a_proven_record_found_by_id_must_equal_the_one_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    from palaestra import rows

    built = []
    real = rows.task_from_record
    monkeypatch.setattr(rows, "task_from_record", lambda record: built.append(1) or real(record))
    task = palaestra.make_task("expression", seed=13, level=2)
    app = create_app(workers=1, tokens=[TOKEN], generation_timeout_s=20.0)
    with TestClient(app, headers=AUTH) as c:
        record = task.to_dict()
        assert (
            c.post("/v1/verify", json={"items": [{"task": record, "response": reference(task)}]}).status_code
            == 200
        )
        first = len(built)
        shuffled = dict(reversed(list(record.items())))  # the same record, keys in another order
        assert c.post("/v1/verify", json={"items": [{"task": shuffled, "response": "x"}]}).status_code == 200
        assert len(built) == first  # found, not built
        changed = {**record, "prompt": record["prompt"] + " "}  # same id, another record
        reply = c.post("/v1/verify", json={"items": [{"task": changed, "response": "x"}]})
        assert reply.status_code == 400 and len(built) == first + 1


class _Recorder:
    """Stands in for Client._call: answers as a server that holds ``held`` task ids would."""

    def __init__(self, held: set[str]) -> None:
        self.held, self.bodies = held, []

    def __call__(self, path: str, body: dict) -> dict:
        self.bodies.append(json.loads(json.dumps(body)))
        for item in body["items"]:
            if "task_ref" in item and item["task_ref"] not in self.held:
                raise ValueError("palaestra server 400 on /v1/verify: item 0: unknown 'task_ref' 'x'")
        for item in body["items"]:
            if "task" in item:
                self.held.add(item["task"]["id"])
        n = len(body["items"])
        verdict = palaestra.Verdict.right().to_dict()
        return {"verdicts": [verdict] * n, "rewards": [1.0] * n}


def test_the_client_names_checked_records_and_resends_them_when_forgotten() -> None:
    from palaestra.client import Client

    tasks = [palaestra.make_task("expression", seed=s, level=2) for s in (1, 2)]
    client = Client(token="t")
    client._call = recorder = _Recorder(set())  # type: ignore[method-assign]
    client.verify(tasks, ["a", "b"])
    assert all("task" in item for item in recorder.bodies[-1]["items"])
    client.verify(tasks, ["a", "b"])
    assert [item.get("task_ref") for item in recorder.bodies[-1]["items"]] == [t.id for t in tasks]
    changed = {**tasks[0].to_dict(), "prompt": "other"}  # same id, another record: sent whole
    client.verify([changed], ["a"])
    assert recorder.bodies[-1]["items"][0]["task"] == changed
    recorder.held.clear()  # the server restarted
    calls = len(recorder.bodies)
    assert [v.reward for v in client.verify(tasks, ["a", "b"])] == [1.0, 1.0]
    assert len(recorder.bodies) == calls + 2  # by id, refused, then the records
    assert all("task" in item for item in recorder.bodies[-1]["items"])


def test_numbers_past_64_bits_go_to_the_standard_library() -> None:
    for raw in (b"[-9223372036854775809]", b'{"a": 18446744073709551616}', b"[1234567890123456789012]"):
        assert _fast_parse(raw) == (None, None)
    assert _fast_parse(b'{"a": [1, 2.5, "x"]}') == ({"a": [1, 2.5, "x"]}, 2)
