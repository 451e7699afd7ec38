"""Sampling: the next-token distribution, samplers against the exact probabilities, the reused-noise
pitfall, and a sampled continuation step by step."""
import streamlit as st

from decoding_core.settings import SAMPLERS, Sample
from decoding_core.strategies import build_decoder, describe
from decoding_core.studies import sampling as study
from ui import loaders, results
from ui.controls import Controls, Param, sampling_table, show_sampling, stepper
from ui.i18n import say, t
from ui.texts import code_token, gloss, token_unit
from ui.lab import chart, metric_rows, open_page, table
from ui.export import download_run
from ui.pin import Snapshot, pin_panel
from viz.sampling import distribution_figure, histogram_figure, step_rows, tokens_html
from viz.tables import sampler_rows

P = Controls(sampling_table() + [
    Param("top_n", 25, "p.top_n", 5, 60),
    Param("draws", 10000, "p.draws", 100, 100000, 1000, widget="number"),
    Param("samplers", ("multinomial", "gumbel"), "p.samplers", choices=SAMPLERS,
          labels={name: f"viz.series.{name}" for name in SAMPLERS}),  # the names the chart's legend uses
    Param("pitfall_steps", 500, "p.pitfall_steps", 10, 2000, 10),
    Param("step_sampler", "gumbel", "p.step_sampler", choices=SAMPLERS),
    Param("max_new", 48, "p.max_new", 1, 256),
])


def render() -> None:
    lab, prompt_ids = open_page("sampling", P)
    lm = lab.lm

    st.header(t("sampling.h1"))
    left, right = st.columns([1, 3])
    settings = show_sampling(P, where=left)
    P.show("top_n", left)
    raw = loaders.next_logits(lab)
    nt = study.next_token(lm, prompt_ids, settings, P["top_n"], raw=raw)
    with right:
        title = t("sampling.after_chat", context=" ".join(lab.prompt.split())[-40:]) if lab.chat else \
            t("sampling.after", context=nt.context)  # the user's words, not the chat template's markers
        chart(st, distribution_figure(nt.texts, nt.raw, nt.processed, title=title),
              "sampling-next-token", width="stretch")
        metric_rows(st, [(t("sampling.m.left"), f"{nt.kept:,}", t("sampling.m.left.help")),
                         (t("sampling.m.top"), f"{nt.top_p:.3f}"),
                         (t("sampling.m.entropy_raw"), f"{nt.entropy_raw:.2f} nats", gloss("entropy")),
                         (t("sampling.m.entropy"), f"{nt.entropy_processed:.2f} nats", gloss("entropy"))], per_row=4)
    with st.expander(t("sampling.rules.title"), expanded=False):
        st.markdown(t("sampling.rules"))
        st.latex(r"p_i = \frac{\exp(\ell_i / T)}{\sum_j \exp(\ell_j / T)} \qquad "
                 rf"\text{{{t('sampling.minp_keeps')} }} i \iff p_i \ge \text{{min\_p}}\cdot\max_j p_j")

    st.header(t("sampling.h2"))
    st.markdown(t("sampling.gumbel"))
    st.latex(r"\arg\max_i\,(\ell_i + G_i) \sim \text{Categorical}\big(\text{softmax}(\ell)\big)")
    c1, c2, c3 = st.columns([1, 2, 1])
    P.show("draws", c1)
    picked = P.show("samplers", c2)
    key = (lab.key, settings, P["draws"], picked, min(20, P["top_n"]))
    if c3.button(t("sampling.draw"), type="primary", width="stretch", disabled=not picked):
        with st.spinner(t("sampling.drawing", n=P["draws"])):
            results.keep("draws", key, study.sampler_fit(lm, prompt_ids, settings, picked, int(P["draws"]), lab.seed,
                                                         min(20, P["top_n"]), raw=raw))
    fit = results.get("draws", key, t("sampling.draw"))
    if fit:
        chart(st, histogram_figure(fit.shown_texts, fit.exact, {r.sampler: r.shown_freq for r in fit.runs}),
              "sampling-draws", width="stretch")
        table(st, sampler_rows(fit))
        st.caption(t("sampling.block_trick"))
    elif picked:
        st.info(t("sampling.draw.info"))

    st.header(t("sampling.h3"))
    st.markdown(t("sampling.pitfall"))
    P.show("pitfall_steps")
    rn = study.reused_noise(lm, prompt_ids, settings, int(P["pitfall_steps"]), lab.seed, min(15, P["top_n"]), raw=raw)
    chart(st, histogram_figure(rn.shown_texts, rn.exact, {"fresh noise": rn.fresh_freq,
                                                                "reused noise (bug)": rn.reused_freq},
                                     title=t("sampling.reused.title", steps=rn.steps)), "sampling-reused-noise",
          width="stretch")
    st.markdown(t("sampling.distinct", fresh=rn.distinct_fresh, reused=rn.distinct_reused))

    st.header(t("sampling.h4"))
    st.markdown(t("sampling.stepping"))
    c1, c2 = st.columns(2)
    P.show("step_sampler", c1)
    P.show("max_new", c2)
    P.sync()
    step_through(lab, Sample(settings, P["step_sampler"]), lab.run(P["max_new"]), prompt_ids)


@st.fragment
def step_through(lab, strategy, run, prompt_ids):
    lm = lab.lm
    state = stepper("sampling", (lab.key, strategy, run),
                    lambda: build_decoder(lm, strategy, run).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    hist = dec.history[: cursor + 1]
    st.markdown(tokens_html([r.token_text for r in hist], [r.prob for r in hist], current=cursor)
                if hist else t("sampling.no_tokens"), unsafe_allow_html=True)
    if hist:
        rec = hist[-1]
        st.markdown(t("sampling.step", n=rec.index + 1, token=code_token(rec.token_text), p=rec.prob, raw=rec.raw_prob,
                      kept=rec.kept, entropy=rec.entropy) + (t("sampling.eos") if rec.finished else ""))
        chart(st, distribution_figure(rec.top_texts, rec.top_raw, rec.top_processed,
                                            title=t("sampling.step.title", n=rec.index + 1)), "sampling-step",
              width="stretch")
        forwards = dec.target_forwards
        st.caption(t("sampling.decoded", n=len(dec.tokens), unit=token_unit(len(dec.tokens)), s=dec.wall_s,
                     forwards=forwards, active=dec.target.active,
                     forward_unit=t("unit.model_forward.one" if forwards == 1 else "unit.model_forward.many")))
        probs = [r.prob for r in hist]
        download_run("sampling", lab, strategy, run, dec, step_rows(hist),
                     t("sampling.steps.help"))
        pin_panel("sampling", Snapshot(t("pin.label", what=say(describe(strategy)), n=rec.index + 1), "html",
                                       tokens_html([r.token_text for r in hist], probs), (
            (t("pin.tokens"), str(len(hist))), (t("sampling.pin.mean_p"), f"{sum(probs) / len(probs):.3f}"),
            (t("sampling.pin.distinct"), str(len({r.token_id for r in hist}))))))


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
