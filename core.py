"""The shared contract of palaestra: tasks, difficulty knobs, verdicts and seed derivation.

This module imports nothing else from palaestra (docs/architecture.md: arrows point down). Every other
room speaks in these types.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np

MIN_LEVEL = 1
MAX_LEVEL = 10
LEVELS = tuple(range(MIN_LEVEL, MAX_LEVEL + 1))

JSON = Any  # a value made of dict/list/str/int/float/bool/None only


# --------------------------------------------------------------------------------------------
# Canonical JSON and hashing
# --------------------------------------------------------------------------------------------


# one encoder, built once: json.dumps with these options builds a new one per call
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(value: JSON) -> str:
    """JSON text that is identical for equal values in any process (sorted keys, no spaces)."""
    return _CANONICAL.encode(value)


def content_hash(value: JSON, length: int = 16) -> str:
    """A short, stable hex digest of a JSON value."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:length]


# --------------------------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------------------------


def check_seed(seed: object) -> int:
    """Return ``seed`` as an int, or raise ``ValueError`` if it is not a non-negative integer."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return int(seed)


@functools.lru_cache(maxsize=4096)
def _name_to_int(name: str) -> int:
    # SeedSequence takes integers only: a stable 128-bit digest keeps family names apart.
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:16], "little")


def _words(value: int) -> list[int]:
    """``value`` as SeedSequence reads an entropy integer: 32-bit words, least significant first."""
    words = [value & 0xFFFFFFFF]
    while value := value >> 32:
        words.append(value & 0xFFFFFFFF)
    return words


@functools.lru_cache(maxsize=4096)
def _family_words(family: str, version: int) -> tuple[int, ...]:
    return (*_words(_name_to_int(family)), *_words(int(version)))


def seed_sequence(family: str, version: int, seed: int, *stream: int | str) -> np.random.SeedSequence:
    """The ``SeedSequence`` keyed by (family, version, seed[, stream...]).

    SeedSequence hashes its whole entropy tuple, so neighbouring seeds (and neighbouring
    families) give unrelated streams; nothing is shared between seed s and s + 1. The entropy
    is handed over as the 32-bit words SeedSequence would cut the integers
    ``[name digest, version, seed, *stream]`` into (the same state, tested; the family's words
    are cut once), which saves most of its set-up time.
    """
    words = [*_family_words(family, version), *_words(check_seed(seed))]
    for s in stream:
        words += _words(_name_to_int(s) if isinstance(s, str) else int(s))
    return np.random.SeedSequence(np.array(words, dtype=np.uint32))


def make_rng(family: str, version: int, seed: int, *stream: int | str) -> np.random.Generator:
    """A fresh ``numpy.random.Generator`` for one task; never the global RNG.

    Its state is exactly ``PCG64(seed_sequence(family, version, seed, *stream))``'s (tested
    against numpy): the family's share of the SeedSequence hashing is done once per family, and
    only the seed's words are mixed in per task, which saves most of the set-up time."""
    words = _words(check_seed(seed))
    for s in stream:
        words += _words(_name_to_int(s) if isinstance(s, str) else int(s))
    family_pool = _family_pool(family, version)
    if family_pool is None:  # fewer than 4 family words (a 2**-64 chance): numpy's own path
        return np.random.Generator(np.random.PCG64(seed_sequence(family, version, seed, *stream)))
    pool, _ = _absorb(*family_pool, words)
    # PCG64 takes any ISeedSequence at run time; numpy's stubs name SeedSequence only
    preset = cast(np.random.SeedSequence, _PresetState(_pcg64_words(pool)))
    return np.random.Generator(np.random.PCG64(preset))


# numpy's SeedSequence (numpy/random/bit_generator.pyx), written out for a pool of 4 words: the
# constants and the order of operations are numpy's; tests/test_core.py checks the states agree.
_M32 = 0xFFFFFFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _absorb(
    pool: tuple[int, ...], hash_const: int, words: list[int] | tuple[int, ...]
) -> tuple[tuple[int, ...], int]:
    """SeedSequence's mixing of entropy words beyond the pool's first four into the pool."""
    p0, p1, p2, p3 = pool
    h = hash_const
    for w in words:  # hashmix(w) mixed into each pool word in turn (unrolled: this is the hot loop)
        v = w ^ h
        h = h * _MULT_A & _M32
        v = v * h & _M32
        r = (_MIX_L * p0 - _MIX_R * (v ^ v >> 16)) & _M32
        p0 = r ^ r >> 16
        v = w ^ h
        h = h * _MULT_A & _M32
        v = v * h & _M32
        r = (_MIX_L * p1 - _MIX_R * (v ^ v >> 16)) & _M32
        p1 = r ^ r >> 16
        v = w ^ h
        h = h * _MULT_A & _M32
        v = v * h & _M32
        r = (_MIX_L * p2 - _MIX_R * (v ^ v >> 16)) & _M32
        p2 = r ^ r >> 16
        v = w ^ h
        h = h * _MULT_A & _M32
        v = v * h & _M32
        r = (_MIX_L * p3 - _MIX_R * (v ^ v >> 16)) & _M32
        p3 = r ^ r >> 16
    return (p0, p1, p2, p3), h


