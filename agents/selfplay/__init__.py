"""Self-play: one model proposes tasks at the edge of its ability and learns to solve them.

See docs/selfplay.md. Languages (``arith``, ``python``, ``family``), the validation gate, rewards,
buffers, diversity metrics and the pipelined step live here; none of it needs torch.
"""

from .buffer import Buffers, Entry, TaskBuffer
from .gate import REASONS, Gate, GateResult
from .languages import (
    ArithLanguage,
    FamilyLanguage,
    Language,
    PythonLanguage,
    Rejection,
    SelfPlayTask,
    make_language,
)
from .loop import Policy, Sample, SelfPlay, SelfPlayConfig, StepResult
from .pipeline import pipelined
from .rewards import (
    MIN_PROBES,
    REWARD_ALWAYS_SOLVED,
    REWARD_INVALID,
    REWARD_NEVER_SOLVED,
    Baselines,
    learnability,
    pass_rate,
    proposer_reward,
)

__all__ = [
    "ArithLanguage",
    "Baselines",
    "Buffers",
    "Entry",
    "FamilyLanguage",
    "Gate",
    "GateResult",
    "Language",
    "MIN_PROBES",
    "Policy",
    "PythonLanguage",
    "REASONS",
    "REWARD_ALWAYS_SOLVED",
    "REWARD_INVALID",
    "REWARD_NEVER_SOLVED",
    "Rejection",
    "Sample",
    "SelfPlay",
    "SelfPlayConfig",
    "SelfPlayTask",
    "StepResult",
    "TaskBuffer",
    "learnability",
    "make_language",
    "pass_rate",
    "pipelined",
    "proposer_reward",
]
