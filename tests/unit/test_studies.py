"""Strategies built from settings, and every study, on tiny models built here (exact where the rules say)."""
import json

import pytest
import torch

from decoding_core.decoders import greedy_decoder
from decoding_core.eagle_head import EagleHead
from decoding_core.settings import (Beam, BeamSettings, Eagle, Greedy, RunSettings, Sample, SamplingSettings,
                                    Speculative)
from decoding_core.strategies import Loaders, build_decoder, describe, resolve_sizes
from decoding_core.studies import as_json, beam, compare, sampling, speculative
from tests.conftest import make_tiny_lm

PROMPT = [1, 5, 9, 4]


@pytest.fixture(scope="module")
def target():
    return make_tiny_lm(seed=0)


@pytest.fixture(scope="module")
def loaders(target):
    draft = make_tiny_lm(seed=1)  # another model: a draft that often disagrees
    head = EagleHead(target.model.config).eval().requires_grad_(False)
    return Loaders(draft=lambda t, source: None if source == "prompt-lookup" else draft,
                   head=lambda t, kind: head,
                   chain_size=lambda t, d, source, *tree: {"n_draft": 3, "reason": "measured"},
                   tree_size=lambda t, h, kind, top_k, lookup, corpus=False: {"total_tokens": 10, "depth": 3, "reason": "measured"})


def test_decoders_built_from_settings(target, loaders):
    run = RunSettings(12, stop_at_eos=False)
    greedy = greedy_decoder(target, 12, stop_at_eos=False).start(PROMPT).run().tokens
    assert build_decoder(target, Greedy(), run).start(PROMPT).run().tokens == greedy
    spec = build_decoder(target, Speculative(), run, loaders)
    assert spec.n_draft == 3 and spec.chosen_by == "auto (measured on this device)"
    assert spec.start(PROMPT).run().tokens == greedy
    fixed = build_decoder(target, Speculative(n_draft=2), run, loaders)
    assert fixed.n_draft == 2 and fixed.chosen_by == "given"
    eg = build_decoder(target, Eagle(head="eagle1"), run, loaders)
    assert (eg.total_tokens, eg.depth) == (10, 3)
    assert eg.start(PROMPT).run().tokens == greedy
    assert build_decoder(target, Beam(BeamSettings(num_beams=1)), run).start(PROMPT).run().tokens == greedy
    with pytest.raises(ValueError, match="eager"):
        build_decoder(target, Beam(), RunSettings(backend="static"))
    sizes = resolve_sizes(target, Speculative(draft="prompt-lookup"), draft=None, loaders=loaders)
    assert sizes.n_draft == 4 and "reference" in sizes.choice["reason"]
    assert describe(Eagle(head="eagle3"), resolve_sizes(target, Eagle(), head=None, head_kind="eagle3",
                                                        loaders=loaders)) == \
        "EAGLE (EAGLE-3, dynamic tree, 10 tokens, depth 3)"


def test_compare_greedy_family_agrees_and_sampling_is_marked(target, loaders):
    strategies = [Greedy(), Beam(BeamSettings(num_beams=1)), Speculative(n_draft=3), Speculative("prompt-lookup", 2),
                  Eagle(head="eagle1"), Sample(SamplingSettings(temperature=1.5))]
    rec = compare.compare(target, PROMPT, strategies, RunSettings(10, stop_at_eos=False), loaders=loaders)
    assert rec.reference == "greedy" and len(rec.runs) == 6
    assert [r.same_as_reference for r in rec.runs[1:5]] == [True] * 4
    assert rec.runs[0].speedup is None and all(r.speedup > 0 for r in rec.runs[1:])
    assert rec.runs[2].tau >= 1 and rec.runs[0].tau is None
    assert all(r.new_tokens == 10 for r in rec.runs)
    json.dumps(as_json(rec))


