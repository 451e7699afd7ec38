"""The cost of drawing a token: the source notes' table, measured in both regimes on this machine."""
import streamlit as st

from decoding_core.sampling_cost import COMPLEXITY
from decoding_core.studies.sampling_cost import sampling_cost
from ui import loaders
from ui.controls import Controls, Param
from ui.export import download_rows
from ui.lab import chart, open_page
from ui.progress import kept, measure
from ui.texts import TEXT
from viz.sampling_cost import cost_rows, cost_vs_k_figure, cost_vs_n_figure, decoding_figure, exactness_rows

P = Controls([
    Param("cost_budget", 1.0, "p.cost_budget", 0.2, 5.0, 0.2,
          help="p.cost_budget.help"),
    Param("cost_n", 100, "p.cost_n", choices=(1, 10, 100, 1000, 10000, 100000)),
])


def render() -> None:
    lab, _ = open_page("Cost of sampling", (
        "What drawing one token costs: the notes' table of methods, measured here in the two regimes"
        " that matter."), P)
    st.markdown(TEXT["cost.intro"])
    st.dataframe([{"method": m, "cost for n draws over k categories": c} for m, c in COMPLEXITY.items()],
                 hide_index=True, width="content")
    c1, c2, c3 = st.columns([2, 2, 1])
    P.show("cost_budget", c1)
    P.show("cost_n", c2)
    P.sync()
    logits = loaders.next_logits(lab)
    key = (lab.key, P["cost_budget"])
    if c3.button("Measure", type="primary", width="stretch"):
        measure("cost", key, lambda progress, stop: sampling_cost(logits, budget_s=P["cost_budget"], seed=lab.seed,
                                                                  progress=progress, should_stop=stop))
    rec = kept("cost", key, "Measure")
    if not rec:
        st.info("Press **Measure** (about a minute): every method in both regimes, on the model's own next-token "
                "distribution (its k largest logits for the smaller k).")
        return
    k = lab.lm.vocab_size
    st.subheader("Regime 1: n draws from ONE distribution")
    st.markdown(TEXT["cost.one"])
    chart(st, cost_vs_n_figure(rec, k), "cost-vs-n", width="stretch")
    chart(st, cost_vs_k_figure(rec, P["cost_n"]), "cost-vs-k", width="stretch")
    st.subheader("Regime 2: one draw from each NEW distribution (decoding)")
    st.markdown(TEXT["cost.new"])
    chart(st, decoding_figure(rec, k), "cost-decoding", width="stretch")
    st.markdown("**What the measurements say**\n\n" + "\n".join(f"- {c}" for c in rec.crossovers))
    st.markdown(TEXT["cost.why"])
    with st.expander("Is every method exact? Chi-square against the exact softmax"):
        st.dataframe(exactness_rows(rec), hide_index=True, width="stretch")
        st.caption(TEXT["cost.exact"])
        download_rows("Download the tests", exactness_rows(rec), "cost-exactness")
    with st.expander("The numbers"):
        st.dataframe(cost_rows(rec), hide_index=True, width="stretch")
        download_rows("Download the numbers", cost_rows(rec), "cost-numbers",
                      "Every measured point (method, regime, k, n, batch, seconds) as CSV.")


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
