"""make_corpus.sampler: how the model-written instructions are drawn (greedy by default, else seeded sampling
through the app's own temperature and min-p processors)."""
import sys

import torch

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from make_corpus import sampler  # noqa: E402


def test_temperature_zero_is_greedy():
    assert sampler(0.0, 0.5, 1) is None  # greedy_batch then takes the argmax


def test_draws_are_seeded_and_follow_the_distribution():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.2, 1e-9]])).repeat(4000, 1)
    a, b = sampler(1.0, 0.0, 7)(logits), sampler(1.0, 0.0, 7)(logits)
    assert torch.equal(a, b)  # the same seed draws the same tokens
    assert not torch.equal(a, sampler(1.0, 0.0, 8)(logits))
    freq = torch.bincount(a, minlength=4).float() / len(a)
    assert torch.allclose(freq, torch.tensor([0.5, 0.3, 0.2, 0.0]), atol=0.03), freq


def test_min_p_and_temperature_cut_the_tail():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.2]])).repeat(2000, 1)
    # min-p 0.5: tokens below half the top probability (0.2 < 0.25) are never drawn
    assert set(sampler(1.0, 0.5, 3)(logits).tolist()) == {0, 1}
    # a low temperature sharpens: the top token dominates far beyond its 0.5
    assert (sampler(0.2, 0.0, 3)(logits) == 0).float().mean() > 0.9
