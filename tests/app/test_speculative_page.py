"""AppTest drives the Speculative Decoding page on the embedded model and its shipped draft."""
import pytest

from tests.app.conftest import open_app
from tests.conftest import make_tiny_lm

PAGE = "pages/speculative.py"


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_step_shows_the_drafts_and_metrics():
    at = open_app(PAGE)
    at.button(key="spec_step").click().run()
    at.button(key="spec_step").click().run()
    table = at.dataframe[0].value
    # the default draft is mixed with a copy of the context: who chose each draft, and the mixed q' that decided
    assert list(table.columns)[:5] == ["i", "draft token", "source", "q(y) draft", "p(y) target"]
    assert at.slider(key="copy").value == 0.3
    assert set(table["result"]) <= {"accepted", "rejected", "discarded"}
    assert metric(at, "Target forwards") == "2"
    assert float(metric(at, "Mean accepted\u00a0τ")) >= 1.0
    assert any("data-testid=\"spec-text\"" in m.value for m in at.markdown)
    # N is sized for the device by default; the disabled slider shows the N that runs
    sized = next(e.label for e in at.expander if e.label.startswith("Sized for this device"))
    assert at.slider(key="n_draft").disabled and f"N = {at.slider(key='n_draft').value} " in sized
    assert not at.exception


def test_greedy_match_without_the_copy_shows_no_q():
    at = open_app(PAGE, {"copy": "0", "spec_lookup": "0", "runner_up": "false"})
    at.button(key="spec_step").click().run()
    # greedy match drafts argmaxes: no q column (it would read 1 on every row), no source column
    assert list(at.dataframe[0].value.columns)[:3] == ["i", "draft token", "p(y) target"]
    assert not at.exception


def test_rules_and_run_to_end_with_speedup():
    at = open_app(PAGE)
    at.slider(key="spec_max_new").set_value(16).run()
    at.radio(key="rule").set_value("sample").run()
    at.button(key="spec_step").click().run()
    assert {"q(y) draft", "min(1, p/q)", "u"} <= set(at.dataframe[0].value.columns)  # rejection sampling's test
    at.button(key="spec_run").click().run()
    assert metric(at, "Speed-up (measured)").endswith("×")
    at.radio(key="rule").set_value("topk").run()
    at.slider(key="verify_k").set_value(5).run()
    at.button(key="spec_run").click().run()
    assert metric(at, "Acceptance rate") != "–"
    assert not at.exception


def test_confidence_stop_shortens_drafts_and_says_why():
    at = open_app(PAGE)
    at.toggle(key="n_auto").set_value(False).run()
    at.slider(key="n_draft").set_value(8).run()
    at.slider(key="stop_below").set_value(0.9).run()
    said = []
    for _ in range(4):
        at.button(key="spec_step").click().run()
        table = at.dataframe[0].value
        assert "q(y) draft" in table.columns  # the stop reads q, so q is shown even under greedy match
        said += [c.value for c in at.caption if "The draft stopped after" in c.value]
        assert table["source"].isin(["draft", "copy"]).sum() <= 8  # the chain (the tree's branches beside it)
    assert said and "below the stop (0.90)" in said[0]
    assert not at.exception


def test_sweep_and_drift():
    at = open_app(PAGE)
    at.slider(key="sweep_max_n").set_value(3).run()
    at.slider(key="sweep_tokens").set_value(8).run()
    next(b for b in at.button if b.label == "Run the sweep").click().run()
    assert any(m.value.startswith("Measured α") for m in at.markdown)
    assert any("typically 2-3×" in c.value and "Spec-Bench" in c.value for c in at.caption)  # the notes' figure, placed
    assert any(s.value == "The price of a long draft" for s in at.subheader)  # the notes' N table as figures
    assert len(at.get("plotly_chart")) >= 3
    at.number_input(key="drift_trials").set_value(400).run()
    next(b for b in at.button if b.label == "Measure the drift").click().run()
    tv = at.dataframe[-1].value.set_index("rule")["TV distance to the target's p"]
    assert tv["rejection sampling"] < tv[tv.index[0]] or tv.index[0] == "rejection sampling"
    assert not at.exception


