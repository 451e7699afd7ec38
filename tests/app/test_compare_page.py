"""AppTest on the Compare page: columns with their own settings from a link, the greedy family agrees with
greedy, the link's tokens are the engine's, stale and pinned columns are marked, a bad column line is refused."""
import re

from decoding_core.models import load_model
from decoding_core.settings import RunSettings
from decoding_core.spec import parse_strategy
from decoding_core.strategies import build_decoder
from tests.app.conftest import open_app

COLUMNS = {"c1": "greedy", "c2": "beam:num_beams=1", "c3": "speculative:draft=prompt-lookup,n_draft=3",
           "c4": "sample:temperature=1.5,top_k=20"}
LINK = {"cmp_max_new": "10", "cmp_cols": "4", **COLUMNS}


def _run_all(at):
    next(b for b in at.button if b.label == "Run all").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at.dataframe[0].value.set_index("strategy")


def test_columns_from_a_link_reproduce_the_engines_tokens_and_the_greedy_family_agrees():
    at = open_app("pages/compare.py", LINK)
    assert at.selectbox(key="cmp2_kind").value == "beam" and at.slider(key="cmp2_beam_beam.num_beams").value == 1
    assert at.slider(key="cmp4_sample_sampling.top_k").value == 20
    table = _run_all(at)
    # the row's name first (pinned), its settings in the last column: the metrics show before the table scrolls
    assert list(table.index) == ["1 · greedy", "2 · beam search", "3 · speculative", "4 · sampling"]
    assert list(table["settings"]) == ["–", "k 1", "prompt lookup, N 3, greedy", "T 1.5, top-k 20, multinomial"]
    assert list(table.columns)[:5] == ["state", "speed-up", "same text as reference", "τ", "tokens/s"]
    assert table.columns[-1] == "settings"
    assert table.loc["2 · beam search", "same text as reference"] == "yes"
    assert table.loc["3 · speculative", "same text as reference"] == "yes"
    assert table.loc["1 · greedy", "speed-up"] == "1.00 (reference)"
    assert (table["new tokens"] <= 10).all() and (table["state"] == "fresh").all()
    assert table.loc["3 · speculative", "τ"] != "–"
    assert table.loc["1 · greedy", "τ"] == "–"
    # what the page decoded is what the engine decodes for each column's line (same prompt, seed, length)
    lm = load_model()
    prompt = lm.encode(at.session_state["prompt"], chat=True)
    kept = at.session_state["_cmp_results"]
    for i, line in enumerate(COLUMNS.values(), 1):
        dec = build_decoder(lm, parse_strategy(line), RunSettings(10, seed=0)).start(prompt)
        assert list(kept[i][1].tokens) == dec.run().tokens, line
    assert len(at.get("plotly_chart")) == 1  # the metrics chart


def test_a_changed_column_is_stale_and_a_pinned_one_keeps_its_result():
    at = open_app("pages/compare.py", {**LINK, "cmp_cols": "2", "cmp_pins": "1"})
    assert at.session_state["_cmp_pins"] == {1}
    assert at.selectbox(key="cmp1_kind").disabled  # a pinned column's settings are frozen
    _run_all(at)
    first = at.session_state["_cmp_results"][1]
    at.slider(key="cmp2_beam_beam.num_beams").set_value(3).run()
    table = at.dataframe[0].value.set_index("strategy")
    assert table.loc["2 · beam search", "state"].startswith("stale") and table.loc["2 · beam search", "settings"] == "k 1"
    assert table.loc["1 · greedy", "state"] == "pinned"
    assert at.query_params["c2"] == "beam:num_beams=3"
    table = _run_all(at)
    assert table.loc["2 · beam search", "settings"] == "k 3" and table.loc["2 · beam search", "state"] == "fresh"
    assert at.session_state["_cmp_results"][1] is first  # the pinned column was not run again


