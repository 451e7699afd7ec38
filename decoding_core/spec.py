"""A strategy as one line of text and back: ``beam:num_beams=4,rp=0.6`` <-> ``Beam(BeamSettings(4, rp=0.6))``.

The Compare page keeps each column's strategy in the link this way, and a notebook or a test can write a
strategy the same way. Only fields that differ from the default are written; nested settings
(``sampling``, ``beam``) are flattened to their field names, and where a name occurs twice (EAGLE's
tree ``top_k`` and its sampling ``top_k``) the nested one keeps its prefix (``sampling.top_k``).
Values: numbers, ``true`` / ``false``, ``none`` (a rule off), or words (``auto``, a sampler, a draft).
Parsing builds the settings classes, so every value is checked by them (a ValueError names the field).

No torch import.
"""
from __future__ import annotations

import dataclasses
import typing

from .settings import (BeamSettings, Beam, Eagle, Greedy, Sample, SamplingSettings, Speculative, StochasticBeam,
                       Strategy)

KINDS: dict[str, type] = {c.name: c for c in (Greedy, Sample, Beam, StochasticBeam, Speculative, Eagle)}
NESTED = (SamplingSettings, BeamSettings)


def _fields(kind: type) -> dict[str, tuple[str | None, dataclasses.Field, type]]:
    """name in the text -> (nested field or None, field, owning class), for a strategy class."""
    hints = typing.get_type_hints(kind)
    flat: list[tuple[str | None, dataclasses.Field, type]] = []
    for f in dataclasses.fields(kind):
        sub = hints[f.name]
        if sub in NESTED:
            flat += [(f.name, g, sub) for g in dataclasses.fields(sub)]
        else:
            flat.append((None, f, kind))
    names = [g.name for _, g, _ in flat]
    return {(f"{outer}.{g.name}" if outer and names.count(g.name) > 1 else g.name): (outer, g, owner)
            for outer, g, owner in flat}


def field_value(strategy, path: str):
    """One field of a strategy by its path: ``"n_draft"`` or a nested ``"sampling.temperature"``."""
    outer, _, name = path.rpartition(".")
    return getattr(getattr(strategy, outer) if outer else strategy, name)


def with_fields(strategy, values: dict):
    """A copy of ``strategy`` with the fields {path: value} (paths as in ``field_value``) changed at once; the settings
    classes check the result (ValueError), not each change: two fields that must change together, such as the lookup
    branch and its corpus fallback, can."""
    top, inner = {}, {}
    for path, value in values.items():
        outer, _, name = path.rpartition(".")
        (inner.setdefault(outer, {}) if outer else top)[name] = value
    for outer, changes in inner.items():
        top[outer] = dataclasses.replace(getattr(strategy, outer), **changes)
    return dataclasses.replace(strategy, **top)


def _text(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)  # repr: the shortest text that reads back equal


def strategy_spec(strategy: Strategy) -> str:
    """The strategy as ``kind:field=value,...`` (defaults left out; ``kind`` alone when all are defaults)."""
    kind = type(strategy)
    default = kind()
    parts = []
    for name, (outer, f, _) in _fields(kind).items():
        path = f"{outer}.{f.name}" if outer else f.name
        value, base = field_value(strategy, path), field_value(default, path)
        if value != base or type(value) is not type(base):
            parts.append(f"{name}={_text(value)}")
    return strategy.name + (":" + ",".join(parts) if parts else "")


def _value(raw: str, annotation, name: str):
    """A value of the field's type(s) from its text (ValueError naming the field otherwise)."""
    args = typing.get_args(annotation) or (annotation,)
    low = raw.strip().lower()
    if low == "none" and type(None) in args:
        return None
    if bool in args and low in ("true", "false"):
        return low == "true"
    for t in (int, float):
        if t in args:
            try:
                return t(raw)
            except ValueError:
                pass
    if str in args and raw.strip():
        return raw.strip()
    raise ValueError(f"{name}: {raw!r} is not a valid value")


def parse_strategy(text: str) -> Strategy:
    """The strategy a ``strategy_spec`` line describes (ValueError with a readable message otherwise)."""
    kind_name, _, rest = (text or "").strip().partition(":")
    kind = KINDS.get(kind_name.strip())
    if kind is None:
        raise ValueError(f"unknown strategy {kind_name.strip()!r}: expected one of {', '.join(KINDS)}")
    table = _fields(kind)
    top: dict = {}
    nested: dict[str, dict] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        name, eq, raw = item.partition("=")
        name = name.strip()
        if name not in table:
            raise ValueError(f"{kind_name}: unknown setting {name!r} (known: {', '.join(table)})")
        if not eq:
            raise ValueError(f"{kind_name}: the setting {name!r} has no value (write {name}=...)")
        outer, f, owner = table[name]
        value = _value(raw, typing.get_type_hints(owner)[f.name], name)
        (nested.setdefault(outer, {}) if outer else top)[f.name] = value
    hints = typing.get_type_hints(kind)
    for outer, values in nested.items():
        top[outer] = hints[outer](**values)
    return kind(**top)
