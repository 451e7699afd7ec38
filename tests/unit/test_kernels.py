"""The blocked small-batch linear kernel (decoding_core/kernels.py) and the "blocked" layout built on it."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from decoding_core import kernels, layout

needs_kernel = pytest.mark.skipif(not kernels.available(), reason=f"kernel unavailable: {kernels.unavailable_reason()}")


@needs_kernel
@pytest.mark.parametrize("out_features,in_features", [(64, 16), (70, 20), (130, 33), (1, 5), (200, 64), (1100, 24), (2000, 7)])
@pytest.mark.parametrize("bias", [False, True])
def test_blocked_linear_equals_f_linear_for_every_row_count(out_features, in_features, bias):
    """Small matrices are shared out in half blocks, big ones (>= 8 blocks per thread) in whole blocks: both."""
    gen = torch.Generator().manual_seed(out_features * 1000 + in_features)
    w = torch.randn(out_features, in_features, generator=gen)
    b = torch.randn(out_features, generator=gen) if bias else None
    blocks = kernels.pack(w)
    assert blocks.shape == (-(-out_features // 64), in_features, 64)
    for rows in (1, 2, 3, 5, 6, 7, 12, 13, 20):
        x = torch.randn(rows, in_features, generator=gen)
        torch.testing.assert_close(kernels.blocked_linear(x, blocks, b, out_features), F.linear(x, w, b),
                                   rtol=1e-5, atol=1e-5)


@needs_kernel
def test_blocked_linear_is_batch_invariant_and_keeps_leading_dims():
    """Each row's output is the same bits whatever else is in the batch (one sequential sum per output), on both
    sides of REG_MAX_ROWS (up to 8 rows one broadcast, beyond it the other) and up to the layout's 64 rows."""
    gen = torch.Generator().manual_seed(1)
    for out_features, rows in ((300, 11), (1100, 11), (300, 40)):  # half blocks and whole blocks
        w = torch.randn(out_features, 96, generator=gen)
        blocks = kernels.pack(w)
        x = torch.randn(1, rows, 96, generator=gen)
        full = kernels.blocked_linear(x, blocks, None, out_features)
        assert full.shape == (1, rows, out_features)
        assert torch.equal(kernels.blocked_linear(x[:, :8], blocks, None, out_features), full[:, :8])
        for i in range(rows):
            assert torch.equal(kernels.blocked_linear(x[:, i:i + 1], blocks, None, out_features)[0, 0], full[0, i])
    blocks = kernels.pack(torch.randn(300, 96, generator=gen))
    # a non-contiguous input gives the same result as its contiguous copy
    xt = torch.randn(96, 4, generator=gen).t()
    assert not xt.is_contiguous()
    assert torch.equal(kernels.blocked_linear(xt, blocks, None, 300), kernels.blocked_linear(xt.contiguous(), blocks, None, 300))


@needs_kernel
def test_blocked_module_dispatches_repacks_and_trains_through_f_linear():
    torch.manual_seed(0)
    plain = torch.nn.Linear(40, 90)
    lin = layout.decode_layout(torch.nn.Sequential(torch.nn.Linear(40, 90)), "blocked")[0]
    assert isinstance(lin, layout.BlockedLinear) and layout.layout_of(lin) == "blocked"
    with torch.no_grad():
        lin.weight.copy_(plain.weight)
        lin.bias.copy_(plain.bias)
        for rows in (1, 2, 5, layout.BLOCKED_MAX_ROWS, layout.BLOCKED_MAX_ROWS + 3):  # 1 and > max rows: MKL
            x = torch.randn(rows, 40)
            torch.testing.assert_close(lin(x), plain(x), rtol=1e-5, atol=1e-5)
        lin.weight.mul_(2.0)  # in place: the blocked copy is stale until the next call copies it again
        x = torch.randn(4, 40)
        torch.testing.assert_close(lin(x), x @ lin.weight.t() + lin.bias, rtol=1e-5, atol=1e-5)
    x = torch.randn(3, 40, requires_grad=True)
    lin(x).sum().backward()
    assert lin.weight.grad is not None and x.grad is not None