@functools.lru_cache(maxsize=4096)
def _family_pool(family: str, version: int) -> tuple[tuple[int, ...], int] | None:
    """The SeedSequence pool and hash constant after the family's words (None: under 4 words)."""
    words = _family_words(family, version)
    if len(words) < 4:
        return None
    h, pool = _INIT_A, []
    for w in words[:4]:  # the pool's first fill
        v = w ^ h
        h = h * _MULT_A & _M32
        v = v * h & _M32
        pool.append(v ^ v >> 16)
    for src in range(4):  # every pool word mixed into every other
        for dst in range(4):
            if src != dst:
                v = pool[src] ^ h
                h = h * _MULT_A & _M32
                v = v * h & _M32
                r = (_MIX_L * pool[dst] - _MIX_R * (v ^ v >> 16)) & _M32
                pool[dst] = r ^ r >> 16
    return _absorb(tuple(pool), h, words[4:])


def _output_constants() -> tuple[tuple[int, int], ...]:
    """generate_state's (xor, multiplier) for each of its first 8 output words: fixed numbers."""
    out, h = [], _INIT_B
    for _ in range(8):
        out.append((h, h * _MULT_B & _M32))
        h = h * _MULT_B & _M32
    return tuple(out)


_OUTPUT = _output_constants()


def _pcg64_words(pool: tuple[int, ...]) -> list[int]:
    """``generate_state(4, np.uint64)`` of a SeedSequence with this pool, as Python ints."""
    out = []
    for i, (x, m) in enumerate(_OUTPUT):
        v = (pool[i & 3] ^ x) * m & _M32
        out.append(v ^ v >> 16)
    return [out[0] | out[1] << 32, out[2] | out[3] << 32, out[4] | out[5] << 32, out[6] | out[7] << 32]


class _PresetState(np.random.bit_generator.ISeedSequence):
    """A seed sequence whose one answer is already known: PCG64 asks it for 4 uint64 words."""

    __slots__ = ("words",)

    def __init__(self, words: list[int]) -> None:
        self.words = words

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words != 4 or np.dtype(dtype) != np.uint64:
            raise ValueError("a preset state serves PCG64's 4 uint64 words only")
        return np.array(self.words, dtype=np.uint64)


# --------------------------------------------------------------------------------------------
# Difficulty knobs
# --------------------------------------------------------------------------------------------


def knob(
    default: Any,
    *,
    help: str,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[Any, ...] | None = None,
) -> Any:
    """Declare one typed difficulty knob on a :class:`Knobs` dataclass.

    ``low``/``high`` bound numbers (inclusive); ``choices`` lists the allowed values.
    """
    meta = {"help": help, "low": low, "high": high, "choices": choices}
    return field(default=default, metadata=meta)


class GenerationError(ValueError):
    """No task could be generated for these knob values: a clear refusal that names the knob(s)
    responsible (``make_task`` raises it where a generator's bounded search runs out, never a
    ``RuntimeError``). It is a ``ValueError``: the knob values asked for cannot be served."""


@dataclass(frozen=True)
class KnobSpec:
    """The schema of one knob, as the registry, CLI and docs show it."""

    name: str
    type: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None

    def describe(self) -> str:
        if self.choices is not None:
            allowed = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.low is not None or self.high is not None:
            allowed = f"{self.type} in [{self.low}, {self.high}]"
        else:
            allowed = self.type
        return f"{self.name} ({allowed}, default {self.default!r}): {self.help}"


_KNOB_TYPES = (bool, int, float, str)