def test_compare_rows_carry_the_output_its_origins_log_prob_and_seed_overlap(target, loaders):
    run = RunSettings(10, stop_at_eos=False)
    rec = compare.compare(target, PROMPT, [Greedy(), Speculative(n_draft=3), Eagle(head="eagle1"),
                                           Sample(SamplingSettings(temperature=1.5))], run, loaders=loaders, seeds=3)
    greedy, spec, eagle, sample = rec.runs
    for r in rec.runs:
        assert len(r.token_texts) == len(r.token_probs) == r.new_tokens == 10
        assert r.logprob == pytest.approx(beam.sequence_logprob(target, PROMPT, r.tokens), abs=1e-4)
        assert r.spec and r.seeds == 3
    # drafting strategies: every token has its origin, and the accepted ones are the accepted drafts emitted
    dec = build_decoder(target, Speculative(n_draft=3), run, loaders).start(PROMPT)
    dec.run()
    assert spec.origins == compare.origins(dec, 10) and len(spec.origins) == 10
    assert set(spec.origins) <= {"accepted", "correction", "bonus", "own"}
    assert spec.origins.count("accepted") == sum(s.n_accepted for s in dec.history) - (
        sum(len(s.emitted) for s in dec.history) - 10)  # the last step's cut tokens are not shown
    assert set(eagle.origins) <= {"accepted", "target"} and len(eagle.origins) == 10
    assert greedy.origins == () and sample.origins == ()
    # greedy's probabilities are those it drew with; deterministic strategies overlap fully across seeds
    g = build_decoder(target, Greedy(), run).start(PROMPT)
    g.run()
    assert greedy.token_probs == tuple(s.prob for s in g.history)
    assert greedy.overlap == pytest.approx(1.0) and 0.0 <= sample.overlap < 1.0
    # the table leads with what to look at first: the speed-up and whether the text is the reference's
    from viz.tables import compare_rows

    rows = compare_rows(rec)
    assert list(rows[1])[:3] == ["strategy", "speed-up", "same text as reference"]
    assert rows[1]["same text as reference"] == "yes" and rows[3]["same text as reference"] == "no"
    # the CSV's rows: numbers a spreadsheet can sum and chart, one column per depth, empty cells where none applies
    from viz.export import rows_csv
    from viz.tables import compare_csv_rows

    csv_rows = compare_csv_rows(rec)
    assert [r["reference"] for r in csv_rows] == ["yes", "no", "no", "no"] and csv_rows[0]["speed-up"] == 1.0
    assert all(isinstance(r["speed-up"], float) for r in csv_rows)
    assert csv_rows[0]["τ"] is None and csv_rows[1]["τ"] == pytest.approx(spec.tau, abs=1e-3)
    depth_cols = [k for k in csv_rows[0] if k.startswith("acceptance depth ")]
    assert len(depth_cols) == max(len(r.acceptance_by_depth) for r in rec.runs) >= 1
    assert csv_rows[2][depth_cols[0]] == pytest.approx(eagle.acceptance_by_depth[0], abs=1e-3)
    assert csv_rows[3]["overlap (seeds)"] == pytest.approx(sample.overlap, abs=1e-3) and csv_rows[3]["seeds"] == 3
    text = rows_csv(csv_rows).decode("utf-8-sig")
    assert "–" not in text and "(reference)" not in text and " / " not in text.split("\n")[1]


def test_compare_reports_a_strategy_that_cannot_be_built(target, loaders):
    rec = compare.compare(target, PROMPT, [Greedy(), Beam(BeamSettings(num_beams=99))], RunSettings(5),
                          loaders=loaders)
    assert rec.runs[1].error and "beam width" in rec.runs[1].error and rec.runs[0].error is None


def test_a_comparisons_progress_names_which_run_of_how_many(target, loaders):
    """The bar spans all runs, so its label says which run it is at ("2 of 3 · sampling ..."), not only the tokens of
    the run under way (which read "32 of 32" while the bar stood at a third)."""
    said = []
    compare.compare(target, PROMPT, [Greedy(), Sample(SamplingSettings(temperature=0.8)), Greedy()],
                    RunSettings(5, stop_at_eos=False), loaders=loaders, progress=lambda f, what: said.append(str(what)))
    starts = [w for w in said if " of 3 · " in w]
    assert list(dict.fromkeys(w.split(" · ")[0] for w in starts)) == ["1 of 3", "2 of 3", "3 of 3"]  # in order
    assert said[-1] == "done"


