"""Decoding Lab's engine: models, logits processors, samplers and step-wise decoders.

Imports torch and transformers, never streamlit. See decoders.py for the decoder contract and docs/ALGORITHMS.md for the rules.
"""
import os

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
