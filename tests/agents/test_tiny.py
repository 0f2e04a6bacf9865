"""The built-in tiny model: no download, Qwen2 architecture, deterministic, cached by recipe."""

from __future__ import annotations

import json

import pytest

from palaestra.agents.tiny import TinyRecipe


def test_tiny_model_shape_and_chat_template(tiny_path, tokenizer):
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(tiny_path)
    assert config.model_type == "qwen2"
    assert config.hidden_size // config.num_attention_heads >= 32
    from palaestra.agents.tiny import parameter_count

    assert 1_000_000 <= parameter_count(tiny_path) <= 5_000_000
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "1 + 2"}], add_generation_prompt=True, tokenize=False
    )
    assert text.endswith("<|im_start|>assistant\n")
    # digits are single tokens, so numbers are spelled digit by digit
    assert tokenizer.tokenize("12345") == ["1", "2", "3", "4", "5"]
    assert tokenizer.eos_token == "<|im_end|>"


def test_build_is_deterministic(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from safetensors.torch import load_file

    from palaestra.agents.tiny import build_tiny

    recipe = TinyRecipe(
        corpus_tasks_per_level=20,
        vocab_size=300,
        hidden_size=64,
        num_heads=2,
        num_kv_heads=1,
        intermediate_size=128,
        num_layers=1,
    )
    a = build_tiny(recipe, cache_dir=tmp_path / "a")
    b = build_tiny(recipe, cache_dir=tmp_path / "b")
    assert a.name == b.name == recipe.key()
    assert json.loads((a / "tokenizer.json").read_text()) == json.loads((b / "tokenizer.json").read_text())
    wa, wb = load_file(str(a / "model.safetensors")), load_file(str(b / "model.safetensors"))
    assert wa.keys() == wb.keys() and all((wa[k] == wb[k]).all() for k in wa)
    assert build_tiny(recipe, cache_dir=tmp_path / "a") == a  # cached: same folder, no rebuild
    other = TinyRecipe(
        corpus_tasks_per_level=20,
        vocab_size=300,
        hidden_size=64,
        num_heads=2,
        num_kv_heads=1,
        intermediate_size=128,
        num_layers=1,
        seed=1,
    )
    assert other.key() != recipe.key()


def test_recipe_rejects_small_heads():
    with pytest.raises(ValueError, match="head_dim"):
        TinyRecipe(hidden_size=64, num_heads=4)


def test_autotokenizer_agrees_with_tokenizer_json(tiny_path, tokenizer):
    """transformers rebuilds Qwen2's pre-tokenizer on load: the trained one must be the same."""
    from tokenizers import Tokenizer

    import palaestra

    raw = Tokenizer.from_file(str(tiny_path / "tokenizer.json"))
    for seed in range(4):
        text = palaestra.make_task("expression", seed=seed, level=2 + 2 * seed).prompt
        assert tokenizer(text)["input_ids"] == raw.encode(text).ids


def test_constant_instruction_lines_are_single_tokens(tiny_path, tokenizer):
    """Phrase tokens: an expression prompt's fixed instructions are one token each, so the operands
    sit a few tokens before the answer, and every prompt still decodes to exactly its text."""
    import palaestra
    from palaestra.agents.tiny import TinyRecipe, phrase_lines

    phrases = phrase_lines(TinyRecipe())
    assert len(phrases) == 2 and phrases[0] == "Compute the exact value of this expression:"
    for level in (1, 4, 8):
        prompt = palaestra.make_task("expression", seed=level, level=level).prompt
        ids = tokenizer(prompt)["input_ids"]
        pieces = [tokenizer.decode([i]) for i in ids]
        assert phrases[0] in pieces and phrases[1] in pieces
        assert tokenizer.decode(ids) == prompt
    short = palaestra.make_task("expression", seed=0, level=1).prompt
    assert len(tokenizer(short)["input_ids"]) <= 12
