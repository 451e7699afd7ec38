"""Beam search with Freitag & Al-Onaizan pruning, step by step, and the hybrid sample-then-beam."""
import time

import streamlit as st

from decoding_core.beam import BeamSearchDecoder, BeamSettings
from decoding_core.diversity import distinct_n, pairwise_overlap
from decoding_core.processors import SamplingSettings
from decoding_core.samplers import SAMPLERS
from ui import params
from ui.controls import stepper
from ui.lab import fingerprint, need_prompt
from viz.beam import candidate_rows, frontier_rows, nbest_rows, search_graph, to_dot

lab = st.session_state["lab"]
lm = lab.lm
st.title("Beam search")
st.caption("Keep the k best partial answers at every step; prune the hopeless ones early (Freitag & Al-Onaizan, 2017).")
prompt_ids = need_prompt(lab)

# ---------------------------------------------------------------------------------------------- controls
p = params.init_widget
p("k", 4, int, lo=1, hi=16)
p("beam_max_new", 16, int, lo=2, hi=64)
p("eos_policy", "finished-set", str, choices=["finished-set", "in-beam"])
p("length_penalty", 1.0, float, lo=-2.0, hi=3.0)
p("early_stopping", "false", str, choices=["false", "true", "never"])
for rule in ("rp", "ap", "rpl", "mc"):
    p(f"use_{rule}", False, bool)
p("rp", 0.6, float, lo=0.01, hi=1.0)
p("ap", 2.5, float, lo=0.0, hi=20.0)
p("rpl", 0.02, float, lo=0.001, hi=1.0)
p("mc", 3, int, lo=1, hi=16)
p("literal_rp", False, bool)
p("prefix_m", 0, int, lo=0, hi=16)
p("prefix_sampler", "multinomial", str, choices=list(SAMPLERS))
p("prefix_temperature", 1.0, float, lo=0.05, hi=3.0)

with st.container(border=True):
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.slider("Beam width k", 1, 16, key="k")
    c2.slider("Max new tokens", 2, 64, key="beam_max_new")
    c3.selectbox("EOS policy", ["finished-set", "in-beam"], key="eos_policy",
                 help="finished-set = transformers (a hypothesis ending in EOS leaves the beam for a finished set, "
                      "scored by log p / length^lp). in-beam = the source notes (it stays in the beam, expanded only "
                      "by EOS at log-prob 0, and keeps competing).")
    c4.slider("Length penalty lp", -2.0, 3.0, step=0.1, key="length_penalty",
              disabled=st.session_state.eos_policy == "in-beam", help="finished-set only: score / length^lp")
    c5.selectbox("Early stopping", ["false", "true", "never"], key="early_stopping",
                 disabled=st.session_state.eos_policy == "in-beam",
                 help="transformers' rule: true = stop once k hypotheses finished; false = stop when no running beam "
                      "can beat the worst finished one (heuristic); never = the exact check.")
    st.markdown("**Pruning** (Freitag & Al-Onaizan 2017; their settings: rp = 0.6, ap = 2.5, rpl = 0.02, mc = 3). "
                "Pruned candidates are not replaced: the beam shrinks, and fewer hypotheses are fed to the model.")
    r1, r2, r3, r4 = st.columns(4)
    with r1:
        st.toggle("Relative rp", key="use_rp", help="prune c if P(c) <= rp × P(best)")
        st.slider("rp", 0.01, 1.0, step=0.01, key="rp", disabled=not st.session_state.use_rp)
    with r2:
        st.toggle("Absolute ap", key="use_ap", help="prune c if score(c) <= score(best) - ap")
        st.slider("ap", 0.0, 20.0, step=0.1, key="ap", disabled=not st.session_state.use_ap)
    with r3:
        st.toggle("Relative local rpl", key="use_rpl", help="prune c if p(last token) <= rpl × best last-token p")
        st.slider("rpl", 0.001, 1.0, step=0.001, format="%.3f", key="rpl", disabled=not st.session_state.use_rpl)
    with r4:
        st.toggle("Max per node mc", key="use_mc", help="at most mc survivors share one parent")
        st.slider("mc", 1, 16, key="mc", disabled=not st.session_state.use_mc)
    st.toggle("Pitfall: apply the notes' relative rule literally to log-probs (score ≤ rp × max score)",
              key="literal_rp", disabled=not st.session_state.use_rp,
              help="Scores are negative log-probs: rp × (−2) = −1.2 > −2, so the BEST hypothesis is pruned too.")
    h1, h2, h3 = st.columns(3)
    h1.slider("Hybrid: sample the first m tokens", 0, 16, key="prefix_m",
              help="m > 0: sample a prefix (diversity), then beam search the rest (quality).")
    h2.selectbox("Prefix sampler", SAMPLERS, key="prefix_sampler", disabled=st.session_state.prefix_m == 0)
    h3.slider("Prefix temperature", 0.05, 3.0, step=0.05, key="prefix_temperature",
              disabled=st.session_state.prefix_m == 0)