def test_sampling_studies(target):
    s = SamplingSettings(top_k=3)
    nt = sampling.next_token(target, PROMPT, s, top_n=10)
    assert nt.kept == 3 and len(nt.ids) == 10 and sum(nt.processed) == pytest.approx(1.0, abs=1e-5)
    assert list(nt.raw) == sorted(nt.raw, reverse=True)
    fit = sampling.sampler_fit(target, PROMPT, SamplingSettings(temperature=3.0), ("multinomial", "gumbel", "exp-race"),
                               draws=4000, seed=0)
    assert [r.sampler for r in fit.runs] == ["multinomial", "gumbel", "exp-race"]
    assert all(r.p_value > 1e-3 and r.tv < 0.1 for r in fit.runs)  # exact samplers fit the softmax
    rn = sampling.reused_noise(target, PROMPT, SamplingSettings(temperature=3.0), steps=300, seed=0)
    assert rn.distinct_reused == 1 and rn.distinct_fresh > 5  # reused noise always picks the same token
    with pytest.raises(ValueError, match="sampler"):
        sampling.sampler_fit(target, PROMPT, s, ("dice",))
    json.dumps(as_json(fit))


def test_beam_studies(target):
    strategy = Beam(BeamSettings(num_beams=3, rp=0.3), SamplingSettings(temperature=1.5))
    run = RunSettings(8)
    sv = beam.pruning_savings(target, PROMPT, strategy, run)
    assert [r.search for r in sv.rows] == ["with pruning", "pruning off"]
    assert sv.rows[0].hypotheses_fed <= sv.rows[1].hypotheses_fed and 0 <= sv.saved < 1
    reports = []
    div = beam.diversity(target, PROMPT, strategy, run, seeds=3, prefix_m=2, progress=lambda f, what: reports.append(f))
    # the bar: shown at once, one report per search (plain beam once, 3 seeds of two methods, stochastic), ends full
    assert reports == [i / 8 for i in range(9)]
    plain, hybrid, _, sbs = div.rows
    assert [r.method for r in div.rows] == ["plain beam", "sample 2 then beam", "sampling",
                                            "stochastic beam (one run, k = n)"]
    assert plain.pairwise_overlap == 1.0 and len(hybrid.outputs) == 3 and div.seeds == (0, 1, 2)
    assert len(set(sbs.outputs)) == 3  # sampled without replacement: distinct
    assert all(r.mean_logprob <= 0 for r in div.rows)
    full = torch.log_softmax(target.model(torch.tensor([PROMPT + [7, 8]])).logits[0].float(), -1)
    assert beam.sequence_logprob(target, PROMPT, [7, 8]) == pytest.approx(float(full[3, 7] + full[4, 8]), abs=1e-4)
    stopped = beam.diversity(target, PROMPT, strategy, run, seeds=3, should_stop=lambda: True)
    assert stopped.stopped and not stopped.rows


def test_speculative_studies(target, loaders):
    sweep = speculative.n_sweep(target, PROMPT, Speculative(n_draft=1), RunSettings(12), max_n=3, loaders=loaders)
    assert [r.n for r in sweep.rows] == [1, 2, 3] and all(1 <= r.tau <= r.n + 1 for r in sweep.rows)
    assert sweep.rows[0].tau_theory == pytest.approx(1 + sweep.alpha)
    assert all(r.step_ms_p90 >= r.step_ms_median > 0 and r.draft_ms_per_step > 0 for r in sweep.rows)
    mib = [r.step_mib for r in sweep.rows]  # (4N + 2) rows of V float32 numbers
    assert mib == pytest.approx([(4 * n + 2) * target.vocab_size * 4 / 2**20 for n in (1, 2, 3)])
    assert all(r.repeats == 1 and r.speedup_sd == 0.0 for r in sweep.rows)
    twice = speculative.n_sweep(target, PROMPT, Speculative(n_draft=1), RunSettings(12), max_n=2, loaders=loaders,
                                repeats=2)
    assert [r.repeats for r in twice.rows] == [2, 2] and all(r.speedup_sd >= 0 for r in twice.rows)
    assert [r.tau for r in twice.rows] == pytest.approx([r.tau for r in sweep.rows[:2]])  # greedy: the same tokens
    with pytest.raises(ValueError, match="repeats"):
        speculative.n_sweep(target, PROMPT, Speculative(n_draft=1), RunSettings(12), max_n=2, repeats=0)
    assert sweep.level_with_best() == ()  # one repeat: no spread, no verdict
    # hand-made rows: N = 1 and 3 overlap the best's ± sd, N = 4 does not
    from dataclasses import replace as with_

    base = with_(sweep.rows[0], repeats=3)
    rows = tuple(with_(base, n=n, speedup=v, speedup_sd=sd) for n, v, sd in
                 ((1, 1.40, 0.10), (2, 1.55, 0.06), (3, 1.49, 0.01), (4, 1.20, 0.05)))
    assert with_(sweep, rows=rows).level_with_best() == (1, 3)
    drift = speculative.topk_drift(target, loaders.draft(target, "embedded"), PROMPT,
                                   Speculative(rule="topk", sampling=SamplingSettings(temperature=2.0)), k=10,
                                   trials=3000, seed=0)
    tv = drift.tv
    assert tv["rejection sampling"] < 0.08 < tv["top-10 (notes)"]  # lossless vs drifting towards the draft
    # the noise floor the caption quotes: what an M-draw histogram of p itself is off by, the lossless rule's TV
    assert 0.2 * drift.tv_noise < tv["rejection sampling"] < 3 * drift.tv_noise < tv["top-10 (notes)"]
    json.dumps(as_json(drift))


