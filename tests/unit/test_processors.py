"""Our processors against transformers' processors of the same name, on random inputs."""
import pytest
import torch
from transformers.generation.logits_process import (MinPLogitsWarper, RepetitionPenaltyLogitsProcessor,
                                                     TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper)

from decoding_core.processors import (MinP, RepetitionPenalty, SamplingSettings, Temperature, TopK, TopP,
                                      apply_processors, build_processors)

CASES = [
    (Temperature(0.7), TemperatureLogitsWarper(0.7)),
    (Temperature(1.9), TemperatureLogitsWarper(1.9)),
    (TopK(1), TopKLogitsWarper(1)),
    (TopK(5), TopKLogitsWarper(5)),
    (TopK(500), TopKLogitsWarper(500)),
    (TopP(0.3), TopPLogitsWarper(0.3)),
    (TopP(0.9), TopPLogitsWarper(0.9)),
    (TopP(1.0), TopPLogitsWarper(1.0)),
    (MinP(0.05), MinPLogitsWarper(0.05)),
    (MinP(0.5), MinPLogitsWarper(0.5)),
    (RepetitionPenalty(1.3), RepetitionPenaltyLogitsProcessor(1.3)),
    (RepetitionPenalty(0.8), RepetitionPenaltyLogitsProcessor(0.8)),
]


@pytest.mark.parametrize("ours,theirs", CASES, ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_transformers_and_does_not_mutate(ours, theirs, seed):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(4, 97, generator=g) * 3
    input_ids = torch.randint(0, 97, (4, 12), generator=g)
    before = scores.clone()
    mine = ours(input_ids, scores)
    assert torch.equal(scores, before), "processor modified its input"
    ref = theirs(input_ids, scores.clone())
    assert torch.equal(torch.isinf(mine), torch.isinf(ref))
    assert torch.allclose(mine[torch.isfinite(mine)], ref[torch.isfinite(ref)])


def test_top_k_exact_small_vocab():
    scores = torch.tensor([[1.0, 4.0, 3.0, 2.0, 0.0]])
    out = TopK(2)(None, scores)
    assert out.tolist() == [[float("-inf"), 4.0, 3.0, float("-inf"), float("-inf")]]


def test_top_p_keeps_smallest_set_reaching_p():
    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    out = TopP(0.78)(None, probs.log())  # the top two hold 0.8 >= 0.78
    assert torch.isfinite(out).tolist() == [[True, True, False, False]]
    out = TopP(0.83)(None, probs.log())  # 0.8 < 0.83: the third is needed
    assert torch.isfinite(out).tolist() == [[True, True, True, False]]


def test_min_p_threshold_relative_to_top():
    probs = torch.tensor([[0.6, 0.2, 0.13, 0.07]])
    out = MinP(0.2)(None, probs.log())  # threshold 0.2 * 0.6 = 0.12: 0.13 kept, 0.07 dropped
    assert torch.isfinite(out).tolist() == [[True, True, True, False]]


@pytest.mark.parametrize("bad", [
    lambda: Temperature(0), lambda: Temperature(-1), lambda: TopK(0), lambda: TopK(2.5), lambda: TopP(0),
    lambda: TopP(1.5), lambda: MinP(-0.1), lambda: MinP(2), lambda: RepetitionPenalty(0),
])
def test_invalid_values_raise_helpful_errors(bad):
    with pytest.raises(ValueError, match="must be"):
        bad()


def test_build_processors_order_and_identity():
    s = SamplingSettings(temperature=0.5, top_k=10, top_p=0.9, min_p=0.1, repetition_penalty=1.2)
    names = [p.name for p in build_processors(s)]
    assert names == ["repetition penalty", "temperature", "top-k", "top-p", "min-p"]
    assert build_processors(SamplingSettings()) == []
    scores = torch.randn(1, 20)
    assert torch.equal(apply_processors([], None, scores), scores)
    with pytest.raises(ValueError):
        build_processors(SamplingSettings(top_p=0.0))
