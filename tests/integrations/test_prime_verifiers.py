"""prime-intellect verifiers >= 0.4 (its ``verifiers.v1`` stack), the real library, no model, no network.

Scoring runs the library's own ``Task.score`` on hand-built traces. Whole episodes run the way
``vf-eval`` runs them (``vf.load_environment`` -> ``Env.serving`` -> ``Env.run_slot``): an
in-process harness sends each model call through verifiers' interception server and its
``EvalClient`` to a scripted OpenAI-compatible endpoint on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
import time
import types
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web

import palaestra
from palaestra.integrations import prime_verifiers as adapter
from palaestra.verifiers.extract import MAX_RESPONSE_CHARS

if sys.version_info < (3, 11):  # verifiers >= 0.4 requires Python 3.11; the dev extra skips it there
    pytest.skip("prime-intellect verifiers >= 0.4 needs Python >= 3.11", allow_module_level=True)
vf = adapter.import_verifiers()  # the installed library; a missing or old one fails, never skips

from verifiers.v1.dialects.chat import message_to_wire  # noqa: E402 - needs the real package first

ROOT = Path(palaestra.__file__).resolve().parent
INSTALLED = Path(distribution("verifiers").locate_file("verifiers/__init__.py")).resolve()
HARNESS_ID = "palaestra_scripted_harness"
# a long reasoning prefix, just inside the size every verifier reads (longer responses are refused
# by their size before any parsing: MAX_RESPONSE_CHARS, checked below)
FILLER = "x" * (MAX_RESPONSE_CHARS - 1_000)


def record(task: Any) -> palaestra.Task:
    return palaestra.Task.from_json(task.data.info["task"])


def reference(task: Any) -> str:
    return palaestra.get(task.data.family).impl.reference_response(record(task))


def test_the_real_library_not_palaestras_folder() -> None:
    real = sys.modules["verifiers"]
    assert vf.__name__ == "verifiers.v1" and hasattr(vf, "Taskset") and hasattr(vf, "Env")
    assert tuple(int(p) for p in real.__version__.split(".")[:2]) >= (0, 4)
    assert Path(real.__file__).resolve() == INSTALLED != ROOT / "verifiers" / "__init__.py"
    assert (
        Path(importlib.import_module("palaestra.verifiers").__file__).resolve().parent == ROOT / "verifiers"
    )


def test_import_survives_the_shadowing_checkout() -> None:
    # From the repository root (the package root) a bare `import verifiers` finds palaestra's
    # own subpackage; the adapter must still reach the installed library.
    code = (
        "import json, sys, verifiers\n"
        "shadow = verifiers.__file__\n"
        "from palaestra.integrations.prime_verifiers import import_verifiers, load_environment\n"
        "v1 = import_verifiers()\n"
        "env = load_environment(families=['expression'], n=1)\n"
        "import palaestra.verifiers\n"
        "print(json.dumps([shadow, sys.modules['verifiers'].__file__, v1.__name__, len(list(env.taskset)),"
        " palaestra.verifiers.__file__]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    shadow, real, v1, n, ours = json.loads(done.stdout.splitlines()[-1])
    assert Path(shadow).resolve() == ROOT / "verifiers" / "__init__.py"
    assert Path(real).resolve() == INSTALLED and v1 == "verifiers.v1" and n == 1
    assert Path(ours).resolve() == ROOT / "verifiers" / "__init__.py"


def test_taskset_holds_palaestra_tasks() -> None:
    env = adapter.load_environment(families=["sudoku", "expression"], n=3, level=2)
    assert isinstance(env, vf.Env) and isinstance(env.taskset, vf.Taskset) and env.config.max_attempts == 1
    tasks = list(env.taskset)
    assert len(tasks) == 6 and len({t.key for t in tasks}) == 6
    assert [t.data.family for t in tasks] == ["sudoku"] * 3 + ["expression"] * 3
    for idx, task in enumerate(tasks):
        source = record(task)
        rebuilt = palaestra.make_task(source.family, seed=source.seed, level=2)
        assert task.data.prompt == source.prompt == rebuilt.prompt and task.data.idx == idx
        assert task.key == task.data.id == source.id == rebuilt.id
        assert json.loads(task.data.answer) == source.answer and source.difficulty.level == 2
        assert task.data.system_prompt == adapter.SYSTEM_PROMPT
    test = adapter.load_environment(families=["sudoku", "expression"], n=3, level=2, split="test")
    assert not {t.key for t in test.taskset} & {t.key for t in tasks}


def test_an_installed_package_loads_through_verifiers_loader(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "my_palaestra_env"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from palaestra.integrations.prime_verifiers import PalaestraEnv, PalaestraTaskset\n\n"
        '__all__ = ["PalaestraEnv", "PalaestraTaskset"]\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    taskset = {"id": "my_palaestra_env", "families": ["countdown"], "n": 2, "level": 1}
    config = vf.resolve_env_config({"taskset": taskset, "max_attempts": 2})
    env = vf.load_environment(config)
    assert type(env) is adapter.PalaestraEnv and type(config) is adapter.PalaestraEnvConfig
    assert isinstance(env, vf.SingleAgentEnv)  # what vf-gepa and vf-replay require
    assert type(config.taskset) is adapter.PalaestraTasksetConfig and config.max_attempts == 2
    assert [t.data.family for t in env.taskset] == ["countdown", "countdown"]


def scored(task: Any, response: str) -> vf.Trace:
    """``response`` as the sampled reply of a trace, scored by the library's ``Task.score``."""
    nodes = [
        vf.MessageNode(message=vf.UserMessage(content=task.data.prompt)),
        vf.MessageNode(parent=0, message=vf.AssistantMessage(content=response), sampled=True),
    ]
    trace = vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data),
        agent=vf.AgentInfo(config=vf.AgentConfig(model="none")),
        nodes=nodes,
    )
    asyncio.run(task.score(trace))
    return trace


