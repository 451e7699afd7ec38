"""AppTest drives the Beam Search page: step, prune, the literal-rule pitfall, the diversity panel."""
import re

from tests.app.conftest import open_app

PAGE = "pages/beam.py"


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_step_and_run_with_pruning_reports_savings():
    at = open_app(PAGE)
    at.slider(key="beam_max_new").set_value(8).run()
    at.button(key="beam_step").click().run()
    assert [s.value for s in at.subheader] == ["Step 1"]
    assert len(at.get("graphviz_chart")) == 1
    assert metric(at, "Candidates") == "8"  # 2k candidates (finished-set policy)
    # the totals are those of the step shown: step 1 scored the prompt's one forward
    assert (metric(at, "Hypotheses fed"), metric(at, "Total fed"), metric(at, "Forwards")) == ("1", "1", "1")
    at.toggle(key="use_ap").set_value(True).run()
    at.slider(key="ap").set_value(1.0).run()
    at.toggle(key="use_mc").set_value(True).run()
    at.slider(key="mc").set_value(1).run()
    at.button(key="beam_run").click().run()
    assert "Result" in [s.value for s in at.subheader]
    saved = next(m.value for m in at.markdown if m.value.startswith("Pruning fed"))
    assert "fewer" in saved
    assert int(saved.split("**")[1].split("%")[0]) > 0
    timed = next(m.value for m in at.markdown if m.value.startswith("Time:"))
    rows = at.session_state["beam_state"]["savings"].rows  # the table's two searches
    assert timed.startswith(f"Time: **{rows[0].wall_s:.2f} s** with pruning, **{rows[1].wall_s:.2f} s** without.")
    assert not at.exception


def test_the_saved_time_says_why_fewer_rows_need_not_be_faster():
    """Same forwards and times within 15%: the sentence on a forward's cost; a real gap: only the two times. The
    equal candidates column is explained under the finished-set policy only (in-beam ranks k per row fed)."""
    from decoding_core.studies.beam import PruningSavings, SearchCost
    from pages.beam import saved_time_text

    def savings(a_s, b_s, a_fwd=16, a_cand=128):
        return PruningSavings((SearchCost("with pruning", 26, a_fwd, a_cand, a_s, "x"),
                               SearchCost("pruning off", 61, 16, 128, b_s, "x")), 0.57, True)
    text = saved_time_text(savings(2.1, 2.0), True)
    assert text.startswith("Time: **2.10 s** with pruning, **2.00 s** without.")
    assert "Both made 16 forwards" in text and "Candidates scored* is equal" in text
    assert "Both made" not in saved_time_text(savings(1.0, 2.0), True)     # 50% saved: as measured
    assert "Both made" not in saved_time_text(savings(2.0, 2.0, a_fwd=10), True)  # fewer forwards: another search
    assert "Candidates" not in saved_time_text(savings(2.0, 2.0), False)   # in-beam
    assert "Candidates" not in saved_time_text(savings(2.0, 2.0, a_cand=100), True)
    nothing = PruningSavings((SearchCost("with pruning", 61, 16, 128, 2.0, "x"),
                              SearchCost("pruning off", 61, 16, 128, 2.0, "x")), 0.0, True)
    assert "Both made" not in saved_time_text(nothing, True)  # nothing pruned: no "fewer rows each"


def test_literal_rule_pitfall_empties_the_beam():
    at = open_app(PAGE)
    at.toggle(key="use_rp").set_value(True).run()
    at.toggle(key="literal_rp").set_value(True).run()
    at.button(key="beam_run").click().run()
    assert any("best candidate is pruned too" in w.value for w in at.warning)
    at.toggle(key="literal_rp").set_value(False).run()
    at.button(key="beam_run").click().run()
    assert not any("best candidate is pruned" in w.value for w in at.warning)
    assert "Result" in [s.value for s in at.subheader]


def test_in_beam_policy_and_back():
    at = open_app(PAGE)
    at.selectbox(key="eos_policy").set_value("in-beam").run()
    at.button(key="beam_step").click().run()
    at.button(key="beam_step").click().run()
    assert [s.value for s in at.subheader] == ["Step 2"]
    at.button(key="beam_back").click().run()
    assert [s.value for s in at.subheader] == ["Step 1"]
    assert metric(at, "Candidates") == "4"  # in-beam: the root proposes its top-k


def test_diversity_panel_measures():
    at = open_app(PAGE)
    at.slider(key="beam_max_new").set_value(6).run()
    at.slider(key="k").set_value(2).run()
    at.slider(key="div_seeds").set_value(3).run()
    next(b for b in at.button if b.label == "Measure diversity").click().run()
    table = next(d.value for d in at.dataframe if "pairwise overlap" in d.value.columns)
    assert list(table["method"]) == ["plain beam", "sample 3 then beam", "sampling", "stochastic beam (one run, k = n)"]
    plain, hybrid = table.iloc[0], table.iloc[1]
    assert (table["mean log-prob"] < 0).all()
    assert plain["pairwise overlap"] == 1.0  # deterministic
    assert hybrid["distinct-2"] >= plain["distinct-2"]
    assert not at.exception
    # a changed setting never shows the old result as its own: the table goes, a note says why
    n_tables = len(at.dataframe)
    at.slider(key="div_seeds").set_value(2).run()
    assert len(at.dataframe) == n_tables - 1
    assert any("measured with other settings" in c.value for c in at.caption)
    at.slider(key="div_seeds").set_value(3).run()  # back to the settings it was measured with: shown again
    assert len(at.dataframe) == n_tables