def test_a_bad_column_line_in_a_link_is_refused_with_its_reason():
    """A setting that fails the strategy's own check (a beam width 0, N above the largest the settings allow) is
    dropped with its reason and the column keeps its kind and its other settings; a line that cannot be read
    (an unknown setting) falls back to the column's default."""
    at = open_app("pages/compare.py", {"cmp_cols": "4", "c1": "beam:num_beams=0,rp=0.5",
                                       "c2": "speculative:n_draft=500,rule=topk", "c3": "greedy:no_such=1",
                                       "c4": "speculative:n_draft=4,n_draft=500"})
    text = " ".join(w.value for w in at.warning)
    assert "Column 1: ignored the link's num_beams='0' (beam width must be >= 1, got 0); using 4." in text
    assert at.selectbox(key="cmp1_kind").value == "beam" and at.slider(key="cmp1_beam_beam.rp").value == 0.5
    assert at.slider(key="cmp1_beam_beam.num_beams").value == 4
    assert "Column 2: ignored the link's n_draft='500' (draft length N must be <= 32, got 500)" in text
    assert at.selectbox(key="cmp2_kind").value == "speculative"
    assert at.selectbox(key="cmp2_speculative_rule").value == "topk"  # the line's other setting is kept
    assert at.query_params["c2"] == "speculative:rule=topk"
    assert "column 3" in text and "unknown setting 'no_such'" in text
    assert at.selectbox(key="cmp3_kind").value == "beam"  # column 3's default
    assert "Column 4: ignored the link's n_draft='500' (draft length N must be <= 32, got 500); using 4." in text
    assert not at.exception


def test_a_links_value_outside_a_columns_widget_is_refused_and_a_failed_column_says_why():
    at = open_app("pages/compare.py", {"cmp_cols": "3", "cmp_max_new": "4", "c1": "greedy",
                                       "c2": "beam:num_beams=999", "c3": "speculative:n_draft=20,draft=no-such-draft"})
    text = " ".join(w.value for w in at.warning)
    assert "Column 2" in text and "num_beams='999'" in text and "out of range [1, 16]" in text
    assert "Column 3" in text and "n_draft='20'" in text and "out of range [1, 12]" in text
    assert at.slider(key="cmp2_beam_beam.num_beams").value == 4  # the kind's default, not 999
    assert at.query_params["c2"] == "beam" and "n_draft" not in at.query_params["c3"]
    table = _run_all(at)
    assert table.loc["3 · speculative", "state"] == "failed"  # not "fresh" beside empty metrics
    assert table.loc["3 · speculative", "τ"] == "–" and table.loc["1 · greedy", "note"] == "–"  # words: not "None"
    assert table["new tokens"].dtype.kind in "if"  # numbers stay numbers (the failed row's cell empty)
    assert list(table.columns)[-2:] == ["note", "settings"]
    assert table.loc["1 · greedy", "state"] == "fresh"
    failed = [e.value for e in at.error]
    assert len(failed) == 1 and failed[0].startswith("3 · speculative") and "no-such-draft" in failed[0]


def test_a_comparison_in_chinese_labels_its_columns_in_chinese_and_keeps_the_engines_tokens():
    """Run all in Chinese: the table's rows, the state column and the cards above each output use the Chinese
    labels (a bug once looked the states up by the English label and raised a KeyError), the tokens are those of
    the same comparison in English."""
    link = {**LINK, "cmp_cols": "3", "lang": "zh"}
    at = open_app("pages/compare.py", link)
    next(b for b in at.button if b.label == "全部运行").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    rows = list(table[table.columns[0]])
    assert rows == ["1 · 贪婪解码", "2 · 束搜索", "3 · 推测性解码"], rows
    assert list(table["设置"]) == ["–", "k 1", "提示词查找，N 3，贪婪匹配"] and table.columns[-1] == "设置"
    assert any(m.value.startswith("**1 · 贪婪解码**") for m in at.markdown)
    zh_tokens = {i: list(r.tokens) for i, (_, r) in at.session_state["_cmp_results"].items()}
    en = open_app("pages/compare.py", {**link, "lang": "en"})
    _run_all(en)
    assert {i: list(r.tokens) for i, (_, r) in en.session_state["_cmp_results"].items()} == zh_tokens


def test_a_columns_caption_names_the_size_measured_once_it_has_run():
    """A speculative column sized for this device reads "N auto" until it runs, then the N its run used (on the
    rerun that ran it, not one later)."""
    at = open_app("pages/compare.py", {"cmp_max_new": "8", "cmp_cols": "2", "c1": "greedy", "c2": "speculative"})
    assert any("N auto" in c.value for c in at.caption)
    _run_all(at)
    label = at.session_state["_cmp_results"][2][1].label
    assert re.search(r"N \d+", label) and any(c.value == label for c in at.caption)
    assert not any("N auto" in c.value for c in at.caption)


