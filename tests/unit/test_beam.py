"""Beam search: transformers parity on a tiny model, hand-worked in-beam frontiers, pruning boundaries."""
import math
import random

import pytest
import torch
from transformers import GenerationConfig

from decoding_core.beam import BeamSearchDecoder, BeamSettings, prune
from tests.conftest import make_table_lm

BOS, EOS, A, B, C = 0, 1, 2, 3, 4
TABLE = {BOS: {A: .5, B: .3, EOS: .2}, A: {EOS: .6, B: .3, C: .1}, B: {A: .45, C: .4, EOS: .15},
         C: {EOS: .9, A: .1}}


def hf_beam(lm, prompt, k, n, lp, es):
    gc = GenerationConfig(do_sample=False, num_beams=k, num_return_sequences=k, max_new_tokens=n, length_penalty=lp,
                          early_stopping=es, eos_token_id=lm.eos_ids[0], pad_token_id=0, output_scores=True,
                          return_dict_in_generate=True)
    out = lm.model.generate(torch.tensor([prompt]), generation_config=gc)
    seqs = []
    for row in out.sequences[:, len(prompt):].tolist():
        cut = row.index(lm.eos_ids[0]) + 1 if lm.eos_ids[0] in row else len(row)
        seqs.append(row[:cut])
    return seqs, (out.sequences_scores.tolist() if k > 1 else None)


@pytest.mark.parametrize("k", [1, 2, 4, 8])
@pytest.mark.parametrize("lp", [0.0, 1.0])
@pytest.mark.parametrize("es", [False, True])
def test_finished_set_equals_transformers_on_tiny_model(tiny_lm, k, lp, es):
    prompt = [1, 7, 12, 30]
    dec = BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=k, length_penalty=lp, early_stopping=es), 12).start(prompt)
    dec.run()
    seqs, scores = hf_beam(tiny_lm, prompt, k, 12, lp, es)
    hyps = dec.hypotheses()
    assert [list(h.tokens) for h in hyps] == seqs
    if scores:
        assert [h.score for h in hyps] == pytest.approx(scores, abs=1e-5)


def test_in_beam_frontier_worked_by_hand():
    lm = make_table_lm(TABLE, vocab=5, eos=EOS)
    dec = BeamSearchDecoder(lm, BeamSettings(num_beams=2, eos_policy="in-beam"), 10).start([BOS])
    lg = math.log
    s1 = dec.step()  # root -> a (.5), b (.3)
    assert [(h.tokens, round(h.score, 6)) for h in s1.frontier] == [((A,), round(lg(.5), 6)), ((B,), round(lg(.3), 6))]
    s2 = dec.step()  # each proposes its top-2: a EOS = .30, a b = .15 ; b a = .135, b c = .12
    assert [h.tokens for h in s2.frontier] == [(A, EOS), (A, B)]
    assert s2.frontier[0].finished and s2.frontier[0].score == pytest.approx(lg(.3))
    assert {c.token_id: c.status for c in s2.candidates if c.parent == s1.frontier[1].node} == {A: "off-top-k", C: "off-top-k"}
    s3 = dec.step()  # a EOS carried at log .30 ; a b a = .0675 beats a b c = .06
    assert [h.tokens for h in s3.frontier] == [(A, EOS), (A, B, A)]
    assert s3.frontier[0].score == pytest.approx(lg(.3)) and s3.frontier[0].node == s2.frontier[0].node
    assert any(c.status == "carried" for c in s3.candidates)
    assert not dec.done
    s4 = dec.step()  # a b a EOS = .0405 ; all kept hypotheses end in EOS: stop
    assert [h.tokens for h in s4.frontier] == [(A, EOS), (A, B, A, EOS)]
    assert dec.done and dec.result().tokens == [A, EOS]
    assert lm.model.calls == [1, 2, 1, 1]  # prefill, then only unfinished hypotheses are fed


def scored(scores, logps, parents):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return scores, logps, parents, order


def test_relative_threshold_boundary():
    s_star = -1.0
    just_kept = s_star + math.log(0.6) + 1e-6
    just_pruned = s_star + math.log(0.6) - 1e-6
    out = prune(*scored([s_star, just_kept, just_pruned], [-1, -1, -1], [0, 0, 0]), BeamSettings(rp=0.6))
    assert out == {2: ("rp",)}


def test_absolute_threshold_boundary():
    out = prune(*scored([-1.0, -3.4999, -3.5001], [-1, -1, -1], [0, 0, 0]), BeamSettings(ap=2.5))
    assert out == {2: ("ap",)}


def test_relative_local_threshold_boundary():
    l_star = -0.5
    logps = [l_star, l_star + math.log(0.02) + 1e-6, l_star + math.log(0.02) - 1e-6]
    out = prune(*scored([-1.0, -1.1, -1.2], logps, [0, 0, 0]), BeamSettings(rpl=0.02))
    assert out == {2: ("rpl",)}


def test_max_candidates_per_node():
    out = prune(*scored([-1, -2, -3, -4, -5], [-1] * 5, [0, 0, 1, 0, 1]), BeamSettings(mc=2))
    assert out == {3: ("mc",)}


def test_literal_rule_prunes_the_best():
    # max = -2, rp = 0.6: threshold 0.6 * -2 = -1.2 > -2, so every candidate, the best included, is pruned
    out = prune(*scored([-2.0, -2.5], [-1, -1], [0, 0]), BeamSettings(rp=0.6, literal_rp=True))
    assert out == {0: ("rp (literal)",), 1: ("rp (literal)",)}
    assert prune(*scored([-2.0, -2.5], [-1, -1], [0, 0]), BeamSettings(rp=0.6)) == {}


