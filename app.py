"""Decoding Lab: see and tune how a real language model decodes, one step at a time.

Entry point: page config, the shared sidebar (model, device, dtype, prompt, chat, seed) and the
navigation. Each page is a thin script: widgets -> decoding_core -> viz -> st.*.
"""
from pathlib import Path

import streamlit as st

from ui import params
from ui.lab import lab

st.set_page_config(page_title="Decoding Lab", page_icon=":material/biotech:", layout="wide")

PAGES = [
    ("views/home.py", "Home", ":material/home:"),
    ("views/sampling.py", "Sampling", ":material/casino:"),
    ("views/beam.py", "Beam search", ":material/account_tree:"),
    ("views/speculative.py", "Speculative decoding", ":material/bolt:"),
    ("views/eagle.py", "EAGLE", ":material/park:"),
    ("views/compare.py", "Compare strategies", ":material/compare_arrows:"),
]
root = Path(__file__).parent
nav = st.navigation([st.Page(path, title=title, icon=icon, default=(i == 0))
                     for i, (path, title, icon) in enumerate(PAGES) if (root / path).exists()])
st.session_state["lab"] = lab()
notices = st.container()  # warnings about ignored link values, shown above the page once it has read them
try:
    nav.run()
finally:
    with notices:
        params.show_warnings()
