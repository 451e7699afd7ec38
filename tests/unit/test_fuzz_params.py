"""Property-based: any text in any page's link parameter is either parsed into a valid value or refused
with a short ValueError (never another exception, never an echo of a long value); every settings object
refuses bad numbers the same way (issue 15, item 6)."""
import importlib
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decoding_core.settings import BeamSettings, RunSettings, SamplingSettings

PAGES = ["pages.sampling", "pages.sampling_cost", "pages.beam", "pages.speculative", "pages.eagle", "pages.compare"]
PROBES = ["abc", "nan", "inf", "-inf", "-1", "1e308", "1e309", "", "x" * 10_000, "\U0001F600", "\x00", "0x10",
          "True", "-0.0", "1e-320", "\u202e1", "\u200b", "<|im_start|>", "1,2", " 3 ", "٣"]


def tables():
    from ui.lab import SIDEBAR

    out = [("sidebar", p) for p in SIDEBAR.table.values()]
    for name in PAGES:
        out += [(name, p) for p in importlib.import_module(name).P.table.values()]
    return out


TABLE = tables()
text = st.one_of(st.sampled_from(PROBES), st.text(max_size=40),
                 st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers().map(str))


def check(p, raw: str) -> None:
    try:
        value = p.parse(raw)
    except ValueError as exc:
        assert len(str(exc)) < 400 and raw[:60] not in str(exc) or len(raw) < 5 or raw in str(p.choices), str(exc)
        return
    if isinstance(p.default, bool):
        assert isinstance(value, bool)
    elif isinstance(p.default, tuple):
        assert all(v in p.choices for v in value)
    elif p.choices is not None:
        assert value in p.choices
    elif isinstance(p.default, (int, float)):
        assert isinstance(value, (int, float)) and math.isfinite(value)
        assert (p.lo is None or value >= p.lo) and (p.hi is None or value <= p.hi)


@pytest.mark.parametrize("where,param", TABLE, ids=[f"{w}:{p.key}" for w, p in TABLE])
def test_probe_values(where, param):
    for raw in PROBES:
        check(param, raw)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TABLE), text)
def test_any_text_in_any_link_parameter(item, raw):
    check(item[1], raw)


number = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.none(),
                   st.sampled_from(["1", True]))


@settings(max_examples=300, deadline=None)
@given(number, number, number, number)
def test_settings_objects_accept_or_refuse_with_value_error(t, k, p, m):
    for make in (lambda: SamplingSettings(temperature=t, top_k=k, top_p=p, min_p=m),
                 lambda: BeamSettings(num_beams=k, rp=p, ap=t, mc=m),
                 lambda: RunSettings(k, seed=m)):
        try:
            make()
        except (ValueError, TypeError) as exc:
            assert str(exc)
