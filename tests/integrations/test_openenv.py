"""palaestra envs behind OpenEnv's HTTP/WebSocket protocol, checked with OpenEnv itself.

openenv-core (in the dev extra) supplies both sides of the check: its server types
(ResetRequest, ResetResponse, StepResponse, State, the WS messages; the response models forbid
extra keys) validate every body the server sends, and its real ``GenericEnvClient`` plays whole
episodes over the ``/ws`` socket against the server running under uvicorn on loopback.
"""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from openenv.core.env_server.types import (
    ResetRequest,
    ResetResponse,
    State,
    StepRequest,
    StepResponse,
    WSErrorResponse,
    WSObservationResponse,
    WSStateResponse,
)
from openenv.core.generic_client import GenericEnvClient

import palaestra
from palaestra.integrations.openenv import create_openenv_app

from .conftest import serve_on_loopback


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
    reset_body = ResetRequest(seed=5, episode_id="a").model_dump()
    first = ResetResponse.model_validate(expression.post("/reset", json=reset_body).json())
    other = ResetResponse.model_validate(expression.post("/reset", json={"seed": 6}).json())
    assert first.done is False and first.reward is None
    assert "expression" in first.observation["text"]
    mine = first.observation["metadata"]["episode_id"]
    assert mine != "a"  # the server issues episode ids; a client's own is ignored
    other_id = other.observation["metadata"]["episode_id"]
    assert other_id != mine
    step_body = StepRequest(action={"message": answer_for(5)}, episode_id=mine).model_dump()
    stepped = StepResponse.model_validate(expression.post("/step", json=step_body).json())
    assert stepped.reward == 1.0 and stepped.done is True
    state = State.model_validate(expression.get("/state", params={"episode_id": mine}).json())
    assert state.episode_id == mine and state.step_count == 1
    assert (
        expression.get("/state", params={"episode_id": other_id}).json()["step_count"] == 0
    )  # sessions apart
    assert expression.post("/step", json={"action": {"message": "x"}, "episode_id": mine}).status_code == 409
    assert expression.post("/step", json={"action": {"message": "x"}, "episode_id": "zz"}).status_code == 404
    assert expression.post("/step", json={"action": {"text": "x"}, "episode_id": mine}).status_code == 422


def test_stateless_step_rebuilds_the_episode_from_its_seed(expression):
    right = expression.post("/step", json={"action": {"message": answer_for(9)}, "seed": 9}).json()
    wrong = expression.post("/step", json={"action": {"message": "<answer>0.123</answer>"}, "seed": 9}).json()
    right, wrong = StepResponse.model_validate(right), StepResponse.model_validate(wrong)
    assert (right.reward, right.done, wrong.reward) == (1.0, True, 0.0)
    assert expression.post("/step", json={"action": {"message": "x"}}).status_code == 422


def test_websocket_session_plays_a_game():
    client = TestClient(create_openenv_app("palaestra/Nim-v0", level=1))
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "reset", "data": {"seed": 0}})
        reply = WSObservationResponse.model_validate(ws.receive_json())
        assert "Nim" in reply.data["observation"]["text"]
        ws.send_json({"type": "step", "data": {"message": "take 1 from A"}})
        WSObservationResponse.model_validate(ws.receive_json())
        ws.send_json({"type": "state"})
        state = State.model_validate(WSStateResponse.model_validate(ws.receive_json()).data)
        assert state.step_count == 1
        assert state.episode_id == reply.data["observation"]["metadata"]["episode_id"]
        ws.send_json({"type": "jump"})
        assert WSErrorResponse.model_validate(ws.receive_json()).data["code"] == "UNKNOWN_TYPE"
        ws.send_json({"type": "close"})


def test_eviction_keeps_the_newest_sessions():
    client = TestClient(create_openenv_app("palaestra/Expression-v0", max_sessions_per_client=2))
    ids = [
        client.post("/reset", json={"seed": 1}).json()["observation"]["metadata"]["episode_id"]
        for _ in range(3)
    ]
    assert client.get("/state", params={"episode_id": ids[0]}).status_code == 404
    assert client.get("/state", params={"episode_id": ids[2]}).status_code == 200


TOKENS = ["victim-token-0123456789abcdef", "attacker-token-0123456789abcdef"]


