"""EAGLE: a feature-level draft head, token trees, the tree attention mask, the accepted path."""
import streamlit as st

from decoding_core.decoders import metrics_so_far
from decoding_core.heads import HEAD_LABELS, HEAD_NAMES, default_head, head_manifest
from decoding_core.models import ModelLoadError
from decoding_core.settings import HEADS, TREES, Eagle, Greedy, SamplingSettings, Speculative
from decoding_core.strategies import build_decoder, describe, resolve_sizes
from decoding_core.studies.compare import compare
from ui import loaders, params
from ui.controls import Controls, Param, sampling_table, show_sampling, stepper
from ui.lab import chart, open_page
from ui.export import download_run, tree_downloads
from ui.pin import Snapshot, pin_panel
from ui.progress import kept, measure
from ui.texts import TEXT, gloss
from viz.eagle import depth_figure, loss_figure, mask_figure, sizing_figure, step_rows, tree_dot
from viz.tables import compare_rows

P = Controls([
    Param("eagle_head", default_head(), "p.eagle_head", choices=HEADS, widget="radio", labels=HEAD_LABELS,
          help="p.eagle_head.help"),
    Param("tree_kind", "dynamic", "p.tree_kind", choices=TREES, widget="radio",
          help="p.tree_kind.help"),
    Param("tree_auto", True, "p.tree_auto",
          help="p.tree_auto.help"),
    Param("tree_top_k", 8, "p.tree_top_k", 1, 16),
    Param("tree_depth", 5, "p.tree_depth", 1, 8),
    Param("total_tokens", 32, "p.total_tokens", 4, 96, help="p.total_tokens.help"),
    Param("eagle_sample", False, "p.eagle_sample"),
    Param("eagle_tree_view", "compact", "p.eagle_tree_view", choices=("compact", "whole tree"), widget="radio",
          help="p.eagle_tree_view.help"),
    Param("eagle_max_new", 48, "p.eagle_max_new", 2, 256),
    Param("cmp_tokens", 32, "p.cmp_tokens", 8, 256),
] + sampling_table("eagle_"))


def controls() -> Eagle:
    ss = st.session_state
    with st.container(border=True):
        h1, h2 = st.columns([2, 3])
        P.show("eagle_head", h1)
        h2.caption(HEAD_NAMES[ss.eagle_head])
        c1, c2, c3, c4, c5 = st.columns(5)
        P.show("tree_kind", c1)
        dynamic = ss.tree_kind == "dynamic"
        P.show("tree_auto", c1, disabled=not dynamic)
        P.show("tree_top_k", c2, disabled=not dynamic)
        auto = dynamic and ss.tree_auto
        P.show("tree_depth", c3, disabled=not dynamic or auto)
        P.show("total_tokens", c4, disabled=not dynamic or auto)
        P.show("eagle_max_new", c5)
        P.show("eagle_sample")
        sampling = SamplingSettings()
        if ss.eagle_sample:
            with st.expander("Sampling settings", expanded=False):
                sampling = show_sampling(P, "eagle_")
    sizes = ("auto", "auto") if auto else (ss.tree_depth, ss.total_tokens)
    return Eagle(ss.eagle_head, ss.tree_kind, ss.tree_top_k, *sizes, ss.eagle_sample, sampling)


