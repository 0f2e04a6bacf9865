"""NeMo Gym: `palaestra serve` answers a resource server's routes, in the main environment.

NeMo Gym's own SimpleAgent drives whole rollouts against palaestra serve in
tests/integrations/test_nemo_gym_library.py (its own Python 3.12 venv: bash .ci/real-libs nemo-gym).
Here the request has NeMo Gym's verify shape (the dataset row's
fields, `responses_create_params`, and `response` as an OpenAI Responses-API object whose
`output` holds a message with `output_text` parts); the reply must echo it with `reward` added.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import palaestra  # noqa: E402
from palaestra.integrations.nemo_gym import response_text  # noqa: E402
from palaestra.integrations.trl import task_rows  # noqa: E402
from palaestra.server import create_app  # noqa: E402


def responses_api(text: str) -> dict:
    return {
        "id": "resp_1",
        "object": "response",
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            },
        ],
    }


def test_verify_route_pays_the_reference_and_echoes_the_request():
    row = task_rows(["sudoku"], 1, level=2)[0]
    task = palaestra.Task.from_json(row["extra_info"]["task"])
    right = palaestra.get("sudoku").impl.reference_response(task)
    body = {"responses_create_params": {"input": row["prompt"]}, "extra_info": row["extra_info"]}
    with TestClient(create_app(workers=1)) as client:
        reply = client.post("/verify", json={**body, "response": responses_api(right)}).json()
        assert reply["reward"] == 1.0 and reply["extra_info"] == row["extra_info"]
        assert (
            client.post("/verify", json={**body, "response": responses_api("<answer>1</answer>")}).json()[
                "reward"
            ]
            == 0.0
        )
        assert client.post("/verify", json={"response": responses_api(right)}).status_code == 400
    assert response_text(responses_api("a")) == "a"


def test_seed_session_and_aggregate_metrics_refuse_bad_bodies_with_400():
    with TestClient(create_app(workers=1)) as client:
        assert client.post("/seed_session", json={}).json() == {}
        ok = client.post(
            "/aggregate_metrics", json={"verify_responses": [{"_ng_task_index": 0, "reward": 1.0}]}
        )
        assert ok.status_code == 200 and ok.json()["key_metrics"] == {"mean/reward": 1.0}
        for body in (
            {},
            {"verify_responses": "x"},
            {"verify_responses": [{"reward": "nan"}]},
            {"verify_responses": [{"reward": float("inf")}]},
            {"verify_responses": [{"reward": 1.0, "_ng_task_index": "a"}]},
        ):
            reply = client.post("/aggregate_metrics", content=__import__("json").dumps(body, allow_nan=True))
            assert reply.status_code == 400, (body, reply.status_code)