def test_an_episode_belongs_to_the_client_that_opened_it():
    """Review: one client could reset another's episode (ids were the client's choice), and 300
    resets evicted a victim's session. Ids are now issued by the server and bound to the token;
    a client's resets evict only its own episodes."""
    client = TestClient(
        create_openenv_app("palaestra/Expression-v0", tokens=TOKENS, max_sessions_per_client=4)
    )
    victim, attacker = ({"Authorization": f"Bearer {t}"} for t in TOKENS)
    assert client.post("/reset", json={"seed": 5}).status_code == 401
    assert (
        client.post("/reset", json={"seed": 5}, headers={"Authorization": "Bearer wrong"}).status_code == 401
    )
    opened = client.post("/reset", json={"seed": 5, "episode_id": "v"}, headers=victim).json()
    episode = opened["observation"]["metadata"]["episode_id"]
    # the attacker names the victim's episode: as if it did not exist
    hijack = {"action": {"message": answer_for(5)}, "episode_id": episode}
    assert client.post("/step", json=hijack, headers=attacker).status_code == 404
    assert client.get("/state", params={"episode_id": episode}, headers=attacker).status_code == 404
    assert client.post("/reset", json={"seed": 6, "episode_id": episode}, headers=attacker).status_code == 200
    for _ in range(30):  # a reset flood evicts only the attacker's own episodes
        assert client.post("/reset", json={"seed": 1}, headers=attacker).status_code == 200
    state = client.get("/state", params={"episode_id": episode}, headers=victim).json()
    assert state == {"episode_id": episode, "step_count": 0, "done": False, "total_reward": 0.0}
    stepped = client.post("/step", json=hijack, headers=victim).json()
    assert stepped["reward"] == 1.0


def test_a_full_server_refuses_new_episodes_without_evicting_others():
    client = TestClient(create_openenv_app("palaestra/Expression-v0", tokens=TOKENS, max_sessions=2))
    victim, attacker = ({"Authorization": f"Bearer {t}"} for t in TOKENS)
    kept = client.post("/reset", json={"seed": 1}, headers=victim).json()["observation"]["metadata"][
        "episode_id"
    ]
    assert client.post("/reset", json={"seed": 1}, headers=attacker).status_code == 200
    full = client.post("/reset", json={"seed": 1}, headers=attacker)
    assert full.status_code == 503 and full.headers["Retry-After"]
    assert client.get("/state", params={"episode_id": kept}, headers=victim).status_code == 200


def test_the_websocket_needs_the_token_too():
    from starlette.websockets import WebSocketDisconnect

    client = TestClient(create_openenv_app("palaestra/Expression-v0", tokens=TOKENS))
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws") as ws:
        ws.receive_json()
    with client.websocket_connect("/ws", headers={"Authorization": f"Bearer {TOKENS[0]}"}) as ws:
        ws.send_json({"type": "reset", "data": {"seed": 0}})
        assert ws.receive_json()["type"] == "observation"


@pytest.fixture
def live_server():
    with serve_on_loopback(create_openenv_app("palaestra/Expression-v0")) as url:
        yield url


def test_openenv_generic_client_plays_episodes(live_server):
    with GenericEnvClient(base_url=live_server).sync() as env:
        opened = env.reset(seed=11)
        assert opened.done is False and "expression" in opened.observation["text"]
        result = env.step({"message": answer_for(11)})
        assert (result.reward, result.done) == (1.0, True)
        assert env.state()["step_count"] == 1
        env.reset(seed=12)
        wrong = env.step({"message": "<answer>1</answer> Answer: 2"})
        assert (wrong.reward, wrong.done) == (0.0, True)
        with pytest.raises(RuntimeError, match="episode is over"):
            env.step({"message": answer_for(12)})  # no second try on a finished single-turn task
        with pytest.raises(RuntimeError, match="message"):
            env.step({"text": "not the action schema"})


def test_curl_style_bodies_and_an_empty_reset(expression):
    """OpenEnv's HTTP routes read a `curl -d` body (form-labelled JSON) and an empty /reset body."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    opened = ResetResponse.model_validate(
        expression.post("/reset", content='{"seed": 3}', headers=form).json()
    )
    episode = opened.observation["metadata"]["episode_id"]
    step = json.dumps({"action": {"message": answer_for(3)}, "episode_id": episode})
    assert (
        StepResponse.model_validate(expression.post("/step", content=step, headers=form).json()).reward == 1.0
    )
    assert ResetResponse.model_validate(expression.post("/reset").json()).done is False
    assert expression.post("/step", content="{oops", headers=form).status_code == 400
