"""Speculative decoding: the verification rules exactly, losslessness (chi-square), cache consistency."""
import pytest
import torch
from transformers import DynamicCache

from decoding_core.decoders import forward, greedy_decoder
from decoding_core.processors import SamplingSettings
from decoding_core.speculative import (SpeculativeDecoder, expected_speedup, expected_tokens_per_step, prompt_lookup,
                                       verify_greedy, verify_sample, verify_topk)
from decoding_core.stats import chi_square
from tests.conftest import make_tiny_lm

P = torch.tensor([[0.5, 0.3, 0.15, 0.05], [0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]])


def test_greedy_rule_by_hand():
    v = verify_greedy([0, 1], P)  # argmaxes are 0, 1, then the bonus from row 2 (tie -> first)
    assert (v.n_accepted, v.next_token, v.next_source) == (2, 0, "bonus")
    v = verify_greedy([0, 2], P)
    assert (v.n_accepted, v.next_token, v.next_source) == (1, 1, "correction")
    assert v.p_draft == pytest.approx((0.5, 0.2))


def test_topk_rule_by_hand():
    v = verify_topk([1, 2], P, k=2)  # 1 in top-2 of row 0 {0,1}; 2 in top-2 of row 1 {1,2}
    assert (v.n_accepted, v.next_source) == (2, "bonus")
    v = verify_topk([2, 2], P, k=2)  # 2 not in {0, 1}: rejected at once, correction = argmax row 0
    assert (v.n_accepted, v.next_token, v.next_source) == (0, 0, "correction")
    v = verify_topk([2, 3], P, k=3)
    assert (v.n_accepted, v.next_token) == (1, 1)
    with pytest.raises(ValueError):
        verify_topk([0], P, k=0)


def test_sample_rule_by_hand():
    q = torch.tensor([[0.25, 0.5, 0.25, 0.0], [0.1, 0.1, 0.4, 0.4]])
    g = torch.Generator().manual_seed(0)
    # y1 = 1: p/q = 0.3/0.5 = 0.6; u = 0.59 accepts, y2 = 2: p/q = 0.2/0.4 = 0.5; u = 0.5 rejects (u >= a)
    v = verify_sample([1, 2], P, q, torch.tensor([0.59, 0.5]), g)
    assert v.n_accepted == 1 and v.next_source == "correction"
    assert v.accept_prob == pytest.approx((0.6, 0.5))
    expected = torch.clamp(P[1] - q[1], min=0)
    assert torch.allclose(v.residual, expected / expected.sum())
    assert v.next_token == 1  # max(0, p - q) = [0, 0.5, 0, 0]: the correction must be token 1
    v = verify_sample([1, 1], P, q, torch.tensor([0.1, 0.1]), g)
    assert v.n_accepted == 2 and v.next_source == "bonus"


def first_token_histogram(p, q, n, seed, point_mass=False):
    """Emitted first token over n trials of one-token speculation with draft q."""
    g = torch.Generator().manual_seed(seed)
    counts = torch.zeros(p.shape[1])
    for _ in range(n):
        y = int(torch.multinomial(q[0], 1, generator=g))
        u = torch.rand(1, generator=g)
        v = verify_sample([y], p, None if point_mass else q, u, g)
        counts[y if v.n_accepted else v.next_token] += 1
    return counts


@pytest.mark.parametrize("q_row", [[0.7, 0.1, 0.1, 0.1], [0.05, 0.05, 0.1, 0.8], [0.25, 0.25, 0.25, 0.25]])
def test_rejection_sampling_is_lossless(q_row):
    p = P[:2]
    q = torch.tensor([q_row])
    counts = first_token_histogram(p, q, 8000, seed=1)
    _, _, pval = chi_square(counts.numpy(), p[0].numpy())
    assert pval > 0.001


def test_point_mass_draft_is_lossless():
    p = P[:2]
    q = torch.tensor([[0.1, 0.2, 0.3, 0.4]])  # how the (prompt lookup) draft proposes; verification ignores q
    counts = first_token_histogram(p, q, 8000, seed=2, point_mass=True)
    _, _, pval = chi_square(counts.numpy(), p[0].numpy())
    assert pval > 0.001


def test_topk_with_k_above_1_is_not_lossless():
    p = P[:2]
    g = torch.Generator().manual_seed(3)
    counts = torch.zeros(4)
    q = torch.tensor([0.05, 0.05, 0.1, 0.8])
    for _ in range(4000):  # the draft usually proposes token 3; top-3 of p = {0,1,2}: 3 is rejected ...
        y = int(torch.multinomial(q, 1, generator=g))
        v = verify_topk([y], p, k=3, generator=g)
        counts[y if v.n_accepted else v.next_token] += 1
    _, _, pval = chi_square(counts.numpy(), p[0].numpy())
    assert pval < 1e-6  # ... but token 2 (p = .15) is accepted whenever drafted (q = .1) on top of its own share


