"""Shared fixtures: the tiny model (built once per session) and one in-process vLLM engine.

The CI settings from DESIGN.md are set before vLLM is imported: in-process engine, one thread,
no hub access.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_path():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from palaestra.agents.tiny import build_tiny

    return build_tiny()


@pytest.fixture(scope="session")
def tokenizer(tiny_path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_path)


@pytest.fixture(scope="session")
def vllm_engine(tiny_path):
    """One vLLM engine for the whole session (loading costs seconds to a minute on a busy CPU);
    tests that change its weights sync the ones they need first."""
    pytest.importorskip("vllm")
    from palaestra.agents.backends import VLLMBackend

    engine = VLLMBackend(tiny_path, seed=0, max_model_len=512, kv_cache_bytes=128 * 2**20)
    yield engine
    engine.close()
