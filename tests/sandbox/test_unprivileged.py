"""Re-run a subset of the attacks with the supervisor itself unprivileged (uid 65534).

As nobody the sandbox cannot switch uids; it must confine programs with a user namespace
instead. The subset runs in a separate process started through ``unshare`` + ``setpriv``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

attacks = sys.modules["palaestra_sandbox_tests_attacks"]  # loaded by path in conftest.py
HERE = os.path.dirname(os.path.abspath(__file__))
NOBODY = 65534

SUBSET = [
    "infinite_loop",
    "fork_bomb_os_fork",
    "fork_raw_syscall",
    "clone3_raw_syscall",
    "subprocess_run",
    "memory_one_huge_allocation",
    "disk_fill_many_files",
    "write_outside_cwd",
    "symlink_out_of_scratch_write",
    "read_etc_shadow",
    "read_ssh_keys",
    "read_parent_proc_environ",
    "environ_secrets",
    "inherited_fds",
    "tcp_connect_localhost",
    "udp_send_localhost",
    "abstract_unix_socket",
    "kill_supervisor",
    "kill_everything",
    "ptrace_attach_supervisor",
    "raise_rlimits_back",
    "huge_stdout",
]


def _private_ancestor(path: str) -> str | None:
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        if not os.stat(current).st_mode & 0o001:
            return current
    return None


def _nobody_command(tmp: str, args: list[str] = SUBSET) -> list[str]:
    """unshare a mount namespace, make the interpreter reachable for nobody, drop to 65534."""
    # A virtualenv's base interpreter may live under a private directory too (pyenv in /root):
    # hold every prefix, cover each private ancestor once, then bind every prefix back.
    prefixes = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
    plan = [(p, _private_ancestor(p)) for p in prefixes]
    plan = [(p, h) for p, h in plan if h]
    steps = ["set -e"]
    for i, (prefix, _) in enumerate(plan):
        hold = os.path.join(tmp, f"hold{i}")
        steps += [f"mkdir -p {hold}", f"mount --bind {prefix} {hold}"]
    for hidden in sorted({h for _, h in plan}):
        steps.append(f"mount -t tmpfs -o mode=0755,size=64k tmpfs {hidden}")
    for i, (prefix, _) in enumerate(plan):
        hold = os.path.join(tmp, f"hold{i}")
        steps += [f"mkdir -p {prefix}", f"mount --bind {hold} {prefix}"]
    steps.append('exec setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all "$@"')
    script = "; ".join(steps)
    runner = os.path.join(HERE, "_run_as_nobody.py")
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "sh",
        sys.executable,
        runner,
        *args,
    ]


def _require_root_and_tools(what: str) -> None:
    if os.geteuid() != 0:
        attacks.skip_counted(f"{what}: needs root to switch to uid 65534 (this run is already unprivileged)")
    for tool in ("unshare", "setpriv"):
        if shutil.which(tool) is None:
            attacks.skip_counted(f"{what}: `{tool}` (util-linux) is not installed")


def _run_as_nobody(tmp_path, args: list[str]) -> dict:
    os.chmod(tmp_path, 0o755)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        attacks.SECRET_ENV: os.environ[attacks.SECRET_ENV],
    }
    if "PYTHONPATH" in os.environ:  # the checkout under test, not whatever the venv installed
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    proc = subprocess.run(
        _nobody_command(str(tmp_path), args), capture_output=True, text=True, env=env, timeout=170, cwd="/"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["uid"] == out["euid"] == NOBODY
    return out


def test_side_doors_as_uid_65534(tmp_path):
    # User-namespace mode: the program is uid 0 of its namespace and owns its scratch, which
    # is how a file written to ../PERSIST reached the next two runs.
    _require_root_and_tools("uid 65534 side doors")
    out = _run_as_nobody(tmp_path, ["--side-doors"])
    print(f"as uid 65534: protection level {out['level']}, privdrop {out['privdrop_mode']}")
    if out["level"] < 2:
        attacks.skip_counted(f"uid 65534 side doors: level {out['level']} < 2 as nobody")
    assert out["privdrop_mode"] == "userns" or out["level"] < 3, out
    results = out["results"]
    assert set(results) == {"sysv_ipc", "unix_sockets", "memfd", "files_across_runs"}
    for name, res in results.items():
        print(name, res["found"])
    failures = {name: res for name, res in results.items() if res["violations"]}
    assert not failures, failures


def test_subset_as_uid_65534(tmp_path):
    _require_root_and_tools("uid 65534 subset")
    out = _run_as_nobody(tmp_path, SUBSET)
    print(f"as uid 65534: protection level {out['level']}, missing {out['missing']}")
    if out["level"] < 1:
        attacks.skip_counted(f"uid 65534 subset: no sandbox level available to nobody: {out['missing']}")
    results = out["results"]
    assert set(results) == set(SUBSET)
    failures = {k: v for k, v in results.items() if v.startswith("fail")}
    assert not failures, failures
    for name, verdict in results.items():
        if verdict.startswith("skip"):
            attacks.SKIPS.append(f"uid 65534 {name}: {verdict[6:]}")
            print(f"SKIP (as nobody) {name}: {verdict}")
    assert any(v == "pass" for v in results.values())


@pytest.mark.parametrize("name", SUBSET)
def test_subset_names_exist(name):
    assert name in {a.name for a in attacks.ATTACKS}
