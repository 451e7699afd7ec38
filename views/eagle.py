"""EAGLE: a feature-level draft head, token trees, the tree attention mask, the accepted path."""

import streamlit as st

from decoding_core.decoders import AutoregressiveDecoder
from decoding_core.draft import load_draft
from decoding_core.eagle import HEAD_NAMES, HEADS, EagleDecoder, auto_tree, default_head, head_manifest, load_head
from decoding_core.models import ModelLoadError
from decoding_core.processors import SamplingSettings
from decoding_core.speculative import SpeculativeDecoder
from ui import params
from ui.controls import sampling_controls, stepper
from ui.lab import fingerprint, need_prompt
from viz.eagle import depth_figure, loss_figure, mask_figure, sizing_figure, tree_dot

lab = st.session_state["lab"]
lm = lab.lm
ss = st.session_state
st.title("EAGLE")
st.caption("A one-layer head predicts the target's next FEATURE; its guesses form a token tree that the target "
           "checks in one forward pass with a tree attention mask. Two heads are shipped: EAGLE-1 and EAGLE-3.")
prompt_ids = need_prompt(lab)


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_head(_target, target_key, kind):
    return load_head(_target, kind)


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_auto(_target, _head, target_key, kind, top_k):
    """The tree size chosen for this device (measured once per model, head and top-k)."""
    return auto_tree(_target, _head, kind, top_k)


p = params.init_widget
p("eagle_head", default_head(), str, choices=list(HEADS))
p("tree_kind", "dynamic", str, choices=["dynamic", "static"])
p("tree_auto", True, bool)
p("tree_top_k", 8, int, lo=1, hi=16)
p("tree_depth", 5, int, lo=1, hi=8)
p("total_tokens", 32, int, lo=4, hi=96)
p("eagle_sample", False, bool)
p("eagle_max_new", 48, int, lo=2, hi=256)
with st.container(border=True):
    h1, h2 = st.columns([2, 3])
    h1.radio("Head", list(HEADS), key="eagle_head", horizontal=True, format_func={"eagle1": "EAGLE-1",
                                                                                   "eagle3": "EAGLE-3"}.get,
             help="EAGLE-1: predicts the target's last-layer feature and drafts with the target's own LM head over "
                  "all 49,152 tokens. EAGLE-3: fuses low, middle and high-layer features, drafts over a reduced "
                  "vocabulary with its own small LM head, and was trained by feeding itself its own predictions "
                  "(training-time test). See below.")
    h2.caption(HEAD_NAMES[ss.eagle_head])
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.radio("Tree", ["dynamic", "static"], key="tree_kind", horizontal=True,
             help="static (EAGLE-1): a fixed 25-node shape of rank paths. dynamic (EAGLE-2): grow the tree where the "
                  "head is confident, by cumulative draft probability, then keep the best total-tokens nodes.")
    dynamic = ss.tree_kind == "dynamic"
    c2.slider("top-k per node", 1, 16, key="tree_top_k", disabled=not dynamic)
    c5.slider("Max new tokens", 2, 256, key="eagle_max_new")
    c1.toggle("Auto size", key="tree_auto", disabled=not dynamic,
              help="Choose total tokens and depth that maximise expected tokens/s HERE: the head's held-out mean "
                   "accepted length for each size (its manifest) divided by the cost of that size measured on "
                   "this machine (a verify pass of T tokens + depth head levels).")
    auto = dynamic and ss.tree_auto
    c3.slider("Depth", 1, 8, key="tree_depth", disabled=not dynamic or auto)
    c4.slider("Total tokens", 4, 96, key="total_tokens", disabled=not dynamic or auto,
              help="Tree size (root included) verified in one target forward.")
    st.toggle("Sample (lossless tree sampling) instead of greedy", key="eagle_sample")
    if ss.eagle_sample:
        with st.expander("Sampling settings", expanded=False):
            settings = sampling_controls(prefix="eagle_", show_rep=False)
    else:
        settings = SamplingSettings()
params.sync(["eagle_head", "tree_kind", "tree_auto", "tree_top_k", "tree_depth", "total_tokens", "eagle_sample",
             "eagle_max_new"])

