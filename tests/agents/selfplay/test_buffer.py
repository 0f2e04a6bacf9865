"""Buffers: eviction keeps new and learnable tasks after the cap, sampling, exact resume."""

from __future__ import annotations

from palaestra.agents.selfplay import ArithLanguage, Buffers, TaskBuffer

LANG = ArithLanguage()


def task(n: int):
    return LANG.build("arith", f"<task>{n} + {n}*2</task>")


def test_eviction_keeps_new_tasks_after_the_cap() -> None:
    buffer = TaskBuffer(capacity=4)
    for step in range(20):
        buffer.add(task(step), step, f"{step}:0", pass_rate=0.5)
        assert len(buffer) == min(step + 1, 4)
        assert buffer.entries[-1].task == task(step)  # the newest always gets in: no freezing
    assert {e.step for e in buffer.entries} == {16, 17, 18, 19}  # equal learnability: oldest go first
    assert buffer.evicted == 16


def test_eviction_prefers_learnable_tasks() -> None:
    buffer = TaskBuffer(capacity=3)
    buffer.add(task(1), 0, "0:0", pass_rate=1.0)  # trivial
    buffer.add(task(2), 0, "0:1", pass_rate=0.5)  # learnable
    buffer.add(task(3), 0, "0:2", pass_rate=0.0)  # impossible
    buffer.add(task(4), 1, "1:0", pass_rate=0.25)
    buffer.add(task(5), 1, "1:1", pass_rate=0.25)
    kept = {e.proposer_sample for e in buffer.entries}
    assert kept == {"0:1", "1:0", "1:1"}


def test_provenance_and_pass_rate_history() -> None:
    buffer = TaskBuffer(capacity=4)
    entry = buffer.add(task(1), 7, "7:3", pass_rate=0.25)
    buffer.record(entry.task.canonical, 0.5)
    assert (entry.step, entry.proposer_sample, entry.pass_rates) == (7, "7:3", [0.25, 0.5])


def test_reference_sampling() -> None:
    buffer = TaskBuffer(capacity=10, seed=3)
    assert buffer.sample(3) == []
    for n in range(6):
        buffer.add(task(n), n, f"{n}:0", pass_rate=0.5)
    refs = buffer.sample(3)
    assert len(refs) == 3 and len({r.canonical for r in refs}) == 3
    assert len(buffer.sample(50)) == 6


def test_resume_restores_buffers_exactly(tmp_path) -> None:
    buffers = Buffers(["arith"], capacity=5, seed=1)
    for n in range(9):
        buffers["arith"].add(task(n), n, f"{n}:0", pass_rate=n / 9)
    buffers["arith"].sample(2)  # advance the sampler so its state matters
    buffers.save(tmp_path / "buffers.json")
    restored = Buffers.load(tmp_path / "buffers.json")
    assert restored.state_dict() == buffers.state_dict()
    # the restored run continues exactly as the original: same samples, same evictions
    assert restored["arith"].sample(3) == buffers["arith"].sample(3)
    for b in (buffers, restored):
        b["arith"].add(task(100), 10, "10:0", pass_rate=0.5)
    assert restored.state_dict() == buffers.state_dict()
