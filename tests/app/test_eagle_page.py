"""AppTest drives the EAGLE page on the embedded model and its shipped head."""
import re

from tests.app.conftest import open_app, page_path

PAGE = "pages/eagle.py"


def test_steps_show_tree_and_mask():
    at = open_app(PAGE)
    at.button(key="eagle_step").click().run()
    assert any("Step 1" in m.value for m in at.markdown)
    at.button(key="eagle_step").click().run()
    assert len(at.get("graphviz_chart")) == 1
    assert len(at.get("plotly_chart")) >= 1
    assert float(next(m.value for m in at.metric if m.label == "Mean accepted\u00a0τ")) >= 1.0
    at.selectbox(key="eagle_node_1").set_value(1).run()
    assert any("attends to the whole prefix" in m.value for m in at.markdown)
    assert not at.exception


def test_static_tree_and_comparison():
    at = open_app(PAGE)
    at.radio(key="tree_kind").set_value("static").run()
    at.button(key="eagle_step").click().run()
    at.button(key="eagle_step").click().run()
    assert len(at.get("graphviz_chart")) == 1
    at.slider(key="cmp_tokens").set_value(12).run()
    next(b for b in at.button if b.label == "Measure").click().run()
    table = at.dataframe[-1].value
    assert (table["same text as reference"].iloc[1:] == "yes").all()
    assert len(table) == 3
    # the published figures beside the measured ones, and the notes' "minimal degradation" answered
    assert any("Spec-Bench" in c.value and "there is none" in c.value for c in at.caption)
    assert any(r"w_{\text{cls}} = 0.1" in x.value for x in at.latex)  # the notes' EAGLE-1 loss, as trained
    assert not at.exception


def test_both_heads_step_and_size_for_the_device():
    """EAGLE-1 and EAGLE-3 both draft, verify and explain themselves; the device-aware size is shown with
    the measured cost curve; a fixed size turns the sliders back on."""
    from decoding_core.heads import default_head

    at = open_app(PAGE, {"eagle_head": "eagle1"})
    assert at.radio(key="eagle_head").value == "eagle1"
    at.button(key="eagle_step").click().run()
    at.button(key="eagle_step").click().run()
    assert len(at.get("graphviz_chart")) == 1
    assert any("changes three things" in m.value for m in at.markdown)
    if default_head() == "eagle3":
        at.radio(key="eagle_head").set_value("eagle3").run()
        at.button(key="eagle_step").click().run()
        at.button(key="eagle_step").click().run()
        assert len(at.get("graphviz_chart")) == 1
        assert any("Draft vocabulary" in m.value for m in at.markdown)
        sized = next(c.value for c in at.caption if "Sized for this device" in c.value)
        # the disabled sliders show the size that runs, not their own last values
        total, depth = at.slider(key="total_tokens").value, at.slider(key="tree_depth").value
        assert f"**{total} tokens (the root + {total - 1} drafted), depth {depth}**" in sized
        assert at.slider(key="total_tokens").disabled
        assert any(h.value == "Choosing the tree size for this device" for h in at.header)
    at.toggle(key="tree_auto").set_value(False).run()
    assert not at.slider(key="total_tokens").disabled
    assert not at.exception


def test_a_bad_head_in_the_link_is_ignored_with_a_warning():
    at = open_app(PAGE, {"eagle_head": "eagle9"})
    assert any("eagle_head" in w.value for w in at.warning)
    assert not at.exception


