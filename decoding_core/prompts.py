"""Prompts shared by the benchmark and the studies: general ones, and held-out instructions (topics and
phrasings the draft and the EAGLE heads never trained on; written by scripts/eval_tau.py)."""
from __future__ import annotations

import json
from pathlib import Path

PROMPTS = ["Explain photosynthesis in simple terms.", "Write a short poem about the ocean.",
           "What are three benefits of regular exercise?"]
HELDOUT = Path(__file__).resolve().parents[1] / "assets" / "heldout_instructions.json"


def heldout_instructions(k: int) -> list[str]:
    """Instructions on topics the draft and the EAGLE head never trained on (written by eval_tau.py)."""
    return json.loads(HELDOUT.read_text())[:k] if HELDOUT.exists() else PROMPTS[:k]
