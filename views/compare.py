"""Strategies side by side on one prompt and seed, with honest metrics."""
import time

import streamlit as st
import torch
from transformers import DynamicCache

from decoding_core.beam import BeamSearchDecoder, BeamSettings
from decoding_core.decoders import AutoregressiveDecoder, forward
from decoding_core.models import ModelLoadError
from decoding_core.processors import SamplingSettings
from ui import params
from ui.lab import need_prompt

lab = st.session_state["lab"]
lm = lab.lm
ss = st.session_state
st.title("Compare strategies")
st.caption("The same prompt, seed, length, device and dtype for every strategy, measured in one run.")
prompt_ids = need_prompt(lab)

STRATEGIES = ["greedy", "sampling", "beam search", "speculative (draft)", "prompt lookup", "EAGLE"]
p = params.init_widget
p("cmp_max_new", 48, int, lo=4, hi=256)
p("cmp_temperature", 0.8, float, lo=0.05, hi=3.0)
p("cmp_top_p", 0.95, float, lo=0.01, hi=1.0)
p("cmp_k", 4, int, lo=1, hi=16)
p("cmp_n", 4, int, lo=1, hi=12)
c1, c2, c3, c4, c5 = st.columns(5)
c1.slider("Max new tokens", 4, 256, key="cmp_max_new")
c2.slider("Sampling T", 0.05, 3.0, step=0.05, key="cmp_temperature")
c3.slider("Sampling top-p", 0.01, 1.0, step=0.01, key="cmp_top_p")
c4.slider("Beam width k", 1, 16, key="cmp_k")
c5.slider("Draft length N", 1, 12, key="cmp_n")
chosen = st.multiselect("Strategies", STRATEGIES, default=STRATEGIES, key="cmp_pick")
params.sync(["cmp_max_new", "cmp_temperature", "cmp_top_p", "cmp_k", "cmp_n"])


def build(name: str, n: int):
    if name == "greedy":
        return AutoregressiveDecoder(lm, None, None, n, lab.seed, backend=lab.backend)
    if name == "sampling":
        s = SamplingSettings(temperature=ss.cmp_temperature, top_p=ss.cmp_top_p)
        return AutoregressiveDecoder(lm, s, "multinomial", n, lab.seed, backend=lab.backend)
    if name == "beam search":
        return BeamSearchDecoder(lm, BeamSettings(num_beams=ss.cmp_k), n, lab.seed)
    from decoding_core.speculative import SpeculativeDecoder

    if name == "prompt lookup":
        return SpeculativeDecoder(lm, None, ss.cmp_n, "greedy", max_new_tokens=n, seed=lab.seed, backend=lab.backend)
    if name == "speculative (draft)":
        from decoding_core.draft import load_draft

        return SpeculativeDecoder(lm, load_draft(lm, "embedded"), ss.cmp_n, "greedy", max_new_tokens=n, seed=lab.seed,
                                  backend=lab.backend)
    from decoding_core.eagle import EagleDecoder
    from decoding_core.eagle_head import load_embedded_head

    return EagleDecoder(lm, load_embedded_head(lm), "dynamic", 8, 5, 32, max_new_tokens=n, seed=lab.seed)


if st.button("Run all", type="primary", disabled=not chosen):
    n = ss.cmp_max_new
    forward(lm.model, torch.tensor([prompt_ids], device=lm.device), DynamicCache(), 1)  # warm-up, untimed
    results, bar = [], st.progress(0.0)
    for i, name in enumerate(chosen):
        bar.progress(i / len(chosen), text=f"{name}…")
        try:
            dec = build(name, n)
            t0 = time.perf_counter()
            r = dec.start(prompt_ids).run()
            results.append((name, r, time.perf_counter() - t0, None))
        except (ModelLoadError, ValueError) as exc:
            results.append((name, None, 0.0, str(exc)))
    bar.empty()
    ss["cmp_results"] = (results, n)
if "cmp_results" in ss:
    results, n = ss["cmp_results"]
    ok = [x for x in results if x[1] is not None]
    greedy = next((r for name, r, _, _ in ok if name == "greedy"), None)
    base = next((len(r.tokens) / secs for name, r, secs, _ in ok if name == "greedy"), None)
    rows = []
    for name, r, secs, err in results:
        if err:
            rows.append({"strategy": name, "note": err})
            continue
        m = r.metrics
        rows.append({"strategy": name, "new tokens": len(r.tokens), "wall (s)": round(secs, 2),
                     "tokens/s": round(len(r.tokens) / secs, 2) if secs else None,
                     "speed-up vs greedy": round(len(r.tokens) / secs / base, 2) if base and secs else None,
                     "model forwards": m["target_forwards"], "τ": m.get("mean_accepted_length"),
                     "target forward": m.get("backend"),
                     "same text as greedy": (r.tokens == greedy.tokens) if greedy else None})
    st.dataframe(rows, hide_index=True, width="stretch")
    st.caption("Wall time covers decoding only (the model was loaded and warmed up before). τ = (accepted + verify "
               "steps) / verify steps. Greedy, beam k = 1, greedy-match speculative decoding, prompt lookup and greedy "
               "EAGLE must give the same text as greedy where their settings are greedy; sampling differs by design. "
               "Target forward: the sidebar's choice where a strategy supports it (beam search and EAGLE run eager).")
    cols = st.columns(min(3, len(ok)) or 1)
    for i, (name, r, _, _) in enumerate(ok):
        with cols[i % len(cols)]:
            st.markdown(f"**{name}**")
            st.text(r.text)
