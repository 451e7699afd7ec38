"""A run as JSON, and back: settings, every step record, metrics, the model and the versions that made it.

Schema "decoding-lab/run/1" (top-level keys):

    schema        "decoding-lab/run/1"
    settings      {"strategy": {"type": class name, ...its fields}, "run": {...RunSettings}, "model", "device",
                   "dtype", "prompt", "chat"}
    prompt_ids    the prompt's token ids (what was decoded from)
    tokens, text  the new tokens and their text (so far: ``complete`` says whether the decoder had finished)
    steps         [{"type": record class name, ...its fields}] - TokenStep, BeamStep, SpecStep or EagleStep,
                   nested records the same way, tensors as nested lists
    metrics       the decoder's metrics
    versions      python, torch, transformers, decoding_lab (git commit or "unknown"), model name, device, dtype

``read_run`` turns a file back into the same typed records (``steps`` and ``settings["strategy"]``), so
``python -m decoding_core replay FILE`` can decode it again and compare the tokens.

Schema "decoding-lab/compare/1" (the Compare page's export; ``replay`` decodes every column again):

    schema        "decoding-lab/compare/1"
    settings      {"run": {...RunSettings}, "seeds", "model", "device", "dtype", "prompt", "chat"}
    prompt_ids    the prompt's token ids
    columns       [{"column": i, "spec": the strategy as one line (decoding_core/spec.py), "strategy": {"type", ...},
                    "run": {...RunSettings} (a stale column may have run with other settings), "label", "state"
                    (fresh / stale / pinned), "tokens", "text", "metrics": {new_tokens, wall_s,
                    tokens_per_s, target_forwards, logprob, tau, acceptance_rate, acceptance_by_depth, distinct_2,
                    overlap, seeds, sizes}}] - ``strategy`` has the sizes the run used in place of "auto"
    versions      as above
"""
from __future__ import annotations

import dataclasses
import json
import platform
import subprocess
import sys
import types
import typing
from pathlib import Path

import torch

SCHEMA = "decoding-lab/run/1"
COMPARE_SCHEMA = "decoding-lab/compare/1"
ROOT = Path(__file__).resolve().parents[1]


def _record_types() -> dict[str, type]:
    from . import settings
    from .beam import BeamStep, Candidate, Hypothesis
    from .decoders import TokenStep
    from .eagle import EagleStep
    from .speculative import DraftToken, SpecStep

    named = [TokenStep, BeamStep, Candidate, Hypothesis, SpecStep, DraftToken, EagleStep,
             settings.RunSettings, settings.SamplingSettings, settings.BeamSettings, settings.Greedy, settings.Sample,
             settings.Beam, settings.StochasticBeam, settings.Speculative, settings.Eagle]
    return {t.__name__: t for t in named}


def to_json(obj):
    """A record (dataclass), tensor, tuple, dict or number as JSON-ready data; dataclasses carry their type."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"type": type(obj).__name__,
                **{f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu().tolist()
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, float) and obj != obj:
        return None
    return obj


def _convert(hint, value, types_: dict):
    """JSON data back into the field's declared type: nested records, tuples, tensors."""
    if value is None:
        return None
    if isinstance(value, dict) and "type" in value:
        return from_json(value, types_)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if isinstance(value, list):
            for a in members:
                if a is torch.Tensor or typing.get_origin(a) is tuple or a is tuple:
                    return _convert(a, value, types_)
        return value
    if hint is torch.Tensor:
        return torch.tensor(value)
    if origin is tuple or hint is tuple or (isinstance(value, list) and hint is typing.Any):
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        return tuple(_convert(args[0] if args else typing.Any, v, types_) for v in value)
    return value


def from_json(data: dict, types_: dict | None = None):
    """The typed record ``to_json`` wrote (unknown type names raise ValueError)."""
    types_ = types_ or _record_types()
    cls = types_.get(data.get("type")) if isinstance(data, dict) else None
    if cls is None:
        raise ValueError(f"not a Decoding Lab record: {str(data)[:80]}")
    hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
    kwargs = {f.name: _convert(hints.get(f.name, typing.Any), data[f.name], types_)
              for f in dataclasses.fields(cls) if f.name in data and f.init}
    # a record written before a field existed ran as that field's old value (not its new default)
    kwargs.update({k: v for k, v in getattr(cls, "BEFORE_FIELD", {}).items() if k not in data})
    return cls(**kwargs)


