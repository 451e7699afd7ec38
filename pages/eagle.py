"""EAGLE: a feature-level draft head, token trees, the tree attention mask, the accepted path."""
import html

import streamlit as st

from decoding_core.datastore import same_rule
from decoding_core.decoders import metrics_so_far
from decoding_core.heads import HEAD_LABELS, default_head, head_manifest
from decoding_core.models import ModelLoadError
from decoding_core.settings import HEADS, LOOKUP_MAX, TREES, Eagle, Greedy, SamplingSettings, Speculative
from decoding_core.sizing import same_gate
from decoding_core.speculative import LOOKUP_MAX_NGRAM, LOOKUP_MIN_NGRAM
from decoding_core.strategies import build_decoder, describe, resolve_sizes
from decoding_core.studies.compare import compare
from ui import loaders, params
from ui.controls import Controls, Param, choice_ids, sampling_table, show_sampling, stepper
from ui.i18n import err_text, lang, say, t
from ui.lab import busy_warning_of, chart, metric_rows, open_page, table, tree_chart
from ui.export import download_run, tree_downloads
from ui.pin import Snapshot, pin_panel
from ui.progress import kept, measure
from ui.texts import code_token, gloss, token_unit
from viz.eagle import depth_figure, loss_figure, mask_figure, sizing_figure, step_rows, tree_dot
from viz.tables import compare_rows

TREE_VIEWS = ("compact", "whole tree")
P = Controls([
    Param("eagle_head", default_head(), "p.eagle_head", choices=HEADS, widget="radio",
          labels=choice_ids("eagle_head", HEADS),
          help="p.eagle_head.help"),
    Param("tree_kind", "dynamic", "p.tree_kind", choices=TREES, widget="radio",
          labels=choice_ids("tree_kind", TREES), help="p.tree_kind.help"),
    Param("tree_auto", True, "p.tree_auto",
          help="p.tree_auto.help"),
    Param("tree_top_k", 8, "p.tree_top_k", 1, 16),
    Param("tree_depth", 5, "p.tree_depth", 1, 8),
    Param("total_tokens", 32, "p.total_tokens", 4, 96, help="p.total_tokens.help"),
    Param("eagle_lookup", 0, "p.eagle_lookup", 0, LOOKUP_MAX, help="p.eagle_lookup.help"),
    Param("eagle_corpus", False, "p.eagle_corpus", help="p.eagle_corpus.help"),
    Param("eagle_sample", False, "p.eagle_sample"),
    Param("eagle_tree_view", "compact", "p.eagle_tree_view", choices=TREE_VIEWS, widget="radio",
          labels=choice_ids("eagle_tree_view", TREE_VIEWS), help="p.eagle_tree_view.help"),
    Param("eagle_max_new", 48, "p.eagle_max_new", 2, 256),
    Param("cmp_tokens", 32, "p.cmp_tokens", 8, 256),
] + sampling_table("eagle_"))


def controls(lm) -> Eagle:
    ss = st.session_state
    with st.container(border=True):
        h1, h2 = st.columns([2, 3])
        P.show("eagle_head", h1)
        h2.caption(t(f"eagle.head.{ss.eagle_head}"))
        c1, c2, c3, c4, c5 = st.columns(5)
        P.show("tree_kind", c1)
        dynamic = ss.tree_kind == "dynamic"
        P.show("tree_auto", c1, disabled=not dynamic)
        P.show("tree_top_k", c2, disabled=not dynamic)
        auto = dynamic and ss.tree_auto
        if not ss.eagle_lookup:
            ss.eagle_corpus = False  # the lookup branch's fallback: off (and drawn off) with the branch
        corpus = ss.eagle_corpus
        if auto and (chosen := loaders.auto_sizes(lm, Eagle(ss.eagle_head, "dynamic", ss.tree_top_k,
                                                                   lookup=ss.eagle_lookup, corpus=corpus))):
            P.preset("tree_depth", chosen.depth)
            P.preset("total_tokens", chosen.total_tokens)
        P.show("tree_depth", c3, disabled=not dynamic or auto)
        P.show("total_tokens", c4, disabled=not dynamic or auto)
        P.show("eagle_max_new", c5)
        l1, l2 = st.columns([2, 3])
        P.show("eagle_lookup", l1)
        P.show("eagle_corpus", l1, disabled=not ss.eagle_lookup)
        l2.caption(t("eagle.lookup"))
        P.show("eagle_sample")
        sampling = SamplingSettings()
        if ss.eagle_sample:
            with st.expander(t("eagle.sampling_settings"), expanded=False):
                sampling = show_sampling(P, "eagle_")
    sizes = ("auto", "auto") if auto else (ss.tree_depth, ss.total_tokens)
    return Eagle(ss.eagle_head, ss.tree_kind, ss.tree_top_k, *sizes, ss.eagle_sample, sampling, ss.eagle_lookup, corpus)


