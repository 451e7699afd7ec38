"""Strategies side by side on one prompt and seed, with honest metrics."""
import streamlit as st

from decoding_core.settings import Beam, BeamSettings, Eagle, Greedy, Sample, SamplingSettings, Speculative
from decoding_core.studies.compare import compare
from ui import loaders
from ui.controls import Controls, Param
from ui.lab import open_page
from ui.progress import kept, measure
from ui.texts import TEXT
from viz.tables import compare_rows

STRATEGIES = ("greedy", "sampling", "beam search", "speculative (draft)", "prompt lookup", "EAGLE")
P = Controls([
    Param("cmp_max_new", 32, "Max new tokens", 4, 256),
    Param("cmp_temperature", 0.8, "Sampling T", 0.05, 3.0, 0.05),
    Param("cmp_top_p", 0.95, "Sampling top-p", 0.01, 1.0, 0.01),
    Param("cmp_k", 4, "Beam width k", 1, 16),
    Param("cmp_n", 4, "Draft length N", 1, 12),
    Param("cmp_pick", STRATEGIES, "Strategies", choices=STRATEGIES),
])


def strategies() -> list[tuple[str, object]]:
    """The chosen strategies with this page's shared settings (greedy first: the reference)."""
    ss = st.session_state
    every = {
        "greedy": Greedy(),
        "sampling": Sample(SamplingSettings(temperature=ss.cmp_temperature, top_p=ss.cmp_top_p), "multinomial"),
        "beam search": Beam(BeamSettings(num_beams=ss.cmp_k)),
        "speculative (draft)": Speculative("embedded", ss.cmp_n),
        "prompt lookup": Speculative("prompt-lookup", ss.cmp_n),
        "EAGLE": Eagle(),
    }
    return [(name, every[name]) for name in STRATEGIES if name in P["cmp_pick"]]


def render() -> None:
    lab, prompt_ids = open_page("Compare strategies", (
        "The same prompt, seed, length, device and dtype for every strategy, measured in one run."), P)
    for col, key in zip(st.columns(5), ("cmp_max_new", "cmp_temperature", "cmp_top_p", "cmp_k", "cmp_n")):
        P.show(key, col)
    chosen = P.show("cmp_pick")
    P.sync()
    pairs = strategies()
    run = lab.run(P["cmp_max_new"])
    key = (lab.key, tuple(pairs), run)
    if st.button("Run all", type="primary", disabled=not chosen):
        reference = 0 if pairs and pairs[0][0] == "greedy" else None
        measure("compare", key, lambda progress, stop: compare(lab.lm, prompt_ids, pairs, run, reference, loaders.CACHED,
                                                               progress=progress, should_stop=stop))
    cmp = kept("compare", key, "Run all")
    if not cmp:
        return
    st.dataframe(compare_rows(cmp), hide_index=True, width="stretch")
    st.caption(TEXT["compare.caption"])
    ok = [r for r in cmp.runs if not r.error]
    cols = st.columns(min(3, len(ok)) or 1)
    for i, r in enumerate(ok):
        with cols[i % len(cols)]:
            st.markdown(f"**{r.label}**")
            st.text(r.text)


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
