"""Speculative decoding: a draft proposes N tokens, the target verifies them in one forward."""
import streamlit as st

from decoding_core.decoders import metrics_so_far
from decoding_core.draft import draft_manifest
from decoding_core.models import ModelLoadError
from decoding_core.settings import RULES, RunSettings, SamplingSettings, Speculative
from decoding_core.strategies import build_decoder, describe, resolve_sizes
from decoding_core.studies import speculative as study
from ui import loaders, results
from ui.controls import Controls, Param, sampling_table, show_sampling, stepper
from ui.lab import chart, open_page
from ui.export import download_rows, download_run
from ui.pin import Snapshot, pin_panel
from ui.progress import kept, measure
from ui.texts import TEXT, gloss
from viz.eagle import sizing_figure
from viz.speculative import (SOURCE, draft_rows, drift_figure, origin_html, price_figure, residual_figure, step_rows,
                             sweep_explanation, sweep_figure)
from viz.tables import drift_rows, sweep_rows

P = Controls([
    Param("draft_source", "embedded", "p.draft_source", choices=("embedded", "prompt-lookup", "model"),
          labels={"embedded": "p.draft_source.embedded", "prompt-lookup": "p.draft_source.prompt-lookup",
                  "model": "p.draft_source.model"},
          help="p.draft_source.help"),
    Param("draft_model", "", "p.draft_model", help="p.draft_model.help"),
    Param("n_draft", 4, "p.n_draft", 1, 12),
    Param("n_auto", True, "p.n_auto",
          help="p.n_auto.help"),
    Param("rule", "greedy", "p.rule", choices=RULES, widget="radio",
          labels={"greedy": "p.rule.greedy", "topk": "p.rule.topk", "sample": "p.rule.sample"},
          help="p.rule.help"),
    Param("verify_k", 3, "p.verify_k", 1, 50),
    Param("target_sample", False, "p.target_sample"),
    Param("spec_max_new", 48, "p.spec_max_new", 2, 256),
    Param("sweep_max_n", 6, "p.sweep_max_n", 2, 12),
    Param("sweep_tokens", 24, "p.sweep_tokens", 8, 128),
    Param("sweep_repeats", 2, "p.sweep_repeats", 1, 5, help="p.sweep_repeats.help"),
    Param("drift_k", 5, "p.drift_k", 1, 50),
    Param("drift_trials", 3000, "p.drift_trials", 200, 20000, 200, widget="number"),
] + sampling_table("spec_", rep=True))
TESTS = {"greedy": "accept y while y = argmax p", "topk": "accept y while y ∈ top-{k}(p)",
         "sample": "accept y if u < min(1, p(y)/q(y))"}


def controls() -> Speculative:
    ss = st.session_state
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        P.show("draft_source", c1)
        if ss.draft_source == "model":
            P.show("draft_model", c1)
        P.show("n_auto", c2, disabled=ss.draft_source != "embedded")
        P.show("n_draft", c2, disabled=ss.n_auto and ss.draft_source == "embedded")
        P.show("rule", c3)
        if ss.rule == "topk":
            P.show("verify_k", c3)
            P.show("target_sample", c3)
        P.show("spec_max_new", c4)
        sampling = SamplingSettings()
        if ss.rule == "sample" or (ss.rule == "topk" and ss.target_sample):
            with st.expander("Sampling settings (target and draft)", expanded=False):
                sampling = show_sampling(P, "spec_")
    source = ss.draft_model.strip() if ss.draft_source == "model" else ss.draft_source
    n = "auto" if ss.n_auto and source == "embedded" else ss.n_draft
    return Speculative(source or "embedded", n, ss.rule, ss.verify_k, ss.target_sample, sampling)


