"""Take a run out of the app: the step-through's whole run as JSON (decoding_core/export.py's schema; the
command line's `replay FILE` decodes it again and checks the tokens)."""
from __future__ import annotations

import json

import streamlit as st

from decoding_core.export import run_record


def download_run(name: str, lab, strategy, run, decoder) -> None:
    """A download button for the run so far (built when clicked, not on every rerun)."""
    ss = st.session_state
    model, device, dtype = ss.get("model", "embedded"), ss.get("device", "auto"), ss.get("dtype", "float32")

    def make() -> str:
        return json.dumps(run_record(lab.lm, strategy, run, decoder, lab.prompt, lab.chat, model, device, dtype))

    st.download_button("Download this run (JSON)", data=make, file_name=f"decoding-lab-{name}.json",
                       mime="application/json", on_click="ignore", icon=":material/download:", key=f"_dl_{name}",
                       help="Settings, every step so far, metrics and versions. `python -m decoding_core replay "
                            "FILE` decodes it again and exits 0 only if the tokens are the same.")
