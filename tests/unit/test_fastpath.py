"""The target forward backends: a static KV cache gives the same tokens as the dynamic one, torch.compile
gives the same tokens again, and a compile that fails falls back to the eager static path and says so."""
import json

import pytest
import torch

from decoding_core import fastpath
from decoding_core.beam import BeamSearchDecoder, BeamSettings
from decoding_core.decoders import AutoregressiveDecoder
from decoding_core.fastpath import TargetPass, cache_length, crop_to
from decoding_core.processors import SamplingSettings
from decoding_core.speculative import SpeculativeDecoder
from tests.conftest import make_tiny_lm

PROMPT = [5, 9, 11, 7, 5, 9]


def run(lm, backend, sampler=None, settings=None, n=30, seed=0):
    return AutoregressiveDecoder(lm, settings, sampler, n, seed, stop_at_eos=False, backend=backend).start(PROMPT).run()


def test_static_cache_greedy_and_sampling_equal_dynamic(tiny_lm):
    assert run(tiny_lm, "static").tokens == run(tiny_lm, "eager").tokens
    s = SamplingSettings(temperature=0.9, top_p=0.9)
    for seed in (0, 1, 2):
        a = run(tiny_lm, "static", "multinomial", s, seed=seed)
        b = run(tiny_lm, "eager", "multinomial", s, seed=seed)
        assert a.tokens == b.tokens
        assert a.metrics["backend"] == "static" and b.metrics["backend"] == "eager"


def test_static_logits_match_dynamic_within_float_tolerance(tiny_lm):
    eager, static = TargetPass(tiny_lm, "eager"), TargetPass(tiny_lm, "static")
    c1, c2 = eager.new_cache(64), static.new_cache(64)
    x = torch.tensor([PROMPT])
    torch.testing.assert_close(eager(x, c1, prefill=True), static(x, c2, prefill=True), rtol=1e-5, atol=1e-5)
    for tok in (3, 17, 4):
        y = torch.tensor([[tok]])
        torch.testing.assert_close(eager(y, c1, 1), static(y, c2, 1), rtol=1e-5, atol=1e-5)
    assert cache_length(c1) == cache_length(c2) == len(PROMPT) + 3


def test_static_cache_crop_rewinds_the_write_position(tiny_lm):
    tp = TargetPass(tiny_lm, "static")
    cache = tp.new_cache(32)
    tp(torch.tensor([PROMPT]), cache, prefill=True)
    first = tp(torch.tensor([[8, 9, 10]]), cache, 3)
    crop_to(cache, len(PROMPT))
    assert cache_length(cache) == len(PROMPT)
    again = tp(torch.tensor([[8, 9, 10]]), cache, 3)  # overwrites the stale positions: same logits
    torch.testing.assert_close(first, again)


@pytest.mark.parametrize("rule", ["greedy", "sample", "topk"])
def test_speculative_verify_on_static_cache_equals_dynamic(rule):
    target, draft = make_tiny_lm(seed=0), make_tiny_lm(seed=1)
    s = SamplingSettings(temperature=1.0)
    for d in (draft, None):
        outs = [SpeculativeDecoder(target, d, 3, rule, verify_k=2, settings=s, max_new_tokens=25, seed=4,
                                   stop_at_eos=False, backend=b).start(PROMPT).run() for b in ("eager", "static")]
        assert outs[0].tokens == outs[1].tokens
        assert outs[0].metrics["accepted"] == outs[1].metrics["accepted"]


def test_static_cache_too_small_is_a_clear_error(tiny_lm):
    tp = TargetPass(tiny_lm, "static")
    cache = tp.new_cache(8)  # rounded up to one bucket
    with pytest.raises(ValueError, match="static cache holds"):
        tp(torch.zeros(1, fastpath.BUCKET + 1, dtype=torch.long), cache, prefill=True)


def test_unknown_or_unsupported_backend_is_refused(tiny_lm):
    with pytest.raises(ValueError, match="backend"):
        AutoregressiveDecoder(tiny_lm, backend="turbo")
    with pytest.raises(ValueError, match="eager"):
        BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=2), 5, backend="compiled")


def test_compile_failure_falls_back_to_eager_static_and_says_why(monkeypatch):
    lm = make_tiny_lm(seed=3)

    def broken(model, device):
        def fn(**kwargs):
            raise RuntimeError("no C++ compiler found\nmore detail")
        return fn

    monkeypatch.setattr(fastpath, "_compiled_forward", broken)
    out = run(lm, "compiled")
    assert out.tokens == run(lm, "eager").tokens
    assert out.metrics["backend"] == "static"
    assert out.metrics["compile_fallback"] == "RuntimeError: no C++ compiler found"


def test_compiled_forward_equals_eager():
    """A real torch.compile of a tiny model (inductor on CPU): same greedy tokens as eager. Where this
    machine cannot compile, the fallback must still give the same tokens and name the reason."""
    lm = make_tiny_lm(seed=5, layers=1, hidden=16)
    eager = run(lm, "eager", n=12)
    compiled = run(lm, "compiled", n=12)
    assert compiled.tokens == eager.tokens
    if compiled.metrics["backend"] == "compiled":
        m = compiled.metrics
        assert m["compile_s"] > 0  # inside wall_s; the rate without it beside the wall-clock one
        assert m["tokens_per_s_excluding_compile"] == pytest.approx(12 / (m["wall_s"] - m["compile_s"]), rel=1e-2)
        assert m["tokens_per_s_excluding_compile"] > m["tokens_per_s"]
    else:
        assert compiled.metrics["compile_fallback"]