@dataclass(frozen=True)
class Knobs:
    """Base class of every family's typed difficulty knobs.

    Subclasses are frozen dataclasses whose fields are declared with :func:`knob`. Values are
    checked on construction, so a bad knob is a ``ValueError`` naming the valid choices.
    Knob values are JSON scalars (bool, int, float, str) so tasks stay JSON-serialisable.
    """

    def __post_init__(self) -> None:
        hints = _type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            expected = hints[f.name]
            value = _coerce(f.name, value, expected)
            object.__setattr__(self, f.name, value)
            low, high, choices = f.metadata.get("low"), f.metadata.get("high"), f.metadata.get("choices")
            if choices is not None and value not in choices:
                raise ValueError(f"knob {f.name}={value!r} is not valid; choose one of {list(choices)}")
            if low is not None and value < low or high is not None and value > high:
                raise ValueError(f"knob {f.name}={value!r} is out of range [{low}, {high}]")
        self.validate()

    def validate(self) -> None:
        """Cross-knob checks; override to raise ``ValueError`` on inconsistent combinations."""

    @classmethod
    def specs(cls) -> list[KnobSpec]:
        hints = _type_hints(cls)
        return [
            KnobSpec(
                name=f.name,
                type=hints[f.name].__name__,
                default=f.default,
                help=f.metadata.get("help", ""),
                low=f.metadata.get("low"),
                high=f.metadata.get("high"),
                choices=f.metadata.get("choices"),
            )
            for f in dataclasses.fields(cls)
        ]

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def build(cls, values: Mapping[str, Any]) -> Knobs:
        """Build from a mapping, rejecting unknown names with the list of valid ones."""
        unknown = sorted(set(values) - set(cls.names()))
        if unknown:
            raise ValueError(f"unknown knob(s) {unknown} for {cls.__name__}; valid knobs: {cls.names()}")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **changes: Any) -> Knobs:
        return dataclasses.replace(self, **changes)


_TYPE_HINTS: dict[type, dict[str, Any]] = {}


def _type_hints(cls: type) -> dict[str, Any]:
    # resolving string annotations is slow; knob classes never change after definition
    if cls not in _TYPE_HINTS:
        _TYPE_HINTS[cls] = typing.get_type_hints(cls)
    return _TYPE_HINTS[cls]


def _coerce(name: str, value: Any, expected: type) -> Any:
    """Accept the knob's own type, ints for floats, and strings from the command line."""
    if expected not in _KNOB_TYPES:
        raise TypeError(f"knob {name} must be annotated bool, int, float or str, not {expected}")
    if isinstance(value, str) and expected is not str:
        return _parse_knob_text(name, value, expected)
    if expected is bool:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
    elif expected is int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return int(value)
    elif expected is float:
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            return float(value)
    elif isinstance(value, str):
        return value
    raise ValueError(f"knob {name} must be {expected.__name__}, got {value!r}")


def _parse_knob_text(name: str, text: str, expected: type) -> Any:
    try:
        if expected is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        return expected(text.strip())
    except ValueError:
        raise ValueError(f"knob {name} must be {expected.__name__}, got {text!r}") from None


