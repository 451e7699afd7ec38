"""The shipped EAGLE heads: which exist, which is the default, how to load one and read its manifest.

EAGLE-1 (eagle_head.py): the target's last-layer feature, drafting with the target's own LM head.
EAGLE-3 (eagle3_head.py): fused low/middle/high features, a reduced vocabulary, training-time test.
"""
from __future__ import annotations

import json

from .eagle3_head import EAGLE3_DIR
from .eagle_head import EAGLE_DIR
from .models import LoadedModel
from .settings import HEADS

HEAD_NAMES = {"eagle1": "EAGLE-1 (last-layer features, the target's full vocabulary)",
              "eagle3": "EAGLE-3 (fused low/middle/high features, reduced vocabulary, training-time test)"}
HEAD_LABELS = {"eagle1": "EAGLE-1", "eagle3": "EAGLE-3"}


def head_manifest(kind: str) -> dict:
    """The shipped head's manifest ({} when it has none or it cannot be read)."""
    path = (EAGLE3_DIR if kind == "eagle3" else EAGLE_DIR) / "manifest.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def default_head() -> str:
    """The shipped head with the higher held-out mean accepted length (their manifests' ``heldout_tau``);
    EAGLE-3 when both have none yet, EAGLE-1 when EAGLE-3 is not shipped."""
    if not (EAGLE3_DIR / "model.safetensors").exists():
        return "eagle1"
    taus = {k: head_manifest(k).get("heldout_tau", {}).get("tau") for k in HEADS}
    if all(isinstance(t, (int, float)) for t in taus.values()):
        return max(HEADS, key=lambda k: (taus[k], k == "eagle3"))
    return "eagle3"


def load_head(target: LoadedModel, kind: str):
    """The shipped head of that kind for the embedded target (ModelLoadError with a clear message if not)."""
    if kind == "eagle1":
        from .eagle_head import load_embedded_head

        return load_embedded_head(target)
    if kind == "eagle3":
        from .eagle3_head import load_eagle3

        return load_eagle3(target)
    raise ValueError(f"head must be one of {', '.join(HEADS)}, got {kind!r}")