@needs_kernel
def test_blocked_all_runs_the_kernel_for_one_row_too():
    """"blocked-all": one row goes through the kernel as well, so a verify pass's rows get bit for bit the logits
    of one-row steps (the kernel is batch-invariant); more than BLOCKED_MAX_ROWS rows still go to MKL."""
    torch.manual_seed(0)
    plain = torch.nn.Linear(40, 90)
    lin = layout.decode_layout(torch.nn.Sequential(torch.nn.Linear(40, 90)), "blocked-all")[0]
    assert type(lin) is layout.BlockedAllLinear and layout.layout_of(lin) == "blocked-all"
    with torch.no_grad():
        lin.weight.copy_(plain.weight)
        lin.bias.copy_(plain.bias)
        x = torch.randn(5, 40)
        one = lin(x[:1])
        assert torch.equal(one, kernels.blocked_linear(x[:1], lin._packed, lin.bias, 90))  # the kernel, not MKL
        assert torch.equal(lin(x)[:1], one)  # batch-invariant: row 0 of a 5-row pass is the 1-row result
        for rows in (1, 3, layout.BLOCKED_MAX_ROWS + 3):
            xr = torch.randn(rows, 40)
            torch.testing.assert_close(lin(xr), plain(xr), rtol=1e-5, atol=1e-5)
    # "blocked" keeps MKL for one row: the other layout, same values
    other = layout.decode_layout(torch.nn.Sequential(lin), "blocked")[0]
    assert type(other) is layout.BlockedLinear and other.weight is lin.weight
    with torch.no_grad():
        torch.testing.assert_close(other(x[:1]), one, rtol=1e-5, atol=1e-5)


def test_without_the_kernel_the_blocked_layout_falls_back_to_column(monkeypatch):
    monkeypatch.setenv("DECODING_LAB_KERNELS", "off")
    kernels._library.cache_clear()
    try:
        assert not kernels.available() and kernels.unavailable_reason() == "DECODING_LAB_KERNELS=off"
        assert "blocked" not in layout.available_layouts() and "blocked-all" not in layout.available_layouts()
        lin = layout.decode_layout(torch.nn.Sequential(torch.nn.Linear(8, 4)), "blocked")[0]
        assert layout.layout_of(lin) == "column"
        with pytest.raises(RuntimeError, match="not available"):
            kernels.blocked_linear(torch.randn(2, 8), kernels.pack(torch.randn(4, 8)), None, 4)
    finally:
        monkeypatch.delenv("DECODING_LAB_KERNELS")
        kernels._library.cache_clear()


def test_a_failed_build_says_why(monkeypatch, tmp_path):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setattr(kernels, "_library_path", lambda: tmp_path / "k.so")
    with pytest.raises(RuntimeError, match="no C compiler"):
        kernels.build()


def _cpu_has(flag: str) -> bool:
    return flag in kernels._cpu_flags().split()


# Each vector width the kernel is written for, as this processor can run it: 4 floats (SSE, also NEON's width),
# 8 (AVX2) and 16 (AVX-512). -march=native builds only one of them, so the others are compiled here on purpose.
WIDTHS = [("sse", ["-march=x86-64"], "sse2"), ("avx2", ["-mavx2", "-mfma"], "avx2"), ("avx512", ["-mavx512f"], "avx512f")]


@pytest.mark.skipif(kernels._compiler() is None or not _cpu_has("sse2"), reason="x86 with a C compiler only")
@pytest.mark.parametrize("name,flags,cpu_flag", WIDTHS, ids=[w[0] for w in WIDTHS])
def test_every_vector_width_equals_f_linear(name, flags, cpu_flag, tmp_path):
    """Whole, half and quarter blocks (the AVX-512 split and the AVX2/NEON one) give F.linear, batch-invariantly; the
    int8 kernel gives F.linear on its rounded weights."""
    if not _cpu_has(cpu_flag):
        pytest.skip(f"this processor has no {cpu_flag}")
    base = [f for f in kernels.FLAGS if not f.startswith("-march")]
    path = kernels.compile_library(tmp_path / f"blocked-{name}.so", (*base, *flags))
    fn, int8 = kernels.bind(path), kernels.bind_int8(path)
    gen = torch.Generator().manual_seed(7)
    for out_features, in_features in ((70, 20), (1100, 24), (2000, 7)):
        w = torch.randn(out_features, in_features, generator=gen)
        b = torch.randn(out_features, generator=gen)
        blocks = kernels.pack(w)
        x = torch.randn(13, in_features, generator=gen)
        full = kernels._call(fn, x, blocks, b, out_features)
        torch.testing.assert_close(full, F.linear(x, w, b), rtol=1e-5, atol=1e-5)
        for rows in (1, 2, 5, 6, 7):
            assert torch.equal(kernels._call(fn, x[:rows], blocks, b, out_features), full[:rows])
        q, scale = kernels.pack_int8(w)  # the drafts' int8 kernel in the same width: one row (its own loop) and tiles
        rounded = kernels.dequantized(q, scale, out_features)
        for rows in (1, 2, 7, 13):
            torch.testing.assert_close(kernels._call_int8(int8, x[:rows], q, scale, b, out_features),
                                       F.linear(x[:rows], rounded, b), rtol=1e-5, atol=1e-5)