@pytest.mark.parametrize("lang, says", [("en", "different tokenizer"), ("zh", "分词器与")])
def test_mismatched_tokenizer_draft_is_explained(tmp_path, lang, says):
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    tiny = make_tiny_lm()
    tiny.model.save_pretrained(tmp_path)
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({f"t{i}": i for i in range(50)},
                                                                              unk_token="t0")))
    tok.save_pretrained(tmp_path)
    at = open_app(PAGE, query={"lang": lang})
    at.selectbox(key="draft_source").set_value("model").run()
    at.text_input(key="draft_model").set_value(str(tmp_path)).run()
    assert any(says in e.value for e in at.error), [e.value for e in at.error]  # in the reader's language
    at.selectbox(key="draft_source").set_value("prompt-lookup").run()
    at.button(key="spec_step").click().run()
    assert not at.error and not at.exception


def test_copy_weight_marks_copied_drafts_and_keeps_the_text():
    """A link's copy weight mixes the draft with a copy of the context: the step's table says which drafts the copy
    chose, the caption counts them, copied tokens are underlined in the text, and the greedy text is the same as
    without the copy."""
    prompt = "Repeat after me: the quick brown fox jumps over the lazy dog."
    texts = {}
    for copy in ("0.0", "0.6"):
        at = open_app(PAGE, {"prompt": prompt, "copy": copy, "n_auto": "false", "n_draft": "4", "spec_max_new": "24",
                             "spec_lookup": "0", "runner_up": "false"})
        assert at.slider(key="copy").value == float(copy)
        sources, said = set(), []
        for _ in range(3):
            at.button(key="spec_step").click().run()
            table = at.dataframe[0].value
            if copy != "0.0":
                assert "source" in table.columns and "q(y) draft" in table.columns
                sources |= set(table["source"])
                said += [c.value for c in at.caption if "came from the copy" in c.value]
            else:
                assert "source" not in table.columns
        at.button(key="spec_run").click().run()
        html = next(m.value for m in at.markdown if 'data-testid="spec-text"' in m.value)
        texts[copy] = html
        if copy != "0.0":
            assert "copy" in sources and said and "copy weight 0.6" in said[0]
            assert "tok-copied" in html and "draft copied from the context" in html
        else:
            assert "tok-copied" not in html
        assert not at.exception
    import re
    kept = {k: re.sub(r'<span class="tok-rejected[^>]*>[^<]*</span>', "", v.split("</div>")[0]) for k, v in texts.items()}
    words = {k: re.sub(r"<[^>]+>", "", v) for k, v in kept.items()}  # the emitted text: rejected drafts left out
    assert words["0.0"] == words["0.6"]  # greedy output unchanged by the copy