def test_pruning_sweep_recommends_the_largest_saving_that_keeps_the_answer(target):
    from decoding_core.studies.pruning import PAPER, pruning_sweep

    prompts = [[1, 5, 9], [1, 7, 3], [1, 2, 8]]
    grid = [{"rp": 0.9}, {"rp": 0.3}, {"ap": 1.0}, {"mc": 1}, PAPER]
    reports = []
    sweep = pruning_sweep(target, prompts, Beam(BeamSettings(4)), RunSettings(8), grid=grid,
                          progress=lambda frac, what: reports.append(frac))
    # the bar moves from the start (before the warm-up search, then after every search) and ends full
    assert reports[0] == 0 and reports == sorted(reports) and reports[-1] == 1
    assert len(reports) == 1 + len(prompts) * (2 + len(grid)) - sweep.reused  # a reused search is not run
    assert [r.label for r in sweep.rows] == ["rp 0.9", "rp 0.3", "ap 1", "mc 1", "rp 0.6, ap 2.5, rpl 0.02, mc 3"]
    assert [r.paper for r in sweep.rows] == [False] * 4 + [True]
    assert all(0 <= r.best_unchanged <= 1 and r.expansions_saved <= 1 and r.score_lost >= 0 for r in sweep.rows)
    ok = [r for r in sweep.rows if r.best_unchanged >= 0.9]
    if ok:
        best = max(ok, key=lambda r: r.expansions_saved)
        assert sweep.recommendation["settings"] == best.settings
        assert sweep.recommendation["best_unchanged"] >= 0.9
    else:
        assert sweep.recommendation is None
    strict = pruning_sweep(target, prompts, Beam(BeamSettings(4)), RunSettings(8), grid=grid, fidelity=1.01)
    assert strict.recommendation is None  # nothing can keep more than every prompt
    json.dumps(as_json(sweep))
    # a threshold that prunes nothing runs the same search: no time saved, not the machine's noise
    loose = pruning_sweep(target, prompts, Beam(BeamSettings(4)), RunSettings(8), grid=[{"ap": 1000.0}])
    assert loose.rows[0].expansions_saved == 0 and loose.rows[0].best_unchanged == 1
    assert loose.rows[0].time_saved == 0
    assert loose.reused == len(prompts)  # ap 1000 prunes nothing: the bar ends full without a pruned search
    ends = []
    pruning_sweep(target, prompts, Beam(BeamSettings(4)), RunSettings(8), grid=[{"ap": 1000.0}],
                  progress=lambda frac, what: ends.append(frac))
    assert ends == sorted(ends) and ends[-1] == 1 and len(ends) == 1 + 2 * len(prompts) + 1


@pytest.mark.parametrize("beam", [{}, {"eos_policy": "in-beam"}, {"sample_prefix": 2}, {"early_stopping": True},
                                  {"eos_policy": "in-beam", "sample_prefix": 1, "length_penalty": 0.0}],
                         ids=["finished-set", "in-beam", "sampled-prefix", "early-stopping", "in-beam-prefix"])