def test_the_lookup_branch_is_drawn_and_keeps_the_text():
    """A link's eagle_lookup adds a copied branch to every tree: its nodes are drawn as "copied", and the greedy
    text is the same as without it (the comparison's column says so)."""
    at = open_app(PAGE, {"prompt": "Repeat after me: the quick brown fox jumps over the lazy dog.", "eagle_lookup": "8",
                         "eagle_tree_view": "whole tree", "tree_auto": "false", "total_tokens": "12", "tree_depth": "3"})
    assert at.slider(key="eagle_lookup").value == 8
    for _ in range(4):  # the branch copies after a match of 2-3 tokens: the answer soon repeats the prompt's words
        at.button(key="eagle_step").click().run()
        trees = at.get("graphviz_chart")  # none after the first step (the prefill)
        if trees and "copied" in trees[0].proto.spec:
            break
    assert "copied" in at.get("graphviz_chart")[0].proto.spec
    assert any("copied by the lookup branch" in m.value for m in at.markdown)
    if at.radio(key="eagle_head").value == "eagle3":  # the held-out figure with the branch, from the manifest
        assert any("8-token lookup branch added (copying after 2-3 matching tokens): τ" in m.value for m in at.markdown)
    at.slider(key="cmp_tokens").set_value(12).run()
    next(b for b in at.button if b.label == "Measure").click().run()
    table = at.dataframe[-1].value
    assert (table["same text as reference"].iloc[1:] == "yes").all()
    assert table.iloc[-1]["strategy"] == "EAGLE" and table.iloc[-1]["settings"].endswith("+ 8-token lookup branch")
    # speculative decoding runs as on its own page: its defaults and the N it sizes for this device
    n = re.search(r"shipped draft, N (\d+), copy weight 0.3, \+ lookup 8, \+ runner-ups", table.iloc[1]["settings"]).group(1)
    at.switch_page(page_path("pages/speculative.py")).run()
    assert any(e.label.startswith(f"Sized for this device: N = {n} ") for e in at.expander)
    assert not at.exception


def test_the_corpus_branch_is_drawn_and_keeps_the_text():
    """With the corpus branch on, a prompt whose words do not repeat gets the lookup branch from the corpus: its nodes
    are drawn as "corpus", the step line says where they came from, and the greedy text is the same as without it.
    The toggle is disabled, and off, while the lookup branch is 0 (the decoder then gets no corpus branch)."""
    at = open_app(PAGE, {"prompt": "Name three uses for a paper clip.", "eagle_tree_view": "whole tree",
                         "tree_auto": "false", "total_tokens": "12", "tree_depth": "3"})
    assert at.toggle(key="eagle_corpus").disabled
    at.slider(key="eagle_lookup").set_value(8).run()
    at.toggle(key="eagle_corpus").set_value(True).run()
    for _ in range(4):
        at.button(key="eagle_step").click().run()
        trees = at.get("graphviz_chart")
        if trees and ">#" in trees[0].proto.spec and "corpus" in trees[0].proto.spec:
            break
    assert "corpus" in at.get("graphviz_chart")[0].proto.spec
    assert any("came from the corpus branch" in m.value for m in at.markdown)
    at.slider(key="cmp_tokens").set_value(12).run()
    next(b for b in at.button if b.label == "Measure").click().run()
    table = at.dataframe[-1].value
    assert (table["same text as reference"].iloc[1:] == "yes").all()
    assert table.iloc[-1]["settings"].endswith("from the corpus where the context has no match")
    at.slider(key="eagle_lookup").set_value(0).run()  # the fallback goes with its branch, and is drawn off
    assert at.toggle(key="eagle_corpus").disabled and at.toggle(key="eagle_corpus").value is False
    assert not at.exception


def test_a_branch_figure_measured_with_another_gate_is_not_quoted(monkeypatch):
    """The head's manifest quotes held-out tau with the lookup branch; a figure measured while the branch copied after
    another number of matching tokens than the decoders use now is stale, and the page leaves it out."""
    import decoding_core.heads as heads

    real = heads.head_manifest

    def other_gate(kind):
        info = real(kind)
        if info.get("heldout_tau_lookup"):
            info = {**info, "heldout_tau_lookup": {**info["heldout_tau_lookup"], "lookup_min_ngram": 1}}
        return info

    at = open_app(PAGE, {"eagle_head": "eagle3"})
    assert any("lookup branch added (copying after" in m.value for m in at.markdown)  # the shipped figure, gated as now
    monkeypatch.setattr(heads, "head_manifest", other_gate)
    at.run()
    assert any("held-out" in m.value.lower() for m in at.markdown)  # the rest of the manifest's figures stay
    assert not any("lookup branch added" in m.value for m in at.markdown)
    assert not at.exception


