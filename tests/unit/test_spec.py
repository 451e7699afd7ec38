"""Strategies as one line of text (decoding_core/spec.py): every kind round-trips, bad text names its problem."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from decoding_core.settings import (SAMPLERS, Beam, BeamSettings, Eagle, Greedy, Sample, SamplingSettings, Speculative,
                                    StochasticBeam)
from decoding_core.spec import parse_strategy, strategy_spec

EXAMPLES = [
    (Greedy(), "greedy"),
    (Sample(SamplingSettings(0.8, top_p=0.95)), "sample:temperature=0.8,top_p=0.95"),
    (Beam(BeamSettings(6, rp=0.6, mc=3, early_stopping="never")), "beam:num_beams=6,early_stopping=never,rp=0.6,mc=3"),
    (StochasticBeam(3, 0.7), "stochastic-beam:num_beams=3,temperature=0.7"),
    (Speculative("prompt-lookup", 3, "sample"), "speculative:draft=prompt-lookup,n_draft=3,rule=sample"),
    (Speculative(n_draft=6, stop_below=0.5), "speculative:n_draft=6,stop_below=0.5"),
    (Speculative(copy=0.5), "speculative:copy=0.5"), (Speculative(copy=0.0), "speculative:copy=0.0"),
    (Eagle(head="eagle1", top_k=4, sampling=SamplingSettings(top_k=5)), "eagle:head=eagle1,top_k=4,sampling.top_k=5"),
    (Eagle(tree="static", total_tokens=48, depth=6), "eagle:tree=static,depth=6,total_tokens=48"),
    (Eagle(lookup=8), "eagle:lookup=8"),
]


@pytest.mark.parametrize("strategy,text", EXAMPLES)
def test_each_kind_writes_its_changed_fields_and_reads_back(strategy, text):
    assert strategy_spec(strategy) == text
    assert parse_strategy(text) == strategy


@pytest.mark.parametrize("text,message", [
    ("", "unknown strategy"), ("nucleus", "unknown strategy"), ("beam:k=3", "unknown setting 'k'"),
    ("beam:num_beams=0", "beam width must be >= 1"), ("sample:temperature=hot", "temperature"),
    ("eagle:depth=99", "tree depth must be <= 12"), ("speculative:copy=0.95", "copy weight must be <= 0.9"),
    ("sample:sampler=dice", "sampler must be one of"),
    ("speculative:n_draft", "the setting 'n_draft' has no value"), ("sample:top_p=nan", "top-p must be a finite number"),
])
def test_bad_text_is_a_readable_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_strategy(text)


@settings(max_examples=60, deadline=None)
@given(t=hs.floats(0.05, 3.0), k=hs.one_of(hs.none(), hs.integers(1, 500)), p=hs.one_of(hs.none(), hs.floats(0.01, 1)),
       sampler=hs.sampled_from(SAMPLERS), beams=hs.integers(1, 16), rp=hs.one_of(hs.none(), hs.floats(0.01, 1)),
       n=hs.one_of(hs.just("auto"), hs.integers(1, 12)))
def test_any_valid_settings_round_trip(t, k, p, sampler, beams, rp, n):
    s = SamplingSettings(t, top_k=k, top_p=p)
    for strategy in (Sample(s, sampler), Beam(BeamSettings(beams, rp=rp), s), Speculative(n_draft=n, sampling=s),
                     Eagle(sampling=s, sample=True)):
        assert parse_strategy(strategy_spec(strategy)) == strategy
