"""How the target's decode and verify forwards run: the ``--backend`` option.

- ``eager``    a DynamicCache that grows by concatenation (the default; every strategy supports it)
- ``static``   a preallocated StaticCache written in place (no per-step allocation or cat)
- ``compiled`` the static cache plus ``torch.compile`` of the model's forward for the decode and
               verify passes (CUDA graphs via mode "reduce-overhead" on CUDA, inductor's C++ code on
               CPU). The prefill stays eager, as transformers advises. Where compile is unavailable
               (no C++ compiler, an unsupported backend, any error while tracing or compiling) the
               pass falls back to the eager static path, once, and says why in ``fallback``.

The compiled callable is made once per model per process and shared (the model is shared
read-only); each decoder keeps its own cache. Greedy and sampling decoders and the speculative
decoder's target verify pass take a backend; beam search (cache reordered across rows) and EAGLE
(tree masks, KV compaction) keep the eager cache.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

import torch
from transformers import DynamicCache, StaticCache

from .models import LoadedModel

log = logging.getLogger(__name__)

BACKENDS = ("eager", "static", "compiled")
BUCKET = 256            # static caches are sized in multiples of this many positions
# id(model) -> (model, compiled forward): at most MAX_COMPILED models (the app keeps 3 loaded), least
# recently used first out, so an evicted model is not kept alive for good; the model is kept beside its
# id so a reused id never picks up another model's compiled forward.
MAX_COMPILED = 3
_compiled: "OrderedDict[int, tuple]" = OrderedDict()
_warmed: set[tuple] = set()           # (id(model), input length, logits kept) already compiled
_lock = threading.Lock()


def cache_length(cache) -> int:
    """Positions held by a cache (a StaticCache reports a tensor)."""
    return int(cache.get_seq_length())


def crop_to(cache, length: int) -> None:
    """Keep the first ``length`` positions of a KV cache (transformers 5 crops by a negative count;
    a static cache only moves its write position back)."""
    remove = cache_length(cache) - length
    if remove > 0:
        cache.crop(-remove)


def compile_mode(device: torch.device) -> str:
    return "reduce-overhead" if device.type == "cuda" else "default"


def _compiled_forward(model: torch.nn.Module, device: torch.device):
    with _lock:
        entry = _compiled.get(id(model))
        if entry is None or entry[0] is not model:
            entry = (model, torch.compile(model.forward, mode=compile_mode(device), fullgraph=True))
            _compiled[id(model)] = entry
            while len(_compiled) > MAX_COMPILED:
                old_id, _ = _compiled.popitem(last=False)
                _warmed.difference_update({k for k in _warmed if k[0] == old_id})
        _compiled.move_to_end(id(model))
        return entry[1]


class TargetPass:
    """The target forward a decoder calls: ``new_cache(max_len)`` then ``(ids, cache, keep, prefill)``."""

    def __init__(self, lm: LoadedModel, backend: str = "eager"):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        self.lm, self.backend = lm, backend
        self.fallback: str | None = None     # why the compiled pass fell back to eager (None: it did not)
        self.compile_s = 0.0                 # seconds spent in first calls that compiled a graph

    @property
    def active(self) -> str:
        """The path actually taken: the backend asked for, or ``static`` after a compile fallback."""
        return "static" if self.backend == "compiled" and self.fallback else self.backend

    def new_cache(self, max_len: int):
        if self.backend == "eager":
            return DynamicCache()
        size = -(-int(max_len) // BUCKET) * BUCKET
        return StaticCache(config=self.lm.model.config, max_cache_len=size)

    @torch.inference_mode()
    def __call__(self, input_ids: torch.Tensor, cache, logits_to_keep: int = 0, prefill: bool = False) -> torch.Tensor:
        """Float32 logits [B, L, V] (or the last ``logits_to_keep``) for input_ids [B, L] after ``cache``."""
        model = self.lm.model
        start = cache_length(cache) if self.backend != "eager" else None
        if self.backend == "eager" or isinstance(cache, DynamicCache):
            out = model(input_ids=input_ids, cache=cache, use_cache=True, logits_to_keep=logits_to_keep)
            return out.logits.float()
        length = input_ids.shape[1]
        capacity = cache.layers[0].max_cache_len
        if start + length > capacity:
            raise ValueError(f"the static cache holds {capacity} positions; {start + length} needed")
        positions = torch.arange(start, start + length, device=input_ids.device).unsqueeze(0)
        kwargs = dict(input_ids=input_ids, cache=cache, use_cache=True, logits_to_keep=logits_to_keep,
                      position_ids=positions)
        if self.backend == "static" or prefill or self.fallback:
            return model(**kwargs).logits.float()
        try:
            return self._compiled_call(kwargs, length, logits_to_keep)
        except Exception as exc:  # noqa: BLE001 - any compile failure falls back to the eager static path
            self.fallback = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ''}"
            log.warning("torch.compile unavailable, using the eager static path: %s", self.fallback)
            crop_to(cache, start)
            return model(**kwargs).logits.float()

    def _compiled_call(self, kwargs: dict, length: int, keep: int) -> torch.Tensor:
        model, device = self.lm.model, self.lm.device
        fn = _compiled_forward(model, device)
        key = (id(model), length, keep)
        if device.type == "cuda":
            torch.compiler.cudagraph_mark_step_begin()
        if key in _warmed:
            logits = fn(**kwargs).logits
        else:
            with _lock:  # the first call of a shape compiles: one thread at a time
                t0 = time.perf_counter()
                logits = fn(**kwargs).logits
                self.compile_s += time.perf_counter() - t0
                _warmed.add(key)
        # CUDA graphs reuse their output buffers on the next call: copy out
        return logits.to(torch.float32, copy=True)


def warm_up(lm: LoadedModel, backend: str = "compiled", verify_lengths: tuple[int, ...] = ()) -> TargetPass:
    """Compile the decode pass (and verify passes of the given lengths) on a throwaway cache, so the
    first real step does not wait. Returns the pass; its ``fallback`` says if compile was unavailable."""
    tp = TargetPass(lm, backend)
    if backend != "compiled":
        return tp
    cache = tp.new_cache(8 + 1 + max(verify_lengths, default=0))
    dev = lm.device
    tp(torch.zeros(1, 8, dtype=torch.long, device=dev), cache, 1, prefill=True)
    tp(torch.zeros(1, 1, dtype=torch.long, device=dev), cache, 1)
    for n in verify_lengths:
        start = cache_length(cache)
        tp(torch.zeros(1, n, dtype=torch.long, device=dev), cache, n)
        crop_to(cache, start)
    return tp