def test_prompt_lookup():
    assert prompt_lookup([5, 6, 7, 8, 5, 6], 3) == [7, 8, 5]
    assert prompt_lookup([1, 2, 3], 2) == []
    assert prompt_lookup([9, 4, 9], 4) == [4, 9]


@pytest.fixture(scope="module")
def pair():
    return make_tiny_lm(seed=0), make_tiny_lm(seed=5, layers=1)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_greedy_match_equals_target_greedy(pair, n):
    target, draft = pair
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23]):
        ref = greedy_decoder(target, 20, stop_at_eos=False).start(prompt).run().tokens
        for src in (draft, None):
            out = SpeculativeDecoder(target, src, n, "greedy", max_new_tokens=20, stop_at_eos=False).start(prompt).run()
            assert out.tokens == ref
            m = out.metrics
            assert m["target_forwards"] == m["verify_steps"] and m["new_tokens"] == 20
            assert m["mean_accepted_length"] == pytest.approx((m["accepted"] + m["verify_steps"]) / m["verify_steps"],
                                                              abs=1e-3)


def test_topk_1_equals_greedy(pair):
    target, draft = pair
    ref = greedy_decoder(target, 16, stop_at_eos=False).start([1, 5, 9]).run().tokens
    out = SpeculativeDecoder(target, draft, 4, "topk", verify_k=1, max_new_tokens=16, stop_at_eos=False)
    assert out.start([1, 5, 9]).run().tokens == ref


def caches_match_a_fresh_run(dec, target, draft):
    """Both caches hold what a fresh forward over the context's first t_len / d_len tokens would."""
    ctx = dec.context
    for model, cache, length in ((target, dec.t_cache, dec.t_len), (draft, dec.d_cache, dec.d_len)):
        fresh = DynamicCache()
        forward(model.model, torch.tensor([ctx[:length]]), fresh)
        assert cache.get_seq_length() == length
        for a, b in zip(cache.layers, fresh.layers):
            assert torch.allclose(a.keys, b.keys, atol=1e-5) and torch.allclose(a.values, b.values, atol=1e-5)


def test_caches_match_a_fresh_run_after_rejections(pair):
    target, draft = pair
    dec = SpeculativeDecoder(target, draft, 5, "sample", settings=SamplingSettings(temperature=1.5), max_new_tokens=30,
                             seed=4, stop_at_eos=False).start([1, 5, 9])
    rejected = 0
    for _ in range(5):
        rec = dec.step()
        rejected += any(d.status == "rejected" for d in rec.drafts)
        caches_match_a_fresh_run(dec, target, draft)
    assert rejected > 0
    # and decoding continues as a fresh greedy run from the accepted prefix would
    ctx = dec.context
    dec2 = SpeculativeDecoder(target, draft, 3, "greedy", max_new_tokens=10, stop_at_eos=False).start(ctx)
    assert dec2.run().tokens == greedy_decoder(target, 10, stop_at_eos=False).start(ctx).run().tokens


def test_step_records(pair):
    target, draft = pair
    dec = SpeculativeDecoder(target, draft, 4, "sample", max_new_tokens=12, seed=1, stop_at_eos=False).start([1, 5])
    rec = dec.step()
    statuses = [d.status for d in rec.drafts]
    assert statuses == sorted(statuses, key=["accepted", "rejected", "discarded"].index)
    assert len(rec.emitted) == rec.n_accepted + 1
    if "rejected" in statuses:
        assert rec.next_source == "correction" and rec.residual_top is not None
        ids, texts, p, q, res = rec.residual_top
        assert all(pp > qq for pp, qq, r in zip(p, q, res) if r > 0)  # residual mass only where p > q
    else:
        assert rec.next_source == "bonus"


def test_sampled_speculation_is_reproducible_and_respects_budget(pair):
    target, draft = pair
    run = lambda: SpeculativeDecoder(target, draft, 4, "sample", settings=SamplingSettings(temperature=1.2),  # noqa: E731
                                     max_new_tokens=13, seed=9, stop_at_eos=False).start([1, 5]).run().tokens
    a = run()
    assert a == run() and len(a) == 13


@pytest.mark.parametrize("kw,needle", [({"n_draft": 0}, "N"), ({"rule": "maybe"}, "rule"),
                                       ({"rule": "topk", "verify_k": 0}, "K"), ({"n_draft": 10_000}, "context")])
def test_bad_settings(pair, kw, needle):
    target, draft = pair
    with pytest.raises(ValueError, match=needle):
        SpeculativeDecoder(target, draft, **kw)


