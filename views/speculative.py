"""Speculative decoding: a draft proposes N tokens, the target verifies them in one forward."""
import numpy as np
import streamlit as st
import torch
from transformers import DynamicCache

from decoding_core.decoders import AutoregressiveDecoder, forward
from decoding_core.draft import DRAFT_DIR, load_draft
from decoding_core.models import ModelLoadError
from decoding_core.processors import SamplingSettings, apply_processors, build_processors
from decoding_core.speculative import (SpeculativeDecoder, auto_chain, draft_next_logits, expected_speedup, expected_tokens_per_step, verify_sample,
                                       verify_topk)
from ui import params
from ui.controls import sampling_controls, stepper
from ui.lab import fingerprint, need_prompt
from viz.eagle import sizing_figure
from viz.speculative import draft_rows, drift_figure, origin_html, residual_figure, sweep_figure

lab = st.session_state["lab"]
lm = lab.lm
ss = st.session_state
st.title("Speculative decoding")
st.caption("A small draft guesses N tokens; the big target checks all of them in ONE forward pass and keeps the "
           "longest acceptable prefix, plus one token of its own.")
prompt_ids = need_prompt(lab)


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_draft(_target, target_key, source):
    return load_draft(_target, source)


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_auto_n(_target, _draft, target_key, source):
    """The N chosen for this device (measured once per model and draft)."""
    return auto_chain(_target, _draft, source)


p = params.init_widget
p("draft_source", "embedded", str, choices=["embedded", "prompt-lookup", "model"])
p("draft_model", "", str)
p("n_draft", 4, int, lo=1, hi=12)
p("n_auto", True, bool)
p("rule", "greedy", str, choices=["greedy", "topk", "sample"])
p("verify_k", 3, int, lo=1, hi=50)
p("target_sample", False, bool)
p("spec_max_new", 48, int, lo=2, hi=256)
with st.container(border=True):
    c1, c2, c3, c4 = st.columns(4)
    c1.selectbox("Draft", ["embedded", "prompt-lookup", "model"], key="draft_source",
                 format_func={"embedded": "shipped 2-layer draft", "prompt-lookup": "prompt lookup (n-gram copy)",
                              "model": "another model…"}.get,
                 help="The shipped draft was trained for the embedded SmolLM2 (see its manifest below). Prompt lookup "
                      "copies what followed the last n-gram earlier in the text: no model at all.")
    if ss.draft_source == "model":
        c1.text_input("Draft model (hub id or folder)", key="draft_model",
                      help="Must use exactly the target's tokenizer.")
    n_auto = ss.n_auto and ss.draft_source == "embedded"
    c2.slider("Draft length N", 1, 12, key="n_draft", disabled=n_auto)
    c2.toggle("Size N for this device", key="n_auto", disabled=ss.draft_source != "embedded",
              help="For the shipped draft: the N that maximises expected tokens/s HERE, from the draft's held-out "
                   "mean accepted length for each N (its manifest) and the cost of N draft steps plus a verify pass "
                   "of N + 1 tokens measured on this machine.")
    c3.radio("Verification rule", ["greedy", "topk", "sample"], key="rule", horizontal=True,
             format_func={"greedy": "greedy match", "topk": "top-K (notes)", "sample": "rejection sampling"}.get,
             help="greedy match: accept while the draft equals the target's argmax (output = target greedy). "
                  "top-K: accept while the draft token is in the target's top K (fast, NOT lossless for K > 1). "
                  "rejection sampling: accept with probability min(1, p/q) (lossless: output ~ target sampling).")
    if ss.rule == "topk":
        c3.slider("K", 1, 50, key="verify_k")
        c3.toggle("Target samples (else argmax)", key="target_sample")
    c4.slider("Max new tokens", 2, 256, key="spec_max_new")
    sampling = ss.rule == "sample" or (ss.rule == "topk" and ss.target_sample)
    if sampling:
        with st.expander("Sampling settings (target and draft)", expanded=False):
            settings = sampling_controls(prefix="spec_", show_rep=True)
    else:
        settings = SamplingSettings()
params.sync(["draft_source", "draft_model", "n_draft", "n_auto", "rule", "verify_k", "target_sample", "spec_max_new"])

source = ss.draft_model.strip() if ss.draft_source == "model" else ss.draft_source
if ss.draft_source == "model" and not source:
    st.info("Type a draft model id or folder above, or choose the shipped draft / prompt lookup.")
    st.stop()
