"""The Gymnasium ids of palaestra's own envs (besides one per family, see the registry).

``import palaestra`` registers them all with string entry points, so no env or game module is
imported until ``gymnasium.make`` asks for one. The game names are listed here rather than read
from :data:`palaestra.envs.games.GAMES` (which imports every game); a test keeps the two equal.
"""

from __future__ import annotations

FEEDBACK_ENV_ID = "palaestra/Feedback-v0"
TOOL_ENV_ID = "palaestra/Tool-v0"
DEBUGGING_ENV_ID = "palaestra/InteractiveDebugging-v0"
GAME_NAMES = ("connect_four", "kuhn_poker", "negotiation", "nim", "tic_tac_toe")


def register_generic_envs() -> None:
    """Register the family-generic envs: ``gymnasium.make("palaestra/Feedback-v0", family="sudoku")``
    (retry with the verifier's feedback) and ``palaestra/Tool-v0`` (tools before answering)."""
    for env_id, entry_point in (
        (FEEDBACK_ENV_ID, "palaestra.envs.feedback:FeedbackEnv"),
        (TOOL_ENV_ID, "palaestra.envs.tool_env:ToolEnv"),
    ):
        # family defaults to expression; pass family= to make() for any other
        _register(env_id, entry_point, {"family": "expression"})


def register_games() -> None:
    """``palaestra/<Game>-v0``: each game against its level's scripted opponent."""
    from palaestra.registry import env_id_for

    for name in GAME_NAMES:
        _register(env_id_for(name), "palaestra.envs.games:make_versus", {"game": name})


def register_debugging() -> None:
    """``palaestra/InteractiveDebugging-v0`` (see :mod:`palaestra.envs.debugging`)."""
    _register(DEBUGGING_ENV_ID, "palaestra.envs.debugging:make_debugging_env", None)


def register_all() -> None:
    """Every id above (what ``import palaestra`` calls, after the families' ids)."""
    register_games()
    register_generic_envs()
    register_debugging()


def _register(env_id: str, entry_point: str, kwargs: dict[str, str] | None) -> None:
    import gymnasium

    if env_id not in gymnasium.registry:
        gymnasium.register(id=env_id, entry_point=entry_point, kwargs=kwargs)