def render() -> None:
    lab, prompt_ids = open_page("Speculative decoding", (
        "A small draft guesses N tokens; the big target checks all of them in ONE forward pass"
        " and keeps the longest acceptable prefix, plus one token of its own."), P)
    lm = lab.lm
    strategy = controls()
    P.sync()
    if P["draft_source"] == "model" and not P["draft_model"].strip():
        st.info("Type a draft model id or folder above, or choose the shipped draft / prompt lookup.")
        st.stop()
    run = lab.run(P["spec_max_new"])
    try:
        draft = loaders.draft(lm, strategy.draft)
        sizes = resolve_sizes(lm, strategy, draft=draft, loaders=loaders.CACHED)
        build_decoder(lm, strategy, run, loaders.CACHED, sizes)  # validate now, not mid-run
    except (ModelLoadError, ValueError) as exc:
        st.error(str(exc))
        st.caption("The rest of the app keeps working; prompt lookup needs no draft model.")
        st.stop()
    choice = sizes.choice
    if choice and choice.get("reason") == "measured":
        with st.expander(f"Sized for this device: N = {sizes.n_draft} (held-out τ {choice['tau']:.2f}, expected "
                         f"{choice['tokens_per_s']:.1f} tokens/s). How it was chosen"):
            st.markdown(TEXT["spec.sizing"].format(draft_ms=1000 * choice["draft_step_s"]))
            chart(st, sizing_figure(choice, "chain"), "spec-sizing", width="stretch")
    elif choice:
        st.caption(f"N = {sizes.n_draft}: {choice['reason']}.")
    step_through(lab, strategy, run, sizes, prompt_ids, draft is None)

    st.header("How long should the draft be? Measured against the theory")
    st.markdown(TEXT["spec.sweep"])
    st.latex(r"\text{speed-up}(N) = \frac{1-\alpha^{N+1}}{(1-\alpha)(Nc+1)}")
    st.markdown(TEXT["spec.sweep_measured"])
    s1, s2, s3, s4 = st.columns(4)
    P.show("sweep_max_n", s1)
    P.show("sweep_tokens", s2)
    P.show("sweep_repeats", s3)
    sweep_run = lab.run(P["sweep_tokens"], stop_at_eos=False)
    key = (lab.key, strategy, sweep_run, P["sweep_max_n"], P["sweep_repeats"])
    if s4.button("Run the sweep", type="primary", width="stretch"):
        measure("sweep", key, lambda progress, stop: study.n_sweep(
            lm, prompt_ids, strategy, sweep_run, P["sweep_max_n"], loaders.CACHED, progress, stop, P["sweep_repeats"]))
    sweep = kept("sweep", key, "Run the sweep")
    if sweep and sweep.rows:
        rows = sweep_rows(sweep)
        f1, f2 = st.columns(2)
        chart(f1, sweep_figure(rows, "tau", "tau (theory)", "Mean accepted length τ",
                                     "tokens per target forward"), "spec-sweep-tau", width="stretch")
        chart(f2, sweep_figure(rows, "speed-up", "speed-up (theory)", "Speed-up over plain decoding", "×"),
              "spec-sweep-speed-up", width="stretch")
        st.markdown(f"Measured α = **{sweep.alpha:.2f}**, c = **{sweep.c:.2f}**. Best measured N = **{sweep.best.n}** "
                    f"({sweep.best.speedup:.2f}×).")
        st.markdown("**Why the measured curve differs from the theory.** " + sweep_explanation(sweep))
        st.subheader("The price of a long draft")
        st.markdown(TEXT["spec.price"])
        chart(st, price_figure(rows), "spec-price", width="stretch")
        with st.expander("The numbers"):
            st.dataframe(rows, hide_index=True, width="stretch")
            download_rows("Download the numbers", rows, "spec-sweep")
    drift_section(lab, draft, strategy, prompt_ids)
    info = draft_manifest() if P["draft_source"] == "embedded" else None
    if info:
        with st.expander("About the shipped draft (its manifest)"):
            st.markdown(f"{info['what']}\n\nCost per token ≈ **{info['architecture']['cost_ratio_multiply_adds']:.2f}"
                        f"×** the target's multiply-adds. Held-out top-1 agreement with the target: "
                        f"**{info['heldout']['top1_agreement']:.2f}**. Rebuilt by `{info['command']}`.")
            st.json(info, expanded=False)


def drift_section(lab, draft, strategy: Speculative, prompt_ids) -> None:
    st.header("Is top-K verification lossless? The first token over many seeds")
    st.markdown(TEXT["spec.drift"])
    t1, t2, t3 = st.columns(3)
    P.show("drift_k", t1)
    P.show("drift_trials", t2)
    P.sync()
    if draft is None:
        st.info("This comparison needs a draft model with a distribution q: choose the shipped draft or another model.")
        return
    key = (lab.key, strategy.draft, strategy.sampling, P["drift_k"], P["drift_trials"])
    if t3.button("Measure the drift", type="primary", width="stretch"):
        with st.spinner("Verifying the first draft token many times…"):
            results.keep("drift", key, study.topk_drift(lab.lm, draft, prompt_ids, strategy, P["drift_k"],
                                                        int(P["drift_trials"]), lab.seed))
    drift = results.get("drift", key, "Measure the drift")
    if drift:
        chart(st, drift_figure(drift.texts, drift.p, {"draft q": drift.q, **drift.freq}), "spec-drift", width="stretch")
        st.dataframe(drift_rows(drift), hide_index=True, width="stretch")
        st.caption(TEXT["spec.drift_noise"])


