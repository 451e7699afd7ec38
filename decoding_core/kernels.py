"""A small-batch float32 linear kernel for CPU decoding: ``blocked_linear``.

Why: a decode step multiplies 1 row, a speculative verify pass N + 1 rows and an EAGLE verify pass a tree's
worth of rows by every weight matrix. The weights are read once either way, so a pass over 2-8 rows should cost
what a 1-row pass costs (the memory traffic). The BLAS kernels torch calls do not manage it: measured on this
project's 2-core Intel Xeon (``python scripts/layout_check.py --kernels``), MKL reads the LM head's 113 MB at
~28 GB/s for one row but at 9-13 GB/s for 4-8 rows, so a 5-token verify pass cost 1.6x a 1-token pass.

What: the weight [O, K] is copied once into blocks of 64 output columns, each block stored k-major
([O/64][K][64], zero-padded), so that one block streams contiguously while the kernel keeps up to 6 rows x 64
outputs of float32 accumulators in registers, broadcasting one input value per row and k, and prefetches the
block ahead. Each output is the plain sequential sum over k (one accumulator lane per output), so a row's
result does not depend on how many rows are in the batch (batch-invariant: a 5-row verify pass gives the same
logits for its first row as a 1-row pass) and agrees with torch's linear to float32 rounding (~1e-4 on these
models; tested).

How it is built: a C file (GCC vector extensions, so the compiler emits AVX-512, AVX2 or NEON as the processor
has them; OpenMP for the threads) compiled once with the system's C compiler (``cc``; about 1 s) into the
cache folder, keyed by the source, the compiler and the processor's flags, and called with ctypes. The library
links ``libgomp.so.1``, which torch has already loaded, so it shares torch's OpenMP threads (two runtimes on
two cores would fight). Where there is no compiler or the build fails, ``available()`` is False with the reason
in ``unavailable_reason()``, and the layouts fall back to torch's kernels.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch

BLOCK = 64      # output columns per stored block
MAX_ROWS = 6    # rows kept in registers at once (6 x 4 vectors of 16 = 24 accumulators)

SOURCE = r"""
#include <stdint.h>
#include <string.h>
#include <omp.h>

typedef float v16 __attribute__((vector_size(64)));

static inline v16 ld(const float* p) { v16 v; memcpy(&v, p, 64); return v; }
static inline void st(float* p, v16 v) { memcpy(p, &v, 64); }

#define PF 16  /* prefetch this many k-steps (16 x 256 B) ahead */

#define KERNEL(MB)                                                                                  \
static void kern##MB(const float* x, int64_t K, const float* wb, float* y, int64_t O, int64_t o0) { \
    v16 acc[MB][4];                                                                                 \
    for (int m = 0; m < MB; m++) for (int j = 0; j < 4; j++) acc[m][j] = (v16){0};                 \
    for (int64_t k = 0; k < K; k++) {                                                               \
        const float* w = wb + k * 64;                                                               \
        __builtin_prefetch(w + PF * 64, 0, 3);      __builtin_prefetch(w + PF * 64 + 16, 0, 3);     \
        __builtin_prefetch(w + PF * 64 + 32, 0, 3); __builtin_prefetch(w + PF * 64 + 48, 0, 3);     \
        v16 w0 = ld(w), w1 = ld(w + 16), w2 = ld(w + 32), w3 = ld(w + 48);                          \
        for (int m = 0; m < MB; m++) {                                                              \
            v16 xb = (v16){0} + x[m * K + k];                                                       \
            acc[m][0] += xb * w0; acc[m][1] += xb * w1; acc[m][2] += xb * w2; acc[m][3] += xb * w3; \
        }                                                                                           \
    }                                                                                               \
    int64_t n = O - o0 < 64 ? O - o0 : 64;                                                          \
    for (int m = 0; m < MB; m++) {                                                                  \
        float* yr = y + m * O + o0;                                                                 \
        if (n == 64) { st(yr, acc[m][0]); st(yr + 16, acc[m][1]); st(yr + 32, acc[m][2]); st(yr + 48, acc[m][3]); } \
        else { float t[64]; st(t, acc[m][0]); st(t + 16, acc[m][1]); st(t + 32, acc[m][2]); st(t + 48, acc[m][3]); \
               for (int64_t i = 0; i < n; i++) yr[i] = t[i]; }                                      \
    }                                                                                               \
}
KERNEL(1) KERNEL(2) KERNEL(3) KERNEL(4) KERNEL(5) KERNEL(6)