def render() -> None:
    lab, prompt_ids = open_page("EAGLE", (
        "A one-layer head predicts the target's next FEATURE; its guesses form a token tree that"
        " the target checks in one forward pass with a tree attention mask. Two heads are"
        " shipped: EAGLE-1 and EAGLE-3."), P)
    lm = lab.lm
    strategy = controls()
    run = lab.run(P["eagle_max_new"], backend="eager")
    try:
        head = loaders.head(lm, strategy.head)
        sizes = resolve_sizes(lm, strategy, head=head, head_kind=strategy.head, loaders=loaders.CACHED)
        build_decoder(lm, strategy, run, loaders.CACHED, sizes)  # validate now, not mid-run
    except (ModelLoadError, ValueError) as exc:
        P.sync()
        st.error(str(exc))
        st.caption("The other pages keep working. The heads are trained for the embedded SmolLM2 only.")
        st.stop()
    choice = sizes.choice
    if choice and choice.get("reason") == "measured":
        st.caption(f"Sized for this device: **{sizes.total_tokens} tokens, depth {sizes.depth}** (held-out τ "
                   f"{choice['tau']:.2f}, expected {choice['tokens_per_s']:.1f} tokens/s). See *Choosing the tree "
                   "size* below.")
    elif choice:
        st.caption(f"Tree size {sizes.total_tokens}, depth {sizes.depth}: {choice['reason']}.")
    step_through(lab, strategy, run, sizes, prompt_ids)

    st.header("Speed: EAGLE against plain decoding and vanilla speculative decoding")
    st.markdown(TEXT["eagle.cmp"])
    c1, c2 = st.columns([3, 1])
    P.show("cmp_tokens", c1)
    P.sync()
    greedy_eagle = Eagle(strategy.head, strategy.tree, strategy.top_k, sizes.depth, sizes.total_tokens)
    cmp_run = lab.run(P["cmp_tokens"], stop_at_eos=False, backend="eager")
    key = (lab.key, greedy_eagle, cmp_run)
    if c2.button("Measure", type="primary", width="stretch"):
        measure("eagle_cmp", key, lambda progress, stop: compare(
            lm, prompt_ids, [("plain target decoding", Greedy()),
                             ("speculative (2-layer draft, N = 4)", Speculative("embedded", 4)), greedy_eagle],
            cmp_run, loaders=loaders.CACHED, progress=progress, should_stop=stop))
    cmp = kept("eagle_cmp", key, "Measure")
    if cmp:
        st.dataframe(compare_rows(cmp), hide_index=True, width="stretch")
        depth = {r.label: list(r.acceptance_by_depth) for r in cmp.runs if r.acceptance_by_depth}
        if depth:
            chart(st, depth_figure(depth), "eagle-depth", width="stretch")
            st.caption(TEXT["eagle.depth"])
    if choice and choice.get("reason") == "measured":
        st.header("Choosing the tree size for this device")
        st.markdown(TEXT["eagle.sizing"].format(total=sizes.total_tokens, depth=sizes.depth))
        chart(st, sizing_figure(choice, "tree"), "eagle-sizing", width="stretch")
        one = choice["verify_s"][1]
        st.caption(f"One forward over 1 token: {1000 * one:.0f} ms; over {sizes.total_tokens} tokens: "
                   f"{1000 * choice['verify_s'].get(sizes.total_tokens, one):.0f} ms; one head level over "
                   f"{strategy.top_k} nodes: {1000 * choice['level_s']:.1f} ms.")
    explain(strategy.head)