@pytest.mark.parametrize("kind", ["packed", "column", "blocked", "blocked-all"])
@pytest.mark.parametrize("tied", [False, True])
def test_decode_layout_keeps_values_ties_and_logits(tied, kind):
    from transformers import LlamaConfig, LlamaForCausalLM

    from decoding_core import layout
    from decoding_core.models import decode_layout

    if kind not in layout.available_layouts():
        pytest.skip(f"the {kind} layout does not run here")
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, tie_word_embeddings=tied)
    model = LlamaForCausalLM(cfg).eval().requires_grad_(False)
    x = torch.tensor([[1, 5, 9, 3]])
    before = model(input_ids=x).logits
    values = {k: v.clone() for k, v in model.state_dict().items()}
    decode_layout(model, kind)
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    wrapper = {"packed": layout.PackedLinear, "blocked": layout.BlockedLinear,
               "blocked-all": layout.BlockedAllLinear}.get(kind)
    assert all(type(m) is (wrapper or torch.nn.Linear) for m in linears)
    if kind != "packed":
        assert all(m.weight.stride() == (1, m.weight.shape[0]) for m in linears)
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in values.items())
    assert (model.get_input_embeddings().weight is model.get_output_embeddings().weight) == tied
    with torch.inference_mode():
        torch.testing.assert_close(model(input_ids=x).logits, before, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(model(input_ids=x[:, :1]).logits, before[:, :1], rtol=1e-4, atol=1e-4)
    weights = [m.weight for m in linears]
    decode_layout(model, kind)  # idempotent: nothing is copied again
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert all(a is m.weight for a, m in zip(weights, linears))


def _tiny_llama(tied=True):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, tie_word_embeddings=tied)
    return LlamaForCausalLM(cfg).eval().requires_grad_(False)


def test_decode_layout_switches_between_layouts_keeping_logits_and_ties():
    from decoding_core import layout

    usable = layout.available_layouts()
    if len(usable) < 2:
        pytest.skip("only one layout runs here")
    model = _tiny_llama()
    x = torch.tensor([[1, 5, 9, 3]])
    with torch.inference_mode():
        before = model(input_ids=x).logits
    for kind in usable * 2:
        layout.decode_layout(model, kind)
        linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
        assert all(isinstance(m, layout.PackedLinear) == (kind == "packed") for m in linears)
        assert all(isinstance(m, layout.BlockedLinear) == kind.startswith("blocked") for m in linears)
        assert all(layout.layout_of(m) == kind for m in linears)
        assert model.get_input_embeddings().weight is model.get_output_embeddings().weight
        with torch.inference_mode():
            torch.testing.assert_close(model(input_ids=x).logits, before, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="layout must be one of"):
        layout.decode_layout(model, "diagonal")


def test_choose_layout_measures_remembers_and_can_be_forced(tmp_path, monkeypatch):
    from decoding_core import layout

    if len(layout.available_layouts()) < 2:
        pytest.skip("only one layout runs here")
    monkeypatch.setattr(layout, "_chosen", {})
    monkeypatch.delenv("DECODING_LAB_LAYOUT", raising=False)
    store = tmp_path / "layout.json"
    model = _tiny_llama()
    first = layout.choose_layout(model, store, rounds=2)
    assert first["source"] == "measured now" and first["layout"] in layout.LAYOUTS
    assert set(first["ms"]) == set(layout.available_layouts()) and all(set(v) == {1, 5} for v in first["ms"].values())
    faster = min(first["ms"], key=lambda k: sum(first["ms"][k].values()))
    assert first["layout"] == faster and layout.preferred_layout() == faster
    assert layout.layout_of(model.get_output_embeddings()) == faster
    # the next load reads the store instead of measuring, and modules laid out later follow the choice
    again = layout.choose_layout(_tiny_llama(), store)
    assert again["layout"] == faster and again["source"].startswith("measured earlier")
    head = layout.decode_layout(torch.nn.Sequential(torch.nn.Linear(8, 4)))
    assert layout.layout_of(head[0]) == faster
    if "blocked" in layout.available_layouts():  # a changed kernel (another library name) is measured anew
        from pathlib import Path

        with monkeypatch.context() as m:
            m.setattr(layout.kernels, "_library_path", lambda: Path("/nowhere/blocked-0123456789abcdef.so"))
            assert layout.choose_layout(_tiny_llama(), store, rounds=1)["source"] == "measured now"
            assert layout.choose_layout(_tiny_llama(), store)["source"].startswith("measured earlier")
    # a damaged store is measured again and rewritten
    store.write_text("{not json")
    assert layout.choose_layout(_tiny_llama(), store, rounds=1)["source"] == "measured now"
    assert json.loads(store.read_text())
    # DECODING_LAB_LAYOUT wins over any measurement
    other = next(k for k in layout.available_layouts() if k != faster)
    monkeypatch.setenv("DECODING_LAB_LAYOUT", other)
    forced = layout.choose_layout(model, store)
    assert forced == {"layout": other, "ms": {}, "source": "DECODING_LAB_LAYOUT"}
    assert layout.preferred_layout() == other
    assert layout.layout_of(model.get_output_embeddings()) == other


def test_packed_linear_repacks_a_changed_weight_and_trains_through_f_linear():
    from decoding_core import layout

    if not layout.packing_available():
        pytest.skip("oneDNN's packed linear is not available in this torch build")
    torch.manual_seed(0)
    lin = layout.PackedLinear.from_linear(torch.nn.Linear(16, 8))
    x = torch.randn(3, 16)
    with torch.no_grad():
        lin.weight.mul_(2.0)  # in place: the packed copy is stale until the next call repacks it
        torch.testing.assert_close(lin(x), x @ lin.weight.t() + lin.bias, rtol=1e-5, atol=1e-5)
    out = lin(x.requires_grad_())
    out.sum().backward()
    assert lin.weight.grad is not None and x.grad is not None