def test_a_setting_that_would_prune_nothing_is_the_search_without_pruning(target, monkeypatch, beam):
    """The sweep does not run again a setting whose rules prune no candidate along the search without pruning: that
    search meets the same candidates, makes every decision the same and is the same search. Checked on every setting
    of the page's grid: where ``prunes_nothing`` says so the pruned search's steps equal the unpruned ones, elsewhere
    it pruned something; and the whole sweep's figures (all but wall time) equal those of a sweep that runs every
    search."""
    from dataclasses import replace as with_

    from decoding_core.strategies import build_decoder
    from decoding_core.studies import pruning

    prompts = [[1, 5, 9], [1, 7, 3], [1, 2, 8], [4, 4, 4, 4]]
    plain_strategy = Beam(with_(BeamSettings(4, **beam).without_pruning(), literal_rp=False))
    same = differ = 0
    for ids in prompts:
        plain = build_decoder(target, plain_strategy, RunSettings(8)).start(ids)
        plain.run()
        for setting in pruning.GRID:
            beam = with_(plain_strategy.beam, **setting)
            dec = build_decoder(target, Beam(beam), RunSettings(8)).start(ids)
            dec.run()
            steps = [[(c.token_id, c.score, c.status) for c in s.candidates] for s in dec.history]
            if pruning.prunes_nothing(plain.history, beam):
                same += 1
                assert steps == [[(c.token_id, c.score, c.status) for c in s.candidates] for s in plain.history]
                assert dec.hypotheses() == plain.hypotheses()
            else:
                differ += 1
                assert any(c.status == "pruned" for s in dec.history for c in s.candidates), setting
    assert same and differ  # both cases met
    fast = pruning.pruning_sweep(target, prompts, plain_strategy, RunSettings(8))
    assert fast.reused == same and fast.searches == len(prompts) * len(pruning.GRID)
    monkeypatch.setattr(pruning, "prunes_nothing", lambda history, beam: False)
    every = pruning.pruning_sweep(target, prompts, plain_strategy, RunSettings(8))
    assert every.reused == 0
    figures = [[(r.label, r.expansions_saved, r.best_unchanged, r.score_lost) for r in w.rows] for w in (fast, every)]
    assert figures[0] == figures[1] and fast.recommendation == every.recommendation


def test_pruning_sweep_stops_during_the_searches_without_pruning(target):
    """A Stop while the unpruned searches run ends the sweep there (it was only seen once they were all done: a
    minute on the page) and returns no row: nothing was compared."""
    from decoding_core.studies.pruning import pruning_sweep

    prompts = [[1, 5, 9], [1, 7, 3], [1, 2, 8]]
    reports = []
    sweep = pruning_sweep(target, prompts, Beam(BeamSettings(4)), RunSettings(8), grid=[{"rp": 0.9}, {"ap": 1.0}],
                          progress=lambda frac, what: reports.append(frac), should_stop=lambda: len(reports) >= 3)
    assert sweep.stopped and sweep.rows == () and sweep.recommendation is None
    assert len(reports) == 3  # the start and two searches without pruning; none after the Stop


def test_drift_matches_the_decoders_rules(target, loaders):
    """The vectorised drift draws from each rule's exact first-token law, and that law is what the decoder's
    own verify_topk / verify_sample produce one trial at a time."""
    from decoding_core.speculative import verify_sample, verify_topk

    strategy = Speculative(rule="topk", sampling=SamplingSettings(temperature=2.0))
    drift = speculative.topk_drift(target, loaders.draft(target, "embedded"), PROMPT, strategy, k=3,
                                   trials=40000, seed=1, shown=target.vocab_size)
    for name in drift.freq:
        tv = 0.5 * sum(abs(f - e) for f, e in zip(drift.freq[name], drift.exact[name]))
        assert tv < 0.03, (name, tv)
    assert drift.tv_exact["rejection sampling"] == pytest.approx(0.0, abs=1e-6)
    assert drift.tv_exact["top-3 (notes)"] > 0.05
    p = torch.tensor(drift.p)[None].repeat(2, 1)
    q = torch.tensor(drift.q)[None]
    gen = torch.Generator().manual_seed(2)
    order = {t: i for i, t in enumerate(drift.ids)}
    counts = {"topk": torch.zeros(len(order)), "sample": torch.zeros(len(order))}
    for _ in range(4000):
        y = int(torch.multinomial(q[0], 1, generator=gen))
        v = verify_topk([y], p, 3, gen)
        counts["topk"][y if v.n_accepted else v.next_token] += 1
        v = verify_sample([y], p, q, torch.rand(1, generator=gen), gen)
        counts["sample"][y if v.n_accepted else v.next_token] += 1
    for rule, name in (("topk", "top-3 (notes)"), ("sample", "rejection sampling")):
        tv = 0.5 * float((counts[rule] / 4000 - torch.tensor(drift.exact[name])).abs().sum())
        assert tv < 0.06, (rule, tv)