def render() -> None:
    lab, prompt_ids = open_page("eagle", P)
    lm = lab.lm
    strategy = controls(lm)
    run = lab.run(P["eagle_max_new"], backend="eager")
    try:
        head = loaders.head(lm, strategy.head)
        sizes = resolve_sizes(lm, strategy, head=head, head_kind=strategy.head, loaders=loaders.CACHED)
        build_decoder(lm, strategy, run, loaders.CACHED, sizes)  # validate now, not mid-run
    except (ModelLoadError, ValueError) as exc:
        P.sync()
        st.error(err_text(exc))
        st.caption(t("eagle.others_work"))
        st.stop()
    choice = sizes.choice
    if choice and choice.get("reason") == "measured":
        st.caption(t("eagle.sized", total=sizes.total_tokens, drafted=sizes.total_tokens - 1, depth=sizes.depth,
                     tau=choice["tau"],
                     tps=choice["tokens_per_s"]))
    elif choice:
        st.caption(t("eagle.size_reason", total=sizes.total_tokens, depth=sizes.depth, reason=say(choice["reason"])))
    step_through(lab, strategy, run, sizes, prompt_ids)

    st.header(t("eagle.h.speed"))
    st.markdown(t("eagle.cmp"))
    c1, c2 = st.columns([3, 1])
    P.show("cmp_tokens", c1)
    P.sync()
    greedy_eagle = Eagle(strategy.head, strategy.tree, strategy.top_k, sizes.depth, sizes.total_tokens,
                         lookup=strategy.lookup, corpus=strategy.corpus)
    cmp_run = lab.run(P["cmp_tokens"], stop_at_eos=False, backend="eager")
    key = (lab.key, greedy_eagle, cmp_run)
    if c2.button(t("cost.measure"), type="primary", width="stretch"):
        measure("eagle_cmp", key, lambda progress, stop: compare(
            lm, prompt_ids, [(t("eagle.cmp.plain"), Greedy()),
                             Speculative(), greedy_eagle],  # the Speculative page's default, N for this device
            cmp_run, loaders=loaders.CACHED, progress=progress, should_stop=stop))
    cmp = kept("eagle_cmp", key, t("cost.measure"))
    if cmp:
        busy_warning_of(st, lm, cmp.runs[0] if cmp.runs else None, len(prompt_ids))  # read before the speed-ups
        table(st, compare_rows(cmp, lang=lang()), pin="strategy")
        depth = {say(r.label): list(r.acceptance_by_depth) for r in cmp.runs if r.acceptance_by_depth}
        if depth:
            chart(st, depth_figure(depth), "eagle-depth", width="stretch")
            st.caption(t("eagle.depth"))
        st.caption(t("eagle.published", eagle1=trained_tokens_m("eagle1"), eagle3=trained_tokens_m("eagle3")))
    if choice and choice.get("reason") == "measured":
        st.header(t("eagle.h.sizing"))
        st.markdown(t("eagle.sizing", total=sizes.total_tokens, depth=sizes.depth))
        chart(st, sizing_figure(choice, "tree"), "eagle-sizing", width="stretch")
        one = choice["verify_s"][1]
        st.caption(t("eagle.forward_costs", one=1000 * one, total=sizes.total_tokens,
                     total_ms=1000 * choice["verify_s"].get(sizes.total_tokens, one), k=strategy.top_k,
                     level_ms=1000 * choice["level_s"]))
        if strategy.lookup:
            size = (sizes.total_tokens, sizes.depth)
            tokens = choice.get("verify_tokens", {}).get(size, sizes.total_tokens)
            pass_ms = 1000 * choice.get("pass_s", {}).get(size, choice["verify_s"].get(sizes.total_tokens, one))
            st.caption(t("eagle.sizing_lookup_bound" if choice.get("lookup_bound") else "eagle.sizing_lookup",
                         n=strategy.lookup, tokens=tokens, pass_ms=pass_ms))
    explain(strategy.head)


