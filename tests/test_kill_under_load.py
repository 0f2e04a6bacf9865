"""Workers killed under load must cost no correct answer its reward.

Review: 3 SIGKILLs of sandbox fork servers made 3 correct programs (of 1,187) score 0: a program
whose fork server died was reported ``killed`` and graded wrong. Now a response whose worker
(verify process or sandbox fork server) died under it is graded once more; only a second death
would be reported, and as ``verifier_error``, never as a wrong answer.
"""

from __future__ import annotations


def test_sigkilled_workers_cost_no_correct_answer(benchmark_script):
    """The benchmark's code (benchmarks/kill_under_load.py) on at least 200 requests; the full run
    (3,000 requests) is in benchmarks/results/kill_under_load.json."""
    result = benchmark_script("kill_under_load").run(requests=200)
    print(result)
    killed = result["killed"]
    assert killed["fork servers"] >= 2 and killed["verify workers"] >= 1, f"too few kills landed: {killed}"
    assert result["requests"] >= 200 and set(result["statuses"]) == {"correct"}, result
