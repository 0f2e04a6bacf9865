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


def _nobody_command(tmp: str) -> list[str]:
    """unshare a mount namespace, make the interpreter reachable for nobody, drop to 65534."""
    prefix = os.path.realpath(sys.prefix)
    hidden = _private_ancestor(prefix)
    steps = ["set -e"]
    if hidden:  # e.g. pyenv under /root (0700): show only the prefix, as the fork server does
        hold = os.path.join(tmp, "hold")
        steps += [
            f"mkdir -p {hold}",
            f"mount --bind {prefix} {hold}",
            f"mount -t tmpfs -o mode=0755,size=64k tmpfs {hidden}",
            f"mkdir -p {prefix}",
            f"mount --bind {hold} {prefix}",
        ]
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
        *SUBSET,
    ]


def test_subset_as_uid_65534(tmp_path):
    if os.geteuid() != 0:
        attacks.skip_counted(
            "uid 65534 subset: needs root to switch to uid 65534 (this run is already unprivileged)"
        )
    for tool in ("unshare", "setpriv"):
        if shutil.which(tool) is None:
            attacks.skip_counted(f"uid 65534 subset: `{tool}` (util-linux) is not installed")
    os.chmod(tmp_path, 0o755)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        attacks.SECRET_ENV: os.environ[attacks.SECRET_ENV],
    }
    proc = subprocess.run(
        _nobody_command(str(tmp_path)), capture_output=True, text=True, env=env, timeout=170, cwd="/"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["uid"] == out["euid"] == NOBODY
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
