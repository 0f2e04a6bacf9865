"""palaestra envs behind OpenEnv's HTTP/WebSocket protocol.

OpenEnv itself (openenv-core) is not installed: it pulls gradio and a web stack far heavier than
this test. The test is a faithful stand-in of OpenEnv's EnvClient: it sends the request bodies
OpenEnv's server types define (ResetRequest {seed, episode_id}, StepRequest {action, ...},
WS messages {"type": reset|step|state|close, "data"}) and checks the response shapes
(ResetResponse/StepResponse {observation, reward, done, metadata}, State {episode_id,
step_count}, WS {"type": observation|state|error, "data"}).
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

import palaestra  # noqa: E402
from palaestra.integrations.openenv import create_openenv_app  # noqa: E402


@pytest.fixture(scope="module")
def expression():
    return TestClient(create_openenv_app("palaestra/Expression-v0"))


def answer_for(seed: int) -> str:
    env_task = palaestra.make("expression")
    env_task.reset(seed=seed)
    return f"<answer>{env_task.unwrapped.task.answer}</answer>"


def test_http_sessions_reset_step_state(expression):
    assert expression.get("/health").json()["status"] == "healthy"
    assert set(expression.get("/schema").json()) == {"action", "observation", "state"}
    first = expression.post("/reset", json={"seed": 5, "episode_id": "a"}).json()
    other = expression.post("/reset", json={"seed": 6}).json()
    assert set(first) == {"observation", "reward", "done", "metadata"} and first["done"] is False
    assert "expression" in first["observation"]["text"]
    other_id = other["metadata"]["episode_id"]
    assert other_id != "a"
    stepped = expression.post("/step", json={"action": {"message": answer_for(5)}, "episode_id": "a"}).json()
    assert stepped["reward"] == 1.0 and stepped["done"] is True
    assert expression.get("/state", params={"episode_id": "a"}).json()["step_count"] == 1
    assert (
        expression.get("/state", params={"episode_id": other_id}).json()["step_count"] == 0
    )  # sessions apart
    assert expression.post("/step", json={"action": {"message": "x"}, "episode_id": "a"}).status_code == 409
    assert expression.post("/step", json={"action": {"message": "x"}, "episode_id": "zz"}).status_code == 404
    assert expression.post("/step", json={"action": {"text": "x"}, "episode_id": "a"}).status_code == 422


def test_stateless_step_rebuilds_the_episode_from_its_seed(expression):
    right = expression.post("/step", json={"action": {"message": answer_for(9)}, "seed": 9}).json()
    wrong = expression.post("/step", json={"action": {"message": "<answer>0.123</answer>"}, "seed": 9}).json()
    assert (right["reward"], right["done"], wrong["reward"]) == (1.0, True, 0.0)
    assert expression.post("/step", json={"action": {"message": "x"}}).status_code == 422


def test_websocket_session_plays_a_game():
    client = TestClient(create_openenv_app("palaestra/Nim-v0", level=1))
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "reset", "data": {"seed": 0}})
        reply = ws.receive_json()
        assert reply["type"] == "observation" and "Nim" in reply["data"]["observation"]["text"]
        ws.send_json({"type": "step", "data": {"message": "take 1 from A"}})
        assert ws.receive_json()["type"] == "observation"
        ws.send_json({"type": "state"})
        state = ws.receive_json()
        assert state["type"] == "state" and state["data"]["step_count"] == 1
        assert state["data"]["episode_id"] == reply["data"]["metadata"]["episode_id"]
        ws.send_json({"type": "jump"})
        assert ws.receive_json()["data"]["code"] == "UNKNOWN_TYPE"
        ws.send_json({"type": "close"})


def test_eviction_keeps_the_newest_sessions():
    client = TestClient(create_openenv_app("palaestra/Expression-v0", max_sessions=2))
    for name in ("a", "b", "c"):
        client.post("/reset", json={"seed": 1, "episode_id": name})
    assert client.get("/state", params={"episode_id": "a"}).status_code == 404
    assert client.get("/state", params={"episode_id": "c"}).status_code == 200