def test_stochastic_beam_search_steps_and_samples_distinct_sequences():
    at = open_app(PAGE)
    at.slider(key="beam_max_new").set_value(5).run()
    at.slider(key="k").set_value(3).run()
    at.toggle(key="stochastic").set_value(True).run()
    assert at.toggle(key="use_rp").disabled and at.selectbox(key="eos_policy").disabled
    assert any("Stochastic beam search." in m.value for m in at.markdown)
    at.button(key="beam_step").click().run()
    assert len(at.get("graphviz_chart")) == 1
    at.button(key="beam_run").click().run()
    assert any("sampled without replacement" in m.value for m in at.markdown)
    hyps = at.dataframe[-1].value
    assert len(hyps) == 3 and hyps["text"].nunique() == 3
    assert not at.exception


def test_pruning_thresholds_are_tuned_and_can_be_used():
    at = open_app(PAGE)
    at.slider(key="beam_max_new").set_value(3).run()
    at.slider(key="k").set_value(2).run()
    next(b for b in at.button if b.label == "Measure the thresholds").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(h.value == "Tuning the pruning thresholds" for h in at.header)
    # the loosest settings prune nothing along these short searches: the page says they were not run again
    said = [c.value for c in at.caption if "pruned searches would have pruned nothing" in c.value]
    assert len(said) == 1 and re.match(r"\d+ of the 72 pruned searches", said[0]), said  # 18 settings x 4 prompts
    recommended = [s.value for s in at.success if s.value.startswith("Recommended")]
    if recommended:
        next(b for b in at.button if b.label == "Use the recommended thresholds").click().run()
        assert any(at.toggle(key=k).value for k in ("use_rp", "use_ap", "use_rpl", "use_mc"))
    else:
        assert any("No setting keeps" in w.value for w in at.warning)


def test_pin_a_run_and_compare_it_with_the_next():
    """Pin a k = 4 search as A, switch pruning on: A (pinned, unpruned) and B (pruned) side by side."""
    at = open_app(PAGE)
    at.slider(key="beam_max_new").set_value(6).run()
    at.button(key="beam_run").click().run()
    at.button(key="_pin_beam_pin").click().run()
    assert len(at.get("graphviz_chart")) == 3  # the tree, then A and B
    at.toggle(key="use_mc").set_value(True).run()
    at.slider(key="mc").set_value(1).run()
    at.button(key="beam_run").click().run()
    labels = [m.value for m in at.markdown if m.value.startswith("**A (pinned)**") or m.value.startswith("**B (now)**")]
    assert len(labels) == 2 and "no pruning" in labels[0] and "mc 1" in labels[1]
    table = next(d.value for d in at.dataframe if "figure" in d.value.columns)
    pruned = table[table["figure"] == "Pruned so far"].iloc[0]
    assert pruned["A (pinned)"] == "0" and int(pruned["B (now)"]) > 0
    at.button(key="_pin_beam_unpin").click().run()
    assert len(at.get("graphviz_chart")) == 1
    assert not at.exception


def test_the_tree_shows_the_last_steps_or_the_whole_search():
    at = open_app(PAGE)
    at.slider(key="beam_max_new").set_value(8).run()
    at.button(key="beam_run").click().run()
    last = at.get("graphviz_chart")[0].proto.spec
    assert "prompt" not in last and "…" in last          # the window starts from hypotheses, not the prompt
    at.radio(key="beam_window").set_value("whole search").run()
    whole = at.get("graphviz_chart")[0].proto.spec
    assert "prompt" in whole and whole.count("->") > last.count("->")


def test_a_prompt_too_long_for_the_context_is_explained_not_a_traceback():
    at = open_app(PAGE)
    lm_context = 8192
    at.sidebar.text_area(key="prompt").set_value("7 " * (lm_context // 2 + 100)).run()  # "7 " is 2 tokens
    assert not at.exception, [e.value for e in at.exception]
    assert any("context" in i.value and "shorten it" in i.value for i in at.info)
    at.sidebar.toggle(key="chat").set_value(False).run()
    at.sidebar.text_area(key="prompt").set_value("7 " * (lm_context // 2 - 3)).run()  # 8,186 tokens: not + 16 new
    assert not at.exception, [e.value for e in at.exception]
    assert any("do not fit in the model's context" in e.value for e in at.error)


def test_a_search_over_the_memory_budget_is_refused_with_a_message(monkeypatch):
    import decoding_core.beam as beam_mod

    monkeypatch.setattr(beam_mod, "memory_budget_bytes", lambda: 1 << 20)  # 1 MiB: every search is too big
    at = open_app(PAGE)
    assert not at.exception, [e.value for e in at.exception]
    assert any("cannot start" in e.value and "GiB of KV cache" in e.value for e in at.error)


def test_the_totals_add_up_step_by_step_to_the_decoders():
    """shown_totals: through the last step they are the decoder's own metrics (plain beam and a sampled prefix)."""
    from decoding_core.models import load_model
    from decoding_core.settings import Beam, BeamSettings, RunSettings
    from decoding_core.strategies import build_decoder
    from pages.beam import shown_totals

    lm = load_model()
    ids = lm.encode("Name a fruit.", chat=True)
    for beam in (BeamSettings(num_beams=3), BeamSettings(num_beams=3, sample_prefix=2)):
        dec = build_decoder(lm, Beam(beam), RunSettings(6)).start(ids)
        dec.step()
        assert shown_totals(dec.history)["target_forwards"] == 1
        dec.run()
        m, totals = dec.metrics(), shown_totals(dec.history)
        assert totals["hypotheses_expanded"] == m["hypotheses_expanded"]
        assert totals["target_forwards"] == m["target_forwards"] == len(dec.history)
        assert abs(totals["wall_s"] - m["wall_s"]) < 0.01  # each step times itself inside the decoder's step()
