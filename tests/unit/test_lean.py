"""The lean draft forward (decoding_core/lean.py): the same hidden states as transformers' forward, a cache
that crops and grows, speculative decoding through it, and the models it leaves to transformers."""
import pytest
import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

from decoding_core.decoders import greedy_decoder
from decoding_core.draft import draft_config, grow_draft, init_draft_from_target, source_layers, trainable_state, with_lean
from decoding_core.lean import LeanCache, LeanLlama
from decoding_core.speculative import SpeculativeDecoder, new_draft_cache
from tests.conftest import make_tiny_lm


def hf_hidden(model, ids, cache):
    return model.model(input_ids=torch.tensor([ids]), cache=cache, use_cache=True).last_hidden_state[0]


@pytest.mark.parametrize("kv_heads", [2, 4])
def test_lean_equals_transformers_through_feeds_crops_and_growth(kv_heads):
    torch.manual_seed(1)
    cfg = LlamaConfig(vocab_size=60, hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4,
                      num_key_value_heads=kv_heads, max_position_embeddings=256, rope_theta=1000.0)
    model = LlamaForCausalLM(cfg).eval().requires_grad_(False)
    lean = LeanLlama(model)
    ref, cache = DynamicCache(), lean.new_cache(4)  # capacity 4: the prompt already makes it grow
    with torch.no_grad():
        for feed in ([1, 7, 9, 11, 3, 5], [8], [2, 4, 6], [10]):
            a, b = hf_hidden(model, feed, ref), lean.hidden(torch.tensor(feed), cache)
            assert b.shape == (len(feed), 32)
            assert torch.allclose(a, b, atol=1e-5), float((a - b).abs().max())
            assert cache.get_seq_length() == ref.get_seq_length()
        ref.crop(-3)
        cache.crop(-3)
        a, b = hf_hidden(model, [12, 13], ref), lean.hidden(torch.tensor([[12, 13]]), cache)
        assert torch.allclose(a, b, atol=1e-5)
        for layer, (k, v) in enumerate(zip(cache.k, cache.v)):
            n = cache.length
            assert torch.allclose(k[:, :n], ref.layers[layer].keys[0], atol=1e-5)
            assert torch.allclose(v[:, :n], ref.layers[layer].values[0], atol=1e-5)


def test_cache_crop_and_reserve():
    c = LeanCache(2, 1, 4, 3, torch.float32, torch.device("cpu"))
    c.length = 3
    c.k[:, :, :3] = 1.0
    c.reserve(5)
    assert c.k.shape[2] == 6 and float(c.k[:, :, :3].min()) == 1.0 and c.length == 3
    c.crop(-1)
    assert c.get_seq_length() == 2
    c.crop(10)  # keeping more than it holds changes nothing
    assert c.length == 2
    c.crop(-5)
    assert c.length == 0


def test_models_the_lean_forward_does_not_cover():
    base = dict(vocab_size=40, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
    assert "biases" in LeanLlama.unsupported(LlamaForCausalLM(LlamaConfig(**base, attention_bias=True)))
    assert "activation" in LeanLlama.unsupported(LlamaForCausalLM(LlamaConfig(**base, hidden_act="gelu")))
    assert "Llama" in LeanLlama.unsupported(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="does not cover"):
        LeanLlama(LlamaForCausalLM(LlamaConfig(**base, mlp_bias=True)))
    assert LeanLlama.unsupported(LlamaForCausalLM(LlamaConfig(**base))) is None


def test_with_lean_and_its_switch(monkeypatch):
    draft = make_tiny_lm(seed=5, layers=1)
    assert draft.lean is None and isinstance(new_draft_cache(draft, 8), DynamicCache)
    lean = with_lean(draft)
    assert isinstance(lean.lean, LeanLlama) and isinstance(new_draft_cache(lean, 8), LeanCache)
    monkeypatch.setenv("DECODING_LAB_LEAN", "off")
    assert with_lean(draft).lean is None


@pytest.mark.parametrize("rule", ["greedy", "sample"])
def test_speculative_through_the_lean_draft(rule):
    """Greedy output equals the target's greedy output; with sampling the lean draft proposes exactly what
    transformers' forward of the same draft proposes (same seed, same tokens, same q)."""
    target, draft = make_tiny_lm(seed=0), make_tiny_lm(seed=5, layers=2)
    lean = with_lean(draft)
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23]):
        kw = dict(max_new_tokens=20, stop_at_eos=False, seed=3)
        a = SpeculativeDecoder(target, lean, 3, rule, **kw).start(prompt)
        b = SpeculativeDecoder(target, draft, 3, rule, **kw).start(prompt)
        assert a.run().tokens == b.run().tokens
        assert [[d.token_id for d in s.drafts] for s in a.history] == [[d.token_id for d in s.drafts] for s in b.history]
        # q(y) is the draft's own probability under every rule (greedy too): equal up to float rounding
        assert [d.q for s in a.history for d in s.drafts] == pytest.approx([d.q for s in b.history for d in s.drafts],
                                                                           abs=1e-4)
        assert any(d.status == "rejected" for s in a.history for d in s.drafts)  # the crops were exercised
        if rule == "greedy":
            assert a.tokens == greedy_decoder(target, 20, stop_at_eos=False).start(prompt).run().tokens


def test_source_layers_and_growth_keep_the_function():
    assert source_layers(30, 2) == [0, 15] and source_layers(30, 4) == [0, 8, 15, 22] and source_layers(30, 1) == [0]
    target = make_tiny_lm(seed=2, layers=6).model
    small = init_draft_from_target(target, draft_config(target.config, 2, 40))
    with torch.no_grad():
        for p in small.model.layers.parameters():
            p.add_(0.02 * torch.randn_like(p))
    big = init_draft_from_target(target, draft_config(target.config, 4, 40))
    assert grow_draft(big, trainable_state(small)) == [0, 2]
    x = torch.tensor([[1, 7, 3, 9, 4]])
    with torch.no_grad():
        assert torch.allclose(small(x).logits, big(x).logits, atol=1e-5)
    assert float(big.model.layers[1].mlp.down_proj.weight.detach().abs().max()) == 0.0
    with pytest.raises(ValueError, match="cannot grow"):
        grow_draft(small, trainable_state(big))