def test_theory_curves():
    assert expected_tokens_per_step(0.0, 4) == 1.0
    assert expected_tokens_per_step(1.0, 4) == 5.0
    assert expected_tokens_per_step(0.5, 2) == pytest.approx(1.75)
    assert expected_speedup(0.5, 2, 0.25) == pytest.approx(1.75 / 1.5)


@pytest.mark.parametrize("q_row", [[0.0, 0.0, 0.5, 0.5], [0.9, 0.0, 0.0, 0.1]])
def test_rejection_sampling_is_lossless_with_a_reduced_draft_vocabulary(q_row):
    """q is zero outside the draft vocabulary (here 2 of 4 tokens) where p has mass: the residual
    max(0, p - q) keeps those tokens, so the output is still distributed as p."""
    p = P[:2]
    counts = first_token_histogram(p, torch.tensor([q_row]), 8000, seed=4)
    _, _, pval = chi_square(counts.numpy(), p[0].numpy())
    assert pval > 0.001


def test_reduced_vocabulary_draft(pair):
    """A draft restricted to 30 of its 50 tokens: proposals stay inside them, greedy output equals the
    target's greedy output, q is zero outside, and sampled output is distributed as the target's."""
    from decoding_core.draft import with_draft_vocab

    target, draft = pair
    d2t = torch.arange(0, 50, 5).tolist() + list(range(20, 40))
    small = with_draft_vocab(draft, torch.tensor(sorted(set(d2t))))
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23]):
        ref = greedy_decoder(target, 20, stop_at_eos=False).start(prompt).run().tokens
        dec = SpeculativeDecoder(target, small, 4, "greedy", max_new_tokens=20, stop_at_eos=False).start(prompt)
        assert dec.run().tokens == ref
        assert {d.token_id for s in dec.history for d in s.drafts} <= set(d2t)
    dec = SpeculativeDecoder(target, small, 3, "sample", max_new_tokens=8).start([1, 5, 9])
    ys, q = dec._propose(3)
    outside = torch.ones(50, dtype=torch.bool)
    outside[small.draft_vocab] = False
    assert float(q[:, outside].abs().max()) == 0.0 and torch.allclose(q.sum(-1), torch.ones(3))
    # lossless: the first token after [1, 5, 9] (one reduced-vocabulary draft, accepted or corrected) against the
    # target's own distribution
    with torch.no_grad():
        p0 = torch.softmax(target.model(input_ids=torch.tensor([[1, 5, 9]])).logits[0, -1].float(), -1)
    counts = torch.zeros(50)
    for seed in range(1500):
        out = SpeculativeDecoder(target, small, 1, "sample", max_new_tokens=2, seed=seed, stop_at_eos=False)
        counts[out.start([1, 5, 9]).run().tokens[0]] += 1
    keep = p0 > 0.01
    obs = torch.cat([counts[keep], counts[~keep].sum(0, keepdim=True)])
    exp = torch.cat([p0[keep], p0[~keep].sum(0, keepdim=True)])
    _, _, pval = chi_square(obs.numpy(), exp.numpy())
    assert pval > 0.001


def test_prompt_lookup_never_drafts_special_tokens():
    ctx = [7, 1, 5, 6, 2, 9, 5, 6]  # "5 6" was followed by 2 (a chat marker, say) then 9
    assert prompt_lookup(ctx, 3) == [2, 9, 5]
    assert prompt_lookup(ctx, 3, never=frozenset({2})) == []  # every match runs into the marker: no draft
    assert prompt_lookup([4, 5, 6, 9, 2, 4, 5], 3, never=frozenset({2})) == [6, 9]  # cut before the marker


def test_labels_name_what_happened():
    from viz.speculative import draft_rows, sig

    lm = make_tiny_lm()
    dec = SpeculativeDecoder(lm, None, 3, "greedy", max_new_tokens=6, stop_at_eos=False).start([1, 5, 9])
    first = dec.step()  # prompt lookup finds no earlier match in [1, 5, 9]: nothing drafted
    assert not first.drafts and first.next_source == "own"
    assert sig(0.0677) == "0.0677" and sig(3.2e-6) == "3.20e-06" and sig(0.0) == "0" and sig(None) == "–"
    draft = make_tiny_lm(seed=1)
    step = SpeculativeDecoder(lm, draft, 3, "greedy", max_new_tokens=8).start([1, 5, 9]).step()
    assert set(draft_rows(step, "greedy")[0]) == {"i", "draft token", "q(y) draft", "p(y) target", "result"}
    assert "u" in draft_rows(step, "sample")[0] and "q(y) draft" not in draft_rows(step, "greedy", has_q=False)[0]