try:
    with st.spinner(f"Loading the draft ({source})…"):
        draft = cached_draft(lm, (lm.name, str(lm.device), str(lm.dtype)), source)
    n_choice = None
    if n_auto:
        with st.spinner("Measuring what a draft step and a verify pass cost on this device (once)…"):
            n_choice = cached_auto_n(lm, draft, (lm.name, str(lm.device), str(lm.dtype)), source)
    decoder_args = dict(n_draft=n_choice["n_draft"] if n_choice else ss.n_draft, rule=ss.rule, verify_k=ss.verify_k,
                        settings=settings,
                        max_new_tokens=ss.spec_max_new, seed=lab.seed, target_sample=ss.target_sample,
                        backend=lab.backend)
    SpeculativeDecoder(lm, draft, **decoder_args)  # validate now
except (ModelLoadError, ValueError) as exc:
    st.error(f"{exc}")
    st.caption("The rest of the app keeps working; prompt lookup needs no draft model.")
    st.stop()
if n_choice and n_choice.get("reason") == "measured":
    with st.expander(f"Sized for this device: N = {n_choice['n_draft']} (held-out τ {n_choice['tau']:.2f}, expected "
                     f"{n_choice['tokens_per_s']:.1f} tokens/s). How it was chosen"):
        st.markdown("Left: one target forward over T tokens, measured now on this machine (a verify pass of N drafts "
                    "reads N + 1 tokens). Right: the draft's held-out mean accepted length for each N divided by the "
                    f"cost of N draft steps ({1000 * n_choice['draft_step_s']:.1f} ms each here) plus that verify pass.")
        st.plotly_chart(sizing_figure(n_choice, "chain"), width="stretch")
elif n_choice:
    st.caption(f"N = {n_choice['n_draft']}: {n_choice['reason']}.")


def plain_baseline(n_tokens: int):
    """Plain target decoding of the same prompt and length in this session (greedy or sampled), cached."""
    key = ("plain", fingerprint(lab, settings if sampling else None, n_tokens))
    if ss.get("spec_plain_key") != key:
        dec = AutoregressiveDecoder(lm, settings if sampling else None, "multinomial" if sampling else None, n_tokens,
                                    lab.seed, stop_at_eos=False, backend=lab.backend).start(prompt_ids)
        dec.run()
        ss["spec_plain"], ss["spec_plain_key"] = dec.metrics(), key
    return ss["spec_plain"]