def test_pruning_never_removes_the_best_candidate():
    rng = random.Random(0)
    for _ in range(300):
        n = rng.randint(1, 12)
        scores = [rng.uniform(-20, 0) for _ in range(n)]
        logps = [rng.uniform(-10, 0) for _ in range(n)]
        parents = [rng.randint(0, 3) for _ in range(n)]
        s = BeamSettings(rp=rng.choice([None, rng.uniform(0.01, 1)]), ap=rng.choice([None, rng.uniform(0, 5)]),
                         rpl=rng.choice([None, rng.uniform(0.01, 1)]), mc=rng.choice([None, rng.randint(1, 3)]))
        best = max(range(n), key=lambda i: scores[i])
        assert best not in prune(*scored(scores, logps, parents), s)


@pytest.mark.parametrize("policy", ["in-beam", "finished-set"])
def test_pruning_with_loose_thresholds_equals_plain_beam(tiny_lm, policy):
    plain = BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=4, eos_policy=policy), 10).start([1, 5, 9]).run()
    loose = BeamSettings(num_beams=4, eos_policy=policy, rp=1e-30, ap=1e6, rpl=1e-30, mc=4)
    pruned = BeamSearchDecoder(tiny_lm, loose, 10).start([1, 5, 9]).run()
    assert pruned.tokens == plain.tokens
    assert pruned.metrics["hypotheses_expanded"] == plain.metrics["hypotheses_expanded"]


def test_pruning_shrinks_the_beam_and_records_rules(tiny_lm):
    dec = BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=4, ap=0.5, mc=1), 8, stop_at_eos=False).start([1, 5, 9])
    plain = BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=4), 8, stop_at_eos=False).start([1, 5, 9]).run()
    dec.run()
    pruned = [c for step in dec.history for c in step.candidates if c.status == "pruned"]
    assert pruned and all(set(c.rules) <= {"ap", "mc"} and c.rules for c in pruned)
    assert any(len(step.frontier) < 4 for step in dec.history)
    assert dec.metrics()["hypotheses_expanded"] < plain.metrics["hypotheses_expanded"]


def test_hybrid_samples_prefix_then_beams(tiny_lm):
    from decoding_core.processors import SamplingSettings

    s = BeamSettings(num_beams=3, sample_prefix=3)
    runs = [BeamSearchDecoder(tiny_lm, s, 10, seed=seed, stop_at_eos=False, sampling=SamplingSettings(temperature=2.0))
            .start([1, 5]).run() for seed in range(6)]
    prefixes = {tuple(r.tokens[:3]) for r in runs}
    assert len(prefixes) > 1
    again = BeamSearchDecoder(tiny_lm, s, 10, seed=0, stop_at_eos=False,
                              sampling=SamplingSettings(temperature=2.0)).start([1, 5]).run()
    assert again.tokens == runs[0].tokens
    dec = BeamSearchDecoder(tiny_lm, s, 10, seed=0, stop_at_eos=False, sampling=SamplingSettings(temperature=2.0))
    dec.start([1, 5]).run()
    assert [h.kind for h in dec.history][:4] == ["sample", "sample", "sample", "beam"]
    # the beam phase continues the sampled prefix exactly as a plain beam search from prompt + prefix would
    prefix = runs[0].tokens[:3]
    plain = BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=3), 7, stop_at_eos=False).start([1, 5] + prefix).run()
    assert runs[0].tokens == prefix + plain.tokens


@pytest.mark.parametrize("kw,needle", [
    ({"num_beams": 0}, "beam width"), ({"rp": 0}, "rp"), ({"rp": 1.5}, "rp"), ({"ap": -1}, "ap"),
    ({"rpl": 2}, "rpl"), ({"mc": 0}, "mc"), ({"eos_policy": "x"}, "EOS"), ({"early_stopping": "maybe"}, "early"),
])
def test_bad_settings_are_explained(kw, needle):
    with pytest.raises(ValueError, match=needle):
        BeamSettings(**kw)


def test_beam_wider_than_vocab_or_memory(tiny_lm):
    with pytest.raises(ValueError, match="vocabulary"):
        BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=51), 5)
    with pytest.raises(ValueError, match="prefix"):
        BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=2, sample_prefix=5), 5)
    import decoding_core.beam as beam_mod

    saved = beam_mod.memory_budget_bytes
    beam_mod.memory_budget_bytes = lambda: 1000
    try:
        with pytest.raises(ValueError, match="KV cache"):
            BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=8), 20).start([1, 2])
    finally:
        beam_mod.memory_budget_bytes = saved


def test_length_limited_hypotheses_are_told_apart_from_finished_ones(tiny_lm):
    from viz.beam import nbest_rows

    dec = BeamSearchDecoder(tiny_lm, BeamSettings(num_beams=2), 3).start([1, 5, 9])
    dec.run()
    last = dec.history[-1]
    stopped = [c for c in last.candidates if c.status in ("finished", "length-limit")]
    assert stopped and all((c.status == "finished") == (c.token_id in tiny_lm.eos_ids) for c in stopped)
    rows = nbest_rows(dec.hypotheses(), tiny_lm.decode, True, tiny_lm.eos_ids)
    assert {r["ends"] for r in rows} <= {"EOS", "length limit"}
    assert all((r["ends"] == "EOS") == (h.tokens[-1] in tiny_lm.eos_ids) for r, h in zip(rows, dec.hypotheses()))