def test_a_lookup_branch_out_of_range_in_the_link_is_refused():
    at = open_app(PAGE, {"eagle_lookup": "99"})
    assert any("eagle_lookup" in w.value for w in at.warning)
    assert at.slider(key="eagle_lookup").value == 0
    assert not at.exception


def test_the_device_aware_size_counts_the_lookup_branch():
    """With a lookup branch the auto size comes from the head's table measured with that branch (the page quotes the
    mean verify pass there); a branch length the manifest has no table for is costed at its full length with the
    tree's own tau, and the page says so."""
    from decoding_core.heads import default_head, head_manifest
    from decoding_core.sizing import tree_table_rows

    at = open_app(PAGE, {"eagle_lookup": "8"})
    looked = bool(tree_table_rows(head_manifest(default_head()), 8))  # a table for this branch, gated as now
    words = "With the 8-token lookup branch a verify pass holds" if looked else "No τ table was measured with a 8-token"
    assert any(words in c.value for c in at.caption)
    assert any("Sized for this device" in c.value for c in at.caption)
    at.slider(key="eagle_lookup").set_value(5).run()
    assert any("No τ table was measured with a 5-token lookup branch" in c.value for c in at.caption)
    assert at.slider(key="total_tokens").disabled and not at.exception


def test_the_budgets_last_token_is_said_not_drawn_as_an_empty_tree(monkeypatch):
    """With one token of budget left the decoder drafts nothing (the head is not run) and the page says so instead
    of drawing a one-node tree and two identical masks; the tree-view switch stays (disabled), so pinning there and
    going Back keep the user's view."""
    from decoding_core.eagle import EagleDecoder

    at = open_app(PAGE, {"eagle_max_new": "3", "tree_auto": "false", "total_tokens": "4", "tree_depth": "1",
                         "eagle_tree_view": "whole tree"})
    at.button(key="eagle_step").click().run()  # the prefill: the first token
    at.button(key="eagle_step").click().run()  # a tree of depth 1: one or two tokens
    dec = at.session_state["eagle_state"]["decoder"]
    assert len(dec.tokens) == 2  # this prompt's first tree is rejected (greedy, so always): one token left
    monkeypatch.setattr(EagleDecoder, "_draft_tree", lambda self: (_ for _ in ()).throw(AssertionError("drafted")))
    at.button(key="eagle_step").click().run()
    assert any(i.value.startswith("The last step: one token of the budget was left") for i in at.info)
    assert not at.get("graphviz_chart") and not any((s.key or "").startswith("eagle_node") for s in at.selectbox)
    last = dec.history[-1]
    assert last.n_drafted == 0 and len(last.tokens) == 1 and len(last.emitted) == 1
    assert at.radio(key="eagle_tree_view").disabled and at.radio(key="eagle_tree_view").value == "whole tree"
    next(b for b in at.button if b.label.startswith("Pin this run")).click().run()  # a fragment rerun here
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="eagle_back").click().run()
    assert at.radio(key="eagle_tree_view").value == "whole tree" and at.get("graphviz_chart")
    assert not at.exception


def test_the_published_figures_quote_the_heads_training_tokens_from_their_manifests(monkeypatch):
    """The caption after Measure reads each head's training tokens from its manifest (0.2 M and 1.9 M shipped), and
    says "?" for a head whose manifest cannot be read, rather than a made-up 0.0."""
    import json
    from pathlib import Path
    import pages.eagle as page
    for kind, folder in (("eagle1", "eagle"), ("eagle3", "eagle3")):
        tokens = json.loads((Path(__file__).parents[2] / "assets" / folder / "manifest.json").read_text())
        assert page.trained_tokens_m(kind) == f"{tokens['data']['train_tokens'] / 1e6:.1f}" != "0.0"
    monkeypatch.setattr(page, "head_manifest", lambda kind: {})
    assert page.trained_tokens_m("eagle3") == "?"