@st.fragment
def step_through(lab, strategy: Eagle, run, sizes, prompt_ids):
    lm = lab.lm
    state = stepper("eagle", (lab.key, strategy, run, sizes.total_tokens, sizes.depth),
                    lambda: build_decoder(lm, strategy, run, loaders.CACHED, sizes).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    if cursor < 0:
        st.info(t("eagle.press_step"))
        return
    shown = dec.history[: cursor + 1]
    so_far = html.escape("".join(lm.decode(s.emitted) for s in shown))  # model output: shown as it is, never as markdown
    st.markdown(f'{t("eagle.text_so_far")} <span data-testid="output-text" style="white-space:pre-wrap">{so_far}</span>',
                unsafe_allow_html=True)
    step = shown[-1]
    if step.kind == "prefill":
        st.markdown(t("eagle.prefill", n=len(prompt_ids), token=code_token(step.next_text)))
        return
    st.markdown(t("eagle.step", n=step.index + 1, drafted=step.n_drafted, accepted=step.n_accepted,
                  token=code_token(step.next_text), emitted=len(step.emitted),
                  unit=token_unit(len(step.emitted)), draft_ms=1000 * step.draft_s,
                  target_ms=1000 * step.target_s))
    if step.lookup_nodes:
        copied = set(step.lookup_nodes)
        st.markdown(t("eagle.step_corpus" if step.corpus_nodes else "eagle.step_copied", n=len(copied),
                      accepted=len(copied & set(step.accepted_path))))
    view = P.show("eagle_tree_view", disabled=len(step.tokens) == 1)  # always drawn: a widget left out of a fragment
    P.sync()                                                          # run loses its state (and the link its value)
    dot = tree_dot(step, compact=view == "compact")
    if len(step.tokens) > 1:
        tree_and_mask(step, dot)
    else:  # the budget's last token: the target decodes it alone (nothing drafted, no tree, no mask to compare)
        st.info(t("eagle.no_tree"))
    m = metrics_so_far(shown)
    metric_rows(st, [(t("spec.m.tau"), f"{m['mean_accepted_length']:.2f}", t("eagle.m.tau.help") + gloss("tau")),
                     (t("eagle.m.per_forward"), f"{m['new_tokens'] / m['target_forwards']:.2f}",
                      t("eagle.m.per_forward.help")),
                     (t("eagle.m.accepted"), f"{m['accepted']} / {m['drafted']}")], per_row=3)
    download_run("eagle", lab, strategy, run, dec, step_rows(shown),
                 t("eagle.steps.help"))
    pin_panel("eagle", Snapshot(t("pin.label", what=say(describe(strategy, sizes)), n=step.index + 1), "dot", dot, (
        (t("spec.m.tau"), f"{m['mean_accepted_length']:.2f}"),
        (t("eagle.m.accepted"), f"{m['accepted']} / {m['drafted']}"),
        (t("eagle.m.per_forward"), f"{m['new_tokens'] / m['target_forwards']:.2f}"))))


def tree_and_mask(step, dot: str) -> None:
    """The step's tree picture and, for a node picked below it, the tree attention mask against the causal one."""
    tree_chart(st, dot)
    tree_downloads(dot, "eagle-tree", t("eagle.mask"))
    st.caption(t("eagle.mask"))
    labels = [f"#{i} {tok}" for i, tok in enumerate(step.texts)]
    sel = st.selectbox(t("eagle.select_node"), range(len(labels)), format_func=labels.__getitem__,
                       index=node_from_link(len(labels)), key=f"eagle_node_{step.index}")
    if st.query_params.get("eagle_node") != str(sel):
        st.query_params["eagle_node"] = str(sel)  # the link reopens this node
    chart(st, mask_figure(step, sel), "eagle-mask", width="stretch")
    visible = [labels[j] for j in range(len(labels)) if step.mask[sel, j]]
    st.markdown(t("eagle.attends", node=labels[sel], visible=", ".join(visible)))


def trained_tokens_m(kind: str) -> str:
    """Millions of tokens the shipped head was trained on, from its manifest ("?" where it has none to read)."""
    tokens = head_manifest(kind).get("data", {}).get("train_tokens")
    return f"{tokens / 1e6:.1f}" if tokens else "?"


def node_from_link(n_nodes: int) -> int:
    """The link's selected node ``eagle_node`` (validated like widget input; a node this tree lacks: the root)."""
    raw = st.query_params.get("eagle_node")
    if raw is None:
        return 0
    try:
        node = params.parse(raw, int, 0, 96)
    except ValueError as exc:
        params.warn(t("warn.link_node", raw=params.echo(raw), why=err_text(exc)))
        st.query_params["eagle_node"] = "0"
        return 0
    return node if node < n_nodes else 0


def explain(kind: str) -> None:
    st.header(t("eagle.h.why"))
    st.markdown(t("eagle.why1"))
    st.latex(r"\textbf{EAGLE-1:}\quad \hat f_{i+1} = \mathrm{Layer}\big(W\,[\,\mathrm{embed}(t_{i+1});\,f_i\,] + b\big),"
             r"\qquad q = \mathrm{softmax}\big(\mathrm{lm\_head}_{\text{target}}(\hat f_{i+1})\big)")
    st.latex(r"L = L_{\text{reg}} + w_{\text{cls}} L_{\text{cls}},\quad L_{\text{reg}} = \mathrm{SmoothL1}(f_{i+1}, "
             r"\hat f_{i+1}),\quad L_{\text{cls}} = \mathrm{CE}(p_{i+2}, \hat p_{i+2}),\quad w_{\text{cls}} = 0.1")
    st.caption(t("eagle.loss1"))
    st.markdown(t("eagle.why3"))
    st.latex(r"\textbf{EAGLE-3:}\quad g_i = \mathrm{fc}([h^{(2)}_i; h^{(15)}_i; h^{(27)}_i]),\quad "
             r"o_i = \mathrm{Layer}\big([\mathrm{norm}(\mathrm{embed}(t_{i+1})); \mathrm{norm}(g_i)]\big),")
    st.latex(r"q = \mathrm{softmax}(\mathrm{lm\_head}_{V_d}(\mathrm{norm}(o_i)))")  # two lines: one overflows 1280 px
    info = head_manifest(kind)
    if not info:
        return
    st.header(t("eagle.h.trained", head=HEAD_LABELS[kind]))
    tr, data, held = info.get("training", {}), info.get("data", {}), info.get("heldout_tau")
    lines = [t("eagle.trained", steps=tr.get("steps", "?"), epochs=tr.get("epochs", "?"),
               tokens=data.get("train_tokens", 0), sequences=data.get("train_sequences", 0),
               minutes=tr.get("wall_s", 0) / 60, threads=tr.get("threads", "?"))]
    if info.get("vocabulary"):
        v = info["vocabulary"]
        lines.append(t("eagle.vocab", size=v["size"], coverage=v["heldout_answer_coverage"]))
    if held:
        lines.append(t("eagle.heldout_tau", tau=held["tau"], setting=setting_words(held)))
    looked = info.get("heldout_tau_lookup")
    if looked and same_gate(looked, looked.get("lookup", 0)):  # a figure from a branch gated otherwise: stale
        gate = looked.get("lookup_min_ngram", LOOKUP_MIN_NGRAM)
        matches = f"{gate}-{LOOKUP_MAX_NGRAM}" if gate < LOOKUP_MAX_NGRAM else f"{gate}"
        lines.append(t("eagle.heldout_tau_lookup", tau=looked["tau"], n=looked["lookup"], matches=matches))
        fell_back = info.get("heldout_tau_lookup_corpus")
        if fell_back and fell_back.get("lookup") == looked["lookup"] and same_gate(fell_back, fell_back["lookup"]) \
                and same_rule(fell_back):
            lines.append(t("eagle.heldout_tau_lookup_corpus", tau=fell_back["tau"]))
    by_depth = info.get("heldout", {}).get("top1_agreement_by_depth")
    if by_depth:
        lines.append(t("eagle.agree_depth", values=", ".join(f"{k + 1}: {a:.2f}" for k, a in enumerate(by_depth))))
    elif info.get("heldout", {}).get("top1_agreement"):
        lines.append(t("eagle.agree", value=info["heldout"]["top1_agreement"]))
    st.markdown(" ".join(lines))
    if info.get("losses", {}).get("rows"):
        chart(st, loss_figure(info), "eagle-loss", width="stretch")
        steps, total = info["losses"]["rows"][-1][0], tr.get("total_steps_all_sessions", tr.get("steps"))
        st.caption(t("eagle.loss_caption" if total and total > steps else "eagle.loss_caption_one", steps=steps,
                     total=total))
    with st.expander(t("eagle.manifest")):
        st.json(info, expanded=1)  # its sections listed, each opened on a click


def setting_words(held: dict) -> str:
    """The held-out setting that scripts/eval_tau.py writes into a manifest (its "params" fields), in the
    session's language; a manifest without them shows its "setting" text as it is."""
    p = held.get("params") or {}
    if p.get("tree") != "dynamic":
        return held.get("setting", "")
    return t("eagle.heldout_setting", k=p["top_k"], depth=p["depth"], total=p["total_tokens"], prompts=p["prompts"],
             new=p["new_tokens"])


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