def adversarial(ref: str) -> dict[str, str]:
    """Responses that must score 0 whatever the task (a second, different final answer included)."""
    other = "<answer>12345678987654321</answer>"
    return {
        "wrong": other,
        "two answers": f"{ref}\n{other}",
        "two answers, wrong first": f"{other}\n{ref}",
        "tag then contradicting Answer: line": f"{ref}\nAnswer: 12345678987654321",
        "Answer: line then tag": f"Answer: 12345678987654321\n{ref}",
        "no tag": ref.replace("<answer>", "").replace("</answer>", "") + " maybe",
        "empty": "",
        "whitespace": " \n\t ",
        "huge, no answer": FILLER,
        "huge, wrong answer": FILLER + other,
    }


def test_reward_is_the_verifiers_verdict() -> None:
    env = adapter.load_environment(families=["sudoku", "expression", "countdown"], n=2, level=3)
    for task in env.taskset:
        ref = reference(task)
        for response in (ref, f"Let me think.\n{ref}", FILLER + ref):
            trace = scored(task, response)
            assert trace.rewards == {"palaestra": vf.Reward(score=1.0)} and trace.reward == 1.0
        assert scored(task, "x" * MAX_RESPONSE_CHARS + ref).reward == 0.0  # over the size bound
        for name, response in adversarial(ref).items():
            trace, verdict = scored(task, response), palaestra.verify(record(task), response)
            assert trace.reward == 0.0 == verdict.reward, (task.data.name, name)
            assert trace.info["palaestra"] == {"correct": False, "reason": verdict.reason, "error": None}


# A scripted model behind verifiers' own interception: the harness runs in-process (the Harness
# contract allows it) and posts each turn to the rollout's endpoint as any chat program would.


class ScriptedHarnessConfig(vf.HarnessConfig):
    pass


class ScriptedHarness(vf.Harness[ScriptedHarnessConfig]):
    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages = (
            [{"role": "user", "content": prompt}]
            if isinstance(prompt, str)
            else [message_to_wire(m) for m in prompt]
        )
        if system:
            messages.insert(0, {"role": "system", "content": system})
        async with httpx.AsyncClient(trust_env=False, timeout=60) as http:
            reply = await http.post(
                f"{endpoint}/chat/completions",
                json={"model": ctx.model, "messages": messages},
                headers={"Authorization": f"Bearer {secret}"},
            )
        return vf.ProgramResult(exit_code=int(reply.status_code != 200), stdout=reply.text, stderr="")


@pytest.fixture
def scripted(monkeypatch):
    """Runs episodes of an env against a model that answers with the given replies, in order."""
    module = types.ModuleType(HARNESS_ID)
    module.ScriptedHarness, module.ScriptedHarnessConfig = ScriptedHarness, ScriptedHarnessConfig
    module.__all__ = ["ScriptedHarness", "ScriptedHarnessConfig"]
    monkeypatch.setitem(sys.modules, HARNESS_ID, module)  # v1 resolves harnesses by module name
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")

    def run(env: Any, task: Any, replies: list[str]) -> tuple[Any, list[dict]]:
        return asyncio.run(_episode(env, task, list(replies)))

    return run