@pytest.mark.parametrize("stop", [0.5, 0.75, 0.95])
def test_confidence_stop_keeps_greedy_output_and_stops_where_it_should(pair, stop):
    """With a confidence stop the draft proposes up to N tokens and stops right after one it gave q(y) < stop;
    greedy output is still the target's own, and the stop is visible in the step records."""
    target, draft = pair
    stopped = full = 0
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23]):
        ref = greedy_decoder(target, 30, stop_at_eos=False).start(prompt).run().tokens
        dec = SpeculativeDecoder(target, draft, 5, "greedy", max_new_tokens=30, stop_at_eos=False,
                                 stop_below=stop).start(prompt)
        while not dec.done:
            budget = 30 - len(dec.tokens)
            rec = dec.step()
            qs = [d.q for d in rec.drafts]
            assert all(q >= stop for q in qs[:-1]), qs     # it never goes on past an unsure token ...
            if len(qs) < min(5, budget - 1):
                assert qs and qs[-1] < stop                # ... and stops early only right after one
                stopped += 1
            else:
                full += 1
        assert dec.tokens == ref
        assert dec.metrics()["sizes"]["stop_below"] == stop
    assert stopped and full  # both branches ran


def first_two_tokens_match_the_target(target, prompt, make, trials=1200):
    """Sample ``trials`` runs of ``make(seed)`` (a started decoder) on ``prompt`` and chi-square-test their first two
    tokens against the target's own p(t1) p(t2 | t1) (likely pairs apart, the rest pooled). Returns the decoders."""
    with torch.no_grad():
        p1 = torch.softmax(target.model(input_ids=torch.tensor([prompt])).logits[0, -1].float(), -1)
        v = p1.numel()
        rows = torch.tensor([prompt] * v)
        p2 = torch.softmax(target.model(input_ids=torch.cat([rows, torch.arange(v)[:, None]], 1)).logits[:, -1].float(),
                           -1)
    joint = (p1[:, None] * p2).flatten()
    counts = torch.zeros(v * v)
    decs = []
    for seed in range(trials):
        dec = make(seed)
        out = dec.run().tokens
        decs.append(dec)
        counts[out[0] * v + out[1]] += 1
    keep = joint > 0.01
    obs = torch.cat([counts[keep], counts[~keep].sum(0, keepdim=True)])
    exp = torch.cat([joint[keep], joint[~keep].sum(0, keepdim=True)])
    _, _, pval = chi_square(obs.numpy(), exp.numpy())
    assert pval > 0.001
    return decs


def test_confidence_stop_keeps_rejection_sampling_lossless(pair):
    """The first two tokens of sampled speculation (N = 2, stop below 0.7: some first steps stop after one
    draft, some draft both) are distributed as the target's own p(t1) p(t2 | t1) (chi-square)."""
    target, draft = pair
    decs = first_two_tokens_match_the_target(target, [1, 5, 9], lambda seed: SpeculativeDecoder(
        target, draft, 2, "sample", max_new_tokens=3, seed=seed, stop_at_eos=False, stop_below=0.7).start([1, 5, 9]))
    lengths = {len(dec.history[0].drafts) for dec in decs}
    assert {1, 2} <= lengths  # the stop cut some first steps short, not all


def test_confidence_stop_is_checked(pair):
    target, draft = pair
    for bad in (-0.1, 1.0, float("nan")):
        with pytest.raises(ValueError, match="confidence stop"):
            SpeculativeDecoder(target, draft, 3, stop_below=bad)


def test_copy_candidate_needs_two_tokens_of_context_seen_before():
    from decoding_core.speculative import copy_candidate

    assert copy_candidate([1, 22, 23, 24, 22, 23]) == 24          # "22 23" seen before: 24 followed it
    assert copy_candidate([1, 22, 23, 24, 9, 23]) is None          # only "23" repeats: one token is too weak
    assert copy_candidate([1, 22, 23, 24, 9, 23], min_ngram=1) == 24
    assert copy_candidate([1, 22, 23, 24, 22, 23], never=frozenset({24})) is None
    assert copy_candidate([5, 7]) is None


@pytest.mark.parametrize("weight", [0.35, 0.9])
def test_copy_mix_keeps_greedy_output_and_marks_copied_drafts(pair, weight):
    """A draft mixed with a copy of the context proposes argmax of (1 - w) q + w [c]; greedy output is still
    the target's own; every draft marked copied is the copy's token where the draft's own argmax differed."""
    from decoding_core.speculative import copy_candidate

    target, draft = pair
    copied = 0
    for prompt in ([1, 22, 23, 24, 22, 23], [1, 5, 9, 5, 9, 5]):
        ref = greedy_decoder(target, 30, stop_at_eos=False).start(prompt).run().tokens
        dec = SpeculativeDecoder(target, draft, 4, "greedy", max_new_tokens=30, stop_at_eos=False,
                                 copy=weight).start(prompt)
        while not dec.done:
            ctx = dec.context
            rec = dec.step()
            for i, d in enumerate(rec.drafts):
                if d.copied:
                    copied += 1
                    assert d.token_id == copy_candidate(ctx + [x.token_id for x in rec.drafts[:i]])
                    assert d.q >= weight - 1e-6  # q' of a copied token includes the copy's weight
        assert dec.tokens == ref
        assert dec.metrics()["sizes"]["copy"] == weight
    assert copied  # the copy chose some drafts