@st.fragment
def step_through():
    key = fingerprint(lab, source, tuple(sorted(decoder_args.items(), key=str)))
    state = stepper("spec", key, lambda: SpeculativeDecoder(lm, draft, **decoder_args).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    if cursor < 0:
        st.info("Press **Step**: the draft proposes N tokens and the target verifies them in one forward.")
        return
    st.markdown(origin_html(dec.history, cursor), unsafe_allow_html=True)
    step = dec.history[cursor]
    left, right = st.columns([3, 2])
    with left:
        st.markdown(f"**Step {step.index}**: {len(step.drafts)} drafted, **{step.n_accepted} accepted**, then the "
                    f"target's **{step.next_source}** `{step.next_text}` → {len(step.emitted)} tokens from one target "
                    f"forward (draft {1000 * step.draft_s:.0f} ms, target {1000 * step.target_s:.0f} ms).")
        if step.drafts:
            st.dataframe(draft_rows(step), hide_index=True, width="stretch")
        else:
            st.caption("No draft this step (prompt lookup found no earlier match, or one token of budget was left): "
                       "the target decoded one token on its own.")
        test = {"greedy": "accept y while y = argmax p", "topk": f"accept y while y ∈ top-{ss.verify_k}(p)",
                "sample": "accept y if u < min(1, p(y)/q(y))"}[ss.rule]
        st.caption(f"Acceptance test: {test}. The first failure stops the step; later drafts are discarded. "
                   + ("Prompt lookup has no q: it counts as a point mass (q = 1)." if draft is None else ""))
        if step.residual_top is not None and ss.rule == "sample":
            st.plotly_chart(residual_figure(step.residual_top), width="stretch")
    with right:
        shown = dec.history[: cursor + 1]
        drafted = sum(len(s.drafts) for s in shown)
        accepted = sum(s.n_accepted for s in shown)
        n_steps = len(shown)
        tokens = sum(len(s.emitted) for s in shown)
        wall = sum(s.elapsed_s for s in shown)
        a, b = st.columns(2)
        a.metric("Acceptance rate", f"{accepted / drafted:.2f}" if drafted else "–",
                 help="A / D: accepted drafts over drafted tokens. Does NOT count the target's own token.")
        b.metric("Mean accepted length τ", f"{(accepted + n_steps) / n_steps:.2f}",
                 help="(A + S) / S: tokens per target forward, INCLUDING the target's own token (plain decoding = 1.00).")
        a.metric("Target forwards", n_steps, help="verification steps S (one target forward each)")
        b.metric("Tokens / wall time", f"{tokens} / {wall:.2f} s")
        if dec.done and cursor == len(dec.history) - 1:
            with st.spinner("Timing plain target decoding of the same length…"):
                base = plain_baseline(len(dec.tokens))
            speed = (tokens / wall) / (base["new_tokens"] / base["wall_s"])
            a.metric("Speed-up (measured)", f"{speed:.2f}×",
                     help="tokens/s of this run ÷ tokens/s of plain target decoding, same prompt, length, device, "
                          "dtype, measured in this session")
            b.metric("Plain decoding", f"{base['new_tokens'] / base['wall_s']:.1f} tok/s")
        st.caption("Engines disagree on what “acceptance” means: this page shows both. τ counts the token the target "
                   "adds itself; the acceptance rate does not.")


step_through()

# ---------------------------------------------------------------------------------------------- N sweep
st.header("How long should the draft be? Measured against the theory")
st.markdown("With per-token acceptance α (assumed independent) and draft cost c (one draft token ÷ one target "
            "token), a step yields on average $(1-\\alpha^{N+1})/(1-\\alpha)$ tokens, and the speed-up is")
st.latex(r"\text{speed-up}(N) = \frac{1-\alpha^{N+1}}{(1-\alpha)(Nc+1)}")
st.markdown("Below, α and c are **measured** (α = the acceptance rate at N = 1; c = draft time per drafted token ÷ "
            "target time per token in plain decoding), and every N is an actual run of this page's settings.")
s1, s2, s3 = st.columns(3)
p("sweep_max_n", 8, int, lo=2, hi=12)
p("sweep_tokens", 32, int, lo=8, hi=128)
s1.slider("N from 1 to", 2, 12, key="sweep_max_n")
s2.slider("Tokens per run", 8, 128, key="sweep_tokens")
params.sync(["sweep_max_n", "sweep_tokens"])
if s3.button("Run the sweep", type="primary", width="stretch"):
    bar = st.progress(0.0, text="Plain target decoding…")
    base = plain_baseline(ss.sweep_tokens)
    target_tok_s = base["wall_s"] / base["new_tokens"]
    rows = []
    for n in range(1, ss.sweep_max_n + 1):
        args = dict(decoder_args, n_draft=n, max_new_tokens=ss.sweep_tokens)
        r = SpeculativeDecoder(lm, draft, **args, stop_at_eos=False).start(prompt_ids).run()
        m = r.metrics
        rows.append({"N": n, "tau": m["mean_accepted_length"], "acceptance": m["acceptance_rate"] or 0.0,
                     "speed-up": (m["new_tokens"] / m["wall_s"]) * target_tok_s,
                     "c": (m["draft_s"] / m["drafted"]) / target_tok_s if m["drafted"] else 0.0})
        bar.progress(n / ss.sweep_max_n, text=f"N = {n}: τ = {m['mean_accepted_length']}")
    bar.empty()
    alpha = min(rows[0]["acceptance"], 0.999)
    c = float(np.mean([r["c"] for r in rows]))
    for r in rows:
        r["tau (theory)"] = expected_tokens_per_step(alpha, r["N"])
        r["speed-up (theory)"] = expected_speedup(alpha, r["N"], c)
    ss["spec_sweep"] = (rows, alpha, c)
if "spec_sweep" in ss:
    rows, alpha, c = ss["spec_sweep"]
    f1, f2 = st.columns(2)
    f1.plotly_chart(sweep_figure(rows, "tau", "tau (theory)", "Mean accepted length τ", "tokens per target forward"),
                    width="stretch")
    f2.plotly_chart(sweep_figure(rows, "speed-up", "speed-up (theory)", "Speed-up over plain decoding", "×"),
                    width="stretch")
    best = max(rows, key=lambda r: r["speed-up"])
    st.markdown(f"Measured α = **{alpha:.2f}**, c = **{c:.2f}**. Best measured N = **{best['N']}** "
                f"({best['speed-up']:.2f}×). Where the curves part, acceptance is not independent of position "
                "(drafts are easier right after a correction) or fixed costs dominate.")
    with st.expander("The numbers"):
        st.dataframe([{k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()} for r in rows],
                     hide_index=True, width="stretch")

# ---------------------------------------------------------------------------------------------- top-K drift
st.header("Is top-K verification lossless? The first token over many seeds")
st.markdown("The notes accept a draft token whenever it is among the target's top K. Here the draft samples its "
            "first token y ~ q and each rule decides, many times over: the histogram of the token that comes out "
            "is compared with the target's own distribution p. Rejection sampling matches p (it is lossless); top-K "
            "with K > 1 drifts towards the draft. Greedy match is exact in its own setting: it reproduces the "
            "target's greedy output token for token (tested).")
t1, t2, t3 = st.columns(3)
p("drift_k", 5, int, lo=1, hi=50)
p("drift_trials", 3000, int, lo=200, hi=20000)
t1.slider("K for top-K", 1, 50, key="drift_k")
t2.number_input("Trials", 200, 20000, step=200, key="drift_trials")
params.sync(["drift_k", "drift_trials"])
if draft is None:
    st.info("This comparison needs a draft model with a distribution q: choose the shipped draft or another model.")
elif t3.button("Measure the drift", type="primary", width="stretch"):
    ids = torch.tensor([prompt_ids], device=lm.device)
    procs = build_processors(settings)
    p_logits = forward(lm.model, ids, DynamicCache(), 1)[0, -1:]
    q_logits = draft_next_logits(draft, ids, DynamicCache(), lm.vocab_size)[None]  # as the decoder drafts
    p1 = torch.softmax(apply_processors(procs, ids, p_logits).float(), -1)
    q1 = torch.softmax(apply_processors(procs, ids, q_logits).float(), -1)
    p2 = torch.cat([p1, p1])  # verification needs p_{N+1} too (the bonus row); one draft token here
    gen = torch.Generator().manual_seed(lab.seed)
    counts = {f"top-{ss.drift_k} (notes)": torch.zeros(p1.shape[1]), "rejection sampling": torch.zeros(p1.shape[1])}
    for _ in range(int(ss.drift_trials)):
        y = int(torch.multinomial(q1[0], 1, generator=gen))
        v = verify_topk([y], p2, ss.drift_k, gen)
        counts[f"top-{ss.drift_k} (notes)"][y if v.n_accepted else v.next_token] += 1
        v = verify_sample([y], p2, q1, torch.rand(1, generator=gen), gen)
        counts["rejection sampling"][y if v.n_accepted else v.next_token] += 1
    ss["spec_drift"] = (p1[0].cpu(), q1[0].cpu(), {k: v / ss.drift_trials for k, v in counts.items()})
if "spec_drift" in ss and draft is not None:
    p1, q1, freqs = ss["spec_drift"]
    top = torch.topk(p1 + q1, 15).indices.tolist()
    texts = [lm.token_text(t) for t in top]
    shown = {"draft q": q1[top].tolist(), **{k: v[top].tolist() for k, v in freqs.items()}}
    st.plotly_chart(drift_figure(texts, p1[top].tolist(), shown), width="stretch")
    st.dataframe([{"rule": k, "TV distance to the target's p": round(0.5 * float((v - p1).abs().sum()), 4)}
                  for k, v in freqs.items()], hide_index=True, width="stretch")
    st.caption("TV distance also includes sampling noise, about √(vocab share / trials); rejection sampling stays "
               "at that floor.")

# ---------------------------------------------------------------------------------------------- the draft
manifest = DRAFT_DIR / "manifest.json"
if ss.draft_source == "embedded" and manifest.exists():
    import json

    with st.expander("About the shipped draft (its manifest)"):
        info = json.loads(manifest.read_text())
        st.markdown(f"{info['what']}\n\nCost per token ≈ **{info['architecture']['cost_ratio_multiply_adds']:.2f}×** "
                    f"the target's multiply-adds. Held-out top-1 agreement with the target: "
                    f"**{info['heldout']['top1_agreement']:.2f}**. Rebuilt by `{info['command']}`.")
        st.json(info, expanded=False)
