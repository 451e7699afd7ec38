"""How Linear weights are laid out for fast decoding on a CPU: ``decode_layout``.

At decode time a forward multiplies T rows (1 for plain decoding, N + 1 for a speculative verify pass,
the tree size for EAGLE) by every weight matrix; the weights are read once either way, so a T-row
pass should cost little more than a 1-row one. CPU BLAS kernels do not see it that way: measured on
the development machine (2 cores, float32, SmolLM2-135M, KV prefix 100; ``python -m decoding_core
study forward-cost``), a forward over 4 new tokens cost 2.1x one token's with MKL's kernels, 1.25x
with oneDNN's, whose weights are reordered once ("packed") for small row counts.

Four layouts, same values:
- "packed": on a CPU with oneDNN (``torch.backends.mkldnn``) and float32 weights every ``nn.Linear``
  becomes a ``PackedLinear``: the same module, the same ``weight`` parameter (ties kept, state_dict
  unchanged), plus a packed copy used for inference. Logits agree with the plain kernels to float32
  rounding (~1e-4; tested: same greedy tokens).
- "column": the weights stored column-major (same values, strides (1, out)), which MKL streams about
  twice as fast at batch 1 as row-major. The only layout where neither of the others runs, or for other dtypes.
- "blocked": column-major weights for one row (MKL), plus a copy in blocks of 64 outputs for this project's
  kernel (``kernels.py``), used for 2-64 rows: it reads each weight once for all rows at close to the
  memory's speed, so a verify pass costs little more than one token (``BlockedLinear``; needs a C compiler).
- "blocked-all": the same, with the kernel for one row too (``BlockedAllLinear``): where MKL's one-row path is
  the slow one (on an AMD EPYC, 2026-12-03, a 1-token forward with MKL cost ~1.5x a 2-token one with the
  kernel), plain decoding runs on the kernel as well, and a verify pass's rows then get exactly the logits a
  one-row step gets (the kernel is batch-invariant).
Which one is faster depends on the processor: on the AMD EPYC development machine packed won the verify
pass by far; on an Intel Xeon with AMX (2026-12-02, ``python scripts/layout_check.py``) column-major
decoded 1.30x faster than packed (22.1 against 17.0 tokens/s), and blocked then verified 5 tokens in 48.7 ms
against column-major's 69.9 (one token: 41.8 / 45.1 ms). So the loader MEASURES (``choose_layout``: the
model's forward over 1 and over 5 tokens in each available layout, the smallest sum wins), remembers the
result per processor, torch, threads, model size, dtype and available layouts in a small JSON file, and lays
out drafts and heads loaded afterwards the same way. ``DECODING_LAB_LAYOUT=packed|column|blocked|blocked-all``
overrides it.
Training (grad enabled with an input that needs grad) and ``torch.compile`` traces use the plain
``F.linear`` on the dense weight; a weight changed in place is repacked on the next call.
"""
from __future__ import annotations

import functools
import json
import os
import platform
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from . import kernels

PACK_ROWS = 8  # the row count oneDNN lays the packed weights out for (measured best for 1-16 rows)
BLOCKED_MAX_ROWS = 64  # rows up to which the blocked kernel runs (session 42, AMD EPYC: the target's forward over 48 tokens
# 118 ms with the kernel against 168 with MKL, 64 tokens 151 against 196; it was 32 while the kernel ran at ~100 GFLOP/s)


@functools.lru_cache(maxsize=None)
def packing_available() -> bool:
    """oneDNN's packed linear runs here (and gives the plain result on a small case)."""
    if not torch.backends.mkldnn.is_available():
        return False
    try:
        gen = torch.Generator().manual_seed(0)
        w, x = torch.randn(8, 4, generator=gen), torch.randn(3, 4, generator=gen)
        p = torch.ops.mkldnn._reorder_linear_weight(w, PACK_ROWS)
        y = torch.ops.mkldnn._linear_pointwise(x, p, None, "none", [], "")
        return bool(torch.allclose(y, x @ w.t(), atol=1e-5))
    except Exception:  # noqa: BLE001 - an op missing from this torch build raises assorted errors
        return False