target_key = (lm.name, str(lm.device), str(lm.dtype))
try:
    with st.spinner("Loading the EAGLE head…"):
        head = cached_head(lm, target_key, ss.eagle_head)
    choice = None
    if auto:
        with st.spinner("Measuring what a verify pass and a head level cost on this device (once)…"):
            choice = cached_auto(lm, head, target_key, ss.eagle_head, ss.tree_top_k)
    depth = choice["depth"] if choice else ss.tree_depth
    total = choice["total_tokens"] if choice else ss.total_tokens
    args = dict(tree=ss.tree_kind, top_k=ss.tree_top_k, depth=depth, total_tokens=total,
                settings=settings, sample=ss.eagle_sample, max_new_tokens=ss.eagle_max_new, seed=lab.seed)
    EagleDecoder(lm, head, **args)
except (ModelLoadError, ValueError) as exc:
    st.error(str(exc))
    st.caption("The other pages keep working. The heads are trained for the embedded SmolLM2 only.")
    st.stop()
if choice and choice.get("reason") == "measured":
    st.caption(f"Sized for this device: **{total} tokens, depth {depth}** (held-out τ {choice['tau']:.2f}, expected "
               f"{choice['tokens_per_s']:.1f} tokens/s). See *Choosing the tree size* below.")
elif choice:
    st.caption(f"Tree size {total}, depth {depth}: {choice['reason']}.")


run_key = fingerprint(lab, ss.eagle_head, tuple(sorted(args.items(), key=str)))  # what a result belongs to