params.sync(["k", "beam_max_new", "eos_policy", "length_penalty", "early_stopping", "use_rp", "use_ap", "use_rpl",
             "use_mc", "rp", "ap", "rpl", "mc", "literal_rp", "prefix_m", "prefix_sampler", "prefix_temperature"])

ss = st.session_state
es = {"true": True, "false": False, "never": "never"}[ss.early_stopping]
try:
    beam = BeamSettings(ss.k, ss.eos_policy, float(ss.length_penalty), es,
                        rp=ss.rp if ss.use_rp else None, ap=ss.ap if ss.use_ap else None,
                        rpl=ss.rpl if ss.use_rpl else None, mc=ss.mc if ss.use_mc else None,
                        literal_rp=ss.use_rp and ss.literal_rp, sample_prefix=ss.prefix_m)
    plain = BeamSettings(ss.k, ss.eos_policy, float(ss.length_penalty), es, sample_prefix=ss.prefix_m)
    sampling = SamplingSettings(temperature=float(ss.prefix_temperature))

    def make(settings):
        return BeamSearchDecoder(lm, settings, ss.beam_max_new, lab.seed, sampling=sampling, sampler=ss.prefix_sampler)

    make(beam)  # validate now: a bad combination is reported here, not mid-run
except ValueError as exc:
    st.error(f"{exc}. Adjust the controls above.")
    st.stop()


# ---------------------------------------------------------------------------------------------- the search
@st.fragment
def search():
    key = fingerprint(lab, beam, ss.beam_max_new, sampling, ss.prefix_sampler)
    state = stepper("beam", key, lambda: make(beam).start(prompt_ids))
    state.setdefault("plain", None)
    dec, cursor = state["decoder"], state["cursor"]
    shown = dec.history[: cursor + 1]
    if not shown:
        st.info("Press **Step** to expand the beam once (one model forward over all running hypotheses), or "
                "**Run to end**.")
        return
    step = shown[-1]
    st.subheader(f"Step {step.index}" + (" · sampled prefix token" if step.kind == "sample" else ""))
    g1, g2 = st.columns([3, 2])
    with g1:
        show_off = st.radio("Candidates that fell off the top-k", ["last", "none", "all"], horizontal=True,
                            key="beam_show_off", help="last = only at the newest step")
        st.graphviz_chart(to_dot(search_graph(shown, "…" + lm.decode(prompt_ids[-6:]), show_off)), width="stretch")
        st.caption("Bold blue = the current frontier (running beams); green double border = finished (ends in EOS); "
                   "grey dashed = pruned (✂ with the rule); dotted = fell off the top-k. Each node shows its token and "
                   "cumulative score (log-probability); hover for details.")
    with g2:
        if step.kind == "sample":
            st.markdown(f"Sampled **`{step.sample.token_text}`** with p = {step.sample.prob:.3f} "
                        f"({ss.prefix_sampler}, T = {ss.prefix_temperature}). Beam search starts after {ss.prefix_m} "
                        "sampled tokens.")
        else:
            st.markdown("**Frontier** after this step (running beams, best first)")
            if step.frontier:
                st.dataframe(frontier_rows(step, lm.decode), hide_index=True, width="stretch")
            else:
                st.caption("No running beams left: every survivor finished, reached the length limit, or was pruned.")
            with st.expander(f"All {len([c for c in step.candidates if c.status != 'carried'])} candidates "
                             "considered at this step"):
                st.dataframe(candidate_rows(step), hide_index=True, width="stretch")
            if step.finished:
                st.markdown("**Finished set** (score = log p / length^lp)")
                st.dataframe(nbest_rows(step.finished, lm.decode, True), hide_index=True, width="stretch")
        m = dec.metrics()
        a, b, c = st.columns(3)
        a.metric("Hypotheses fed", step.rows_expanded, help="rows in this step's model forward")
        b.metric("Candidates", sum(1 for c_ in step.candidates if c_.status != "carried"))
        c.metric("Pruned", sum(1 for c_ in step.candidates if c_.status == "pruned"))
        a.metric("Total fed", m["hypotheses_expanded"], help="rows fed to the model, summed over steps (prefill = 1)")
        b.metric("Forwards", m["target_forwards"])
        c.metric("Time", f"{m['wall_s']:.2f} s")
    if dec.done and cursor == len(dec.history) - 1:
        finish(state, dec)


