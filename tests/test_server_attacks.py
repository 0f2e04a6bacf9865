"""`palaestra serve` attacked as a security review did over loopback: forged task records,
missing tokens, oversized and hostile bodies, fake curriculum rewards, slow work that must stop,
and one client starving others. Every request here goes through the ASGI app in-process (no
port) except the shutdown test, which starts the real CLI on 127.0.0.1."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import palaestra  # noqa: E402
from palaestra.curriculum import Curriculum  # noqa: E402
from palaestra.integrations.http_json import Admission, Busy  # noqa: E402
from palaestra.rows import task_to_row  # noqa: E402
from palaestra.server import create_app, serve  # noqa: E402

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
# valid knobs whose generation takes ~5.6 s here, against the test's 2 s deadline (kenken near the
# top of its knobs); the maxsat knobs used here before ran past 60 s and are now refused (issue 27)
SLOW_KNOBS = {
    "size": 9,
    "min_cage": 3,
    "max_cage": 6,
    "operations": "all",
    "max_singles": 81,
    "allow_easy": False,
    "min_nodes": 10,
}


def reference(task: palaestra.Task) -> str:
    return palaestra.get(task.family).impl.reference_response(task)


@pytest.fixture(scope="module")
def client():
    app = create_app(
        workers=1,
        curriculum=Curriculum(["expression"], window=4),
        tokens=[TOKEN],
        max_body_bytes=1 << 20,
        generation_timeout_s=20.0,
    )
    with TestClient(app, headers=AUTH, raise_server_exceptions=False) as c:
        yield c


# ------------------------------------------------------------------ authentication


def test_requests_without_the_token_are_refused(client):
    task = palaestra.make_task("expression", seed=1)
    body = {"items": [{"task": task.to_dict(), "response": reference(task)}]}
    for headers in (
        {"Authorization": ""},
        {"Authorization": "Bearer wrong-token-0123456789"},
        {"Authorization": TOKEN},
    ):
        reply = client.post("/v1/verify", json=body, headers=headers)
        assert reply.status_code == 401 and reply.headers["www-authenticate"].startswith("Bearer")
    assert client.get("/health", headers={"Authorization": ""}).status_code == 401
    assert client.post("/v1/verify", json=body).json()["rewards"] == [1.0]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.7"])
def test_a_non_loopback_address_without_a_token_refuses_to_start(host, monkeypatch):
    monkeypatch.delenv("PALAESTRA_TOKEN", raising=False)
    with pytest.raises(ValueError, match="refusing to listen"):
        serve(host, 1, tokens=())  # refused before anything binds


def test_the_cli_refuses_a_public_address_without_a_token():
    env = {k: v for k, v in os.environ.items() if k != "PALAESTRA_TOKEN"}
    cmd = [sys.executable, "-m", "palaestra.cli", "serve", "--host", "0.0.0.0", "--port", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode != 0 and "refusing to listen" in proc.stderr + proc.stdout


# ------------------------------------------------------------------ forged tasks


def test_a_forged_task_record_is_refused(client):
    """Review: a client sending a task whose answer it chose got reward 1.0 for any response."""
    task = palaestra.make_task("expression", seed=3, level=2)
    naive = {**task.to_dict(), "answer": "7"}  # its id no longer matches its content
    reply = client.post("/v1/verify", json={"items": [{"task": naive, "response": "<answer>7</answer>"}]})
    assert reply.status_code == 400 and "does not match" in reply.json()["detail"]
    forged = dataclasses.replace(task, answer="7", id="").to_dict()  # a consistent id for it
    reply = client.post("/v1/verify", json={"items": [{"task": forged, "response": "<answer>7</answer>"}]})
    assert reply.status_code == 400 and "'answer'" in reply.json()["detail"], reply.text
    code = palaestra.make_task("algorithmic_coding", seed=1, level=1)
    hours = json.loads(json.dumps(code.to_dict()))
    hours["difficulty"]["knobs"]["time_limit_s"] = 3600  # the knob's range ends at 30 s
    reply = client.post("/v1/verify", json={"items": [{"task": hours, "response": "x"}]})
    assert reply.status_code == 400 and "rebuilt" in reply.json()["detail"]
    other = {**task.to_dict(), "family_version": task.family_version + 1}
    assert client.post("/v1/verify", json={"items": [{"task": other, "response": "x"}]}).status_code == 400
    # the genuine record, and an exported row's extra_info, are graded
    items = [
        {"task": task.to_dict(), "response": reference(task)},
        {"task": task_to_row(task, "train")["extra_info"], "response": reference(task)},
    ]
    assert client.post("/v1/verify", json={"items": items}).json()["rewards"] == [1.0, 1.0]


def test_a_proven_record_is_not_rebuilt_again_and_a_changed_one_still_is(monkeypatch):
    """Records a client sends again (a GRPO group, an epoch) are answered from the tasks already
    proven equal to their rebuild; any change to a record, a forged answer with a consistent
    id included, makes it a new record that is rebuilt and refused."""
    from palaestra import rows

    built = []
    real = rows.task_from_record
    monkeypatch.setattr(rows, "task_from_record", lambda record: built.append(1) or real(record))
    app = create_app(workers=1, tokens=[TOKEN], generation_timeout_s=20.0)
    task = palaestra.make_task("expression", seed=5, level=2)
    items = [{"task": task.to_dict(), "response": reference(task)}] * 3
    with TestClient(app, headers=AUTH, raise_server_exceptions=False) as c:
        assert c.post("/v1/verify", json={"items": items}).json()["rewards"] == [1.0] * 3
        first = len(built)
        assert first == 3  # the first request builds each item's task (and rebuilds it once)
        assert c.post("/v1/verify", json={"items": items}).json()["rewards"] == [1.0] * 3
        assert len(built) == first  # the same records again: no task built
        forged = dataclasses.replace(task, answer="7", id="").to_dict()
        reply = c.post("/v1/verify", json={"items": [{"task": forged, "response": "<answer>7</answer>"}]})
        assert reply.status_code == 400 and "'answer'" in reply.json()["detail"], reply.text
        naive = {**task.to_dict(), "answer": "7"}
        reply = c.post("/v1/verify", json={"items": [{"task": naive, "response": "<answer>7</answer>"}]})
        assert reply.status_code == 400 and "does not match" in reply.json()["detail"]
        # a proven record beside a forged one: the request is refused as a whole
        both = [items[0], {"task": forged, "response": "<answer>7</answer>"}]
        assert c.post("/v1/verify", json={"items": both}).status_code == 400


def test_fake_curriculum_rewards_are_refused(client):
    """Review: NaN and Infinity rewards were accepted and moved the curriculum."""
    before = client.get("/v1/curriculum").json()["levels"]
    tasks = client.post("/v1/curriculum/next", json={"n": 4}).json()["tasks"]
    for reward in ("NaN", "Infinity", "-Infinity", "2.0", "-1", '"1"', "true", "null"):
        body = (
            '{"items": [' + ",".join(f'{{"task": {json.dumps(t)}, "reward": {reward}}}' for t in tasks) + "]}"
        )
        reply = client.post("/v1/curriculum/record", content=body)
        assert reply.status_code == 400 and "reward" in reply.json()["detail"], (reward, reply.text)
    forged = [dataclasses.replace(palaestra.Task.from_dict(t), answer="0", id="").to_dict() for t in tasks]
    reply = client.post("/v1/curriculum/record", json={"items": [{"task": t, "reward": 1.0} for t in forged]})
    assert reply.status_code == 400
    assert client.get("/v1/curriculum").json()["levels"] == before


# ------------------------------------------------------------------ body size, hostile input


def test_a_body_over_the_cap_is_413(client):
    big = b'{"items": [' + b" " * (2 << 20) + b"]}"
    assert client.post("/v1/verify", content=big).status_code == 413

    def chunks():  # no Content-Length: the cap must hold on the streamed bytes too
        for _ in range(40):
            yield b" " * (64 << 10)

    assert client.post("/v1/verify", content=chunks()).status_code == 413
    assert client.get("/health").status_code == 200


def _hostile_requests() -> list[tuple]:
    """(method, path, body) for the classes of bad input the review sent: wrong types,
    unknown families, deep nesting, absurd sizes and values, broken JSON."""
    task = palaestra.make_task("expression", seed=1).to_dict()
    item = {"task": task, "response": "<answer>1</answer>"}
    deep = "[" * 100_000 + "]" * 100_000
    answer_deep = {"items": [{"task": task, "response": json.loads("[" * 60 + "]" * 60)}]}
    bad_timeouts = ["10", [1], {"a": 1}, True, -1, 0, 1e9, None]
    out: list[tuple] = []
    for t in bad_timeouts:
        if t is not None:
            out.append(("POST", "/v1/verify", {"items": [item], "timeout_s": t}))
    for items in (None, [], "x", [1], [None], [{"response": "x"}], [{"task": "not json"}], [{"task": 5}]):
        out.append(("POST", "/v1/verify", {"items": items}))
    for family in ("nope", "", None, 5, ["expression"], "../../etc/passwd"):
        out.append(("POST", "/v1/verify", {"items": [{"task": {**task, "family": family}, "response": "x"}]}))
        out.append(("POST", "/v1/tasks", {"family": family}))
        if family is not None:  # none: the curriculum's next family in turn (valid)
            out.append(("POST", "/v1/curriculum/next", {"family": family}))
    for n in ("3", -1, 0, 10**9, 1.5, True, [1]):
        out.append(("POST", "/v1/tasks", {"family": "expression", "n": n}))
        out.append(("POST", "/v1/curriculum/next", {"n": n}))
    for seed in (-1, "1", 1.5, 2**70, [1]):
        out.append(("POST", "/v1/tasks", {"family": "expression", "seed": seed}))
    for level in ("1", 0, 99, 1.5, [1]):
        out.append(("POST", "/v1/tasks", {"family": "expression", "level": level}))
    for knobs in ([1], "x", {"nope": 1}, {"depth": "deep"}, {"depth": 10**9}):
        out.append(("POST", "/v1/tasks", {"family": "expression", "knobs": knobs}))
    for response in ([{"role": "assistant"}], {"content": 5}, 5, [[[]]], answer_deep["items"][0]["response"]):
        # odd response shapes: a 400, or graded as the text they hold (unparseable); never a 500
        out.append(("POST", "/v1/verify", {"items": [{"task": task, "response": response}]}, "graded"))
    out.append(("POST", "/v1/verify", deep))
    out.append(("POST", "/v1/verify", "{" * 5000))
    out.append(("POST", "/v1/verify", '{"items": ' + "[" * 5000 + "]" * 5000 + "}"))
    for raw in ("{not json", "[1, 2]", "\xff\xfe", '"string"', "null", "1e999999", '{"items": NaN}'):
        out.append(("POST", "/v1/verify", raw))
        out.append(("POST", "/v1/curriculum/record", raw))
    for items in (
        [{"task": task, "reward": float("nan")}],
        [{"task": task}],
        [{"task": {**task, "family": "nope"}, "reward": 1}],
    ):
        out.append(("POST", "/v1/curriculum/record", {"items": items}))
    for broken in (
        {k: v for k, v in task.items() if k != "difficulty"},
        {**task, "difficulty": {"level": "x"}},
        {**task, "difficulty": 5},
        {**task, "seed": -5},
        {**task, "metadata": [1]},
        json.dumps({**task, "answer": "9"}),
    ):
        out.append(("POST", "/v1/verify", {"items": [{"task": broken, "response": "x"}]}))
    for lenient in (
        {**task, "seed": "1"},
        {**task, "family_version": "1"},
    ):  # read as the numbers: the real task
        out.append(("POST", "/v1/verify", {"items": [{"task": lenient, "response": "x"}]}, "graded"))
    out.append(("POST", "/v1/verify", {"items": [item] * 4097}))
    out.append(("POST", "/v1/tasks", {"family": "expression", "n": 4097}))
    out.append(("POST", "/v1/verify", '{"items": [], "timeout_s": NaN}'))
    out.append(("POST", "/v1/verify", {"items": [item], "timeout_s": 1e308 * 10}))
    out.append(("POST", "/verify", {"responses_create_params": 5}))
    out.append(
        ("POST", "/verify", {"extra_info": {"task": {**task, "answer": "5"}}, "response": {"output": []}})
    )
    out.append(("GET", "/v1/nope", None))
    out.append(("DELETE", "/v1/verify", None))
    out.append(("GET", "/v1/verify", None))
    return out


def test_hostile_requests_get_one_clear_4xx_and_never_a_500(client):
    requests = _hostile_requests()
    assert len(requests) >= 100
    statuses: dict[int, int] = {}
    for method, path, body, *graded in requests:
        if body is None:
            reply = client.request(method, path)
        elif isinstance(body, str):
            reply = client.request(method, path, content=body.encode("latin-1"))
        else:
            reply = client.request(method, path, content=json.dumps(body).encode())
        statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
        assert (200 if graded else 400) <= reply.status_code < 500, (
            method,
            path,
            str(body)[:200],
            reply.status_code,
            reply.text[:300],
        )
        detail = reply.json().get("detail")
        if isinstance(detail, str):
            assert "\n" not in detail and len(detail) < 1000, detail
    print(f"{len(requests)} hostile requests: {statuses}")
    assert client.get("/health").json()["status"] == "healthy"


# ------------------------------------------------------------------ work that must stop


def test_slow_generation_is_stopped_at_its_deadline():
    """Review: /v1/tasks generation ran in the server with no bound (6 of 7 slow-knob requests
    still running at 45 s). It now runs in a worker process that is killed at the deadline."""
    app = create_app(workers=1, generation_timeout_s=2.0)
    with TestClient(app, raise_server_exceptions=False) as c:
        reply = c.post("/v1/tasks", json={"family": "kenken", "knobs": SLOW_KNOBS})
        assert reply.status_code == 503 and "deadline" in reply.json()["detail"]
        assert reply.headers["Retry-After"]
        # the worker was killed with its generation and is restarted: a client that honours
        # Retry-After is served once the fresh worker is up
        for _ in range(60):
            ok = c.post("/v1/tasks", json={"family": "expression", "n": 2})
            if ok.status_code != 503:
                break
            time.sleep(1.0)
        assert ok.status_code == 200 and len(ok.json()["tasks"]) == 2


def test_admission_caps_a_client_and_bounds_the_queue():
    async def scenario() -> list[tuple[str, int]]:
        admission = Admission({"grade": 2}, per_client=2, queue=1, max_wait_s=5.0)
        release = asyncio.Event()
        outcomes: list[tuple[str, int]] = []

        async def request(client: str) -> None:
            try:
                async with admission.enter(client, "grade"):
                    await release.wait()
                outcomes.append((client, 200))
            except Busy as exc:
                assert exc.headers["Retry-After"]
                outcomes.append((client, exc.status_code))

        tasks = []
        for client in ("a", "a", "a", "b", "c"):
            # a, a: both lane places; a: over a's cap; b: the one queue place; c: queue full
            tasks.append(asyncio.create_task(request(client)))
            await asyncio.sleep(0)
        release.set()
        await asyncio.gather(*tasks)
        return outcomes

    outcomes = asyncio.run(scenario())
    assert sorted(outcomes) == sorted([("a", 200), ("a", 200), ("a", 429), ("b", 200), ("c", 503)])


def test_slow_programs_do_not_hold_up_other_grading():
    """Review: 40 slow-code requests filled the request pool and non-code grading fell from
    884 to 13 requests per phase. Code grading now has its own lane and threads: a non-code
    request is answered while every slow program is still running."""
    app = create_app(workers=1, per_client=64, max_queue=64)
    slow_task = palaestra.make_task("function_induction", seed=1, level=1)
    sleeper = "<answer>\nimport time\ndef f(*args):\n    time.sleep(60)\n</answer>"
    fast_task = palaestra.make_task("expression", seed=2)
    with TestClient(app, raise_server_exceptions=False) as c:
        slow_replies: list[int] = []

        def slow() -> None:
            body = {"items": [{"task": slow_task.to_dict(), "response": sleeper}]}
            slow_replies.append(c.post("/v1/verify", json=body).status_code)

        threads = [threading.Thread(target=slow) for _ in range(12)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # let them reach the sandbox (not a timing assertion)
        body = {"items": [{"task": fast_task.to_dict(), "response": reference(fast_task)}] * 4}
        reply = c.post("/v1/verify", json=body)
        still_running = 12 - len(slow_replies)
        assert reply.status_code == 200 and reply.json()["rewards"] == [1.0] * 4
        assert still_running > 0, "the slow requests ended first: this test proved nothing"
        for t in threads:
            t.join(timeout=300)
        assert set(slow_replies) <= {200, 503}


# ------------------------------------------------------------------ shutdown


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_server_stops_on_a_signal_while_work_is_in_flight(sig):
    """Review: SIGINT did not stop the server, twice (it needed SIGKILL)."""
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "palaestra.cli",
        "serve",
        "--port",
        str(port),
        "--workers",
        "1",
        "--shutdown-grace-s",
        "2",
    ]
    env = {k: v for k, v in os.environ.items() if k != "PALAESTRA_TOKEN"}
    server = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True
    )
    try:
        from palaestra.client import Client

        client = Client(f"http://127.0.0.1:{port}", timeout_s=5)
        for _ in range(240):
            try:
                client.health()
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the server did not start")
        task = palaestra.make_task("function_induction", seed=1, level=1)
        sleeper = "<answer>\nimport time\ndef f(*args):\n    time.sleep(60)\n</answer>"
        threading.Thread(target=lambda: _quietly(client.verify, [task], [sleeper]), daemon=True).start()
        time.sleep(1.0)
        server.send_signal(sig)
        # bound: 2 x grace + 5 s; waited for with room to spare on a loaded machine
        code = server.wait(timeout=90)
        assert code is not None
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _quietly(fn, *args) -> None:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001,S110 - the server goes away under it: expected
        pass


def test_tls_and_a_token_over_loopback(tmp_path):
    """The deployment recipe end to end: the CLI with a token file and TLS files, on 127.0.0.1."""
    import shutil
    import ssl
    import urllib.error
    import urllib.request

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    tokens = tmp_path / "tokens"
    tokens.write_text(f"# one per client\n{TOKEN}\n")
    port = _free_port()
    cmd = [sys.executable, "-m", "palaestra.cli", "serve", "--port", str(port), "--workers", "1",
           "--token-file", str(tokens), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "PALAESTRA_TOKEN"}
    server = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True
    )
    context = ssl.create_default_context(cafile=str(cert))
    url = f"https://127.0.0.1:{port}/health"

    def status(headers: dict[str, str]) -> int:
        try:
            with urllib.request.urlopen(
                urllib.request.Request(url, headers=headers), context=context, timeout=10
            ) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    try:
        for _ in range(240):
            try:
                first = status({})
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the server did not start")
        assert first == 401
        assert status({"Authorization": f"Bearer {TOKEN}"}) == 200
        with pytest.raises(OSError):  # plain HTTP on the TLS port is no way in
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
