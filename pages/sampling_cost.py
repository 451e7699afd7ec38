"""The cost of drawing a token: the source notes' table, measured in both regimes on this machine."""
import streamlit as st

from decoding_core.sampling_cost import COMPLEXITY, NOTES_COMPLEXITY
from decoding_core.sizing import forward_now, known_forward_costs
from decoding_core.studies.run import study_document
from decoding_core.studies.sampling_cost import draw_vs_forward, method_name, sampling_cost
from ui import loaders
from ui.controls import Controls, Param
from ui.i18n import say, t
from ui.export import download_json, download_rows, session_model
from ui.lab import busy_probe_warning, chart, open_page, table
from ui.progress import kept, measure
from viz.sampling_cost import (cost_rows, cost_settings, cost_vs_k_figure, cost_vs_n_figure, decoding_figure,
                                exactness_rows, skipped_note)

P = Controls([
    Param("cost_budget", 1.0, "p.cost_budget", 0.2, 5.0, 0.2,
          help="p.cost_budget.help"),
    Param("cost_n", 100, "p.cost_n", choices=(1, 10, 100, 1000, 10000, 100000)),
])


def render() -> None:
    lab, prompt_ids = open_page("sampling_cost", P)
    st.markdown(t("cost.intro"))
    table(st, [{"method": m, "cost for n draws over k categories": c, "in the notes": NOTES_COMPLEXITY.get(m, "–")}
               for m, c in COMPLEXITY.items()], width="content")
    c1, c2, c3 = st.columns([2, 2, 1])
    P.show("cost_budget", c1)
    P.show("cost_n", c2)
    P.sync()
    logits = loaders.next_logits(lab)
    key = (lab.key, P["cost_budget"])
    if c3.button(t("cost.measure"), type="primary", width="stretch"):
        lm, quiet = lab.lm, known_forward_costs(lab.lm)  # the baseline as it stood before the study
        measure("cost", key, lambda progress, stop: sampling_cost(logits, budget_s=P["cost_budget"], seed=lab.seed,
                                                                  progress=progress, should_stop=stop,
                                                                  probe=lambda: forward_now(lm),
                                                                  probe_quiet=quiet[1] if quiet else None))
    rec = kept("cost", key, t("cost.measure"))
    if not rec:
        st.info(t("cost.measure.info"))
        return
    k = lab.lm.vocab_size
    busy_probe_warning(st, rec.probes, rec.probe_quiet)
    st.subheader(t("cost.h1"))
    st.markdown(t("cost.one"))
    chart(st, cost_vs_n_figure(rec, k), "cost-vs-n", width="stretch")
    skipped(rec, "one", k=k)
    chart(st, cost_vs_k_figure(rec, P["cost_n"]), "cost-vs-k", width="stretch")
    skipped(rec, "one", n=P["cost_n"])
    st.subheader(t("cost.h2"))
    st.markdown(t("cost.new"))
    chart(st, decoding_figure(rec, k), "cost-decoding", width="stretch")
    skipped(rec, "new", k=k)
    if vs := draw_vs_forward(rec, k):
        fast, slow, forward = vs
        st.caption(t("cost.vs_forward", k=k, fast=say(method_name(fast.method)), fast_us=1e6 * fast.seconds / fast.n,
                     slow=say(method_name(slow.method)), slow_ms=1e3 * slow.seconds / slow.n, forward_ms=1e3 * forward,
                     share=100 * fast.seconds / fast.n / forward))
    st.markdown(t("cost.say") + "\n\n" + "\n".join(f"- {say(c)}" for c in rec.crossovers))
    st.markdown(t("cost.why"))
    with st.expander(t("cost.exact.title")):
        table(st, exactness_rows(rec))
        st.caption(t("cost.exact"))
        download_rows(t("cost.download_tests"), exactness_rows(rec), "cost-exactness")
    with st.expander(t("numbers")):
        table(st, cost_rows(rec))
        with st.container(horizontal=True):
            download_rows(t("numbers.download"), cost_rows(rec, words=True), "cost-numbers", t("cost.numbers.help"))
            settings = cost_settings(rec, P["cost_budget"], lab.seed, *session_model())
            download_json(t("cost.download_json"), lambda: study_document(
                "sampling-cost", rec, settings, lab.prompt, lab.chat, prompt_ids), "cost-measurement",
                t("cost.download_json.help"))


def skipped(rec, regime: str, k: int | None = None, n: int | None = None) -> None:
    note = skipped_note(rec, regime, k, n)
    if note:
        st.caption(note)


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
