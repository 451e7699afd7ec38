"""Sampling: the next-token distribution, samplers against the exact probabilities, the reused-noise
pitfall, and a sampled continuation step by step."""
import time

import numpy as np
import streamlit as st
import torch
from transformers import DynamicCache

from decoding_core.decoders import AutoregressiveDecoder, forward
from decoding_core.processors import apply_processors, build_processors
from decoding_core.samplers import SAMPLERS, ReusedNoiseGumbel, draw_many
from decoding_core.stats import fit_report
from ui import params
from ui.controls import sampling_controls, stepper
from ui.lab import fingerprint, need_prompt
from viz.sampling import distribution_figure, histogram_figure, tokens_html

lab = st.session_state["lab"]
lm = lab.lm
st.title("Sampling")
st.caption("How temperature, top-k, top-p and min-p reshape the next-token distribution, and how a token is drawn from it.")
prompt_ids = need_prompt(lab)


def next_token_logits() -> torch.Tensor:
    """Raw logits [V] for the token after the prompt (one forward, kept for this model + prompt)."""
    key = ("next_logits", fingerprint(lab))
    if st.session_state.get("_next_key") != key:
        logits = forward(lm.model, torch.tensor([prompt_ids], device=lm.device), DynamicCache(), logits_to_keep=1)
        st.session_state["_next_logits"] = logits[0, -1].cpu()
        st.session_state["_next_key"] = key
    return st.session_state["_next_logits"]


# ---------------------------------------------------------------------------------------------- 1
st.header("1 · The next-token distribution")
left, right = st.columns([1, 3])
with left:
    settings = sampling_controls(left)
    params.init_widget("top_n", 25, int, lo=5, hi=60)
    st.slider("Tokens shown", 5, 60, key="top_n")
    params.sync(["top_n"])
try:
    procs = build_processors(settings)
except ValueError as exc:
    st.error(str(exc))
    st.stop()
raw_logits = next_token_logits()
context = torch.tensor([prompt_ids])
processed = apply_processors(procs, context, raw_logits.unsqueeze(0))[0]
raw_p = torch.softmax(raw_logits, -1)
proc_p = torch.softmax(processed, -1)
top = torch.topk(raw_p, st.session_state.top_n).indices.tolist()
texts = [lm.token_text(i) for i in top]
with right:
    st.plotly_chart(distribution_figure(texts, raw_p[top].tolist(), proc_p[top].tolist(),
                                        title=f"After “…{lm.decode(prompt_ids[-6:])[-40:]}”"), width="stretch")
    kept = int((proc_p > 0).sum())
    ent = lambda p: float(-(p[p > 0] * p[p > 0].log()).sum())  # noqa: E731
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Tokens left", f"{kept:,}", help="with probability > 0 after the processors")
    m2.metric("Top token p", f"{float(proc_p.max()):.3f}")
    m3.metric("Entropy raw", f"{ent(raw_p):.2f} nats")
    m4.metric("Entropy processed", f"{ent(proc_p):.2f} nats")
with st.expander("The rules, in plain words and in symbols", expanded=False):
    st.markdown("The model outputs one score (logit) $\\ell_i$ per token. **Temperature** divides them; "
                "**top-k** keeps the k largest; **top-p** keeps the smallest most-likely set whose mass reaches p; "
                "**min-p** drops tokens far less likely than the best one. Cut tokens get $-\\infty$ (greyed bars), "
                "and the rest are renormalised by the softmax.")
    st.latex(r"p_i = \frac{\exp(\ell_i / T)}{\sum_j \exp(\ell_j / T)} \qquad "
             r"\text{min-p keeps } i \iff p_i \ge \text{min\_p}\cdot\max_j p_j")

# ---------------------------------------------------------------------------------------------- 2
st.header("2 · Draw M samples: Gumbel-max against softmax + multinomial")
st.markdown("Adding independent **Gumbel noise** $G_i=-\\log(-\\log U_i)$ to the logits and taking the argmax "
            "draws exactly from the softmax, without computing it. The **exponential race** "
            "(argmax $p_i/E_i$, $E_i\\sim\\text{Exp}(1)$) is the same idea. Each histogram below is compared with the "
            "exact probabilities by the total-variation distance and a chi-square test: a healthy sampler has a "
            "small TV (shrinking like $1/\\sqrt{M}$) and a p-value that is not tiny.")
st.latex(r"\arg\max_i\,(\ell_i + G_i) \sim \text{Categorical}\big(\text{softmax}(\ell)\big)")
c1, c2, c3 = st.columns([1, 2, 1])
params.init_widget("draws", 10000, int, lo=100, hi=100000)
c1.number_input("M draws", 100, 100000, step=1000, key="draws")
params.init_widget("samplers", "multinomial,gumbel", str)
chosen = [s for s in st.session_state.samplers.split(",") if s in SAMPLERS] or ["multinomial", "gumbel"]
picked = c2.multiselect("Samplers", SAMPLERS, default=chosen, key="sampler_pick")
st.query_params["samplers"] = ",".join(picked)
params.sync(["draws"])
draw_key = (fingerprint(lab), settings, st.session_state.draws, tuple(picked))
if c3.button("Draw samples", type="primary", width="stretch", disabled=not picked):
    gen = torch.Generator().manual_seed(lab.seed)
    results = {}
    with st.spinner(f"Drawing {st.session_state.draws:,} samples with each sampler…"):
        for name in picked:
            t0 = time.perf_counter()
            ids = draw_many(name, processed, int(st.session_state.draws), gen)
            results[name] = (ids.numpy(), time.perf_counter() - t0)
    st.session_state["draw_results"] = (draw_key, results)