/* y[M, O] = x[M, K] @ W^T (+ bias), W stored as blocks [ceil(O/64)][K][64]. */
void blocked_linear(const float* x, const float* wb, const float* bias, float* y,
                    int64_t M, int64_t K, int64_t O, int threads) {
    int64_t nb = (O + 63) / 64;
    #pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t b = 0; b < nb; b++) {
        const float* w = wb + b * K * 64;
        int64_t o0 = b * 64, m = 0;
        for (; m + 6 <= M; m += 6) kern6(x + m * K, K, w, y + m * O, O, o0);
        switch (M - m) {
            case 5: kern5(x + m * K, K, w, y + m * O, O, o0); break;
            case 4: kern4(x + m * K, K, w, y + m * O, O, o0); break;
            case 3: kern3(x + m * K, K, w, y + m * O, O, o0); break;
            case 2: kern2(x + m * K, K, w, y + m * O, O, o0); break;
            case 1: kern1(x + m * K, K, w, y + m * O, O, o0); break;
        }
        if (bias) for (int64_t r = 0; r < M; r++) {
            int64_t n = O - o0 < 64 ? O - o0 : 64;
            for (int64_t i = 0; i < n; i++) y[r * O + o0 + i] += bias[o0 + i];
        }
    }
}
"""

FLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-ffp-contract=fast")
_reason: str | None = None


def _cpu_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _library_path() -> Path:
    from .models import cache_root
    compiler = shutil.which(os.environ.get("CC", "cc")) or ""
    key = hashlib.sha256("\n".join([SOURCE, " ".join(FLAGS), compiler, _cpu_flags()]).encode()).hexdigest()[:16]
    return cache_root() / "kernels" / f"blocked-{key}.so"


def build(force: bool = False) -> Path:
    """Compile the kernel library (once; ~1 s) and return its path. Raises RuntimeError with the reason."""
    path = _library_path()
    if path.exists() and not force:
        return path
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if compiler is None:
        raise RuntimeError("no C compiler (cc) on this machine")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "blocked.c"
        src.write_text(SOURCE)
        out = Path(tmp) / "blocked.so"
        done = subprocess.run([compiler, *FLAGS, str(src), "-o", str(out)], capture_output=True, text=True, check=False,
                              timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"the kernel did not compile: {(done.stderr or done.stdout).strip()[:300]}")
        os.replace(out, path)  # atomic: a parallel build never leaves half a file
    return path


@functools.lru_cache(maxsize=None)
def _library():
    global _reason
    if os.environ.get("DECODING_LAB_KERNELS", "") == "off":
        _reason = "DECODING_LAB_KERNELS=off"
        return None
    if platform.system() != "Linux":
        _reason = f"built and tested on Linux only (this is {platform.system()})"
        return None
    try:
        lib = ctypes.CDLL(str(build()))
        fn = lib.blocked_linear
        fn.restype = None
        fn.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64] * 3 + [ctypes.c_int]
        if not _self_test(fn):
            _reason = "the compiled kernel gave wrong results on a small case"
            return None
        return fn
    except (OSError, RuntimeError, subprocess.SubprocessError, AttributeError) as exc:
        _reason = str(exc) or type(exc).__name__
        return None


def _self_test(fn) -> bool:
    gen = torch.Generator().manual_seed(0)
    w, x, b = torch.randn(70, 20, generator=gen), torch.randn(7, 20, generator=gen), torch.randn(70, generator=gen)
    y = _call(fn, x, pack(w), b, 70)
    return bool(torch.allclose(y, torch.nn.functional.linear(x, w, b), atol=1e-4))


def available() -> bool:
    """The kernel library is built and passed its self-test here."""
    return _library() is not None


def unavailable_reason() -> str | None:
    """Why ``available()`` is False (None when it is True)."""
    _library()
    return _reason


def pack(weight: torch.Tensor) -> torch.Tensor:
    """The blocked copy [ceil(O/64), K, 64] of a float32 weight [O, K] (zero-padded)."""
    o, k = weight.shape
    nb = -(-o // BLOCK)
    padded = torch.zeros(nb * BLOCK, k, dtype=torch.float32)
    padded[:o] = weight.detach().float()
    return padded.view(nb, BLOCK, k).transpose(1, 2).contiguous()


def _call(fn, x: torch.Tensor, blocks: torch.Tensor, bias: torch.Tensor | None, out_features: int) -> torch.Tensor:
    k = blocks.shape[1]
    x2 = x.reshape(-1, k)
    if not x2.is_contiguous():
        x2 = x2.contiguous()
    y = torch.empty(x2.shape[0], out_features, dtype=torch.float32)
    if x2.shape[0]:
        fn(x2.data_ptr(), blocks.data_ptr(), bias.data_ptr() if bias is not None else None, y.data_ptr(),
           x2.shape[0], k, out_features, torch.get_num_threads())
    return y.view(*x.shape[:-1], out_features)


def blocked_linear(x: torch.Tensor, blocks: torch.Tensor, bias: torch.Tensor | None, out_features: int) -> torch.Tensor:
    """``F.linear(x, W, bias)`` from ``pack(W)``: float32 CPU tensors; call only when ``available()``."""
    fn = _library()
    if fn is None:
        raise RuntimeError(f"the blocked kernel is not available: {_reason}")
    if bias is not None and not bias.is_contiguous():
        bias = bias.contiguous()
    return _call(fn, x, blocks, bias, out_features)
