"""How Linear weights are laid out for fast decoding on a CPU: ``decode_layout``.

At decode time a forward multiplies T rows (1 for plain decoding, N + 1 for a speculative verify pass,
the tree size for EAGLE) by every weight matrix; the weights are read once either way, so a T-row
pass should cost little more than a 1-row one. CPU BLAS kernels do not see it that way: measured on
the development machine (2 cores, float32, SmolLM2-135M, KV prefix 100; ``python -m decoding_core
study forward-cost``), a forward over 4 new tokens cost 2.1x one token's with MKL's kernels, 1.25x
with oneDNN's, whose weights are reordered once ("packed") for small row counts.

So on a CPU with oneDNN (``torch.backends.mkldnn``) and float32 weights every ``nn.Linear`` becomes a
``PackedLinear``: the same module, the same ``weight`` parameter (ties kept, state_dict unchanged),
plus a packed copy used for inference. Logits agree with the plain kernels to float32 rounding
(~1e-4; tested: same greedy tokens). Where oneDNN is missing (or for other dtypes) the weights are
stored column-major instead (same values, strides (1, out)), which MKL streams about twice as fast at
batch 1. Training (grad enabled with an input that needs grad) and ``torch.compile`` traces use the
plain ``F.linear`` on the dense weight; a weight changed in place is repacked on the next call.
"""
from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

PACK_ROWS = 8  # the row count oneDNN lays the packed weights out for (measured best for 1-16 rows)


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


class PackedLinear(torch.nn.Linear):
    """``nn.Linear`` whose inference forward runs oneDNN on a packed copy of ``weight`` (CPU, float32)."""

    @classmethod
    def from_linear(cls, lin: torch.nn.Linear) -> "PackedLinear":
        new = cls.__new__(cls)
        torch.nn.Module.__init__(new)
        new.in_features, new.out_features = lin.in_features, lin.out_features
        new.weight = lin.weight            # the same Parameter: ties to an embedding survive
        new.bias = lin.bias
        new._repack()
        return new

    def _repack(self) -> None:
        with torch.no_grad():
            self._packed = torch.ops.mkldnn._reorder_linear_weight(self.weight.detach().contiguous(), PACK_ROWS)
        self._packed_of = self._weight_state()

    def _weight_state(self) -> tuple:
        """What identifies the weight's values: the tensor, its storage and its in-place version counter."""
        w = self.weight
        return id(w), w.data_ptr(), w._version

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.compiler.is_compiling() or (torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad))
                or x.dtype != torch.float32 or x.device.type != "cpu"):
            return F.linear(x, self.weight, self.bias)
        if self._weight_state() != self._packed_of:  # changed in place, reassigned or moved: pack again
            self._repack()
        return torch.ops.mkldnn._linear_pointwise(x, self._packed, self.bias, "none", [], "")


@torch.no_grad()
def decode_layout(module: torch.nn.Module) -> torch.nn.Module:
    """Lay out every Linear weight of ``module`` for fast CPU decoding (see the module docstring): packed
    oneDNN linears for float32 where available, else column-major weights. Idempotent; returns ``module``."""
    linears = [(parent, name, child) for parent in module.modules() for name, child in parent.named_children()
               if isinstance(child, torch.nn.Linear) and not isinstance(child, PackedLinear)]
    use_packed = packing_available()
    column: dict[int, torch.nn.Parameter] = {}
    for parent, name, lin in linears:
        if use_packed and lin.weight.dtype == torch.float32 and lin.weight.device.type == "cpu":
            setattr(parent, name, PackedLinear.from_linear(lin))
        else:
            _column_major(module, lin, column)
    return module


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
