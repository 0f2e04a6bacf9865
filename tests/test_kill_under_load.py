"""Workers killed under load must cost no correct answer its reward.

Review: 3 SIGKILLs of sandbox fork servers made 3 correct programs (of 1,187) score 0: a program
whose fork server died was reported ``killed`` and graded wrong. Now a response whose worker
(verify process or sandbox fork server) died under it is graded once more; only a second death
would be reported, and as ``verifier_error``, never as a wrong answer.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import palaestra
from palaestra import batch
from palaestra.generators.code import shared_sandbox


def _batch() -> tuple[list[palaestra.Task], list[str]]:
    tasks, responses = [], []
    for family, level, seeds in (("function_induction", 1, 40), ("expression", 3, 40), ("sudoku", 2, 20)):
        impl = palaestra.get(family).impl
        for seed in range(seeds):
            task = palaestra.make_task(family, seed=seed, level=level)
            tasks.append(task)
            responses.append(impl.reference_response(task))
    return tasks * 2, responses * 2


def _fork_server_pids() -> list[int]:
    return shared_sandbox.fork_server_pids()


def _verify_worker_pids(workers: int) -> list[int]:
    return batch.worker_pids(workers)


def _grade_while_killing(tasks, responses, killed: dict[str, int]) -> list[palaestra.Verdict]:
    """One verify_many batch in a thread, SIGKILLing a fork server 0.05 s in and every 0.4 s after
    (and a verify worker every third time) while it runs: a warm machine grades a batch in well
    under a second."""
    result: list[list[palaestra.Verdict]] = []
    grader = threading.Thread(
        target=lambda: result.append(palaestra.verify_many(tasks, responses, workers=2))
    )
    grader.start()
    for tick in range(240):  # a kill 0.05 s in, then every 0.4 s while the batch runs
        time.sleep(0.05)
        if not grader.is_alive():
            break
        if tick % 8:
            continue
        round_ = tick // 8
        for what, pids in (("fork servers", _fork_server_pids()), ("verify workers", _verify_worker_pids(2))):
            if pids and (what == "fork servers" or round_ % 3 == 0):
                try:
                    os.kill(pids[round_ % len(pids)], signal.SIGKILL)
                    killed[what] += 1
                except ProcessLookupError:
                    pass
    grader.join(timeout=600)
    assert result, "the batch did not finish"
    return result[0]


def test_sigkilled_workers_cost_no_correct_answer():
    tasks, responses = _batch()
    expected = [palaestra.verify(t, r).status for t, r in zip(tasks, responses, strict=True)]
    assert set(expected) == {"correct"}
    killed = {"fork servers": 0, "verify workers": 0}
    shared_sandbox.sandbox()  # started before the batch, so there are fork servers to kill
    verdicts: list[palaestra.Verdict] = []
    # a warm machine may grade a batch before the first kill: batches go on until two kills landed
    for _ in range(10):
        verdicts += _grade_while_killing(tasks, responses, killed)
        if killed["fork servers"] >= 2:
            break
    statuses = [v.status for v in verdicts]
    print(f"killed {killed}; {len(statuses)} verdicts: { {s: statuses.count(s) for s in set(statuses)} }")
    assert killed["fork servers"] >= 2, "no batch outlasted the kills: this test proved nothing"
    wrongly_zero = [i for i, s in enumerate(statuses) if s != "correct"]
    assert not wrongly_zero, [
        (tasks[i % len(tasks)].family, verdicts[i].reason, verdicts[i].error) for i in wrongly_zero[:5]
    ]