def check_level(level: object) -> int:
    """Return ``level`` as an int in 1..10, or raise ``ValueError``."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)):
        raise ValueError(f"level must be an integer in {MIN_LEVEL}..{MAX_LEVEL}, got {level!r}")
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"level must be in {MIN_LEVEL}..{MAX_LEVEL}, got {level}")
    return int(level)


@dataclass(frozen=True)
class Difficulty:
    """A level (1..10, or ``None`` when the user set knobs directly) and the resolved knobs."""

    level: int | None
    knobs: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "knobs": dict(self.knobs)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Difficulty:
        return cls(level=data["level"], knobs=dict(data["knobs"]))


# --------------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """One generated task: a frozen, JSON-serialisable record.

    ``id`` is a content hash of what the solver and verifier see (family, version, prompt,
    answer, metadata), so two seeds that happened to produce the same task share an id.
    A task is rebuilt byte for byte from ``(family, family_version, difficulty, seed)``.
    """

    family: str
    family_version: int
    difficulty: Difficulty
    seed: int
    prompt: str
    answer: JSON
    metadata: Mapping[str, JSON] = field(default_factory=dict)
    id: str = ""

    def __post_init__(self) -> None:
        # Normalise through JSON once so equal tasks compare equal whatever built them
        # (tuples become lists, numpy scalars are rejected loudly).
        answer, answer_text = _normalised(self.answer, "answer")
        metadata, metadata_text = _normalised(dict(self.metadata), "metadata")
        object.__setattr__(self, "answer", answer)
        object.__setattr__(self, "metadata", metadata)
        expected = self._content_hash(answer_text, metadata_text)
        if self.id and self.id != expected:
            raise ValueError(f"task id {self.id!r} does not match its content (expected {expected!r})")
        object.__setattr__(self, "id", expected)

    @property
    def level(self) -> int | None:
        return self.difficulty.level

    @property
    def knobs(self) -> Mapping[str, Any]:
        return self.difficulty.knobs

    def compute_id(self) -> str:
        return self._content_hash(canonical_json(self.answer), canonical_json(self.metadata))

    def _content_hash(self, answer_text: str, metadata_text: str) -> str:
        # content_hash({"family", "version", "prompt", "answer", "metadata"}) written out in
        # canonical_json's key order, so the answer's and metadata's texts are not made twice
        family = self.family
        family_text = _name_json(family) if type(family) is str else canonical_json(family)
        text = (
            f'{{"answer":{answer_text},"family":{family_text},'
            f'"metadata":{metadata_text},"prompt":{canonical_json(self.prompt)},'
            f'"version":{canonical_json(self.family_version)}}}'
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family,
            "family_version": self.family_version,
            "difficulty": self.difficulty.to_dict(),
            "seed": self.seed,
            "prompt": self.prompt,
            "answer": self.answer,
            "metadata": self.metadata,
        }

    def to_json(self) -> str:
        return canonical_json(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        return cls(
            family=data["family"],
            family_version=int(data["family_version"]),
            difficulty=Difficulty.from_dict(data["difficulty"]),
            seed=int(data["seed"]),
            prompt=data["prompt"],
            answer=data["answer"],
            metadata=data.get("metadata", {}),
            id=data.get("id", ""),
        )

    @classmethod
    def from_json(cls, text: str) -> Task:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_trusted_json(cls, text: str) -> Task:
        """The task whose :meth:`to_json` is ``text``, read without normalising or re-hashing.

        Only for text palaestra itself wrote from a Task and carried over a channel it controls
        (its own worker pipes): :meth:`to_json` of a built task is already canonical and its id
        already checked, so reading it back is all that is left. A record from anywhere else (a
        client, a file, a dataset row) goes through :meth:`from_json`, which checks the id.
        """
        data = json.loads(text)
        task = object.__new__(cls)
        difficulty = data["difficulty"]
        values = {
            "family": data["family"],
            "family_version": data["family_version"],
            "difficulty": Difficulty(level=difficulty["level"], knobs=difficulty["knobs"]),
            "seed": data["seed"],
            "prompt": data["prompt"],
            "answer": data["answer"],
            "metadata": data["metadata"],
            "id": data["id"],
        }
        for name, value in values.items():
            object.__setattr__(task, name, value)
        return task


@functools.lru_cache(maxsize=4096)
def _name_json(name: str) -> str:
    # a family name's JSON text: the same few names are hashed into every task id
    return canonical_json(name)


_PLAIN_SCALARS = (str, int, bool, type(None))  # JSON gives them back as they are (exact types)


class _KeysReordered(Exception):
    """A JSON object read back with keys out of canonical order (see ``_normalised``)."""


def _keys_in_order(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    for (key, _), (following, _) in itertools.pairwise(pairs):
        if not key < following:
            raise _KeysReordered
    return dict(pairs)


_CHECKING_DECODER = json.JSONDecoder(object_pairs_hook=_keys_in_order)


def _normalised(value: Any, what: str) -> tuple[Any, str]:
    """``value`` as JSON reads it back, and that value's canonical JSON text.

    The text written for ``value`` is already the canonical text of what is read back unless
    a dict had keys that are not strings (``{2: .., 10: ..}`` sorts as numbers, reads back as
    strings that sort the other way): the read checks each object's key order, and only a
    reordered one pays for a second encoding."""
    try:
        text = canonical_json(value)
        if type(value) in _PLAIN_SCALARS:
            return value, text
        try:
            return _CHECKING_DECODER.decode(text), text
        except _KeysReordered:
            plain = json.loads(text)
            return plain, canonical_json(plain)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"task {what} must be plain JSON data: {exc}") from None


# --------------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------------


VERDICT_STATUSES = ("correct", "wrong", "unparseable", "timeout", "verifier_error")


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one response.

    ``reward`` is 1.0 for a correct answer and 0.0 otherwise unless a family names partial
    credit explicitly. ``format_ok`` says whether an answer could be extracted and parsed;
    ``parsed`` is what was understood; ``reason`` explains the verdict to a human (and to an
    agent in multi-turn feedback); ``error`` is set only when the verifier itself failed
    (crash, timeout) — such a verdict is never correct.

    ``status`` tells a trainer whose failure it was, one of :data:`VERDICT_STATUSES`:

    - ``"correct"``: the answer is right;
    - ``"wrong"``: an answer was read and it is wrong (a model's program that hangs or crashes
      in the sandbox is a wrong answer too: the model's failure, not ours);
    - ``"unparseable"``: no single final answer could be read (the model's format failure);
    - ``"timeout"``: the verifier ran out of its time bound before deciding (our failure);
    - ``"verifier_error"``: the verifier crashed or was misconfigured (our failure).

    It is derived from the other fields unless given; a given status must agree with them.
    """

    reward: float
    correct: bool
    format_ok: bool
    parsed: Any = None
    reason: str = ""
    error: str | None = None
    status: str = ""

    OK_REASON: ClassVar[str] = "correct"

    def __post_init__(self) -> None:
        if self.error is not None and self.correct:
            raise ValueError("a verdict with an error can never be correct")
        if self.correct and not self.format_ok:
            raise ValueError("a correct verdict must have format_ok=True")
        derived = _derived_status(self.correct, self.format_ok, self.error)
        if not self.status:
            object.__setattr__(self, "status", derived)
        elif self.status not in VERDICT_STATUSES:
            raise ValueError(f"status must be one of {VERDICT_STATUSES}, got {self.status!r}")
        elif self.status != derived and not (self.status == "timeout" and derived == "verifier_error"):
            raise ValueError(f"status {self.status!r} contradicts the verdict (expected {derived!r})")

    @property
    def verifier_failed(self) -> bool:
        """True when the verifier, not the response, is why there is no decision."""
        return self.status in ("timeout", "verifier_error")

    @classmethod
    def right(cls, parsed: Any = None, reason: str = "correct") -> Verdict:
        return cls._consistent(1.0, True, True, parsed, reason, "correct")

    @classmethod
    def wrong(cls, reason: str, parsed: Any = None, reward: float = 0.0) -> Verdict:
        return cls._consistent(reward, False, True, parsed, reason, "wrong")

    @classmethod
    def bad_format(cls, reason: str, parsed: Any = None) -> Verdict:
        return cls._consistent(0.0, False, False, parsed, reason, "unparseable")

    @classmethod
    def _consistent(
        cls, reward: float, correct: bool, format_ok: bool, parsed: Any, reason: str, status: str
    ) -> Verdict:
        """A verdict whose fields agree by construction (no error; ``status`` is the derived
        one), built without ``__post_init__``'s checks: every verification makes one, and the
        checks cost as much as some families' whole grading."""
        if cls is not Verdict:  # a subclass may check more in its own __post_init__
            return cls(reward=reward, correct=correct, format_ok=format_ok, parsed=parsed, reason=reason)
        verdict = object.__new__(cls)
        verdict.__dict__.update(
            reward=reward,
            correct=correct,
            format_ok=format_ok,
            parsed=parsed,
            reason=reason,
            error=None,
            status=status,
        )
        return verdict

    @classmethod
    def failure(cls, error: str, reason: str = "the verifier failed") -> Verdict:
        """The verifier crashed or could not run (status ``verifier_error``)."""
        return cls(reward=0.0, correct=False, format_ok=False, parsed=None, reason=reason, error=error)

    @classmethod
    def timed_out(cls, reason: str, error: str = "timeout") -> Verdict:
        """The verifier ran past its time bound before deciding (status ``timeout``)."""
        return cls(
            reward=0.0,
            correct=False,
            format_ok=False,
            parsed=None,
            reason=reason,
            error=error,
            status="timeout",
        )

    def to_dict(self) -> dict[str, Any]:
        parsed = self.parsed
        if type(parsed) not in _PLAIN_JSON:  # those are JSON as they are: nothing to try
            try:
                canonical_json(parsed)
            except (TypeError, ValueError):
                parsed = repr(parsed)
        return {
            "reward": self.reward,
            "correct": self.correct,
            "format_ok": self.format_ok,
            "parsed": parsed,
            "reason": self.reason,
            "error": self.error,
            "status": self.status,
        }


_PLAIN_JSON = frozenset({str, bool, type(None)})  # (a float may be NaN, an int past 4,300 digits)


def _derived_status(correct: bool, format_ok: bool, error: str | None) -> str:
    if correct:
        return "correct"
    if error is not None:
        return "verifier_error"
    return "wrong" if format_ok else "unparseable"