@st.fragment
def step_through():
    state = stepper("eagle", run_key, lambda: EagleDecoder(lm, head, **args).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    if cursor < 0:
        st.info("Press **Step**. The first step is the target reading the prompt and producing the first token "
                "itself: the head needs the target's features before it can draft.")
        return
    shown = dec.history[: cursor + 1]
    text = "".join(lm.decode(s.emitted) for s in shown)
    st.markdown(f"**Text so far:** {text}")
    step = shown[-1]
    if step.kind == "prefill":
        st.markdown(f"**Step 0**: the target read the {len(prompt_ids)}-token prompt and produced **`{step.next_text}`**. "
                    "It is the root of the first tree.")
        return
    n_acc = len(step.accepted_path) - 1
    st.markdown(f"**Step {step.index}**: a tree of {len(step.tokens) - 1} drafted tokens, verified in one target "
                f"forward; **{n_acc} accepted** along the green path, then the target's own **`{step.next_text}`** → "
                f"{len(step.emitted)} tokens (draft {1000 * step.draft_s:.0f} ms, target {1000 * step.target_s:.0f} ms).")
    st.graphviz_chart(tree_dot(step), width="content")
    st.caption("Each node: its token, its tree index and the head's cumulative confidence q as a percentage (product of the draft "
               "probabilities along its path). Green = the accepted path (root included); grey = rejected branches.")
    labels = [f"#{i} {t}" for i, t in enumerate(step.texts)]
    sel = st.selectbox("Select a node to see what it attends to", range(len(labels)), format_func=labels.__getitem__,
                       key="eagle_node")
    st.plotly_chart(mask_figure(step, sel), width="stretch")
    visible = [labels[j] for j in range(len(labels)) if step.mask[sel, j]]
    st.markdown(f"**{labels[sel]}** attends to the whole prefix plus: {', '.join(visible)} (itself and its "
                "ancestors). Under the plain causal mask it would also see every earlier node in the flattened "
                "order, siblings' branches included, and its prediction would condition on text that is not its own.")
    m_s = sum(1 for s in shown if s.kind == "tree")
    acc = sum(len(s.accepted_path) - 1 for s in shown if s.kind == "tree")
    a, b, c = st.columns(3)
    a.metric("Mean accepted length τ", f"{(acc + m_s) / m_s:.2f}",
             help="(accepted drafts + verify steps) / verify steps: tokens per target forward after the prefill, "
                  "the target's own token included (plain decoding = 1.00)")
    b.metric("Tokens per target forward", f"{len(dec.tokens[: sum(len(s.emitted) for s in shown)]) / len(shown):.2f}",
             help="all tokens so far ÷ all target forwards (prefill included)")
    c.metric("Drafted nodes accepted", f"{acc} / {sum(len(s.tokens) - 1 for s in shown if s.kind == 'tree')}")


step_through()

# ---------------------------------------------------------------------------------------------- comparison
st.header("Speed: EAGLE against plain decoding and vanilla speculative decoding")
st.markdown("Same prompt, length, device and dtype, measured now in this session (greedy, so all three produce the "
            "same text). Speed-up = tokens/s ÷ tokens/s of plain target decoding.")
p("cmp_tokens", 48, int, lo=8, hi=256)
c1, c2 = st.columns([3, 1])
c1.slider("Tokens", 8, 256, key="cmp_tokens")
params.sync(["cmp_tokens"])
if c2.button("Measure", type="primary", width="stretch"):
    n = ss.cmp_tokens
    bar = st.progress(0.0, text="plain decoding")
    plain = AutoregressiveDecoder(lm, None, None, n, lab.seed, stop_at_eos=False).start(prompt_ids).run()
    bar.progress(0.33, text="vanilla speculative decoding (shipped draft, N = 4)")
    rows = [("plain target decoding", plain.metrics, plain.tokens)]
    try:
        draft = load_draft(lm, "embedded")
        spec = SpeculativeDecoder(lm, draft, 4, "greedy", max_new_tokens=n, seed=lab.seed, stop_at_eos=False)
        spec_r = spec.start(prompt_ids).run()
        rows.append(("speculative (2-layer draft, N = 4)", spec_r.metrics, spec_r.tokens))
    except ModelLoadError as exc:
        st.warning(f"Vanilla speculative decoding skipped: {exc}")
    bar.progress(0.66, text="EAGLE")
    eg = EagleDecoder(lm, head, **dict(args, sample=False, settings=SamplingSettings(), max_new_tokens=n),
                      stop_at_eos=False).start(prompt_ids).run()
    rows.append((f"EAGLE ({'EAGLE-3' if ss.eagle_head == 'eagle3' else 'EAGLE-1'}, {ss.tree_kind} tree, {total} "
                 f"tokens, depth {depth})", eg.metrics, eg.tokens))
    bar.empty()
    base = plain.metrics["new_tokens"] / plain.metrics["wall_s"]
    ss["eagle_cmp"] = [{"method": name, "tokens/s": round(m["new_tokens"] / m["wall_s"], 2),
                        "speed-up": round(m["new_tokens"] / m["wall_s"] / base, 2),
                        "τ": m.get("mean_accepted_length") or 1.0, "target forwards": m["target_forwards"],
                        "same text as plain": toks == plain.tokens} for name, m, toks in rows]
    ss["eagle_cmp_depth"] = {name: m["acceptance_by_depth"] for name, m, _ in rows if m.get("acceptance_by_depth")}
    ss["eagle_cmp_key"] = (run_key, n)
if "eagle_cmp" in ss:
    if ss.get("eagle_cmp_key") != (run_key, ss.cmp_tokens):
        st.caption("These figures are from earlier settings: press **Measure** again for the current ones.")
    st.dataframe(ss["eagle_cmp"], hide_index=True, width="stretch")
    if ss.get("eagle_cmp_depth"):
        st.plotly_chart(depth_figure(ss["eagle_cmp_depth"]), width="stretch")
        st.caption("For a chain (speculative decoding) depth d is the d-th draft; for a tree, the d-th node of the "
                   "accepted path. A tree reaches deeper because several guesses are checked at every depth.")

# ---------------------------------------------------------------------------------------------- sizing
if choice and choice.get("reason") == "measured":
    st.header("Choosing the tree size for this device")
    st.markdown(
        "A bigger tree accepts more tokens per step, but the target's verify pass over T tokens is not free: on a "
        "GPU it costs about as much as one token up to dozens of tokens, on this CPU it grows with T (left: "
        "measured now). The head's mean accepted length τ for every size was measured once on held-out "
        "instructions (its manifest); dividing it by each size's cost here gives the expected tokens/s (right), "
        f"and the best size is used: **{total} tokens, depth {depth}**. Turn *Auto size* off to pick "
        "your own.")
    st.plotly_chart(sizing_figure(choice, "tree"), width="stretch")
    one = choice["verify_s"][1]
    st.caption(f"One forward over 1 token: {1000 * one:.0f} ms; over {total} tokens: "
               f"{1000 * choice['verify_s'].get(total, one):.0f} ms; one head level over {ss.tree_top_k} nodes: "
               f"{1000 * choice['level_s']:.1f} ms.")

# ---------------------------------------------------------------------------------------------- why
st.header("Why predict features? EAGLE-1 and EAGLE-3")
st.markdown(
    "The target's last hidden state **f** (after its final norm) is what its LM head turns into token "
    "probabilities. EAGLE's head learns the next feature from the current one: features change smoothly from one "
    "position to the next, so a single layer can follow them, while a small *token* model has to learn the whole "
    "language on its own. The next feature depends on which token was actually chosen (from the same feature, "
    "“I am” and “I will” lead to different futures), so the head also reads the **next token**: its input at "
    "position i is the pair (feature i, token i+1), the **token shift**.")
st.latex(r"\textbf{EAGLE-1:}\quad \hat f_{i+1} = \mathrm{Layer}\big(W\,[\,\mathrm{embed}(t_{i+1});\,f_i\,] + b\big),"
         r"\qquad q = \mathrm{softmax}\big(\mathrm{lm\_head}_{\text{target}}(\hat f_{i+1})\big)")
st.markdown(
    "**EAGLE-3** changes three things. *Which features*: the last layer's feature is already shaped for the very "
    "next token only; EAGLE-3 reads the hidden states entering a low, a middle and a high layer (for this 30-layer "
    "target: 2, 15 and 27) and fuses them, g = fc([low; middle; high]). *Which vocabulary*: it drafts only among "
    "the most frequent answer tokens with its own small LM head, which makes every draft level several times "
    "cheaper than the target's 49,152-row head; the target still verifies in its full vocabulary, so nothing is "
    "lost. *What training-time test fixes*: at depth 2 and deeper the head must read its OWN predicted features, "
    "which are never exactly the target's. EAGLE-1 was trained on true features only, so its errors compound with "
    "depth; EAGLE-3 is trained by unrolling itself several steps and feeding back its own outputs, exactly as it "
    "drafts. The per-depth acceptance chart above shows the effect.")
st.latex(r"\textbf{EAGLE-3:}\quad g_i = \mathrm{fc}([h^{(2)}_i; h^{(15)}_i; h^{(27)}_i]),\quad "
         r"o_i = \mathrm{Layer}\big([\mathrm{norm}(\mathrm{embed}(t_{i+1})); \mathrm{norm}(g_i)]\big),\quad "
         r"q = \mathrm{softmax}(\mathrm{lm\_head}_{V_d}(\mathrm{norm}(o_i)))")

info = head_manifest(ss.eagle_head)
if info:
    st.header(f"How the shipped {'EAGLE-3' if ss.eagle_head == 'eagle3' else 'EAGLE-1'} head was trained")
    tr, data = info.get("training", {}), info.get("data", {})
    held = info.get("heldout_tau")
    lines = [f"{tr.get('steps', '?')} steps ({tr.get('epochs', '?')} epochs) on {data.get('train_tokens', 0):,} tokens "
             f"of the target's own answers to {data.get('train_sequences', 0):,} generated instructions, "
             f"{tr.get('wall_s', 0) / 60:.0f} minutes on {tr.get('threads', '?')} CPU thread(s)."]
    if info.get("vocabulary"):
        v = info["vocabulary"]
        lines.append(f"Draft vocabulary: {v['size']:,} tokens, covering {v['heldout_answer_coverage']:.1%} of held-out "
                     "answer tokens.")
    if held:
        lines.append(f"Held-out mean accepted length τ **{held['tau']:.2f}** ({held['setting']}).")
    if info.get("heldout", {}).get("top1_agreement_by_depth"):
        acc = info["heldout"]["top1_agreement_by_depth"]
        lines.append("Held-out top-1 agreement with the target by depth (training-time test): "
                     + ", ".join(f"{k + 1}: {a:.2f}" for k, a in enumerate(acc)) + ".")
    elif info.get("heldout", {}).get("top1_agreement"):
        lines.append(f"Held-out top-1 agreement with the target (true features): {info['heldout']['top1_agreement']:.2f}.")
    st.markdown(" ".join(lines))
    if info.get("losses"):
        st.plotly_chart(loss_figure(info), width="stretch")
    with st.expander("The manifest"):
        st.json(info, expanded=False)