def test_copy_mix_keeps_rejection_sampling_lossless(pair):
    """Sampled speculation with the draft mixed with a copy (w = 0.5, on a prompt whose last tokens repeat, so
    the copy is in play from the first draft): the first two tokens are distributed as the target's own
    p(t1) p(t2 | t1) (chi-square)."""
    target, draft = pair
    prompt = [1, 22, 23, 24, 22, 23]
    decs = first_two_tokens_match_the_target(target, prompt, lambda seed: SpeculativeDecoder(
        target, draft, 2, "sample", max_new_tokens=3, seed=seed, stop_at_eos=False, copy=0.5).start(prompt))
    copied = sum(dec.history[0].drafts[0].copied for dec in decs)
    assert 450 < copied < 750  # the copy's part is drawn about half the time


def test_copy_weight_is_checked(pair):
    target, draft = pair
    for bad in (-0.1, 0.95, float("nan"), True):
        with pytest.raises(ValueError, match="copy weight"):
            SpeculativeDecoder(target, draft, 3, copy=bad)
    assert SpeculativeDecoder(target, None, 3, copy=0.5).copy == 0.0  # prompt lookup copies already: no mix


def test_copied_drafts_are_marked_in_the_rows_and_the_text(pair):
    from viz.speculative import draft_rows, origin_html, step_rows

    target, draft = pair
    dec = SpeculativeDecoder(target, draft, 4, "greedy", max_new_tokens=20, stop_at_eos=False,
                             copy=0.9).start([1, 22, 23, 24, 22, 23])
    dec.run()
    drafts = [d for s in dec.history for d in s.drafts]
    assert any(d.copied for d in drafts) and not all(d.copied for d in drafts)
    step = next(s for s in dec.history if any(d.copied for d in s.drafts))
    rows = draft_rows(step, "greedy", True, copying=True)
    assert [r["source"] for r in rows] == ["copy" if d.copied else "draft" for d in step.drafts]
    assert "source" not in draft_rows(step, "greedy")[0]
    assert {r.get("source") for r in step_rows(dec.history, "greedy", True, True)} >= {"copy", None}
    shown = [d for s in dec.history for d in s.drafts if d.status in ("accepted", "rejected")]
    assert origin_html(dec.history).count("tok-copied") == sum(d.copied for d in shown)
    plain = SpeculativeDecoder(target, draft, 4, "greedy", max_new_tokens=20).start([1, 22, 23, 24, 22, 23])
    plain.run()
    assert "tok-copied" not in origin_html(plain.history)


def test_the_text_stops_at_an_eos_among_the_accepted_drafts():
    """A step whose accepted drafts hold an EOS emits up to it; the coloured text shows just that (no accepted draft
    after the EOS, no target token)."""
    from viz.speculative import origin_html

    ref = greedy_decoder(make_tiny_lm(), 12, stop_at_eos=False).start([1, 5, 9]).run().tokens
    i = next(i for i in range(1, 9) if ref[i] not in ref[:i])
    lm = make_tiny_lm(eos=ref[i])  # the same weights; the (i+1)-th greedy token is now the EOS
    dec = SpeculativeDecoder(lm, lm, 10, "greedy", max_new_tokens=12).start([1, 5, 9])  # a perfect draft
    dec.run()
    assert dec.tokens == ref[: i + 1]
    last = dec.history[-1]
    assert len(last.emitted) <= last.n_accepted  # the cut fell among the accepted drafts
    shown = origin_html(dec.history).split("</div>")[0].count('<span class="tok-')
    assert shown == len(dec.tokens)


def test_tokens_the_target_wrote_are_bold_as_well_as_coloured():
    """A second cue beside the colour (green accepted drafts and orange corrections read alike to a red-green
    colour-blind student): every token the target wrote is bold, no draft is; the legend says so; Compare's strip too."""
    import re

    from viz.compare import origin_strip
    from viz.speculative import origin_html

    lm = make_tiny_lm()
    dec = SpeculativeDecoder(lm, make_tiny_lm(seed=3), 3, "greedy", max_new_tokens=12, stop_at_eos=False)
    dec.start([1, 5, 9]).run()
    text = origin_html(dec.history).split("</div>")[0]
    spans = re.findall(r'<span class="tok-(\w+)[^"]*"[^>]*style="([^"]*)"', text)
    assert {o for o, _ in spans} >= {"accepted", "correction"} or {o for o, _ in spans} >= {"rejected", "correction"}
    assert all(("font-weight:700" in style) == (o in ("correction", "bonus", "own")) for o, style in spans)
    assert "bold: written by the target" in origin_html(dec.history)
    strip = origin_strip(["a", "b", "c"], ["accepted", "target", "accepted"])
    assert [("font-weight:700" in st) for st in re.findall(r'<span title="[^"]*" style="([^"]*)"', strip)] == [
        False, True, False]


