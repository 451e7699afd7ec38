"""Drafts and EAGLE heads with int8 weights (kernels.int8_linear, layout.draft_layout): the kernel computes what
its rounded weights say, a draft laid out so keeps greedy speculation equal to the target's greedy output and
sampled speculation lossless, and the target is never rounded."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from decoding_core import kernels, layout
from decoding_core.decoders import greedy_decoder
from decoding_core.speculative import SpeculativeDecoder
from tests.conftest import make_tiny_lm
from tests.unit.test_speculative import first_two_tokens_match_the_target

needs_int8 = pytest.mark.skipif(not kernels.int8_available(),
                                reason=f"int8 kernel unavailable: {kernels.unavailable_reason()}")


@needs_int8
@pytest.mark.parametrize("out_features,in_features", [(64, 16), (70, 20), (1, 5), (200, 64), (1100, 24)])
@pytest.mark.parametrize("bias", [False, True])
def test_int8_linear_equals_f_linear_on_its_rounded_weights(out_features, in_features, bias):
    gen = torch.Generator().manual_seed(out_features + in_features)
    w = torch.randn(out_features, in_features, generator=gen)
    b = torch.randn(out_features, generator=gen) if bias else None
    blocks, scale = kernels.pack_int8(w)
    assert blocks.dtype == torch.int8 and blocks.shape == (-(-out_features // 64), in_features, 64)
    rounded = kernels.dequantized(blocks, scale, out_features)
    # each weight is within half a step of its own row's scale, and the largest keeps its value
    assert ((rounded - w).abs() <= scale[:, None] / 2 + 1e-7).all()
    assert torch.allclose(rounded.abs().amax(1), w.abs().amax(1), rtol=1e-6)
    for rows in (1, 2, 3, 6, 9, 16):
        x = torch.randn(rows, in_features, generator=gen)
        torch.testing.assert_close(kernels.int8_linear(x, blocks, scale, b, out_features), F.linear(x, rounded, b),
                                   rtol=1e-5, atol=1e-5)


@needs_int8
def test_draft_layout_rounds_a_drafts_linears_on_the_same_parameters(monkeypatch):
    lm = make_tiny_lm(seed=3, layers=1)
    model = copy.deepcopy(lm.model)
    layout.decode_layout(model, "column")  # what draft_layout lays out first (column-major copies of the weights)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    q_weight = model.model.layers[0].self_attn.q_proj.weight
    layout.draft_layout(model, "int8")
    lins = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert lins and all(type(m) is layout.Int8Linear for m in lins)
    assert layout.module_weights(model) == "int8" and layout.layout_of(lins[0]) == "int8"
    assert model.model.layers[0].self_attn.q_proj.weight is q_weight  # the same Parameter: ties survive
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())  # state_dict unchanged
    lin = model.model.layers[0].mlp.up_proj
    x = torch.randn(1, 3, lin.in_features)
    blocks, scale = lin._packed
    torch.testing.assert_close(lin(x), F.linear(x, kernels.dequantized(blocks, scale, lin.out_features)))
    many = torch.randn(layout.INT8_MAX_ROWS + 1, lin.in_features)  # a prefill: the float weight
    assert torch.equal(lin(many), F.linear(many, lin.weight))
    layout.draft_layout(model, "float32")  # and back
    assert layout.module_weights(model) == "float32"
    monkeypatch.setenv("DECODING_LAB_DRAFT_WEIGHTS", "float32")
    assert layout.draft_weights() == "float32"
    with pytest.raises(ValueError, match="draft weights"):
        layout.draft_layout(model, "int4")


@pytest.fixture(scope="module")
def int8_pair():
    target, draft = make_tiny_lm(seed=0), make_tiny_lm(seed=5, layers=1)
    if kernels.int8_available():
        layout.draft_layout(draft.model, "int8")
    return target, draft


@needs_int8
@pytest.mark.parametrize("n", [1, 4])
def test_an_int8_draft_keeps_greedy_speculation_equal_to_greedy(int8_pair, n):
    target, draft = int8_pair
    assert layout.module_weights(draft.model) == "int8" and layout.module_weights(target.model) == "float32"
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23]):
        ref = greedy_decoder(target, 20, stop_at_eos=False).start(prompt).run().tokens
        out = SpeculativeDecoder(target, draft, n, "greedy", max_new_tokens=20, stop_at_eos=False).start(prompt).run()
        assert out.tokens == ref


@needs_int8
def test_an_int8_draft_keeps_rejection_sampling_lossless(int8_pair):
    """The first two tokens of sampled speculation with the rounded draft (N = 2) are distributed as the target's
    own p(t1) p(t2 | t1) (chi-square): the draft's q is whatever its rounded weights give, and the rule uses it."""
    target, draft = int8_pair
    first_two_tokens_match_the_target(target, [1, 5, 9], lambda seed: SpeculativeDecoder(
        target, draft, 2, "sample", max_new_tokens=3, seed=seed, stop_at_eos=False).start([1, 5, 9]))
