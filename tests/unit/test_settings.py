"""Typed settings: every bad field is refused with a message that names it; the shared rules hold."""
import pytest

from decoding_core.settings import (Beam, BeamSettings, Eagle, Greedy, RunSettings, Sample, SamplingSettings,
                                    Speculative)


@pytest.mark.parametrize("make,field", [
    (lambda: RunSettings(max_new_tokens=0), "max new tokens"),
    (lambda: RunSettings(seed=-1), "seed"),
    (lambda: RunSettings(backend="warp"), "backend"),
    (lambda: SamplingSettings(temperature=0), "temperature"),
    (lambda: SamplingSettings(temperature=float("nan")), "temperature"),
    (lambda: SamplingSettings(top_p=1.5), "top-p"),
    (lambda: SamplingSettings(top_k=2.5), "top-k"),
    (lambda: SamplingSettings(min_p=-0.1), "min-p"),
    (lambda: SamplingSettings(repetition_penalty=0), "repetition penalty"),
    (lambda: BeamSettings(num_beams=0), "beam width"),
    (lambda: BeamSettings(eos_policy="maybe"), "EOS policy"),
    (lambda: BeamSettings(rp=0), "rp"),
    (lambda: BeamSettings(ap=-1), "ap"),
    (lambda: BeamSettings(rpl=2), "rpl"),
    (lambda: BeamSettings(mc=0), "mc"),
    (lambda: BeamSettings(sample_prefix=-1), "sample prefix"),
    (lambda: Sample(sampler="dice"), "sampler"),
    (lambda: Beam(sampler="dice"), "prefix sampler"),
    (lambda: Speculative(n_draft=0), "draft length N"),
    (lambda: Speculative(n_draft=33), "draft length N"),
    (lambda: Speculative(rule="trust"), "verification rule"),
    (lambda: Speculative(draft=" "), "draft"),
    (lambda: Eagle(head="eagle9"), "head"),
    (lambda: Eagle(tree="forest"), "tree"),
    (lambda: Eagle(top_k=0), "tree top-k"),
    (lambda: Eagle(depth=20), "tree depth"),
    (lambda: Eagle(total_tokens=1), "total tokens"),
    (lambda: Eagle(lookup=17), "lookup branch"),
    (lambda: Eagle(lookup=-1), "lookup branch"),
])
def test_bad_values_name_their_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_settings_are_frozen_and_hashable():
    s = Speculative(sampling=SamplingSettings(temperature=0.5))
    with pytest.raises(AttributeError):
        s.rule = "sample"
    assert hash(s) == hash(Speculative(sampling=SamplingSettings(temperature=0.5)))
    assert {Greedy(), Greedy()} == {Greedy()}


def test_shared_rules():
    s = SamplingSettings(temperature=0.3, top_k=5, top_p=0.9, min_p=0.1, repetition_penalty=1.2)
    assert s.for_argmax() == SamplingSettings(repetition_penalty=1.2)  # only the penalty changes an argmax
    assert Speculative(rule="sample").samples and Speculative(rule="topk", target_sample=True).samples
    assert not Speculative(rule="topk").samples and not Speculative().samples
    assert Eagle().auto and not Eagle(tree="static").auto and not Eagle(depth=3, total_tokens=10).auto
    assert BeamSettings(rp=0.5, sample_prefix=2).without_pruning() == BeamSettings(sample_prefix=2)
    assert Beam().name == "beam" and Eagle().name == "eagle"
