"""Shared fixtures: a tiny seeded Llama built in the test, and the embedded model (loaded once)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from decoding_core.models import LoadedModel, load_model  # noqa: E402


class TinyTokenizer:
    """Token i reads as "t{i} "; enough for decoders that print tokens."""

    eos_token_id = 2
    pad_token_id = 0
    chat_template = None

    def decode(self, ids, skip_special_tokens=False):
        return "".join(f"t{int(i)} " for i in ids)

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [int(w[1:]) for w in text.split()]}


def make_tiny_lm(vocab: int = 50, layers: int = 2, seed: int = 0, eos: int = 2, hidden: int = 32) -> LoadedModel:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                      eos_token_id=eos, pad_token_id=0, bos_token_id=1, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():  # spread the logits so argmax ties never happen and sampling is not uniform
        model.lm_head.weight.mul_(40.0)
    model.eval().requires_grad_(False)
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = 0
    return LoadedModel(TinyTokenizer(), model, "tiny-llama", torch.device("cpu"), torch.float32, 0.0)


@pytest.fixture(scope="session")
def tiny_lm() -> LoadedModel:
    return make_tiny_lm()


@pytest.fixture(scope="session")
def embedded() -> LoadedModel:
    return load_model()


PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about autumn leaves.",
    "Explain photosynthesis in one sentence.",
]


class BigramTableModel(torch.nn.Module):
    """A 'model' whose next-token log-probs depend only on the last token: a hand-written table.
    Lets tests work out beam frontiers by hand. Ignores the KV cache it is given."""

    def __init__(self, table: torch.Tensor, eos: int):
        super().__init__()
        from types import SimpleNamespace

        from transformers import GenerationConfig

        self.table = table  # [V, V] log-probs, row = previous token
        self.config = SimpleNamespace(max_position_embeddings=512, num_hidden_layers=1, num_key_value_heads=1,
                                      num_attention_heads=1, head_dim=1, hidden_size=1)
        self.generation_config = GenerationConfig(eos_token_id=eos)
        self.calls = []

    def get_output_embeddings(self):
        return torch.nn.Linear(1, self.table.shape[0], bias=False)

    def forward(self, input_ids, logits_to_keep=0, **kwargs):
        from types import SimpleNamespace

        self.calls.append(input_ids.shape[0])
        logits = self.table[input_ids]
        return SimpleNamespace(logits=logits[:, -logits_to_keep:] if logits_to_keep else logits)


def make_table_lm(rows: dict[int, dict[int, float]], vocab: int, eos: int) -> LoadedModel:
    """rows[prev][next] = probability; unspecified entries get a negligible probability."""
    table = torch.full((vocab, vocab), 1e-12)
    for prev, nxt in rows.items():
        for tok, p in nxt.items():
            table[prev, tok] = p
    table = torch.log(table / table.sum(-1, keepdim=True))
    return LoadedModel(TinyTokenizer(), BigramTableModel(table, eos), "bigram-table", torch.device("cpu"),
                       torch.float32, 0.0)