# -- a tree around the chain: runner-up leaves and a lookup branch ------------------------------------------------
def test_tree_rules_by_hand():
    """Root 0; chain 1 -> 2; a runner-up leaf 3 beside node 1; a lookup branch 4 -> 5 from the root."""
    from decoding_core.speculative import verify_tree

    tokens, parents, rows = [9, 0, 1, 2, 3, 0], [-1, 0, 1, 0, 0, 4], [None, 0, 1, None, None, None]
    p = torch.full((6, 4), 0.25)
    p[0] = torch.tensor([0.1, 0.2, 0.3, 0.4])   # argmax 3: the lookup branch's first token
    p[4] = torch.tensor([0.7, 0.1, 0.1, 0.1])   # then 0: the lookup branch's second token
    p[5] = torch.tensor([0.0, 0.0, 1.0, 0.0])
    p[3] = torch.tensor([0.0, 0.0, 0.0, 1.0])
    path, nxt, trials, res = verify_tree(tokens, parents, p, None, rows, "greedy")
    assert path == [0, 4, 5] and nxt == 2 and res is None
    path, nxt, _, _ = verify_tree(tokens, parents, p, None, rows, "topk", k=3)  # the chain's token 0 is not in the top 3
    assert path == [0, 3] and nxt == 3                                             # the runner-up (token 2) is
    # sample: the chain child (q = 1 on token 0, p = 0.1) is accepted with probability 0.1; then the runner-up as a
    # point mass against norm(max(0, p - q)) = [0, 2, 3, 4] / 9
    q = torch.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    g = torch.Generator().manual_seed(0)
    counts = {}
    for _ in range(3000):
        path, nxt, trials, _ = verify_tree(tokens, parents, p, q, rows, "sample", generator=g)
        counts[path[1] if len(path) > 1 else -nxt - 1] = counts.get(path[1] if len(path) > 1 else -nxt - 1, 0) + 1
        assert trials[1][0] == pytest.approx(0.1)
        if 3 in trials:
            assert trials[3][0] == pytest.approx(3 / 9)
    assert counts.get(1, 0) / 3000 == pytest.approx(0.1, abs=0.02)                  # chain accepted
    assert counts.get(3, 0) / 3000 == pytest.approx(0.9 * 3 / 9, abs=0.03)          # runner-up accepted
    assert counts.get(4, 0) / 3000 == pytest.approx(0.9 * 4 / 9, abs=0.03)          # lookup accepted (4 / 6 of the rest)
    assert counts.get(-2, 0) / 3000 == pytest.approx(0.9 * 2 / 9, abs=0.03)         # no child: token 1 drawn


def test_a_runner_up_drawn_without_replacement_keeps_sampling_lossless_by_hand():
    """Under rejection sampling the runner-up is a second draw from q without the chain's token (runner_up_q) and is
    verified against that q': the first token comes out distributed as p, and the runner-up is taken as often as
    sum_x min(residual(x), q'(x)) says (here: y = 0 drawn (0.6), rejected (5/6), residual [0, 0, .2, .8], q' = [0, .5,
    .5, 0]: 0.6 * 5/6 * 0.2 = 0.1)."""
    from decoding_core.speculative import runner_up_q, verify_tree

    p0, q0 = torch.tensor([0.1, 0.2, 0.3, 0.4]), torch.tensor([0.6, 0.2, 0.2, 0.0])
    assert runner_up_q(q0[None], [0])[0].tolist() == [0.0, 0.5, 0.5, 0.0]
    assert runner_up_q(torch.tensor([[0.0, 1.0]]), [1]).tolist() == [[0.0, 0.0]]  # nothing left to draw
    confident = torch.softmax(torch.tensor([[40.0, 0.0, -1.0], [0.0, 0.3, 0.1]]) * 20, -1)  # a very low temperature
    rows = runner_up_q(confident, [0, 1])
    assert rows[0].tolist() == [0.0, 0.0, 0.0]   # a sliver of mass left: no runner-up rather than a mis-normalised q'
    assert float(rows[1].sum()) == pytest.approx(1.0, abs=1e-6) and float(rows[1, 1]) == 0.0
    g, n = torch.Generator().manual_seed(1), 8000
    first, runner_up_taken = torch.zeros(4), 0
    for _ in range(n):
        y = int(torch.multinomial(q0, 1, generator=g))
        q_alt = runner_up_q(q0[None], [y])
        x = int(torch.multinomial(q_alt[0], 1, generator=g))
        p = torch.stack([p0, torch.full((4,), 0.25), torch.full((4,), 0.25)])
        path, nxt, trials, _ = verify_tree([9, y, x], [-1, 0, 0], p, torch.cat([q0[None], q_alt]), [None, 0, 1],
                                           "sample", generator=g)
        if 2 in trials:
            assert trials[2][0] == pytest.approx(min(1.0, float((torch.clamp(p0 - q0, min=0) / 0.5)[x]) / 0.5))
        first[[9, y, x][path[1]] if len(path) > 1 else nxt] += 1
        runner_up_taken += path[1:] == [2]
    assert (first / n).tolist() == pytest.approx(p0.tolist(), abs=0.015)
    assert runner_up_taken / n == pytest.approx(0.1, abs=0.012)


