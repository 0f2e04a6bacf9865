"""The built-in tiny model: a Qwen2-architecture causal LM and a BPE tokenizer, built locally.

Nothing is downloaded. :func:`build_tiny` trains a byte-level BPE tokenizer (digits split one
per token, so arithmetic stays learnable) on generated palaestra task text, builds a randomly
initialised Qwen2 model of about 1M parameters (head_dim 32, tied embeddings), and saves both with
a chat template to a folder that ``transformers`` and ``vllm`` load like any Hugging Face model.

The folder is cached under the user cache dir, keyed by a hash of the recipe (and of the family
versions and library versions that shape the generated text), so a second call is instant. The
build is deterministic: the same recipe gives the same tokenizer and the same initial weights.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from palaestra.core import content_hash

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
EOS_TOKEN = "<|im_end|>"
PAD_TOKEN = "<|endoftext|>"


@dataclass(frozen=True)
class TinyRecipe:
    """Everything that determines the tiny model; its hash names the cache folder."""

    families: tuple[str, ...] = ("expression",)
    corpus_tasks_per_level: int = 200
    vocab_size: int = 1024
    hidden_size: int = 128
    intermediate_size: int = 512
    num_layers: int = 4
    num_heads: int = 4
    num_kv_heads: int = 2
    max_position_embeddings: int = 512
    # each family's constant instruction lines become single tokens (see phrase_lines)
    phrase_tokens: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if self.hidden_size % self.num_heads or self.hidden_size // self.num_heads < 32:
            raise ValueError("tiny recipe: hidden_size / num_heads must be an integer >= 32 (head_dim)")
        if self.num_heads % self.num_kv_heads:
            raise ValueError("tiny recipe: num_heads must be a multiple of num_kv_heads")

    def key(self) -> str:
        """Hash of the recipe plus the versions that change the generated corpus or the files."""
        import tokenizers
        import transformers

        from palaestra.registry import get

        versions = {f: get(f).version for f in self.families}
        payload = {
            "recipe": dataclasses.asdict(self),
            "families": versions,
            "tokenizers": tokenizers.__version__,
            "transformers": transformers.__version__.split(".")[0],
            "format": 4,
        }
        return content_hash(payload, length=16)


def cache_root() -> Path:
    """``$PALAESTRA_CACHE`` or ``$XDG_CACHE_HOME/palaestra`` (default ``~/.cache/palaestra``)."""
    if os.environ.get("PALAESTRA_CACHE"):
        return Path(os.environ["PALAESTRA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "palaestra"


def corpus(recipe: TinyRecipe) -> list[str]:
    """Generated task text (prompts and reference responses) the tokenizer is trained on."""
    import palaestra
    from palaestra.registry import get

    lines: list[str] = []
    for name in recipe.families:
        spec = get(name)
        for level in sorted(spec.levels):
            for seed in range(recipe.corpus_tasks_per_level):
                task = palaestra.make_task(name, seed=seed, level=level)
                lines.append(task.prompt)
                lines.append(spec.impl.reference_response(task))
    return lines


PHRASE_MIN_CHARS = 20  # shorter constant lines stay ordinary text
PHRASE_MIN_SHARE = 0.9  # a line is boilerplate when it occurs in this share of a family's prompts


def phrase_lines(recipe: TinyRecipe) -> list[str]:
    """The constant instruction lines of each family's prompts (in at least ``PHRASE_MIN_SHARE``
    of them, verbatim), which the tokenizer keeps as single tokens.

    Why: an ``expression`` prompt is the expression between ~70 tokens of fixed instructions, so
    the operands sat ~80 tokens before the answer; the 1M-parameter model then needed 250-800 SFT
    steps to start reading them at all, and on most seeds it did not (docs/training.md). As
    phrase tokens the instructions are two tokens, the operands sit a few tokens before the
    answer, and every sequence is about 4x shorter. The model still sees every prompt exactly as
    the catalog writes it: only how the text is cut into tokens changes."""
    import collections

    import palaestra
    from palaestra.registry import get

    phrases: list[str] = []
    for name in recipe.families:
        spec = get(name)
        counts: collections.Counter[str] = collections.Counter()
        prompts = 0
        for level in sorted(spec.levels):
            for seed in range(min(recipe.corpus_tasks_per_level, 50)):
                lines = set(palaestra.make_task(name, seed=seed, level=level).prompt.split("\n"))
                counts.update(line for line in lines if len(line) >= PHRASE_MIN_CHARS)
                prompts += 1
        phrases += sorted(line for line, c in counts.items() if c >= PHRASE_MIN_SHARE * prompts)
    return phrases


# The pre-tokenizer transformers' Qwen2Tokenizer rebuilds on load (AutoTokenizer always picks that
# class for model_type qwen2): training with the same one keeps tokenizer.json and AutoTokenizer in
# agreement. It isolates every digit, so numbers are spelled one digit per token.
QWEN2_PRETOKENIZE_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


def train_tokenizer(recipe: TinyRecipe):
    """A byte-level BPE tokenizer (``tokenizers.Tokenizer``) with Qwen2's pre-tokenization."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(continuing_subword_prefix="", end_of_word_suffix="", fuse_unk=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=recipe.vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(recipe), trainer=trainer)
    if recipe.phrase_tokens:
        from tokenizers import AddedToken

        tok.add_tokens([AddedToken(line, normalized=False) for line in phrase_lines(recipe)])
    return tok


