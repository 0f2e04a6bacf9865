"""`palaestra eval --model`: sampling from a local checkpoint (the tiny model) end to end."""

from __future__ import annotations

import palaestra
from palaestra.agents.suite_eval import sample_responses


def test_sample_responses_from_the_tiny_model(tiny_path) -> None:
    """Fails (token ids that are key names) if the chat is not tokenized properly."""
    tasks = [palaestra.make_task("expression", seed=s, level=1) for s in range(2)]
    responses = sample_responses(tasks, str(tiny_path), n=2, max_tokens=8, temperature=1.0, seed=0)
    assert set(responses) == {t.id for t in tasks}
    assert all(len(r) == 2 and all(isinstance(x, str) for x in r) for r in responses.values())