def finish(state, dec):
    st.subheader("Result")
    hyps = dec.hypotheses()
    if not hyps:
        st.warning("Every candidate was pruned: the beam is empty. This is what the literal relative rule does on "
                   "log-probabilities: rp × (a negative max score) lies ABOVE the max score, so the best candidate is "
                   "pruned too.")
        return
    st.markdown("**n-best list**")
    st.dataframe(nbest_rows(hyps, lm.decode, beam.eos_policy == "finished-set"), hide_index=True, width="stretch")
    if beam.pruning:
        if state["plain"] is None:
            with st.spinner("Running the same search with pruning off, for comparison…"):
                state["plain"] = make(plain).start(prompt_ids)
                state["plain"].run()
        ref = state["plain"]
        m, r = dec.metrics(), ref.metrics()
        same = bool(hyps) and bool(ref.hypotheses()) and hyps[0].tokens == ref.hypotheses()[0].tokens
        st.markdown("**What pruning saved** (same prompt, seed and settings, pruning off)")
        st.dataframe([
            {"search": "with pruning", "hypotheses fed": m["hypotheses_expanded"], "forwards": m["target_forwards"],
             "candidates scored": m["candidates_scored"], "time (s)": round(m["wall_s"], 3)},
            {"search": "pruning off", "hypotheses fed": r["hypotheses_expanded"], "forwards": r["target_forwards"],
             "candidates scored": r["candidates_scored"], "time (s)": round(r["wall_s"], 3)},
        ], hide_index=True, width="stretch")
        saved = 1 - m["hypotheses_expanded"] / max(1, r["hypotheses_expanded"])
        st.markdown(f"Pruning fed **{saved:.0%} fewer** hypotheses to the model. The best hypothesis is "
                    f"**{'unchanged' if same else 'different'}**" + ("." if same else
                    f": without pruning it is “{lm.decode(ref.hypotheses()[0].tokens)}”."))


search()

# ---------------------------------------------------------------------------------------------- diversity
st.header("Does sampling a prefix make beam search more diverse?")
st.markdown("The notes claim that sampling the first tokens and beam-searching the rest gives diverse *and* fluent "
            "outputs. Measured here: the same prompt decoded with n seeds, plain beam search against "
            "sample-then-beam. **distinct-n** = unique n-grams / all n-grams over the n outputs (higher = more "
            "diverse); **pairwise overlap** = mean Jaccard overlap of two outputs' bigram sets (lower = more diverse). "
            "Plain beam search is deterministic, so all its seeds give the same output.")
d1, d2, d3 = st.columns(3)
p("div_seeds", 4, int, lo=2, hi=8)
p("div_m", 3, int, lo=1, hi=16)
d1.slider("Seeds n", 2, 8, key="div_seeds")
d2.slider("Sampled prefix m", 1, 16, key="div_m")
params.sync(["div_seeds", "div_m"])
if d3.button("Measure diversity", type="primary", width="stretch"):
    outs = {"plain beam": [], f"sample {ss.div_m} then beam": []}
    bar = st.progress(0.0)
    total = 1 + ss.div_seeds
    base = BeamSettings(ss.k, ss.eos_policy, float(ss.length_penalty), es)
    t0 = time.perf_counter()
    plain_out = BeamSearchDecoder(lm, base, ss.beam_max_new, 0).start(prompt_ids).run().tokens
    outs["plain beam"] = [plain_out] * ss.div_seeds
    bar.progress(1 / total)
    hybrid = BeamSettings(ss.k, ss.eos_policy, float(ss.length_penalty), es, sample_prefix=min(ss.div_m, ss.beam_max_new - 1))
    for i in range(ss.div_seeds):
        r = BeamSearchDecoder(lm, hybrid, ss.beam_max_new, lab.seed + i, sampling=sampling,
                              sampler=ss.prefix_sampler).start(prompt_ids).run()
        outs[f"sample {ss.div_m} then beam"].append(r.tokens)
        bar.progress((2 + i) / total, text=f"seed {lab.seed + i}")
    bar.empty()
    ss["diversity"] = (outs, time.perf_counter() - t0)
if "diversity" in ss:
    outs, secs = ss["diversity"]
    st.dataframe([{"method": name, "distinct-1": round(distinct_n(o, 1), 3), "distinct-2": round(distinct_n(o, 2), 3),
                   "pairwise overlap": round(pairwise_overlap(o), 3)} for name, o in outs.items()],
                 hide_index=True, width="stretch")
    with st.expander("The outputs"):
        for name, o in outs.items():
            st.markdown(f"**{name}**")
            for toks in o:
                st.text(lm.decode(toks))
    st.caption(f"Measured in {secs:.1f} s on {lm.device.type}.")
