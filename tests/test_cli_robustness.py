"""Regressions from trying the command as a new user would: pipes, core-only installs, bad YAML,
Ctrl-C, Hub failures, and reference answers that `check` must accept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from palaestra.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [["list", "--json"], ["sample", "expression", "--seed", "1"]])
def test_a_closed_pipe_ends_quietly(argv: list[str]) -> None:
    """`palaestra list --json | head` printed a BrokenPipeError traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "palaestra.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the command writes anything
    proc.stdout = None  # (so that communicate reads stderr alone)
    err = proc.communicate(timeout=120)[1].decode()
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert proc.returncode == 141


MISSING = [
    ("yaml", ["export", "--config", "{dir}/mix.yaml", "--out", "{dir}/out"], "datasets"),
    ("pyarrow", ["verify-dataset", "{dir}"], "datasets"),
    ("matplotlib", ["calibrate", "expression", "--seeds", "1", "--out", "{dir}/cal"], "datasets"),
    ("matplotlib", ["eval", "--suite", "{dir}", "--responses", "{dir}/r.jsonl"], "datasets"),
]


@pytest.mark.parametrize("module,argv,extra", MISSING, ids=[f"{m[1][0]}-{m[0]}" for m in MISSING])
def test_a_missing_extra_is_one_line_naming_it(
    module: str, argv: list[str], extra: str, tmp_path: Path
) -> None:
    """On a core-only install, export/verify-dataset/calibrate crashed with import tracebacks."""
    (tmp_path / "mix.yaml").write_text("mixture:\n  - {family: expression, level: 1, counts: {train: 2}}\n")
    (tmp_path / "palaestra_export.json").write_text(json.dumps({"families": {}, "shards": {}, "counts": {}}))
    argv = [a.format(dir=tmp_path) for a in argv]
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"  # what an uninstalled module looks like
        "from palaestra.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    err = done.stderr.strip()
    assert done.returncode == 2, (done.stdout, err)
    assert "Traceback" not in err and err.count("\n") == 0, err
    assert f"palaestra[{extra}]" in err and module in err


