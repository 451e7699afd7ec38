"""Samplers: every correct one matches softmax (chi-square at a fixed seed); reused noise does not."""
import pytest
import torch

from decoding_core.samplers import (SAMPLERS, BlockGumbelSampler, ReusedNoiseGumbel, draw_many, gumbel_top_k,
                                    make_sampler, open_uniform)
from decoding_core.stats import chi_square, fit_report, tv_distance

LOGITS = torch.tensor([2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0, -2.0, -3.0, float("-inf")])
P = torch.softmax(LOGITS, -1)
N = 20000


@pytest.mark.parametrize("name", SAMPLERS)
def test_row_sampler_matches_softmax(name):
    g = torch.Generator().manual_seed(1234)
    sampler = make_sampler(name)
    draws = torch.cat([sampler(LOGITS.unsqueeze(0).expand(500, -1), g) for _ in range(N // 500)])
    counts = torch.bincount(draws, minlength=10)
    assert counts[9] == 0, "a masked (-inf) token was drawn"
    stat, dof, pval = chi_square(counts.numpy(), P.numpy())
    assert pval > 0.001, f"{name}: chi2={stat:.1f} dof={dof} p={pval:.2g}"
    assert tv_distance(counts.numpy(), P.numpy()) < 0.02


@pytest.mark.parametrize("name", SAMPLERS)
def test_draw_many_is_exact_on_a_large_vocab(name):
    g = torch.Generator().manual_seed(7)
    logits = torch.randn(3000, generator=g) * 2.5
    logits[::7] = float("-inf")  # masked tokens inside blocks
    ids = draw_many(name, logits, 30000, g, block=64)
    rep = fit_report(ids.numpy(), torch.softmax(logits, -1).numpy())
    assert rep.n == 30000
    assert not torch.isinf(logits[ids]).any()
    assert rep.p_value > 0.001, f"{name}: {rep}"


def test_reused_noise_collapses_on_repeated_distribution():
    g = torch.Generator().manual_seed(0)
    buggy = ReusedNoiseGumbel(1, 10, g)
    draws = torch.cat([buggy(LOGITS.unsqueeze(0)) for _ in range(2000)])
    assert len(set(draws.tolist())) == 1  # every step the same token
    counts = torch.bincount(draws, minlength=10)
    _, _, pval = chi_square(counts.numpy(), P.numpy())
    assert pval < 1e-10
    fresh = draw_many("gumbel", LOGITS, 2000, g)
    assert len(set(fresh.tolist())) >= 6


def test_block_sampler_never_reuses_a_row():
    g = torch.Generator().manual_seed(0)
    s = BlockGumbelSampler(block=4)
    flat = torch.zeros(1, 1000)  # uniform: a reused row would repeat its argmax
    draws = [int(s(flat, g)) for _ in range(12)]
    assert len(set(draws)) >= 10


def test_same_seed_same_draws_and_open_interval():
    a = draw_many("gumbel", LOGITS, 100, torch.Generator().manual_seed(5))
    b = draw_many("gumbel", LOGITS, 100, torch.Generator().manual_seed(5))
    assert torch.equal(a, b)
    u = open_uniform((100000,), torch.Generator().manual_seed(0), "cpu")
    assert float(u.min()) > 0 and float(u.max()) < 1


def test_gumbel_top_k_is_without_replacement():
    g = torch.Generator().manual_seed(0)
    for _ in range(50):
        top = gumbel_top_k(LOGITS, 5, g)
        assert len(set(top.tolist())) == 5 and 9 not in top.tolist()


def test_unknown_sampler_and_bad_m():
    with pytest.raises(ValueError, match="unknown sampler"):
        make_sampler("dice")
    with pytest.raises(ValueError):
        draw_many("gumbel", LOGITS, 0, torch.Generator())
