"""Inspect AI and lm-evaluation-harness evaluate a mixed export with palaestra's verifier as the grader.

A scripted model answers every other task right (the reference answer in the family's format) and
the rest wrong, so both harnesses must report accuracy 0.5 over the export's test split of five
families. Each harness runs its own evaluation loop (Inspect's ``eval``, lm-eval's
``simple_evaluate`` with the task folder ``palaestra export --format lm-eval`` wrote); the
scripted model stands in only for the LLM.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest

import palaestra
from palaestra.cli import main

# inspect-ai pins python-dateutil < 3 (through botocore) against this stack's 4.0: both harnesses
# run in their own venv (bash .ci/real-libs inspect-ai), where a missing one is an error
if os.environ.get("PALAESTRA_REAL_LIB") == "inspect-ai":
    importlib.import_module("inspect_ai")
    importlib.import_module("lm_eval")
else:
    pytest.importorskip(
        "inspect_ai", reason="inspect-ai and lm-eval run in their own venv: bash .ci/real-libs inspect-ai"
    )
    pytest.importorskip(
        "lm_eval", reason="inspect-ai and lm-eval run in their own venv: bash .ci/real-libs inspect-ai"
    )

FAMILIES = ("expression", "sudoku", "countdown", "shortest_path", "knights_knaves")


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("datasets")
    work = tmp_path_factory.mktemp("harness")
    config = {
        "name": "harness-mix",
        "seed": 11,
        "version": 1,
        "splits": ["test"],
        "mixture": [{"family": f, "level": 2, "counts": {"test": 2}} for f in FAMILIES],
    }
    (work / "mix.json").write_text(json.dumps(config))
    out = work / "data"
    assert (
        main(
            [
                "export",
                "--config",
                str(work / "mix.json"),
                "--out",
                str(out),
                "--quiet",
                "--format",
                "lm-eval",
            ]
        )
        == 0
    )
    return out


def scripted_answers(prompts: list[str]) -> dict[str, str]:
    """Prompt -> response: the i-th task (in prompt order) right when i is even, else wrong."""
    answers = {}
    for i, prompt in enumerate(sorted(prompts)):
        task = next(t for t in TASKS if t.prompt == prompt)
        right = palaestra.get(task.family).impl.reference_response(task)
        answers[prompt] = right if i % 2 == 0 else "<answer>surely not this</answer>"
    return answers


TASKS: list[palaestra.Task] = []


def _tasks_of(export_dir: Path) -> list[palaestra.Task]:
    lines = (export_dir / "lm_eval" / "test.jsonl").read_text().splitlines()
    return [palaestra.Task.from_json(json.loads(line)["task"]) for line in lines]


def test_lm_eval_folder_is_written(export_dir: Path) -> None:
    folder = export_dir / "lm_eval"
    assert (folder / "utils.py").is_file() and (folder / "palaestra_harness_mix.yaml").is_file()
    tasks = _tasks_of(export_dir)
    assert len(tasks) == 10 and {t.family for t in tasks} == set(FAMILIES)


def test_inspect_reports_half_right(export_dir: Path, tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelAPI, ModelOutput, get_model, modelapi

    from palaestra.integrations.inspect import palaestra_task

    TASKS[:] = _tasks_of(export_dir)
    answers = scripted_answers([t.prompt for t in TASKS])

    @modelapi(name="palaestra_scripted")
    def scripted() -> type[ModelAPI]:
        class Scripted(ModelAPI):
            async def generate(self, input, tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # noqa: A002
                prompt = next(m.text for m in input if isinstance(m, ChatMessageUser))
                return ModelOutput.from_content(model=self.model_name, content=answers[prompt])

        return Scripted

    log = inspect_eval(
        palaestra_task(export_dir),
        model=get_model("palaestra_scripted/half-right"),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success", log.error
    assert log.results.total_samples == 10
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(0.5)


def test_lm_eval_reports_half_right(export_dir: Path) -> None:
    from lm_eval import simple_evaluate
    from lm_eval.api.model import LM
    from lm_eval.tasks import TaskManager

    TASKS[:] = _tasks_of(export_dir)
    answers = scripted_answers([t.prompt for t in TASKS])

    class Scripted(LM):
        def generate_until(self, requests):  # the context is the prompt (zero-shot, no description)
            return [next(a for p, a in answers.items() if p in request.args[0]) for request in requests]

        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

    results = simple_evaluate(
        model=Scripted(),
        tasks=["palaestra_harness_mix"],
        task_manager=TaskManager(include_path=str(export_dir / "lm_eval")),
    )
    assert results["results"]["palaestra_harness_mix"]["acc,none"] == pytest.approx(0.5)


def _docs_section() -> str:
    docs = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
    return docs.read_text().split("## Evaluation harnesses", 1)[1].split("\n## ", 1)[0]


def _no_network(text: str, model: str) -> str:
    """A documented line with its API model swapped for a local one (no network here)."""
    return text.replace("openai/gpt-4o-mini", model)


def test_the_documented_inspect_example_and_command_run(tmp_path: Path, export_dir: Path) -> None:
    """docs/integrations.md's Inspect snippet (Python) and its `inspect eval` line, as written but
    with Inspect's mock model instead of an API model."""
    import re
    import subprocess
    import sys

    section = _docs_section()
    snippet = re.search(r"```py\n(.*?)```", section, re.DOTALL).group(1)
    script = tmp_path / "example.py"
    script.write_text(_no_network(snippet, "mockllm/model").replace('"data/"', repr(str(export_dir))))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    command = next(b for b in re.findall(r"```bash\n(.*?)```", section, re.DOTALL) if "inspect eval" in b)
    line = _no_network(command.replace("\\\n", " ").strip(), "mockllm/model").replace("n=50", "n=4")
    line = line.replace("python -c", f"{sys.executable} -c").replace(
        "inspect eval", f"{sys.executable} -m inspect_ai eval", 1
    )
    done = subprocess.run(
        ["bash", "-c", f"{line} --log-dir {tmp_path / 'logs'}"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert list((tmp_path / "logs").glob("*.eval")), done.stdout[-2000:]


def test_the_documented_lm_eval_command_runs(export_dir: Path) -> None:
    """docs/integrations.md's `lm_eval` line on the exported task folder, with lm-eval's dummy
    model instead of a Hugging Face one (it answers at random: the run, not the score, is checked)."""
    import re
    import subprocess
    import sys

    command = next(b for b in re.findall(r"```bash\n(.*?)```", _docs_section(), re.DOTALL) if "lm_eval" in b)
    line = command.strip().replace("data/lm_eval", str(export_dir / "lm_eval"))
    line = line.replace("palaestra_<name>", "palaestra_harness_mix").replace(
        "--model hf --model_args pretrained=...", "--model dummy"
    )
    assert "--model dummy" in line
    line = line.replace("lm_eval", f"{sys.executable} -m lm_eval", 1)
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "palaestra_harness_mix" in done.stdout