def test_the_tree_around_the_chain_shows_its_tokens_and_keeps_the_text():
    """By default every step also verifies the draft's runner-up beside each drafted token and a lookup branch: the
    step's table lists them by position with their source, the caption says what they added and where the accepted
    path went, the text underlines tokens accepted from them; the greedy text is the chain's own."""
    import re

    prompt = "Repeat after me: the quick brown fox jumps over the lazy dog."
    texts, seen, said = {}, set(), []
    for lookup, runner_up in (("0", "false"), ("8", "true")):
        at = open_app(PAGE, {"prompt": prompt, "spec_lookup": lookup, "runner_up": runner_up, "n_auto": "false",
                             "n_draft": "3", "spec_max_new": "32"})
        assert at.slider(key="spec_lookup").value == int(lookup)
        assert at.toggle(key="runner_up").value == (runner_up == "true")
        steps = 0
        while steps < 6 and not at.button(key="spec_step").disabled:
            at.button(key="spec_step").click().run()
            steps += 1
            if lookup != "0":
                table = at.dataframe[0].value
                seen |= set(table["source"])
                assert list(table["i"]) == sorted(table["i"])  # by position, the chain's token first
                said += [c.value for c in at.caption if c.value.startswith("Beside the chain")]
        if not at.button(key="spec_run").disabled:
            at.button(key="spec_run").click().run()
        texts[lookup] = next(m.value for m in at.markdown if 'data-testid="spec-text"' in m.value)
        assert not at.exception
    assert {"draft", "runner-up", "lookup"} <= seen and len(said) == steps
    assert "tok-branch" in texts["8"] and "accepted beside the chain" in texts["8"] and "tok-branch" not in texts["0"]
    assert any("left the chain" in c for c in said)
    kept = {k: re.sub(r'<span class="tok-rejected[^>]*>[^<]*</span>', "", v.split("</div>")[0]) for k, v in texts.items()}
    words = {k: re.sub(r"<[^>]+>", "", v) for k, v in kept.items()}  # the emitted text: rejected drafts left out
    assert words["0"] == words["8"]


def test_under_rejection_sampling_a_tested_runner_ups_cell_is_said_to_be_against_the_residual():
    """With runner-up leaves under rejection sampling a runner-up is tried only after the chain's token at its place
    was rejected, so its min(1, p/q) cell holds min(1, r/q'): the step's caption says so exactly on the steps
    where a branch token was tested (u drawn), and never under greedy match."""
    for rule, lookup in (("sample", "0"), ("sample", "8"), ("greedy", "0")):
        at = open_app(PAGE, {"prompt": "Write a short poem about rain.", "rule": rule, "runner_up": "true",
                             "spec_lookup": lookup, "n_auto": "false", "n_draft": "4", "spec_max_new": "40",
                             "seed": "3"})
        tested_steps = 0
        for _ in range(8):
            if at.button(key="spec_step").disabled:
                break
            at.button(key="spec_step").click().run()
            table = at.dataframe[0].value
            branch = table[table["source"] != "draft"]
            tested = "u" in branch and bool((branch["u"] != "–").any())  # greedy match draws no u
            said = " ".join(c.value for c in at.caption if c.value.startswith("Beside the chain"))
            assert ("min(1, r(y)/q′(y))" in said) == tested, (rule, said, table)
            assert ("norm(max(0, r − q′))(y) after the runner-up" in said) == tested  # a lookup token's test too
            tested_steps += tested
        assert not at.exception
        assert tested_steps > 0 or rule == "greedy"  # the prompt and seed give rejected chain tokens to test


def test_a_copy_weight_out_of_range_in_the_link_is_refused():
    at = open_app(PAGE, {"copy": "5"})
    assert any("copy" in w.value for w in at.warning)
    assert at.slider(key="copy").value == 0.3  # the default


def test_a_links_n_under_the_device_sizing_says_it_is_not_the_n_run():
    """?n_draft=999 is refused (out of range) and ?n_draft=3 kept in the slider, but with "Size N for this device"
    on the page runs the N it measures: it says so once, naming the link's value. A link that carries the N the
    sizing chose (the page writes it into the address) says nothing."""
    chosen = open_app(PAGE).slider(key="n_draft").value
    other = str(3 if chosen != 3 else 4)
    for raw in ("999", other):
        at = open_app(PAGE, {"n_draft": raw})
        said = [i.value for i in at.info if "is not used while" in i.value]
        assert len(said) == 1 and f"N = '{raw}'" in said[0] and "Size N for this device" in said[0]
        at.run()
        assert not any("is not used while" in i.value for i in at.info)  # once
    at = open_app(PAGE, {"n_draft": str(chosen)})
    assert not any("is not used while" in i.value for i in at.info) and at.slider(key="n_draft").value == chosen
    at = open_app(PAGE, {"n_draft": "3", "n_auto": "false"})
    assert not any("is not used while" in i.value for i in at.info) and at.slider(key="n_draft").value == 3
