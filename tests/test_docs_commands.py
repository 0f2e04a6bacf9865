"""The shell commands of docs/integrations.md's server sections, run as written: the documented
`palaestra serve` lines start real servers (on a free port instead of the documented one), the
documented curl lines and the OpenEnv example talk to them, and the deployment recipe's token and
TLS flags are checked from outside (curl over HTTPS, with and without the token)."""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import palaestra

pytestmark = pytest.mark.slow
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

DOCS = Path(__file__).resolve().parents[1] / "docs" / "integrations.md"
CLI = str(Path(sys.executable).with_name("palaestra"))


def section(title: str) -> str:
    return DOCS.read_text().split(title, 1)[1]


def blocks(text: str, language: str) -> list[str]:
    return [b.replace("\\\n", " ") for b in re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def served(argv: list[str], url: str, insecure: bool = False) -> Iterator[None]:
    """A `palaestra serve` process, up once `url` answers (any status), stopped by SIGINT."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(600):
            probe = subprocess.run(["curl", "-s", "-o", "/dev/null", *(["-k"] if insecure else []), url])
            if probe.returncode == 0:
                break
            assert process.poll() is None, process.stdout.read()
            time.sleep(0.2)
        else:
            raise AssertionError("the documented server never answered")
        yield
    finally:
        process.send_signal(2)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def documented_serve(line: str, port: int) -> list[str]:
    argv = shlex.split(line)
    assert argv[:2] == ["palaestra", "serve"], line
    argv[argv.index("--port") + 1] = str(port)
    return [CLI, *argv[1:]]


def curl(line: str, port: int, task: dict | None = None, response: str | None = None) -> dict:
    """Run a documented curl line; ``task`` fills its TASK placeholder, ``response`` (optional)
    replaces the documented response in its body."""
    argv = shlex.split(line.replace("localhost:8000", f"localhost:{port}"))
    if task is not None:
        at = argv.index("-d") + 1
        body = json.loads(argv[at].replace("TASK", json.dumps(task)))
        if response is not None:
            body["items"][0]["response"] = response
        argv[at] = json.dumps(body)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_documented_server_and_curl_lines(tmp_path):
    serve, tasks_line, verify_line = blocks(section("## The verification server"), "bash")[0].splitlines()
    port = free_port()
    with served(documented_serve(serve, port), f"http://127.0.0.1:{port}/health"):
        tasks = curl(tasks_line, port)["tasks"]
        assert len(tasks) == 2 and {t["family"] for t in tasks} == {"sudoku"}
        right = palaestra.get("sudoku").impl.reference_response(palaestra.Task.from_dict(tasks[0]))
        assert curl(verify_line, port, tasks[0])["rewards"] == [0.0]  # the line's "<answer>...</answer>"
        assert curl(verify_line, port, tasks[0], response=right)["rewards"] == [1.0]


def test_the_documented_deployment_needs_its_token_over_tls(tmp_path):
    text = blocks(section("### Deploying it for a training cluster"), "bash")[0]
    lines = [line for line in text.splitlines() if line.strip()]
    tokens = tmp_path / "tokens"
    for line in lines[:2]:  # openssl rand ... > FILE; chmod 600 FILE
        subprocess.run(line.replace("/etc/palaestra/tokens", str(tokens)), shell=True, check=True)
    token = tokens.read_text().split()[0]
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    serve = lines[2].replace("/etc/palaestra/tokens", str(tokens))
    serve = serve.replace("cert.pem", str(tmp_path / "cert.pem")).replace(
        "key.pem", str(tmp_path / "key.pem")
    )
    argv = documented_serve(serve, port := free_port())
    argv[argv.index("--workers") + 1] = "2"  # 16 workers do not fit a 2-core test machine
    url = f"https://localhost:{port}/v1/tasks"
    body = ["-d", '{"family": "sudoku", "n": 1, "level": 1}']
    with served(argv, f"https://localhost:{port}/health", insecure=True):
        refused = subprocess.run(
            ["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", url, *body],
            capture_output=True,
            text=True,
        )
        assert refused.stdout == "401"
        auth = ["-H", f"Authorization: Bearer {token}"]
        done = subprocess.run(["curl", "-sk", url, *auth, *body], capture_output=True, text=True, check=True)
        assert len(json.loads(done.stdout)["tasks"]) == 1
        plain = subprocess.run(["curl", "-s", f"http://localhost:{port}/health"], capture_output=True)
        assert plain.returncode != 0 or b"400" in plain.stdout  # no clear-text HTTP on the TLS port


def test_the_openenv_example_runs_against_the_documented_server(tmp_path):
    text = section("## OpenEnv")
    serve = re.search(r"`(palaestra serve --openenv palaestra/Sudoku-v0)`", text).group(1)
    code = re.search(r"```py\n(.*?)```", text, re.DOTALL).group(1)
    port = free_port()
    script = tmp_path / "example.py"
    script.write_text(code.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
    with served([CLI, *shlex.split(serve)[1:], "--port", str(port)], f"http://127.0.0.1:{port}/health"):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    reward, finished = done.stdout.split()
    assert float(reward) == 0.0 and finished == "True"  # "<answer>...</answer>" is not a solution
