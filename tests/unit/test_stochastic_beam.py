"""Stochastic beam search, checked by enumeration on a hand-written bigram model: the first of its k
sequences is distributed as the model's sequence distribution, and the k sequences are distinct."""
import itertools
import math

import numpy as np
import pytest
import torch

from decoding_core.stats import chi_square
from decoding_core.stochastic_beam import StochasticBeamDecoder, truncated_gumbel
from tests.conftest import make_table_lm

BOS, EOS, A, B, C = 0, 1, 2, 3, 4
TABLE = {BOS: {A: .5, B: .3, EOS: .2}, A: {EOS: .6, B: .3, C: .1}, B: {A: .45, C: .4, EOS: .15},
         C: {EOS: .9, A: .1}}
N = 3  # max new tokens


def sequence_distribution() -> dict[tuple, float]:
    """Every complete sequence (ended by EOS, or cut at N tokens) with its probability."""
    out = {}
    for n in range(1, N + 1):
        for seq in itertools.product([EOS, A, B, C], repeat=n):
            if EOS in seq[:-1] or (n < N and seq[-1] != EOS):
                continue
            p, prev = 1.0, BOS
            for t in seq:
                p *= TABLE[prev].get(t, 0.0)
                prev = t
            if p > 0:
                out[seq] = p
    assert sum(out.values()) == pytest.approx(1.0)
    return out


def test_first_sequence_is_a_sample_from_the_sequence_distribution():
    lm = make_table_lm(TABLE, vocab=5, eos=EOS)
    exact = sequence_distribution()
    seqs = sorted(exact)
    for k in (1, 3):
        counts = dict.fromkeys(seqs, 0)
        for seed in range(3000):
            first = StochasticBeamDecoder(lm, k, N, seed=seed).start([BOS]).run().tokens
            counts[tuple(first)] += 1
        _, _, p_value = chi_square(np.array([counts[s] for s in seqs]), np.array([exact[s] for s in seqs]))
        assert p_value > 1e-3, (k, p_value)


def test_k_sequences_are_distinct_and_with_k_large_all_of_them():
    lm = make_table_lm(TABLE, vocab=5, eos=EOS)
    exact = sequence_distribution()
    for seed in range(30):
        dec = StochasticBeamDecoder(lm, 4, N, seed=seed).start([BOS])
        dec.run()
        hyps = [h.tokens for h in dec.hypotheses()]
        assert len(hyps) == 4 and len(set(hyps)) == 4 and all(h in exact for h in hyps)
        assert dec.keys.tolist() == sorted(dec.keys.tolist(), reverse=True)
    dec = StochasticBeamDecoder(lm, 64, N, seed=0).start([BOS])
    dec.run()
    hyps = [h.tokens for h in dec.hypotheses()]  # k beyond every likely sequence: each of them, once
    assert len(set(hyps)) == len(hyps) and set(exact) <= set(hyps)


def test_truncated_gumbel_keeps_the_parents_maximum():
    g = torch.tensor([[0.3, -1.0, float("-inf"), 2.0], [5.0, 1.0, 0.0, -2.0]])
    t = torch.tensor([0.5, -1.5])
    keys = truncated_gumbel(g, t)
    assert keys.max(dim=-1).values.tolist() == pytest.approx(t.tolist())  # the max child gets T exactly
    assert math.isinf(keys[0, 2]) and (keys[0, :2] < t[0]).all()
    assert torch.argsort(keys[1], descending=True).tolist() == torch.argsort(g[1], descending=True).tolist()


def test_reproducible_and_temperature_validated():
    lm = make_table_lm(TABLE, vocab=5, eos=EOS)
    run = lambda: StochasticBeamDecoder(lm, 3, N, seed=7, temperature=0.5).start([BOS]).run().tokens  # noqa: E731
    assert run() == run()
    with pytest.raises(ValueError, match="temperature"):
        StochasticBeamDecoder(lm, 3, N, temperature=0)