@pytest.mark.parametrize("kw", [{"lookup": 6}, {"runner_up": True}, {"lookup": 6, "runner_up": True, "copy": 0.3}])
def test_tree_around_the_chain_keeps_greedy_output(pair, kw):
    target, draft = pair
    branch_used = 0
    for prompt in ([1, 22, 23, 24, 22, 23], [1, 5, 9, 5, 9, 5], [1, 5, 9]):
        ref = greedy_decoder(target, 30, stop_at_eos=False).start(prompt).run().tokens
        dec = SpeculativeDecoder(target, draft, 3, "greedy", max_new_tokens=30, stop_at_eos=False, **kw).start(prompt)
        out = dec.run()
        assert out.tokens == ref
        for s in dec.history:
            assert list(s.emitted) == ([d.token_id for d in s.drafts if d.status == "accepted"]
                                       + [d.token_id for d in s.accepted_branch] + [s.next_token])[: len(s.emitted)]
            assert s.n_drafted == len(s.drafts) + len(s.branch)
            assert all(d.source == ("lookup" if "runner_up" not in kw else d.source) for d in s.branch)
        branch_used += sum(len(s.accepted_branch) for s in dec.history)
        sizes = out.metrics["sizes"]
        assert sizes.get("lookup", 0) == kw.get("lookup", 0) and sizes.get("runner_up", False) == kw.get("runner_up", False)
    assert branch_used  # the tree gave tokens the chain did not


def test_tree_step_caches_match_a_fresh_run(pair):
    target, draft = pair
    dec = SpeculativeDecoder(target, draft, 3, "sample", max_new_tokens=40, seed=4, stop_at_eos=False, lookup=5,
                             runner_up=True).start([1, 22, 23, 24, 22, 23])
    branch = 0
    while not dec.done:
        rec = dec.step()
        branch += len(rec.accepted_branch)
        caches_match_a_fresh_run(dec, target, draft)
    assert branch  # some steps went down the branch (the caches were moved)


def test_tree_around_the_chain_keeps_rejection_sampling_lossless(pair):
    """Sampled speculation with runner-up leaves and a lookup branch on a prompt whose last tokens repeat: the first
    two tokens are distributed as the target's own p(t1) p(t2 | t1) (chi-square), and the branch was tried and taken."""
    target, draft = pair
    prompt = [1, 22, 23, 24, 22, 23]
    decs = first_two_tokens_match_the_target(target, prompt, lambda seed: SpeculativeDecoder(
        target, draft, 2, "sample", max_new_tokens=3, seed=seed, stop_at_eos=False, lookup=3,
        runner_up=True).start(prompt))
    taken = {d.source for dec in decs for s in dec.history for d in s.accepted_branch}
    tried = {d.source for dec in decs for s in dec.history for d in s.branch if d.uniform is not None}
    assert taken == tried == {"lookup", "runner-up"}  # the runner-ups: second draws from q, verified against q'


def test_tree_settings_are_checked(pair):
    target, draft = pair
    for kw, needle in (({"lookup": 17}, "lookup branch"), ({"lookup": -1}, "lookup branch"),
                       ({"lookup": True}, "lookup branch"), ({"runner_up": 1}, "runner-up")):
        with pytest.raises(ValueError, match=needle):
            SpeculativeDecoder(target, draft, 3, **kw)
    # a tree is verified by the eager forward whatever the backend asked (as EAGLE's); a chain keeps the backend
    assert SpeculativeDecoder(target, draft, 3, lookup=4, backend="static").target.backend == "eager"
    assert SpeculativeDecoder(target, draft, 3, backend="static").target.backend == "static"
    lookup_draft = SpeculativeDecoder(target, None, 3, lookup=4, runner_up=True)  # prompt lookup: a chain already
    assert lookup_draft.lookup == 0 and not lookup_draft.runner_up