def git_commit() -> str:
    """This checkout's short commit, or "unknown" (no git, not a clone)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=5).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def versions(lm) -> dict:
    import transformers

    return {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
            "decoding_lab": git_commit(), "model": lm.name, "device": str(lm.device),
            "dtype": str(lm.dtype).replace("torch.", "")}


def resolved(strategy, decoder):
    """The strategy with the sizes its decoder really used in place of "auto" (so a replay builds the same)."""
    return with_sizes(strategy, {k: getattr(decoder, k, None) for k in ("n_draft", "total_tokens", "depth")})


def with_sizes(strategy, sizes: dict):
    """The strategy with the sizes a run reports (metrics["sizes"]) in place of "auto" and of the default head."""
    changes = {k: sizes[k] for k in ("n_draft", "total_tokens", "depth")
               if getattr(strategy, k, None) == "auto" and sizes.get(k) is not None}
    if hasattr(strategy, "head") and strategy.head is None and sizes.get("head"):
        changes["head"] = sizes["head"]
    return dataclasses.replace(strategy, **changes) if changes else strategy


_COLUMN_METRICS = ("new_tokens", "wall_s", "tokens_per_s", "target_forwards", "logprob", "tau", "acceptance_rate",
                   "acceptance_by_depth", "distinct_2", "overlap", "seeds", "sizes")


def comparison_record(lm, columns, run, seeds: int, prompt_ids, prompt: str, chat: bool, model: str, device: str,
                      dtype: str) -> dict:
    """A comparison as JSON-ready data; ``columns``: (column number, strategy, StrategyRun, state, the run settings
    it ran with) for each; ``run`` and ``seeds``: the page's settings now."""
    return {"schema": COMPARE_SCHEMA,
            "settings": {"run": to_json(run), "seeds": seeds, "model": model, "device": device, "dtype": dtype,
                         "prompt": prompt, "chat": chat},
            "prompt_ids": list(prompt_ids),
            "columns": [{"column": i, "spec": r.spec, "strategy": to_json(with_sizes(strategy, r.sizes)),
                         "run": to_json(own), "label": r.label, "state": state, "tokens": list(r.tokens),
                         "text": r.text, "metrics": to_json({k: getattr(r, k) for k in _COLUMN_METRICS})}
                        for i, strategy, r, state, own in columns if not r.error],
            "versions": versions(lm)}


def _checked(data, path: str | Path, schema: str) -> tuple[dict, dict]:
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ValueError(f"{path} is not a {schema} file")
    return data, _record_types()


def read_export(path: str | Path) -> dict:
    """A run file or a comparison file, told apart by its ``schema`` and read once."""
    data = json.loads(Path(path).read_text())
    if isinstance(data, dict) and data.get("schema") == COMPARE_SCHEMA:
        return _typed_comparison(data, path)
    return _typed_run(data, path)


def read_comparison(path: str | Path) -> dict:
    """A comparison file with each column's strategy and the run settings as typed records."""
    return _typed_comparison(json.loads(Path(path).read_text()), path)


def _typed_comparison(data, path) -> dict:
    data, types_ = _checked(data, path, COMPARE_SCHEMA)
    return dict(data, settings=dict(data["settings"], run=from_json(data["settings"]["run"], types_)),
                columns=[dict(c, strategy=from_json(c["strategy"], types_), run=from_json(c["run"], types_))
                         for c in data["columns"]])


def run_record(lm, strategy, run, decoder, prompt: str, chat: bool, model: str, device: str, dtype: str) -> dict:
    """The run so far as JSON-ready data: ``steps`` holds every step taken (a replay takes as many)."""
    strategy = resolved(strategy, decoder)
    result = decoder.result()
    return {"schema": SCHEMA,
            "settings": {"strategy": to_json(strategy), "run": to_json(run), "model": model, "device": device,
                         "dtype": dtype, "prompt": prompt, "chat": chat},
            "prompt_ids": list(result.prompt_tokens), "tokens": list(result.tokens), "text": result.text,
            "complete": bool(decoder.done), "steps": [to_json(s) for s in decoder.history],
            "metrics": to_json(result.metrics),
            "versions": versions(lm)}


def read_run(path: str | Path) -> dict:
    """A run file with its strategy, run settings and steps turned back into typed records."""
    return _typed_run(json.loads(Path(path).read_text()), path)


def _typed_run(data, path) -> dict:
    data, types_ = _checked(data, path, SCHEMA)
    out = dict(data)
    out["settings"] = dict(data["settings"], strategy=from_json(data["settings"]["strategy"], types_),
                           run=from_json(data["settings"]["run"], types_))
    out["steps"] = [from_json(s, types_) for s in data["steps"]]
    return out
