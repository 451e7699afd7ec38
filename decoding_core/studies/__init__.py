"""Every experiment a page runs, as a pure function of (model, prompt, settings) returning a frozen record.

The pages draw these records with viz/, the command line prints them (``python -m decoding_core study
NAME``), the benchmark reuses them, and a notebook can call them directly:

    from decoding_core.studies import sampling
    rec = sampling.next_token(lm, prompt_ids, SamplingSettings(temperature=0.7))

Records hold small CPU data only (lists, floats, strings) and turn into JSON with ``as_json``. Long
studies take ``progress(fraction, text)`` and ``should_stop()`` callbacks; a stopped study returns what
it measured so far with ``stopped=True``.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

Progress = Callable[[float, str], None]
StopCheck = Callable[[], bool]


def no_progress(fraction: float, text: str) -> None:  # noqa: ARG001 - the default callback does nothing
    return None


def never() -> bool:
    return False


def as_json(record) -> dict:
    """A study record as plain JSON-ready data (non-finite floats become None)."""
    def clean(x):
        if isinstance(x, float):
            return x if math.isfinite(x) else None
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return clean(dataclasses.asdict(record))
