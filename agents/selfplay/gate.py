"""The validation gate: every proposal passes parse -> static allow-lists -> sandboxed run ->
cross-worker determinism -> dedup, and every rejection is counted by reason."""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

from .languages import Language, Rejection, SelfPlayTask

log = logging.getLogger(__name__)

REASONS = (
    "syntax",
    "invalid",
    "too_long",
    "forbidden_import",
    "forbidden_name",
    "forbidden_syntax",
    "no_entry_point",
    "bad_input",
    "timeout",
    "memory",
    "runtime_error",
    "output_not_literal",
    "nondeterministic",
    "unknown_family",
    "held_out",
    "duplicate",
    "build_error",
    "prompt_too_long",
)


@dataclass(frozen=True)
class GateResult:
    """A validated task, or the reason it was refused."""

    task: SelfPlayTask | None
    reason: str  # "ok" or one of REASONS
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.task is not None


class Gate:
    """Validate proposals for one language; ``counts`` holds accepted and rejected by reason."""

    def __init__(
        self,
        language: Language,
        sandbox: Any = None,
        *,
        check_determinism: bool = True,
        determinism_pair: tuple[Any, Any] | None = None,
    ) -> None:
        """``determinism_pair``: two long-lived sandboxes started with different ``hash_seed``
        (``Sandbox(workers=1, hash_seed=1)``, ``hash_seed=2``) for a warm check, ~30x cheaper than
        ``Sandbox.check_determinism``'s two fresh fork servers per program. Every program still
        runs in a freshly forked child, so nothing carries over between programs; only the
        servers are reused. Without it the fresh check runs."""
        if language.needs_sandbox and sandbox is None:
            raise ValueError(f"the {language.name} language runs programs: pass a palaestra.sandbox.Sandbox")
        self.language = language
        self.sandbox = sandbox
        self.check_determinism = check_determinism and language.needs_determinism
        self.determinism_pair = determinism_pair
        self.counts: Counter[str] = Counter()
        # set by the trainer: whether a task's prompt leaves room for the solver's answer
        self.prompt_fits: Callable[[str], bool] | None = None
        self._lock = threading.Lock()  # check() runs on several verification threads at once

    def check(self, task_type: str, text: str, seen: Container[str] = (), salt: int = 0) -> GateResult:
        """Validate one proposal; ``seen`` holds the canonical hashes already in the buffer/batch."""
        result = self._check(task_type, text, seen, salt)
        with self._lock:
            self.counts[result.reason] += 1
        if not result.ok:
            log.debug("proposal rejected (%s): %s", result.reason, result.detail)
        return result

    def _check(self, task_type: str, text: str, seen: Container[str], salt: int) -> GateResult:
        if not isinstance(text, str):
            return GateResult(None, "syntax", "proposal is not text")
        try:
            task = self.language.build(task_type, text, self.sandbox, salt)
        except Rejection as exc:
            return GateResult(None, exc.reason, exc.detail)
        except Exception as exc:  # a catalog generator or the executor failed: refuse, say why, go on
            log.warning("building a %s proposal failed: %s: %s", task_type, type(exc).__name__, exc)
            return GateResult(None, "build_error", f"{type(exc).__name__}: {exc}")
        if task.canonical in seen:
            return GateResult(None, "duplicate", task.canonical)
        if self.prompt_fits is not None and not self.prompt_fits(task.prompt):
            return GateResult(None, "prompt_too_long", "the solver prompt leaves no room for an answer")
        if self.check_determinism:
            program = self.language.determinism_program(task)
            if program is not None:
                same, why = self._deterministic(program)
                if not same:
                    return GateResult(None, "nondeterministic", why)
        return GateResult(task, "ok")

    def _deterministic(self, program: str) -> tuple[bool, str]:
        timeout = getattr(self.language, "determinism_timeout_s", 6.0)
        if self.determinism_pair is None:
            report = self.sandbox.check_determinism(program, timeout_s=timeout, memory_mb=256)
            return report.deterministic, report.reason
        first, second = (box.run(program, timeout_s=timeout, memory_mb=256) for box in self.determinism_pair)
        if not (first.ok and second.ok):
            return False, f"runs did not both succeed: {first.status}, {second.status}"
        if first.stdout != second.stdout:
            return False, "output differs between hash seeds"
        return True, "identical output"

    def rejection_counts(self) -> dict[str, int]:
        """Rejections by reason (every reason listed, zeros included) plus ``ok``."""
        return {reason: int(self.counts.get(reason, 0)) for reason in ("ok", *REASONS)}