@st.fragment
def step_through(lab, strategy: Speculative, run, sizes, prompt_ids, lookup: bool):
    lm = lab.lm
    state = stepper("spec", (lab.key, strategy, run, sizes.n_draft),
                    lambda: build_decoder(lm, strategy, run, loaders.CACHED, sizes).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    if cursor < 0:
        st.info("Press **Step**: the draft proposes N tokens and the target verifies them in one forward.")
        return
    st.markdown(origin_html(dec.history, cursor), unsafe_allow_html=True)
    step = dec.history[cursor]
    has_q = not lookup and strategy.rule != "greedy"  # greedy match drafts argmaxes: its q is 1 by definition
    left, right = st.columns([3, 2])
    with left:
        st.markdown(f"**Step {step.index + 1}**: {len(step.drafts)} drafted, **{step.n_accepted} accepted**, then the "
                    f"target's **{SOURCE[step.next_source]}** `{step.next_text}` → {len(step.emitted)} tokens from one "
                    f"target forward (draft {1000 * step.draft_s:.0f} ms, target {1000 * step.target_s:.0f} ms).")
        if step.drafts:
            st.dataframe(draft_rows(step, strategy.rule, has_q), hide_index=True, width="stretch")
        else:
            st.caption("No draft this step (prompt lookup found no earlier match, or one token of budget was left): "
                       "the target decoded one token on its own.")
        st.caption(f"Acceptance test: {TESTS[strategy.rule].format(k=strategy.verify_k)}. The first failure stops the "
                   "step; later drafts are discarded. "
                   + ("Prompt lookup has no q: it counts as a point mass (q = 1)." if lookup else ""))
        if step.residual_top is not None and strategy.rule == "sample":
            chart(st, residual_figure(step.residual_top), "spec-residual", width="stretch")
    with right:
        m = metrics_so_far(dec.history[: cursor + 1])
        a, b = st.columns(2)
        a.metric("Acceptance rate", f"{m['acceptance_rate']:.2f}" if m["acceptance_rate"] is not None else "–",
                 help="A / D: accepted drafts over drafted tokens. Does NOT count the target's own token." + gloss("acceptance-rate"))
        b.metric("Mean accepted length τ", f"{m['mean_accepted_length']:.2f}",
                 help="(A + S) / S: tokens per target forward, INCLUDING the target's own token (plain decoding "
                      "= 1.00)." + gloss("tau"))
        a.metric("Target forwards", m["verify_steps"], help="verification steps S (one target forward each)" + gloss("target-forward"))
        b.metric("Tokens / wall time", f"{m['new_tokens']} / {m['wall_s']:.2f} s")
        if dec.done and cursor == len(dec.history) - 1:
            if state.get("plain") is None:
                with st.spinner("Timing plain target decoding of the same length…"):
                    state["plain"] = study.plain_run(lm, prompt_ids, strategy, RunSettings(
                        len(dec.tokens), run.seed, run.backend, stop_at_eos=False)).metrics
            base = state["plain"]
            speedup = (m["new_tokens"] / m["wall_s"]) / (base["new_tokens"] / base["wall_s"])
            a.metric("Speed-up (measured)", f"{speedup:.2f}×",
                     help="tokens/s of this run ÷ tokens/s of plain target decoding, same prompt, length, device, "
                          "dtype, measured in this session" + gloss("speed-up"))
            b.metric("Plain decoding", f"{base['new_tokens'] / base['wall_s']:.1f} tok/s")
        st.caption("Engines disagree on what “acceptance” means: this page shows both. τ counts the token the target "
                   "adds itself; the acceptance rate does not.")
    download_run("speculative", lab, strategy, run, dec, step_rows(dec.history[: cursor + 1], strategy.rule, has_q),
                 "Every step so far: each drafted token (q, p, the test, accepted or rejected), then the target's own.")
    pin_panel("speculative", Snapshot(f"{describe(strategy, sizes)}, step {step.index + 1}", "html",
                                      origin_html(dec.history, cursor), (
        ("Acceptance rate", f"{m['acceptance_rate']:.2f}" if m["acceptance_rate"] is not None else "–"),
        ("Mean accepted length τ", f"{m['mean_accepted_length']:.2f}"), ("Target forwards", str(m["verify_steps"])),
        ("Tokens", str(m["new_tokens"])), ("Wall time", f"{m['wall_s']:.2f} s"))))


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