def test_malformed_yaml_is_one_line_with_its_position(tmp_path: Path, capsys) -> None:
    """A malformed mixture YAML printed a 68-line traceback."""
    path = tmp_path / "mix.yaml"
    path.write_text("mixture:\n  - family: expression\n    counts: {train: 2\n")
    code, _, err = run(["export", "--config", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "not valid YAML" in err and "line" in err


@pytest.mark.parametrize("family", ["knights_knaves", "sudoku", "expression", "graph_coloring"])
def test_shown_reference_answer_is_accepted_by_check(family: str, capsys) -> None:
    """knights_knaves --show-answer printed a Python dict repr that `check` refused."""
    code, out, _ = run(["sample", family, "--seed", "5", "--level", "3", "--show-answer"], capsys)
    assert code == 0
    shown = out.split("--- reference answer ---\n", 1)[1].rstrip("\n")
    assert "{'" not in shown
    code, out, _ = run(["check", family, "--seed", "5", "--level", "3", "--answer", shown], capsys)
    assert code == 0 and out.startswith("correct"), out


def test_push_to_hub_failure_is_one_line_and_keeps_the_export(tmp_path: Path, monkeypatch, capsys) -> None:
    """A failed upload (network, auth) printed a traceback."""
    pytest.importorskip("datasets")
    huggingface_hub = pytest.importorskip("huggingface_hub")

    class Unauthorized:
        def __init__(self, **kwargs):
            pass

        def create_repo(self, *args, **kwargs):
            raise OSError(
                "401 Client Error: Unauthorized for url\nInvalid credentials in Authorization header"
            )

    monkeypatch.setattr(huggingface_hub, "HfApi", Unauthorized)
    path = tmp_path / "mix.json"
    path.write_text(
        json.dumps(
            {
                "calibration_samples": 0,
                "mixture": [{"family": "expression", "level": 1, "counts": {"train": 2}}],
            }
        )
    )
    argv = ["export", "--config", str(path), "--out", str(tmp_path / "o"), "--quiet", "--push-to-hub", "me/x"]
    code, out, err = run(argv, capsys)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert "push to me/x failed" in err and "Unauthorized" in err
    assert (tmp_path / "o" / "palaestra_export.json").is_file()


@pytest.mark.slow
def test_ctrl_c_during_export_is_quick_and_quiet(tmp_path: Path) -> None:
    """Ctrl-C during `export --num-proc 2` printed worker tracebacks and took 12-16 s."""
    pytest.importorskip("datasets")
    path = tmp_path / "mix.json"
    path.write_text(
        json.dumps(
            {
                "calibration_samples": 0,
                "chunk_size": 50,
                "mixture": [{"family": "sudoku", "level": 5, "counts": {"train": 4000}}],
            }
        )
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "palaestra.cli",
            "export",
            "--config",
            str(path),
            "--out",
            str(tmp_path / "o"),
            "--num-proc",
            "2",
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        # a terminal's job takes Ctrl-C; a test run started in the background inherits SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    chunks = tmp_path / ".o.palaestra-partial" / "chunks"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (chunks.is_dir() and any(chunks.iterdir())):
        time.sleep(0.2)
    if proc.poll() is not None:
        out, err = proc.communicate()
        pytest.fail(
            f"the export ended (code {proc.returncode}) before it could be interrupted: {err.decode()[-2000:]}"
        )
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: SIGINT to the whole foreground group
    _, err = proc.communicate(timeout=60)  # a hang fails here; how fast it stops is not asserted
    assert proc.returncode == 130 and "Traceback" not in err.decode(), err.decode()[-2000:]


def test_export_workers_leave_ctrl_c_to_the_parent() -> None:
    """Ctrl-C reaches every process of the group; export workers that took it printed tracebacks.
    The end-to-end test above sees such a traceback only when a worker is mid-job; this checks
    every worker's SIGINT disposition directly."""
    pytest.importorskip("pyarrow")
    from palaestra.export import LocalEngine

    with LocalEngine(num_proc=2) as engine:
        handlers = list(engine.imap(signal.getsignal, [signal.SIGINT] * 8))
    assert handlers == [signal.SIG_IGN] * 8


def test_calibrate_never_writes_into_an_installed_package(tmp_path, monkeypatch) -> None:
    """`palaestra calibrate` wrote docs/calibration/ inside site-packages on an installed copy:
    it writes into the working directory by default, wherever the package lives."""
    from palaestra import calibration

    monkeypatch.chdir(tmp_path)
    # measuring is stubbed: only the folder matters here
    written = []
    monkeypatch.setattr(calibration, "calibrate", lambda name, seeds: {"family": name})
    monkeypatch.setattr(calibration, "write", lambda result, out: written.append(Path(out)) or Path(out))
    assert main(["calibrate", "expression", "--seeds", "1"]) == 0
    assert [folder.resolve() for folder in written] == [tmp_path / "calibration"]
    package = Path(calibration.__file__).resolve().parent
    assert not (package / "calibration").exists()


def test_license_file_matches_pyproject() -> None:
    """pyproject said Apache-2.0 but there was no LICENSE file."""
    root = Path(__file__).resolve().parents[1]
    text = (root / "LICENSE").read_text()
    assert (
        "Apache License" in text
        and "Version 2.0, January 2004" in text
        and "END OF TERMS AND CONDITIONS" in text
    )
    assert 'license = "Apache-2.0"' in (root / "pyproject.toml").read_text()


def test_export_worker_death_is_one_clear_error() -> None:
    """A pool worker that dies loses its job: multiprocessing.Pool would wait for it forever."""
    pytest.importorskip("pyarrow")
    from palaestra.export import WORKER_DIED, LocalEngine

    with LocalEngine(num_proc=2) as engine, pytest.raises(ValueError) as raised:
        list(engine.imap(os._exit, [3]))  # the worker exits mid-job
    assert str(raised.value) == WORKER_DIED
