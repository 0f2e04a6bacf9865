"""NeMo Gym 0.4.0 itself: its SimpleAgent plays whole rollouts against ``palaestra serve``.

NeMo Gym needs Python >= 3.12: ``.ci/real-libs nemo-gym`` builds its venv (cached) and runs this
module there with PALAESTRA_REAL_LIB=nemo-gym, where a missing NeMo Gym is an error. Three servers
run on loopback: palaestra serve (the resource server), a scripted Responses-API model server
(the only stand-in: it replaces the LLM) and NeMo Gym's own SimpleAgent, wired by NeMo Gym's
ServerClient. A rollout is NeMo Gym's ``/run``: ``/seed_session`` and ``/verify`` on palaestra,
then ``/aggregate_metrics`` at the end of the collection, as ``ng_collect_rollouts`` calls them.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import sys
import urllib.request

import pytest

PINNED = "0.4.0"
if os.environ.get("PALAESTRA_REAL_LIB") == "nemo-gym":  # its own venv: missing NeMo Gym is an error
    importlib.import_module("nemo_gym")
else:
    pytest.importorskip(
        "nemo_gym", reason=f"nemo-gym {PINNED} runs in its own venv: bash .ci/real-libs nemo-gym"
    )

from fastapi import FastAPI, Request  # noqa: E402
from nemo_gym.config_types import AggregateMetrics, BaseServerConfig, ModelServerRef, ResourcesServerRef  # noqa: E402
from nemo_gym.reward_profile import compute_aggregate_metrics  # noqa: E402
from nemo_gym.server_utils import ServerClient  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402
from responses_api_agents.simple_agent.app import SimpleAgent, SimpleAgentConfig  # noqa: E402

import palaestra  # noqa: E402
from palaestra.integrations.trl import task_rows  # noqa: E402
from palaestra.server import create_app  # noqa: E402

FAMILIES = ("sudoku", "countdown", "expression")


def scripted_model(answers: dict[str, str]) -> FastAPI:
    """A Responses-API model server that answers each prompt with its scripted text."""
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses(request: Request) -> dict:
        body = await request.json()
        prompt = next(m["content"] for m in body["input"] if m.get("role") == "user")
        text = answers[prompt]
        return {
            "id": "resp_scripted",
            "object": "response",
            "created_at": 0,
            "model": "scripted",
            "status": "completed",
            "output": [
                {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": False,
            "tool_choice": "auto",
            "tools": [],
        }

    return app


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as reply:
        return json.loads(reply.read())


def host_port(url: str) -> dict:
    host, port = url.removeprefix("http://").split(":")
    return {"host": host, "port": int(port)}


def test_the_release_is_the_one_pinned() -> None:
    print("nemo-gym", importlib.metadata.version("nemo-gym"))
    assert importlib.metadata.version("nemo-gym") == PINNED


def test_simple_agent_rollouts_and_metrics_against_palaestra_serve(loopback, monkeypatch) -> None:
    # NeMo Gym's HTTP helper reads its global config from sys.argv (pytest's flags are not its own)
    monkeypatch.setattr(sys, "argv", ["ng_collect_rollouts"])
    rows = [row for family in FAMILIES for row in task_rows([family], 2, level=2)]
    answers, expected = {}, []
    for i, row in enumerate(rows):
        task = palaestra.Task.from_json(row["extra_info"]["task"])
        right = palaestra.get(task.family).impl.reference_response(task)
        answers[task.prompt] = right if i % 2 == 0 else "<answer>surely not</answer>"
        expected.append(1.0 if i % 2 == 0 else 0.0)
    with (
        loopback(create_app(workers=1)) as resources,
        loopback(scripted_model(answers)) as model,
    ):
        global_config = OmegaConf.create(
            {
                "palaestra": {"resources_servers": {"palaestra": host_port(resources)}},
                "policy_model": {"responses_api_models": {"scripted": host_port(model)}},
            }
        )
        client = ServerClient(
            head_server_config=BaseServerConfig(host="127.0.0.1", port=1), global_config_dict=global_config
        )
        config = SimpleAgentConfig(
            host="127.0.0.1",
            port=0,
            entrypoint="app.py",
            name="palaestra_agent",
            resources_server=ResourcesServerRef(type="resources_servers", name="palaestra"),
            model_server=ModelServerRef(type="responses_api_models", name="policy_model"),
        )
        agent = SimpleAgent(config=config, server_client=client)
        with loopback(agent.setup_webserver()) as agent_url:
            # the agent calls its own /v1/responses through the same config, by its name
            global_config["palaestra_agent"] = {
                "responses_api_agents": {"simple_agent": host_port(agent_url)}
            }
            verify_responses = []
            for index, row in enumerate(rows):
                body = {
                    "responses_create_params": {
                        "input": [{"role": "user", "content": row["prompt"][-1]["content"]}]
                    },
                    "extra_info": row["extra_info"],
                }
                reply = post(agent_url + "/run", body)  # seed_session, the model, verify
                verify_responses.append(
                    {"_ng_task_index": index, "_ng_rollout_index": 0, "reward": reply["reward"]}
                )
            assert [r["reward"] for r in verify_responses] == expected
            metrics = AggregateMetrics.model_validate(
                post(agent_url + "/aggregate_metrics", {"verify_responses": verify_responses})
            )
    reference = compute_aggregate_metrics(verify_responses)  # NeMo Gym's own aggregation
    assert metrics.key_metrics["mean/reward"] == pytest.approx(0.5)
    for key in ("mean/reward", "max/reward", "min/reward", "median/reward", "std/reward"):
        assert metrics.agent_metrics[key] == pytest.approx(reference.agent_metrics[key]), key
    assert [g["_ng_task_index"] for g in metrics.group_level_metrics] == list(range(len(rows)))