saved = st.session_state.get("draw_results")
if saved and saved[0] == draw_key:
    results = saved[1]
    exact = proc_p.double().numpy()
    shown = top[: min(20, len(top))]
    emp = {name: (np.bincount(ids, minlength=exact.size)[shown] / ids.size).tolist() for name, (ids, _) in results.items()}
    st.plotly_chart(histogram_figure(texts[: len(shown)], exact[shown].tolist(), emp), width="stretch")
    rows = []
    for name, (ids, secs) in results.items():
        rep = fit_report(ids, exact)
        rows.append({"sampler": name, "draws": rep.n, "TV distance": round(rep.tv, 4), "chi²": round(rep.chi2, 1),
                     "dof": rep.dof, "p-value": round(rep.p_value, 4), "time (ms)": round(1000 * secs, 1)})
    st.dataframe(rows, hide_index=True, width="stretch")
    st.caption("Gumbel-max and the race use max-stability to stay fast and exact: the max of Gumbel-perturbed logits "
               "over a block of tokens is itself Gumbel at the block's logsumexp, so a block is picked first, then a "
               "token inside it. Times are for this machine and include that trick.")
elif picked:
    st.info("Press **Draw samples** to draw from the processed distribution above.")

# ---------------------------------------------------------------------------------------------- 3
st.header("3 · The pitfall: Gumbel noise drawn once and reused")
st.markdown(
    "The source notes' `GumbelSampler` draws its noise **once**, in `__init__`, and adds the same noise at every "
    "step. Then the chosen token is a fixed function of the logits: whenever the distribution repeats, the same "
    "token comes out, every time. Below, the **same** distribution is sampled T times. With fresh noise the "
    "histogram follows the probabilities; with reused noise all T draws land on one token, and which one depends "
    "only on the seed. Pre-drawing a *block* of noise is fine as long as each row is used once (the "
    "`gumbel-block` sampler above does exactly that).")
params.init_widget("pitfall_steps", 500, int, lo=10, hi=2000)
st.slider("T steps", 10, 2000, step=10, key="pitfall_steps")
params.sync(["pitfall_steps"])
steps = st.session_state.pitfall_steps
gen = torch.Generator().manual_seed(lab.seed)
fresh = draw_many("gumbel", processed, steps, gen)
buggy = ReusedNoiseGumbel(1, processed.numel(), gen)
reused = torch.cat([buggy(processed.unsqueeze(0)) for _ in range(steps)])
shown = top[: min(15, len(top))]
count = lambda ids: (np.bincount(ids.numpy(), minlength=processed.numel())[shown] / steps).tolist()  # noqa: E731
st.plotly_chart(histogram_figure(texts[: len(shown)], proc_p[shown].tolist(),
                                 {"fresh noise": count(fresh), "reused noise (bug)": count(reused)},
                                 title=f"{steps} steps on one distribution"), width="stretch")
distinct_fresh, distinct_reused = len(set(fresh.tolist())), len(set(reused.tolist()))
st.markdown(f"Distinct tokens drawn: **{distinct_fresh}** with fresh noise, **{distinct_reused}** with reused noise.")

# ---------------------------------------------------------------------------------------------- 4
st.header("4 · A sampled continuation, step by step")
st.markdown("Each step runs the model once (reusing its KV cache), applies the processors above and draws one "
            "token with the chosen sampler. Colours show the probability each token was drawn with.")
c1, c2 = st.columns(2)
params.init_widget("step_sampler", "gumbel", str, choices=list(SAMPLERS))
c1.selectbox("Sampler", SAMPLERS, key="step_sampler")
params.init_widget("max_new", 48, int, lo=1, hi=256)
c2.slider("Max new tokens", 1, 256, key="max_new")
params.sync(["step_sampler", "max_new"])


@st.fragment
def step_through():
    key = (fingerprint(lab), settings, st.session_state.step_sampler, st.session_state.max_new)
    state = stepper("sampling", key, lambda: AutoregressiveDecoder(
        lm, settings, st.session_state.step_sampler, st.session_state.max_new, lab.seed,
        backend=lab.backend).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    hist = dec.history[: cursor + 1]
    st.markdown(tokens_html([r.token_text for r in hist], [r.prob for r in hist], current=cursor)
                if hist else "_No tokens yet: press **Step**._", unsafe_allow_html=True)
    if hist:
        rec = hist[-1]
        st.markdown(f"**Step {rec.index}** drew **`{rec.token_text}`** with probability **{rec.prob:.3f}** "
                    f"(raw {rec.raw_prob:.3f}); {rec.kept:,} tokens were left after the processors, entropy "
                    f"{rec.entropy:.2f} nats." + (" End of sequence." if rec.finished else ""))
        st.plotly_chart(distribution_figure(rec.top_texts, rec.top_raw, rec.top_processed,
                                            title=f"Distribution at step {rec.index}"), width="stretch")
        st.caption(f"{len(dec.tokens)} tokens decoded in {dec.wall_s:.2f} s, {dec.target_forwards} model forwards "
                   f"({dec.target.active} target forward).")


step_through()