def test_the_corpus_fallback_goes_off_with_its_lookup_branch():
    """An EAGLE column's corpus branch is the lookup branch's fallback: with the lookup branch back to 0 the corpus
    field is drawn disabled and off, the column stays valid (no settings error) and its line drops both."""
    at = open_app("pages/compare.py", {"cmp_cols": "2", "c1": "greedy", "c2": "eagle:lookup=8,corpus=true"})
    corpus = "cmp2_eagle_corpus"
    assert at.selectbox(key=corpus).value is True and not at.selectbox(key=corpus).disabled
    at.slider(key="cmp2_eagle_lookup").set_value(0).run()
    assert at.selectbox(key=corpus).value is False and at.selectbox(key=corpus).disabled
    assert not at.error and not at.exception
    assert at.query_params["c2"] == "eagle"
    at.slider(key="cmp2_eagle_lookup").set_value(4).run()  # the branch back: the fallback can be chosen again
    assert not at.selectbox(key=corpus).disabled
    at.selectbox(key=corpus).set_value(True).run()
    assert at.query_params["c2"] == "eagle:lookup=4,corpus=true" and not at.error


def test_a_columns_choices_read_as_words_in_both_languages():
    """The choices of a column's settings show their texts: the default head as "default (...)" (not an empty box),
    the tree, rule, draft and sampler by their page names, "no (greedy)" only for EAGLE's sampling switch, and a
    number as the number (N = 1 is not "yes"); in Chinese as well."""
    link = {"cmp_cols": "4", "c1": "greedy", "c2": "eagle:lookup=8", "c3": "speculative:n_draft=1",
            "c4": "sample:temperature=0.8"}
    for lang, default, dynamic, no in (("en", "default (EAGLE-3)", "dynamic", "no"), ("zh", None, None, "否")):
        at = open_app("pages/compare.py", {**link, **({"lang": "zh"} if lang == "zh" else {})})
        head = at.selectbox(key="cmp2_eagle_head")
        assert head.value == "default" and head.options[0] != "default" and "Choose" not in head.options[0]
        assert default is None or head.options[0] == default
        assert at.selectbox(key="cmp2_eagle_corpus").options[0] == no
        assert at.selectbox(key="cmp2_eagle_sample").options[0] != no  # "no (greedy)": sampling off is greedy
        if dynamic:
            assert sorted(at.selectbox(key="cmp2_eagle_tree").options) == ["dynamic", "static"]
            assert at.selectbox(key="cmp3_speculative_rule").options == ["greedy match", "top-K (notes)",
                                                                         "rejection sampling"]
            assert at.selectbox(key="cmp3_speculative_draft").options[0] == "shipped draft"
        else:  # no English left among these choices
            for key in ("cmp2_eagle_tree", "cmp3_speculative_rule", "cmp3_speculative_draft"):
                assert all(re.search(r"[\u4e00-\u9fff]", o) for o in at.selectbox(key=key).options), key
        n = at.selectbox(key="cmp3_speculative_n_draft")
        assert n.value == 1 and "1" in n.options and not any(o in ("yes", "是") for o in n.options)
        assert not at.exception


def test_presentation_mode_shows_the_table_as_text_that_the_projector_styles_enlarge():
    """The dataframe draws on a canvas in 14 px whatever the page's CSS says; in presentation mode a short table is
    an HTML table (ui.lab.table), with the numbers as the rows rounded them, not st.table's four decimals."""
    at = open_app("pages/compare.py", {**LINK, "cmp_cols": "2", "present": "true"})
    next(b for b in at.button if b.label == "Run all").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.dataframe
    table = at.table[0].value.set_index("strategy")
    assert list(table.index) == ["1 · greedy", "2 · beam search"]
    assert table.loc["1 · greedy", "speed-up"] == "1.00 (reference)"
    rate = table.loc["2 · beam search", "tokens/s"]
    assert isinstance(rate, str) and re.fullmatch(r"\d+(\.\d{1,2})?", rate), rate
    assert any("[data-testid=\"stTable\"] table" in h.proto.body for h in at.get("html"))


def test_column_editors_wrap_to_rows_where_a_choice_would_be_cut():
    """At 1280 px "speculative decoding" is cut short in five or six columns (four in presentation mode): the editors
    then wrap to rows of at most three, two and two for four; a link's columns keep their numbers and settings."""
    from pages.compare import editor_rows
    assert [editor_rows(n) for n in range(2, 7)] == [[2], [3], [4], [3, 2], [3, 3]]
    assert [editor_rows(n, present=True) for n in range(2, 7)] == [[2], [3], [2, 2], [3, 2], [3, 3]]
    at = open_app("pages/compare.py", {"cmp_cols": "6", "c5": "greedy", "c6": "eagle", **COLUMNS})
    assert not at.exception
    assert [at.selectbox(key=f"cmp{i}_kind").value for i in range(1, 7)] == \
        ["greedy", "beam", "speculative", "sample", "greedy", "eagle"]
    assert len(at.columns) >= 6