async def _episode(env: Any, task: Any, replies: list[str]) -> tuple[Any, list[dict]]:
    requests: list[dict] = []

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        requests.append(body)
        message = {"role": "assistant", "content": replies.pop(0)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        return web.json_response(
            {"id": "c", "object": "chat.completion", "created": int(time.time()), "model": body["model"]}
            | {"choices": [choice], "usage": usage}
        )

    app = web.Application()
    app.router.add_post("/chat/completions", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        client = vf.EvalClientConfig(base_url=url, api_key_var="PALAESTRA_SCRIPTED_KEY")
        ctx = vf.ModelContext(model="scripted", client=client)
        async with env.serving():
            episode = await env.run_slot(env.slots(task)[0], ctx)
    finally:
        await runner.cleanup()
    return episode, requests


AGENT = {"harness": {"id": HARNESS_ID}, "runtime": {"type": "subprocess"}}


def roles(trace: Any) -> list[str]:
    return [m.role for m in trace.messages]


def test_single_turn_episode(scripted) -> None:
    env = adapter.load_environment(families=["expression"], n=1, level=2, agent=AGENT)
    task = next(iter(env.taskset))
    episode, requests = scripted(env, task, [reference(task)])
    trace = episode.traces[0]
    assert episode.ok and trace.reward == 1.0 and roles(trace) == ["system", "user", "assistant"]
    assert trace.stop_condition == "agent_completed"  # a plain run, as SingleAgentEnv plays it
    assert requests[0]["messages"][-1] == {"role": "user", "content": record(task).prompt}
    episode, _ = scripted(env, task, ["<answer>12345678987654321</answer>"])
    assert episode.ok and episode.traces[0].reward == 0.0


def test_feedback_episode(scripted) -> None:
    env = adapter.load_environment(
        families=["expression"], n=1, level=3, multi_turn=True, max_attempts=2, agent=AGENT
    )
    task = next(iter(env.taskset))
    episode, requests = scripted(env, task, [reference(task)])
    trace = episode.traces[0]
    assert episode.ok and trace.reward == 1.0 and trace.metrics["attempts"] == 1 and len(requests) == 1
    assert roles(trace) == ["system", "user", "assistant"]

    wrong = "<answer>12345678987654321</answer>"
    episode, requests = scripted(env, task, [wrong, reference(task)])
    trace = episode.traces[0]
    assert episode.ok and trace.reward == 1.0 and trace.metrics["attempts"] == 2
    assert roles(trace) == ["system", "user", "assistant", "user", "assistant"]
    reason = palaestra.verify(record(task), wrong).reason
    assert trace.messages[3].content == f"Wrong: {reason}. 1 attempt(s) left."
    assert requests[1]["messages"][-1]["content"] == trace.messages[3].content

    replies = [wrong, "<answer>-98765432123456789</answer>", reference(task)]
    episode, requests = scripted(env, task, replies)
    trace = episode.traces[0]
    assert episode.ok and trace.reward == 0.0 and trace.metrics["attempts"] == 2 and len(requests) == 2
    assert roles(trace)[-1] == "assistant" and trace.last_reply == replies[1]


def test_the_documented_vf_eval_command_resolves_the_taskset(tmp_path):
    """docs/integrations.md: the `palaestra_env` package as written, then the documented `vf-eval`
    line as written (MODEL set, `--dry-run`: verifiers resolves and validates the whole config and
    writes it, without a model endpoint), read back."""
    import re
    import shutil

    vf_eval = shutil.which("vf-eval", path=str(Path(sys.executable).parent))
    assert vf_eval, "vf-eval is installed with verifiers"
    docs = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    section = docs.split("## prime-intellect verifiers", 1)[1].split("\n## ", 1)[0]
    package = next(b for b in re.findall(r"```py(?:thon)?\n(.*?)```", section, re.DOTALL) if "__all__" in b)
    (tmp_path / "palaestra_env").mkdir()
    (tmp_path / "palaestra_env" / "__init__.py").write_text(package)
    command = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1).replace("\\\n", " ").strip()
    assert command.startswith("vf-eval ")
    line = command.replace("vf-eval", vf_eval, 1) + " --dry-run true --push false"
    env = {**os.environ, "MODEL": "local/scripted", "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (resolved,) = (tmp_path / "outputs").glob("*/configs/resolved/eval.json")
    config = json.loads(resolved.read_text())["env"]
    taskset = config["taskset"]
    assert (taskset["id"], taskset["families"], taskset["n"], taskset["level"]) == (
        "palaestra-env",
        ["sudoku", "countdown"],
        50,
        3,
    )
    assert config["max_attempts"] == 3 and config["agent"]["harness"]["id"] == "null"