def _build(recipe: TinyRecipe, out: Path) -> None:
    import torch
    from transformers import GenerationConfig, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    raw = train_tokenizer(recipe)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        eos_token=EOS_TOKEN,
        pad_token=PAD_TOKEN,
        bos_token=None,
        unk_token=None,
        model_max_length=recipe.max_position_embeddings,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)

    eos_id = raw.token_to_id(EOS_TOKEN)
    config = Qwen2Config(
        vocab_size=raw.get_vocab_size(),
        hidden_size=recipe.hidden_size,
        intermediate_size=recipe.intermediate_size,
        num_hidden_layers=recipe.num_layers,
        num_attention_heads=recipe.num_heads,
        num_key_value_heads=recipe.num_kv_heads,
        max_position_embeddings=recipe.max_position_embeddings,
        tie_word_embeddings=True,
        bos_token_id=raw.token_to_id(PAD_TOKEN),
        eos_token_id=eos_id,
        pad_token_id=raw.token_to_id(PAD_TOKEN),
        use_sliding_window=False,
    )
    config.dtype = "float32"
    # A private generator, so building the model never disturbs the caller's torch RNG.
    fork = torch.random.fork_rng(devices=[])
    with fork:
        torch.manual_seed(recipe.seed)
        model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=eos_id, pad_token_id=config.pad_token_id)
    model.save_pretrained(out, safe_serialization=True)
    (out / "palaestra_tiny.json").write_text(json.dumps(dataclasses.asdict(recipe), indent=2))


def build_tiny(recipe: TinyRecipe | None = None, cache_dir: str | os.PathLike | None = None) -> Path:
    """Return the folder of the tiny model for ``recipe``, building it on first use.

    The build goes to a temporary folder that is renamed into place, so concurrent builders
    and interrupted builds never leave a half-written model behind.
    """
    recipe = recipe or TinyRecipe()
    root = Path(cache_dir) if cache_dir is not None else cache_root() / "tiny"
    target = root / recipe.key()
    if (target / "palaestra_tiny.json").exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        _build(recipe, tmp)
        try:
            os.replace(tmp, target)
        except OSError:  # another process finished first: keep theirs
            if not (target / "palaestra_tiny.json").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def parameter_count(path: str | os.PathLike) -> int:
    """Number of parameters of the model saved at ``path`` (tied weights counted once)."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(path)
    return sum(p.numel() for p in model.parameters())


def build_random_architecture(
    name: str, out: str | os.PathLike, *, seed: int = 0, layers: int | None = None
) -> Path:
    """A model folder with the exact architecture of ``name`` (one of
    :data:`palaestra.agents.memory.KNOWN_ARCHITECTURES`), randomly initialised, with the tiny
    model's tokenizer and chat template (its ids all lie inside the real vocabulary). Nothing is
    downloaded: for dry runs of real-size training on machines without hub access. ``layers``
    shrinks the depth (tests); the default keeps the real one."""
    import torch
    from transformers import AutoTokenizer, GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    from palaestra.agents.memory import KNOWN_ARCHITECTURES

    if name not in KNOWN_ARCHITECTURES:
        raise ValueError(f"unknown architecture {name!r}; known: {sorted(KNOWN_ARCHITECTURES)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(build_tiny())
    tokenizer.save_pretrained(out)
    fields = {k: v for k, v in KNOWN_ARCHITECTURES[name].items() if k not in ("architectures", "model_type")}
    if layers is not None:
        fields["num_hidden_layers"] = layers
    config = Qwen2Config(
        **fields,
        bos_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        use_sliding_window=False,
    )
    config.dtype = "float32"
    with torch.random.fork_rng(devices=[]):  # never disturbs the caller's torch RNG
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    model.save_pretrained(out, safe_serialization=True)
    return out