class _CopyLinear(torch.nn.Linear):
    """``nn.Linear`` whose inference forward runs a faster kernel on a re-laid-out copy of ``weight``: the same
    module, the same ``weight`` parameter (ties kept, state_dict unchanged). Training (grad enabled with an
    input or weight that needs grad), compile traces and other dtypes or devices use the plain ``F.linear``; a
    weight changed in place, reassigned or moved is copied again on the next call."""

    @classmethod
    def from_linear(cls, lin: torch.nn.Linear):
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features, new.out_features = lin.in_features, lin.out_features
        new.weight = lin.weight            # the same Parameter: ties to an embedding survive
        new.bias = lin.bias
        new._repack()
        return new

    def _copy(self, weight: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _fast(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _repack(self) -> None:
        with torch.no_grad():
            self._packed = self._copy(self.weight.detach())
        self._packed_of = self._weight_state()

    def _weight_state(self) -> tuple:
        """What identifies the weight's values: the tensor, its storage and its in-place version counter."""
        w = self.weight
        return id(w), w.data_ptr(), w._version

    def _plain(self, x: torch.Tensor) -> bool:
        return (torch.compiler.is_compiling() or (torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad))
                or x.dtype != torch.float32 or x.device.type != "cpu" or self.weight.dtype != torch.float32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._plain(x):
            return F.linear(x, self.weight, self.bias)
        if self._weight_state() != self._packed_of:
            self._repack()
        return self._fast(x)


class PackedLinear(_CopyLinear):
    """oneDNN's linear on a copy of ``weight`` packed for small row counts (CPU, float32)."""

    def _copy(self, weight: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._reorder_linear_weight(weight.contiguous(), PACK_ROWS)

    def _fast(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self._packed, self.bias, "none", [], "")


class BlockedLinear(_CopyLinear):
    """One row: MKL on the column-major ``weight``; 2 to BLOCKED_MAX_ROWS rows: this project's blocked kernel
    (``kernels.py``) on a copy in blocks of 64 outputs, which streams the weights once at close to the memory's
    speed for up to ~8 rows and runs the arithmetic at 150-175 GFLOP/s beyond (on the AMD EPYC, as fast as MKL's
    best); more rows than that: MKL again (a prefill)."""

    MIN_ROWS = 2  # fewer rows: MKL

    def _copy(self, weight: torch.Tensor) -> torch.Tensor:
        return kernels.pack(weight)

    def _fast(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.numel() // max(1, x.shape[-1])
        if rows < self.MIN_ROWS or rows > BLOCKED_MAX_ROWS:
            return F.linear(x, self.weight, self.bias)
        return kernels.blocked_linear(x, self._packed, self.bias, self.out_features)


class BlockedAllLinear(BlockedLinear):
    """The "blocked-all" layout: the blocked kernel for one row too (1 to BLOCKED_MAX_ROWS rows), so that plain
    decoding and a verify pass run the same batch-invariant kernel. Faster where MKL's matrix-vector product is
    the slower one-row path (measured on an AMD EPYC, 2026-12-03: the embedded model's forward over 1 token after
    128 took 32.4 ms with MKL against 21.0 ms for 2 tokens with the kernel)."""

    MIN_ROWS = 1


class Int8Linear(_CopyLinear):
    """A draft's or an EAGLE head's Linear with its weight rounded to int8 (one scale per output, ``kernels.
    pack_int8``) for 1 to INT8_MAX_ROWS rows: a draft step reads a quarter of the bytes. More rows (a prefill) run
    ``F.linear`` on the float weight. Only for drafts: the target checks every drafted token, so greedy outputs stay
    the target's own and rejection sampling stays exact with the q the draft computed (``draft_layout``)."""

    def _copy(self, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return kernels.pack_int8(weight)

    def _fast(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.numel() // max(1, x.shape[-1])
        if rows > INT8_MAX_ROWS:
            return F.linear(x, self.weight, self.bias)
        blocks, scale = self._packed
        return kernels.int8_linear(x, blocks, scale, self.bias, self.out_features)


INT8_MAX_ROWS = 16  # a draft step's rows (1; an EAGLE head level: up to the tree's top-k); more rows: F.linear
DRAFT_WEIGHTS = ("int8", "float32")

LAYOUTS = ("packed", "column", "blocked", "blocked-all")
_WRAPPERS = {"packed": PackedLinear, "blocked": BlockedLinear, "blocked-all": BlockedAllLinear}
_chosen: dict = {}  # the last choice made in this process (choose_layout): {"layout", "ms", "source"}


def available_layouts() -> tuple[str, ...]:
    """The layouts that run here: "column" always; "packed" where oneDNN runs; "blocked" and "blocked-all" where
    the kernel library built (``kernels.available()``)."""
    return tuple(k for k, ok in (("packed", packing_available()), ("column", True), ("blocked", kernels.available()),
                                 ("blocked-all", kernels.available())) if ok)


def preferred_layout() -> str:
    """The layout for modules laid out now: DECODING_LAB_LAYOUT if set (and it runs here), else what
    ``choose_layout`` measured in this process, else "packed" where oneDNN runs; "column" where it does not."""
    usable = available_layouts()
    forced = os.environ.get("DECODING_LAB_LAYOUT", "")
    if forced in usable:
        return forced
    chosen = _chosen.get("layout")
    if chosen in usable:
        return chosen
    return "packed" if "packed" in usable else "column"


def layout_of(lin: torch.nn.Linear) -> str:
    """Which layout a Linear is in: "packed", "blocked", "blocked-all", "int8" (a draft's) or "column" (else "row")."""
    if type(lin) is Int8Linear:
        return "int8"
    for kind, cls in _WRAPPERS.items():
        if type(lin) is cls:
            return kind
    w = lin.weight
    return "column" if w.dim() == 2 and w.stride() == (1, w.shape[0]) else "row"


def last_choice() -> dict:
    """What ``choose_layout`` decided last in this process and from what (empty before any choice)."""
    return dict(_chosen)


@torch.no_grad()
def decode_layout(module: torch.nn.Module, layout: str | None = None) -> torch.nn.Module:
    """Lay out every Linear weight of ``module`` for fast CPU decoding (see the module docstring) in ``layout``
    (one of LAYOUTS; default ``preferred_layout()``): packed oneDNN linears or blocked-kernel linears for float32
    CPU weights as the layout says, column-major weights for everything else. Idempotent, and switches a module
    laid out another way; returns ``module``."""
    kind = layout or preferred_layout()
    if kind not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {kind!r}")
    if kind not in available_layouts():
        kind = "column"  # the layout that runs everywhere
    linears = [(parent, name, child) for parent in module.modules() for name, child in parent.named_children()
               if isinstance(child, torch.nn.Linear)]
    column: dict[int, torch.nn.Parameter] = {}
    wrap = _WRAPPERS.get(kind)
    for parent, name, lin in linears:
        packable = _packable(lin)
        if wrap is not None and packable and type(lin) is wrap:
            continue
        if isinstance(lin, _CopyLinear):  # back to a plain Linear on the same parameters
            plain = torch.nn.Linear.__new__(torch.nn.Linear)
            torch.nn.Module.__init__(plain)
            plain.in_features, plain.out_features, plain.weight, plain.bias = (lin.in_features, lin.out_features,
                                                                              lin.weight, lin.bias)
            setattr(parent, name, plain)
            lin = plain
        if kind != "packed" or not packable:
            _column_major(module, lin, column)
    if wrap is not None:  # after every weight is laid out: ties were re-pointed to the column-major copies
        for parent in list(module.modules()):
            for name, child in list(parent.named_children()):
                if isinstance(child, torch.nn.Linear) and type(child) is not wrap and _packable(child):
                    setattr(parent, name, wrap.from_linear(child))
    return module


def draft_weights() -> str:
    """How drafts and EAGLE heads keep their Linear weights for decoding on the CPU: "int8" where the int8 kernel
    runs (``kernels.int8_available()``), unless DECODING_LAB_DRAFT_WEIGHTS=float32; else "float32"."""
    if os.environ.get("DECODING_LAB_DRAFT_WEIGHTS", "") == "float32" or not kernels.int8_available():
        return "float32"
    return "int8"


@torch.no_grad()
def draft_layout(module: torch.nn.Module, weights: str | None = None) -> torch.nn.Module:
    """``decode_layout`` for a draft model or an EAGLE head, then, with ``weights`` "int8" (default
    ``draft_weights()``), every float32 CPU Linear as an ``Int8Linear`` on the same parameters (ties kept,
    state_dict unchanged). Returns ``module``."""
    kind = weights or draft_weights()
    if kind not in DRAFT_WEIGHTS:
        raise ValueError(f"draft weights must be one of {', '.join(DRAFT_WEIGHTS)}, got {kind!r}")
    int8 = kind == "int8" and kernels.int8_available()
    decode_layout(module, "column" if int8 else None)  # int8: no float kernel copy (a prefill runs F.linear)
    if int8:
        for parent in list(module.modules()):
            for name, child in list(parent.named_children()):
                if isinstance(child, torch.nn.Linear) and type(child) is not Int8Linear and _packable(child):
                    setattr(parent, name, Int8Linear.from_linear(child))
    return module


def weights_of(lin: torch.nn.Linear) -> str:
    """The ``draft_layout`` weights a Linear has: "int8" for an ``Int8Linear``, else "float32" (what fused copies
    of a draft's matrices follow: a shipped draft's are int8, a model loaded as a draft keeps its own)."""
    return "int8" if type(lin) is Int8Linear else "float32"


def module_weights(module: torch.nn.Module) -> str:
    """"int8" when ``module``'s Linears run the int8 kernel (``draft_layout``), else "float32" (or their dtype)."""
    lin = next((m for m in module.modules() if isinstance(m, torch.nn.Linear)), None) \
        if isinstance(module, torch.nn.Module) else None
    if lin is None:
        return "float32"
    return "int8" if type(lin) is Int8Linear else str(lin.weight.dtype).replace("torch.", "")


def _packable(lin: torch.nn.Linear) -> bool:
    """A Linear the packed and blocked layouts apply to: float32 weights on the CPU."""
    return lin.weight.dtype == torch.float32 and lin.weight.device.type == "cpu"


def _forward_ms(model: torch.nn.Module, rows: tuple[int, ...], rounds: int) -> dict[int, list[float]]:
    """Milliseconds of the model's forward over each row count (no KV cache), ``rounds`` times each, after a
    warm-up."""
    ids = torch.arange(100, 100 + max(rows)).unsqueeze(0) % model.config.vocab_size
    model(input_ids=ids[:, :1], use_cache=False)
    times: dict[int, list[float]] = {r: [] for r in rows}
    for _ in range(rounds):
        for r in rows:
            t0 = time.perf_counter()
            model(input_ids=ids[:, :r], use_cache=False, logits_to_keep=r)
            times[r].append((time.perf_counter() - t0) * 1e3)
    return times


def _machine_key(model: torch.nn.Module) -> str:
    """Processor, torch, threads, and the model's kind, size and dtype (what the timing depends on; not its path,
    so that local copies of one model share one entry)."""
    cpu = platform.processor() or platform.machine()
    try:  # the model name of the processor (platform.processor() is often just the architecture)
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    dtype = next((p.dtype for p in model.parameters()), torch.float32)
    size = sum(p.numel() for p in model.parameters())
    return f"{cpu} | torch {torch.__version__} | {torch.get_num_threads()} threads | {type(model).__name__} {size:,} | {dtype}"


@torch.no_grad()  # not inference_mode: weights re-laid out here must keep their version counters
def choose_layout(model: torch.nn.Module, store: Path | None = None, rows: tuple[int, ...] = (1, 5),
                  rounds: int = 5) -> dict:
    """Lay ``model`` out in the faster layout HERE and remember it for modules laid out later (drafts, heads).

    Where more than one layout runs (float32 weights on the CPU; oneDNN for "packed", the kernel library for
    "blocked") the model's forward is timed over each of ``rows`` new tokens in each layout (the fastest of
    ``rounds`` in each of two passes, the layouts alternating, so that a busy machine slows all alike; 1 row =
    plain decoding, 5 = a typical verify pass) and the smallest sum wins. The result is kept in ``store`` (JSON,
    keyed by processor, torch version, threads, the model's class and parameter count, dtype and the available
    layouts) so the next load reads it instead of measuring. DECODING_LAB_LAYOUT forces one.
    Returns {"layout", "ms" (per layout, per row count, when measured), "source"}."""
    global _chosen
    forced = os.environ.get("DECODING_LAB_LAYOUT", "")
    float32 = all(p.dtype == torch.float32 for p in model.parameters())
    usable = available_layouts()
    on_cpu = all(p.device.type == "cpu" for p in model.parameters())
    if len(usable) < 2 or not float32 or not on_cpu:  # column-major is the only layout here
        decode_layout(model, "column")
        return {"layout": "column", "ms": {}, "source": "the only layout for this device and dtype"}
    if forced in usable:
        _chosen = {"layout": forced, "ms": {}, "source": "DECODING_LAB_LAYOUT"}
        decode_layout(model, forced)
        return dict(_chosen)
    key = f"{_machine_key(model)} | {','.join(usable)}"  # a layout that becomes available is measured anew
    if "blocked" in usable:  # ... and so is a changed kernel (its library is named by its source, flags and processor)
        key += f" | {kernels._library_path().stem}"
    known = _read_store(store)
    if key in known and known[key].get("layout") in usable:
        choice = {**known[key], "source": f"measured earlier ({store})"}
    else:
        times: dict[str, dict[int, list[float]]] = {kind: {r: [] for r in rows} for kind in usable}
        for kind in usable * 2:
            decode_layout(model, kind)
            for r, v in _forward_ms(model, rows, rounds).items():
                times[kind][r] += v
        ms = {kind: {r: round(min(v), 2) for r, v in per.items()} for kind, per in times.items()}
        best = min(ms, key=lambda k: sum(ms[k].values()))
        choice = {"layout": best, "ms": ms, "source": "measured now"}
        if store is not None:
            known[key] = {"layout": best, "ms": ms}
            _write_store(store, known)
    decode_layout(model, choice["layout"])
    _chosen = choice
    return dict(choice)


def _read_store(store: Path | None) -> dict:
    try:
        data = json.loads(store.read_text()) if store is not None and store.exists() else {}
    except (OSError, ValueError):
        return {}  # unreadable: measure again and write it anew
    return data if isinstance(data, dict) else {}


def _write_store(store: Path, data: dict) -> None:
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        tmp = store.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1))
        tmp.replace(store)
    except OSError:
        pass  # a read-only cache: measure again next time


def _column_major(root: torch.nn.Module, lin: torch.nn.Linear, done: dict) -> None:
    """Store lin.weight [out, in] with strides (1, out); an embedding tied to it follows."""
    w = lin.weight
    if id(w) not in done:
        done[id(w)] = w if w.dim() != 2 or w.stride() == (1, w.shape[0]) else torch.nn.Parameter(
            w.t().contiguous().t(), requires_grad=w.requires_grad)
    new = done[id(w)]
    if new is not w:
        for m in root.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)) and m.weight is w:
                m.weight = new