@st.fragment
def step_through(lab, strategy: Eagle, run, sizes, prompt_ids):
    lm = lab.lm
    state = stepper("eagle", (lab.key, strategy, run, sizes.total_tokens, sizes.depth),
                    lambda: build_decoder(lm, strategy, run, loaders.CACHED, sizes).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    if cursor < 0:
        st.info("Press **Step**. The first step is the target reading the prompt and producing the first token "
                "itself: the head needs the target's features before it can draft.")
        return
    shown = dec.history[: cursor + 1]
    st.markdown(f"**Text so far:** {''.join(lm.decode(s.emitted) for s in shown)}")
    step = shown[-1]
    if step.kind == "prefill":
        st.markdown(f"**Step 1**: the target read the {len(prompt_ids)}-token prompt and produced "
                    f"**`{step.next_text}`**. It is the root of the first tree.")
        return
    st.markdown(f"**Step {step.index + 1}**: a tree of {step.n_drafted} drafted tokens, verified in one target forward; "
                f"**{step.n_accepted} accepted** along the green path, then the target's own **`{step.next_text}`** "
                f"→ {len(step.emitted)} tokens (draft {1000 * step.draft_s:.0f} ms, target {1000 * step.target_s:.0f} "
                "ms).")
    view = P.show("eagle_tree_view")
    P.sync()
    dot = tree_dot(step, compact=view == "compact")
    st.graphviz_chart(dot, width="content")
    tree_downloads(dot, "eagle-tree")
    st.caption(TEXT["eagle.mask"])
    labels = [f"#{i} {t}" for i, t in enumerate(step.texts)]
    sel = st.selectbox("Select a node to see what it attends to", range(len(labels)), format_func=labels.__getitem__,
                       index=node_from_link(len(labels)), key=f"eagle_node_{step.index}")
    if st.query_params.get("eagle_node") != str(sel):
        st.query_params["eagle_node"] = str(sel)  # the link reopens this node
    chart(st, mask_figure(step, sel), "eagle-mask", width="stretch")
    visible = [labels[j] for j in range(len(labels)) if step.mask[sel, j]]
    st.markdown(f"**{labels[sel]}** attends to the whole prefix plus: {', '.join(visible)} (itself and its "
                "ancestors). Under the plain causal mask it would also see every earlier node in the flattened "
                "order, siblings' branches included, and its prediction would condition on text that is not its own.")
    m = metrics_so_far(shown)
    a, b, c = st.columns(3)
    a.metric("Mean accepted length τ", f"{m['mean_accepted_length']:.2f}",
             help="(accepted drafts + verify steps) / verify steps: tokens per target forward after the prefill, "
                  "the target's own token included (plain decoding = 1.00)" + gloss("tau"))
    b.metric("Tokens per target forward", f"{m['new_tokens'] / m['target_forwards']:.2f}",
             help="all tokens so far ÷ all target forwards (prefill included)")
    c.metric("Drafted nodes accepted", f"{m['accepted']} / {m['drafted']}")
    download_run("eagle", lab, strategy, run, dec, step_rows(shown),
                 "Every drafted node of every step so far (parent, depth, token, draft q, accepted or rejected), then "
                 "the target's own token.")
    pin_panel("eagle", Snapshot(f"{describe(strategy, sizes)}, step {step.index + 1}", "dot", dot, (
        ("Mean accepted length τ", f"{m['mean_accepted_length']:.2f}"),
        ("Drafted nodes accepted", f"{m['accepted']} / {m['drafted']}"),
        ("Tokens per target forward", f"{m['new_tokens'] / m['target_forwards']:.2f}"))))


def node_from_link(n_nodes: int) -> int:
    """The link's selected node ``eagle_node`` (validated like widget input; a node this tree lacks: the root)."""
    raw = st.query_params.get("eagle_node")
    if raw is None:
        return 0
    try:
        node = params.parse(raw, int, 0, 96)
    except ValueError as exc:
        params.warn(f"Ignored the link's value eagle_node={params.echo(raw)} ({exc}); showing the root.")
        st.query_params["eagle_node"] = "0"
        return 0
    return node if node < n_nodes else 0


def explain(kind: str) -> None:
    st.header("Why predict features? EAGLE-1 and EAGLE-3")
    st.markdown(TEXT["eagle.why1"])
    st.latex(r"\textbf{EAGLE-1:}\quad \hat f_{i+1} = \mathrm{Layer}\big(W\,[\,\mathrm{embed}(t_{i+1});\,f_i\,] + b\big),"
             r"\qquad q = \mathrm{softmax}\big(\mathrm{lm\_head}_{\text{target}}(\hat f_{i+1})\big)")
    st.markdown(TEXT["eagle.why3"])
    st.latex(r"\textbf{EAGLE-3:}\quad g_i = \mathrm{fc}([h^{(2)}_i; h^{(15)}_i; h^{(27)}_i]),\quad "
             r"o_i = \mathrm{Layer}\big([\mathrm{norm}(\mathrm{embed}(t_{i+1})); \mathrm{norm}(g_i)]\big),\quad "
             r"q = \mathrm{softmax}(\mathrm{lm\_head}_{V_d}(\mathrm{norm}(o_i)))")
    info = head_manifest(kind)
    if not info:
        return
    st.header(f"How the shipped {HEAD_LABELS[kind]} head was trained")
    tr, data, held = info.get("training", {}), info.get("data", {}), info.get("heldout_tau")
    lines = [f"{tr.get('steps', '?')} steps ({tr.get('epochs', '?')} epochs) on {data.get('train_tokens', 0):,} tokens "
             f"of the target's own answers to {data.get('train_sequences', 0):,} generated instructions, "
             f"{tr.get('wall_s', 0) / 60:.0f} minutes on {tr.get('threads', '?')} CPU thread(s)."]
    if info.get("vocabulary"):
        v = info["vocabulary"]
        lines.append(f"Draft vocabulary: {v['size']:,} tokens, covering {v['heldout_answer_coverage']:.1%} of held-out "
                     "answer tokens.")
    if held:
        lines.append(f"Held-out mean accepted length τ **{held['tau']:.2f}** ({held['setting']}).")
    by_depth = info.get("heldout", {}).get("top1_agreement_by_depth")
    if by_depth:
        lines.append("Held-out top-1 agreement with the target by depth (training-time test): "
                     + ", ".join(f"{k + 1}: {a:.2f}" for k, a in enumerate(by_depth)) + ".")
    elif info.get("heldout", {}).get("top1_agreement"):
        lines.append("Held-out top-1 agreement with the target (true features): "
                     f"{info['heldout']['top1_agreement']:.2f}.")
    st.markdown(" ".join(lines))
    if info.get("losses"):
        chart(st, loss_figure(info), "eagle-loss", width="stretch")
    with st.expander("The manifest"):
        st.json(info, expanded=False)


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
