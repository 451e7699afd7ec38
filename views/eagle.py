"""EAGLE: a feature-level draft head, token trees, the tree attention mask, the accepted path."""
import json

import streamlit as st

from decoding_core.decoders import AutoregressiveDecoder
from decoding_core.draft import load_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle_head import EAGLE_DIR, load_embedded_head
from decoding_core.models import ModelLoadError
from decoding_core.processors import SamplingSettings
from decoding_core.speculative import SpeculativeDecoder
from ui import params
from ui.controls import sampling_controls, stepper
from ui.lab import fingerprint, need_prompt
from viz.eagle import loss_figure, mask_figure, tree_dot

lab = st.session_state["lab"]
lm = lab.lm
ss = st.session_state
st.title("EAGLE")
st.caption("A one-layer head predicts the target's next FEATURE; its guesses form a token tree that the target "
           "checks in one forward pass with a tree attention mask.")
prompt_ids = need_prompt(lab)


@st.cache_resource(show_spinner=False, max_entries=2)
def cached_head(_target, target_key):
    return load_embedded_head(_target)


p = params.init_widget
p("tree_kind", "dynamic", str, choices=["dynamic", "static"])
p("tree_top_k", 8, int, lo=1, hi=16)
p("tree_depth", 5, int, lo=1, hi=8)
p("total_tokens", 32, int, lo=4, hi=96)
p("eagle_sample", False, bool)
p("eagle_max_new", 48, int, lo=2, hi=256)
with st.container(border=True):
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.radio("Tree", ["dynamic", "static"], key="tree_kind", horizontal=True,
             help="static (EAGLE-1): a fixed 25-node shape of rank paths. dynamic (EAGLE-2): grow the tree where the "
                  "head is confident, by cumulative draft probability, then keep the best total-tokens nodes.")
    dynamic = ss.tree_kind == "dynamic"
    c2.slider("top-k per node", 1, 16, key="tree_top_k", disabled=not dynamic)
    c3.slider("Depth", 1, 8, key="tree_depth", disabled=not dynamic)
    c4.slider("Total tokens", 4, 96, key="total_tokens", disabled=not dynamic,
              help="Tree size (root included) verified in one target forward.")
    c5.slider("Max new tokens", 2, 256, key="eagle_max_new")
    st.toggle("Sample (lossless tree sampling) instead of greedy", key="eagle_sample")
    if ss.eagle_sample:
        with st.expander("Sampling settings", expanded=False):
            settings = sampling_controls(prefix="eagle_", show_rep=False)
    else:
        settings = SamplingSettings()
params.sync(["tree_kind", "tree_top_k", "tree_depth", "total_tokens", "eagle_sample", "eagle_max_new"])

try:
    with st.spinner("Loading the EAGLE head…"):
        head = cached_head(lm, (lm.name, str(lm.device), str(lm.dtype)))
    args = dict(tree=ss.tree_kind, top_k=ss.tree_top_k, depth=ss.tree_depth, total_tokens=ss.total_tokens,
                settings=settings, sample=ss.eagle_sample, max_new_tokens=ss.eagle_max_new, seed=lab.seed)
    EagleDecoder(lm, head, **args)
except (ModelLoadError, ValueError) as exc:
    st.error(str(exc))
    st.caption("The other pages keep working. The head is trained for the embedded SmolLM2 only.")
    st.stop()


@st.fragment
def step_through():
    key = fingerprint(lab, tuple(sorted(args.items(), key=str)))
    state = stepper("eagle", key, lambda: EagleDecoder(lm, head, **args).start(prompt_ids))
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
    st.caption("Each node: its token, its tree index and the head's cumulative confidence q (product of the draft "
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
    rows.append((f"EAGLE ({ss.tree_kind} tree)", eg.metrics, eg.tokens))
    bar.empty()
    base = plain.metrics["new_tokens"] / plain.metrics["wall_s"]
    ss["eagle_cmp"] = [{"method": name, "tokens/s": round(m["new_tokens"] / m["wall_s"], 2),
                        "speed-up": round(m["new_tokens"] / m["wall_s"] / base, 2),
                        "τ": m.get("mean_accepted_length") or 1.0, "target forwards": m["target_forwards"],
                        "same text as plain": toks == plain.tokens} for name, m, toks in rows]
if "eagle_cmp" in ss:
    st.dataframe(ss["eagle_cmp"], hide_index=True, width="stretch")

# ---------------------------------------------------------------------------------------------- why
st.header("Why predict features?")
st.markdown(
    "The target's last hidden state **f** (after its final norm) is what its LM head turns into token "
    "probabilities. EAGLE's head learns **f_{i+1}** from **f_i**: features change smoothly from one position to the "
    "next, so a single layer can follow them, while a small *token* model has to learn the whole language on its "
    "own. The catch is that the next feature depends on which token was actually sampled: from the same f_i, "
    "“I am” and “I will” lead to different futures. So the head also reads the **next token**: its input at "
    "position i is (f_i, embed(t_{i+1})), the **token shift**. The head then reuses the target's own frozen LM head "
    "and embedding, so only about 4 M weights are trained.")
st.latex(r"\hat f_{i+1} = \mathrm{Layer}\big(W\,[\,\mathrm{embed}(t_{i+1});\,f_i\,] + b\big), \qquad "
         r"q(\cdot) = \mathrm{softmax}(\mathrm{lm\_head}(\hat f_{i+1}))")

manifest = EAGLE_DIR / "manifest.json"
if manifest.exists():
    info = json.loads(manifest.read_text())
    st.header("How the shipped head was trained")
    st.markdown(f"{info['training']['steps']} steps ({info['training']['epochs']} epochs) on "
                f"{info['data']['train_tokens']:,} tokens of the target's own answers to "
                f"{info['data']['train_sequences']:,} generated instructions, {info['training']['wall_s'] / 60:.0f} "
                f"minutes on {info['training']['threads']} CPU thread(s). Held-out ({info['data']['heldout_sequences']} "
                f"instructions on topics never trained on): top-1 agreement with the target "
                f"**{info['heldout']['top1_agreement']:.2f}**"
                + (f", mean accepted length τ **{info['heldout_tau']['tau']:.2f}** ({info['heldout_tau']['setting']})."
                   if "heldout_tau" in info else "."))
    st.plotly_chart(loss_figure(info), width="stretch")
    with st.expander("The manifest"):
        st.json(info, expanded=False)
