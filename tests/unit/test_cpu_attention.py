"""Grouped-query SDPA on the CPU (models.grouped_query_sdpa_on_cpu): a masked pass over several tokens reads the
key/value groups as they are (no repeat_kv copies) and gives the same logits as transformers' default."""
import torch
from transformers import DynamicCache
from transformers.integrations import sdpa_attention

from decoding_core.models import grouped_query_sdpa_on_cpu
from tests.conftest import make_tiny_lm


def verify_pass(lm, feed):
    cache = DynamicCache()
    with torch.no_grad():
        lm.model(input_ids=torch.tensor([[1, 5, 9, 11, 7, 3]]), cache=cache, use_cache=True)
        return lm.model(input_ids=torch.tensor([feed]), cache=cache, use_cache=True, logits_to_keep=len(feed)).logits


def test_grouped_query_sdpa_on_cpu_is_exact_and_copies_nothing(monkeypatch):
    lm = make_tiny_lm(seed=3)  # 4 query heads, 2 key/value heads
    assert lm.model.config._attn_implementation == "sdpa"
    assert grouped_query_sdpa_on_cpu() is True
    first = sdpa_attention.use_gqa_in_sdpa
    assert getattr(first, "decoding_lab", False)
    assert grouped_query_sdpa_on_cpu() is True and sdpa_attention.use_gqa_in_sdpa is first  # idempotent
    for feed in ([4], [4, 8, 12], [4, 8, 12, 16, 20]):
        grouped = verify_pass(lm, feed)
        with monkeypatch.context() as m:  # transformers' own choice: repeat_kv under a mask
            m.setattr(sdpa_attention, "use_gqa_in_sdpa", first.__defaults__[0])
            default = verify_pass(lm, feed)
        assert torch.allclose(grouped, default, atol=1e-6), float((grouped - default).abs().max())

    calls = []
    real = sdpa_attention.repeat_kv
    monkeypatch.setattr(sdpa_attention, "repeat_kv", lambda *a, **k: calls.append(1) or real(*a, **k))
    with monkeypatch.context() as m:
        m.setattr(sdpa_attention, "use_gqa_in_sdpa", first.__defaults__[0])
        verify_pass(lm, [4, 8, 12])
    assert len(calls) == 2 * lm.model.config.num_hidden_layers  # transformers' default: K and V copied per layer
    calls.clear()
    verify_pass(lm, [4, 8, 12])
    assert calls == []  # grouped: not a single copy


def test_other_devices_keep_transformers_choice():
    grouped_query_sdpa_on_cpu()
    key = torch.zeros(1, 2, 5, 8, device="meta")
    assert sdpa_attention.use_gqa_in_sdpa(torch.ones(1, 1, 3, 5, dtype=torch.bool, device="meta"), key, key) is False
    assert sdpa_attention.use_gqa_in_sdpa(None, key, key) is True
    cpu = torch.zeros(1, 2, 5, 8)
    assert sdpa_attention.use_gqa_in_sdpa(torch.ones(1, 1, 3, 5, dtype=torch.bool), cpu, cpu) is True