def test_tree_replay_matches_the_decoder(pair):
    """sizing's replay of greedy verification with the tree gives the decoder's own tokens per forward, and the mean
    size of its verify passes (the drafted nodes and the root of each step's tree)."""
    from decoding_core.sizing import chain_tau_table, size_shares

    target, draft = pair
    prompts = [[1, 22, 23, 24, 22, 23], [1, 5, 9, 5, 9, 5]]
    sizes, shares = {}, {}
    table = chain_tau_table(target, draft, prompts, 24, (2, 3), lookup=5, runner_up=True, verify_tokens=sizes,
                            pass_sizes=shares)
    for n in (2, 3):
        tokens = forwards = drafted = 0
        passes = []
        for prompt in prompts:
            dec = SpeculativeDecoder(target, draft, n, "greedy", max_new_tokens=24, lookup=5, runner_up=True)
            m = dec.start(prompt).run().metrics
            tokens, forwards, drafted = tokens + m["new_tokens"], forwards + m["target_forwards"], drafted + m["drafted"]
            passes += [1 + s.n_drafted for s in dec.history]  # the root and every drafted node
        assert table[n] == pytest.approx(tokens / forwards)
        assert sizes[n] == pytest.approx((drafted + forwards) / forwards)
        assert shares[n] == size_shares(passes)  # how often each pass size came, as the decoder ran it
    assert 1 < sizes[2] < sizes[3] <= 2 * 3 + 1 + 5  # the root, the chain, its runners-up, some of the branch


def test_branch_tokens_after_an_eos_were_not_emitted():
    """A step whose accepted path holds an EOS on the chain, then a runner-up: only up to the EOS is emitted, so the
    runner-up is not counted as taken from beside the chain (the page's caption and violet marks read this)."""
    from decoding_core.speculative import DraftToken, SpecStep

    eos = DraftToken(2, "</s>", 0.9, 0.8, 1.0, None, "accepted", source="draft", depth=1)
    alt = DraftToken(7, "x", 0.6, 0.1, 1.0, None, "accepted", source="runner-up", depth=2)
    step = SpecStep(0, (eos,), 2, 5, "y", "bonus", (2,), None, 0.0, 0.0, 0.0, (alt,))
    assert step.accepted_branch == () and step.n_drafted == 2
    whole = SpecStep(0, (eos,), 2, 5, "y", "bonus", (2, 7, 5), None, 0.0, 0.0, 0.0, (alt,))
    assert whole.accepted_branch == (alt,)


def test_a_lookup_branch_copies_after_two_matching_tokens_only():
    """The branch beside a draft copies after a match of 2-3 tokens (a single matching token is too weak to pay for
    the longer pass); the prompt-lookup draft alone still copies after one."""
    from decoding_core.speculative import lookup_branch, prompt_lookup

    one = [1, 7, 8, 9, 4, 7]          # only the last token, 7, occurred before
    two = [1, 7, 8, 9, 4, 9, 4]       # the last two, (9, 4), occurred before
    assert prompt_lookup(one, 3) == [8, 9, 4] and lookup_branch(one, 3) == []
    assert lookup_branch(two, 3) == [9, 4] and lookup_branch(two, 3, frozenset({9})) == []


def test_a_tokenizer_mismatch_counts_the_target_tokens_the_draft_reads_otherwise():
    """Same size, other ids: the message counts the target's tokens whose id differs (it said "98,304 differ" for two
    49,152-token vocabularies: both sides of a set difference)."""
    from types import SimpleNamespace as NS

    from decoding_core.draft import check_same_tokenizer
    from decoding_core.models import ModelLoadError

    def model(vocab, name):
        return NS(tokenizer=NS(get_vocab=lambda: vocab), name=name, vocab_size=len(vocab))

    target = model({"a": 0, "b": 1, "c": 2, "d": 3}, "T")
    with pytest.raises(ModelLoadError, match=r"4 vs 4 tokens; 2 have another id in the draft or are missing"):
        check_same_tokenizer(target, model({"a": 0, "b": 1, "d": 2, "c": 3}, "D"))  # two ids swapped
    with pytest.raises(ModelLoadError, match=r"4 vs 4 tokens; 2 have"):
        check_same_tokenizer(target, model({"a": 0, "b": 1, "c": 2, "e": 3}, "D"))  # one token each side alone
    with pytest.raises(ModelLoadError, match=r"5 vs 4 tokens; 1 have"):
        check_same_tokenizer(target, model({"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}, "D"))  # the target's and one more
    check_same_tokenizer(target, model({"a": 0, "b": 1, "c": 2, "d": 3}, "D"))  # the same: no error
