"""A small-batch float32 linear kernel for CPU decoding: ``blocked_linear``.

Why: a decode step multiplies 1 row, a speculative verify pass N + 1 rows and an EAGLE verify pass a tree's
worth of rows by every weight matrix. The weights are read once either way, so a pass over 2-8 rows should cost
what a 1-row pass costs (the memory traffic). The BLAS kernels torch calls do not manage it: measured on this
project's 2-core Intel Xeon (``python scripts/layout_check.py --matrices``), MKL reads the LM head's 113 MB in
2.7 ms for one row but in 5.6 ms for 4 rows and 12.2 ms for 8 (this kernel: 2.5 / 2.5 / 3.9 ms), so a 5-token
verify pass cost 1.55x a 1-token pass (with this kernel: 1.17x).

What: the weight [O, K] is copied once into blocks of 64 output columns, each block stored k-major
([O/64][K][64], zero-padded), so that one block streams contiguously while the kernel keeps up to 6 rows x 64
outputs of float32 accumulators in registers (AVX-512; 6 rows x 16 outputs with AVX2's or NEON's fewer, narrower
registers), broadcasting one input value per row and k, and prefetches the block ahead; on AVX-512 a matrix with few
blocks is shared out in half blocks so that both threads get work. Each output
is the plain sequential sum over k (one accumulator lane per output), so a row's
result does not depend on how many rows are in the batch (batch-invariant: a 5-row verify pass gives the same
logits for its first row as a 1-row pass) and agrees with torch's linear to float32 rounding (~1e-4 on these
models; tested).

How it is built: a C file (GCC vector extensions in the processor's own vector width, so the compiler emits
AVX-512, AVX2 or NEON as the processor has them; until session 29 the vectors were 16 floats everywhere, which GCC
keeps on the stack on an AVX2 processor: there the kernel ran 3-10x slower than oneDNN's and the layout measurement
never chose it; OpenMP for the threads) compiled once with the system's C compiler (``cc``; about 1 s) into the
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

SOURCE = r"""
#include <stdint.h>
#include <string.h>
#include <omp.h>

/* One vector register's worth of floats: 16 with AVX-512, 8 with AVX/AVX2, 4 elsewhere (NEON, SSE). A wider GCC
   vector than the processor has is kept on the stack, not in registers (a 64-byte vector on an AVX2 EPYC made the
   kernel ~10x slower than oneDNN's), so the kernel is written in the native width. */
#if defined(__AVX512F__)
#define VW 16
#elif defined(__AVX__)
#define VW 8
#else
#define VW 4
#endif
typedef float vec __attribute__((vector_size(VW * 4)));

static inline vec ld(const float* p) { vec v; memcpy(&v, p, VW * 4); return v; }
static inline void st(float* p, vec v) { memcpy(p, &v, VW * 4); }

/* One input value in every lane, two ways (the same value, so the same results bit for bit):
   - BC_MEM reads it straight from memory into the vector (vbroadcastss m32 on x86: a load, no arithmetic);
   - BC_REG, (vec){0} + x, makes GCC add 0.0 in a scalar register and shuffle it across the vector: two more
     operations per row and k on the floating-point ports that the FMAs need.
   Measured on the 2-core AMD EPYC (AVX2; session 42, /tmp scripts, the figures in docs/HISTORY.md): from 9 rows on,
   where the arithmetic bounds a pass, BC_MEM runs 1.2-1.7x faster (6 x 16 tiles at 150-175 GFLOP/s against ~100;
   a 32-token forward of the 135M target 91 ms against 121); at 2-8 rows, where reading the weights from memory bounds
   it, BC_REG streams ~10% faster (the LM head over 6 rows 5.0 against 5.8 ms; why is not known, the loop's pace
   against the prefetchers is the likely part). So each is used where it won: REG_MAX_ROWS. */
#if VW == 16
#define BC_MEM(v) ((vec){v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v})
#elif VW == 8
#define BC_MEM(v) ((vec){v, v, v, v, v, v, v, v})
#else
#define BC_MEM(v) ((vec){v, v, v, v})
#endif
#define BC_REG(v) ((vec){0} + (v))
#define REG_MAX_ROWS 8

#define PF 16  /* prefetch this many k-steps (16 x 256 B) ahead */

/* kern<MB>_<NV><SUF>: MB rows x NV vectors of VW outputs, starting at column c0 of the block, broadcasting with BC;
   weights of type WT, widened by LOADW, prefetched PFD k-steps ahead once per PFSTEP vectors (one 64-byte line). */
#define KERNEL_T(MB, NV, SUF, BC, WT, LOADW, PFD, PFSTEP)                                          \
static void kern##MB##_##NV##SUF(const float* x, int64_t K, const WT* wb, float* y, int64_t O, int64_t o0, \
                                 int64_t c0) {                                                      \
    vec acc[MB][NV];                                                                                \
    for (int m = 0; m < MB; m++) for (int j = 0; j < NV; j++) acc[m][j] = (vec){0};                \
    for (int64_t k = 0; k < K; k++) {                                                               \
        const WT* w = wb + k * 64 + c0;                                                             \
        for (int j = 0; j < NV; j += PFSTEP)                                                        \
            __builtin_prefetch(w + PFD * 64 + VW * j, 0, 3);                                        \
        vec wv[NV];                                                                                 \
        for (int j = 0; j < NV; j++) wv[j] = LOADW(w + VW * j);                                     \
        for (int m = 0; m < MB; m++) {                                                              \
            vec xb = BC(x[m * K + k]);                                                              \
            for (int j = 0; j < NV; j++) acc[m][j] += xb * wv[j];                                   \
        }                                                                                           \
    }                                                                                               \
    int64_t n = O - o0 - c0 < VW * NV ? O - o0 - c0 : VW * NV;                                      \
    for (int m = 0; m < MB; m++) {                                                                  \
        float* yr = y + m * O + o0 + c0;                                                            \
        if (n == VW * NV) { for (int j = 0; j < NV; j++) st(yr + VW * j, acc[m][j]); }              \
        else { float t[64]; for (int j = 0; j < NV; j++) st(t + VW * j, acc[m][j]);                 \
               for (int64_t i = 0; i < n; i++) yr[i] = t[i]; }                                      \
    }                                                                                               \
}
#define KERNEL(MB, NV, SUF, BC) KERNEL_T(MB, NV, SUF, BC, float, ld, PF, 16 / VW)
typedef void (*kern_fn)(const float*, int64_t, const float*, float*, int64_t, int64_t, int64_t);
#define KERNELS(MB, NV) KERNEL(MB, NV, _r, BC_REG) KERNEL(MB, NV, _m, BC_MEM)
/* A table per tile width: [0] the BC_REG kernels by row count, [1] the BC_MEM ones. */
#define ROWS_TABLE(NV) {{0, kern1_##NV##_r, kern2_##NV##_r, kern3_##NV##_r, kern4_##NV##_r, kern5_##NV##_r, kern6_##NV##_r}, \
                        {0, kern1_##NV##_m, kern2_##NV##_m, kern3_##NV##_m, kern4_##NV##_m, kern5_##NV##_m, kern6_##NV##_m}}

/* A unit of work is 6 rows x some outputs of one block, as many accumulators as the registers hold (6 x NV
   accumulators + NV weights + 1 broadcast). With AVX-512 (32 registers of 16 floats): the whole block of 64 outputs,
   or half of it where a matrix has fewer than 8 blocks per thread, so that both threads get the same amount of
   work. With AVX2 (16 registers of 8) and NEON (32 of 4): a quarter block, 16 outputs. */
#if VW == 16
KERNELS(1, 4) KERNELS(2, 4) KERNELS(3, 4) KERNELS(4, 4) KERNELS(5, 4) KERNELS(6, 4)
KERNELS(1, 2) KERNELS(2, 2) KERNELS(3, 2) KERNELS(4, 2) KERNELS(5, 2) KERNELS(6, 2)
static const kern_fn WHOLE[2][7] = ROWS_TABLE(4);
static const kern_fn HALF[2][7] = ROWS_TABLE(2);
#define UNITS_PER_BLOCK(nb, threads) ((nb) < 8 * (int64_t)(threads) ? 2 : 1)
#define TABLE(per) ((per) == 2 ? HALF : WHOLE)
#elif VW == 8
KERNELS(1, 2) KERNELS(2, 2) KERNELS(3, 2) KERNELS(4, 2) KERNELS(5, 2) KERNELS(6, 2)
static const kern_fn QUARTER[2][7] = ROWS_TABLE(2);
#define UNITS_PER_BLOCK(nb, threads) 4
#define TABLE(per) QUARTER
#else
KERNELS(1, 4) KERNELS(2, 4) KERNELS(3, 4) KERNELS(4, 4) KERNELS(5, 4) KERNELS(6, 4)
static const kern_fn QUARTER[2][7] = ROWS_TABLE(4);
#define UNITS_PER_BLOCK(nb, threads) 4
#define TABLE(per) QUARTER
#endif

/* y[M, O] = x[M, K] @ W^T (+ bias), W stored as blocks [ceil(O/64)][K][64]. */
void blocked_linear(const float* x, const float* wb, const float* bias, float* y,
                    int64_t M, int64_t K, int64_t O, int threads) {
    int64_t nb = (O + 63) / 64;
    int64_t per = UNITS_PER_BLOCK(nb, threads), units = per * nb, width = 64 / per;
    const kern_fn* table = TABLE(per)[M > REG_MAX_ROWS];
    #pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t u = 0; u < units; u++) {
        int64_t b = u / per, c0 = width * (u % per);
        if (b * 64 + c0 >= O) continue;
        const float* w = wb + b * K * 64;
        int64_t o0 = b * 64, m = 0;
        for (; m + 6 <= M; m += 6) table[6](x + m * K, K, w, y + m * O, O, o0, c0);
        if (M > m) table[M - m](x + m * K, K, w, y + m * O, O, o0, c0);
        if (bias) {
            int64_t n = O - o0 - c0 < width ? O - o0 - c0 : width;
            for (int64_t r = 0; r < M; r++) for (int64_t i = 0; i < n; i++) y[r * O + o0 + c0 + i] += bias[o0 + c0 + i];
        }
    }
}

/* Weight-only int8, for drafts (their tokens are checked by the target, so a draft may round its weights):
   y[M, O] = (x[M, K] @ Q^T) * scale (+ bias), Q stored as int8 blocks [ceil(O/64)][K][64], one float scale per
   output. A draft step reads its weights once per token; int8 reads a quarter of float32's bytes. The tiles are the
   float kernel's: a unit is a quarter block (16 outputs) for up to 6 rows, each weight widened to float once per k
   for all of them (an EAGLE head level runs up to top-k rows; transformers' assisted generation feeds several);
   one row has its own loop (int8_row). */
#if defined(__AVX512F__) && VW == 16
#include <immintrin.h>
static inline vec i8f(const signed char* p) {
    return (vec)_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)p)));
}
#elif defined(__AVX2__) && VW == 8
#include <immintrin.h>
static inline vec i8f(const signed char* p) {
    return (vec)_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)p)));
}
#else  /* through int32 vectors (GCC widened int8 -> float one lane at a time on x86, hence the intrinsics above) */
typedef signed char cvec __attribute__((vector_size(VW)));
typedef int32_t ivec __attribute__((vector_size(VW * 4)));
static inline vec i8f(const signed char* p) {
    cvec c;
    memcpy(&c, p, VW);
    return __builtin_convertvector(__builtin_convertvector(c, ivec), vec);
}
#endif
#define NQ (16 / VW)  /* vectors in a quarter block */
#define PF8 32        /* prefetch this many k-steps (32 x 64 B) ahead */

/* The float kernel's tiles on int8 weights (the raw sums; int8_linear scales them). */
#define KERNEL_I8(MB) KERNEL_T(MB, NQ, _8, BC_MEM, signed char, i8f, PF8, NQ)
KERNEL_I8(1) KERNEL_I8(2) KERNEL_I8(3) KERNEL_I8(4) KERNEL_I8(5) KERNEL_I8(6)
typedef void (*k8_fn)(const float*, int64_t, const signed char*, float*, int64_t, int64_t, int64_t);
/* (## pastes NQ as written: the kernels are named kern<MB>_NQ_8) */
static const k8_fn K8[7] = {0, kern1_NQ_8, kern2_NQ_8, kern3_NQ_8, kern4_NQ_8, kern5_NQ_8, kern6_NQ_8};

/* One row (a draft step): a unit is a whole block, each k's 64 bytes one cache line read by one unit (measured here:
   the 16,384 x 576 LM head 0.24 ms against 0.42 in quarter blocks; from 2 rows on the quarter-block tiles win,
   8 rows 2.1 ms against 2.9 one row at a time). */
static void int8_row(const float* x, const signed char* wb, const float* scale, const float* bias, float* y,
                     int64_t K, int64_t O, int threads) {
    int64_t nb = (O + 63) / 64;
    #pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t b = 0; b < nb; b++) {
        const signed char* w = wb + b * K * 64;
        int64_t o0 = b * 64, n = O - o0 < 64 ? O - o0 : 64;
        vec acc[64 / VW];
        for (int j = 0; j < 64 / VW; j++) acc[j] = (vec){0};
        for (int64_t k = 0; k < K; k++) {
            const signed char* wk = w + k * 64;
            __builtin_prefetch(wk + PF8 * 64, 0, 3);
            vec xb = BC_MEM(x[k]);
            for (int j = 0; j < 64 / VW; j++) acc[j] += xb * i8f(wk + VW * j);
        }
        float t[64];
        for (int j = 0; j < 64 / VW; j++) st(t + VW * j, acc[j]);
        for (int64_t i = 0; i < n; i++) y[o0 + i] = t[i] * scale[o0 + i] + (bias ? bias[o0 + i] : 0.0f);
    }
}

void int8_linear(const float* x, const signed char* wb, const float* scale, const float* bias, float* y,
                 int64_t M, int64_t K, int64_t O, int threads) {
    if (M == 1) { int8_row(x, wb, scale, bias, y, K, O, threads); return; }
    int64_t nb = (O + 63) / 64, units = 4 * nb;
    #pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t u = 0; u < units; u++) {
        int64_t b = u / 4, c0 = 16 * (u % 4), m = 0;
        if (b * 64 + c0 >= O) continue;
        const signed char* w = wb + b * K * 64;
        for (; m + 6 <= M; m += 6) K8[6](x + m * K, K, w, y + m * O, O, b * 64, c0);
        if (M > m) K8[M - m](x + m * K, K, w, y + m * O, O, b * 64, c0);
        int64_t o0 = b * 64 + c0, n = O - o0 < 16 ? O - o0 : 16;
        for (int64_t r = 0; r < M; r++) {
            float* yr = y + r * O + o0;
            for (int64_t i = 0; i < n; i++) yr[i] = yr[i] * scale[o0 + i] + (bias ? bias[o0 + i] : 0.0f);
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


def _compiler() -> str | None:
    """The C compiler: $CC, else cc, as found on PATH (None: none)."""
    return shutil.which(os.environ.get("CC", "cc"))


def _library_path() -> Path:
    from .models import cache_root
    key = hashlib.sha256("\n".join([SOURCE, " ".join(FLAGS), _compiler() or "", _cpu_flags()]).encode()).hexdigest()[:16]
    return cache_root() / "kernels" / f"blocked-{key}.so"


def build(force: bool = False) -> Path:
    """Compile the kernel library (once; ~1 s) and return its path. Raises RuntimeError with the reason."""
    path = _library_path()
    if path.exists() and not force:
        return path
    return compile_library(path, FLAGS)


def compile_library(path: Path, flags=FLAGS) -> Path:
    """Compile SOURCE with ``flags`` into ``path`` (the tests build each vector width the processor runs this way)."""
    compiler = _compiler()
    if compiler is None:
        raise RuntimeError("no C compiler (cc) on this machine")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "blocked.c"
        src.write_text(SOURCE)
        out = Path(tmp) / "blocked.so"
        done = subprocess.run([compiler, *flags, str(src), "-o", str(out)], capture_output=True, text=True, check=False,
                              timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"the kernel did not compile: {(done.stderr or done.stdout).strip()[:300]}")
        os.replace(out, path)  # atomic: a parallel build never leaves half a file
    return path


def bind(path: Path):
    """The library's blocked_linear as a ctypes function."""
    fn = ctypes.CDLL(str(path)).blocked_linear
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64] * 3 + [ctypes.c_int]
    return fn


def bind_int8(path: Path):
    """The library's int8_linear as a ctypes function."""
    fn = ctypes.CDLL(str(path)).int8_linear
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int64] * 3 + [ctypes.c_int]
    return fn


@functools.lru_cache(maxsize=None)
def _int8_library():
    """The int8 kernel from the same library (None where the library is not available or its self-test fails)."""
    if _library() is None:
        return None
    try:
        fn = bind_int8(build())
    except (OSError, RuntimeError, subprocess.SubprocessError, AttributeError):
        return None
    gen = torch.Generator().manual_seed(0)
    w, x, b = torch.randn(70, 20, generator=gen), torch.randn(7, 20, generator=gen), torch.randn(70, generator=gen)
    blocks, scale = pack_int8(w)
    rounded = dequantized(blocks, scale, 70)
    ok = all(torch.allclose(_call_int8(fn, x[:rows], blocks, scale, b, 70),
                            torch.nn.functional.linear(x[:rows], rounded, b), atol=1e-4) for rows in (1, 7))
    return fn if ok else None


def int8_available() -> bool:
    """The int8 kernel is built and passed its self-test here."""
    return _int8_library() is not None


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
        fn = bind(build())
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
    return _blocks(weight.detach().float())


def _blocks(w: torch.Tensor) -> torch.Tensor:
    """[O, K] as blocks of 64 outputs, k-major: [ceil(O/64), K, 64], zero-padded, in w's dtype."""
    o, k = w.shape
    nb = -(-o // BLOCK)
    padded = torch.zeros(nb * BLOCK, k, dtype=w.dtype)
    padded[:o] = w
    return padded.view(nb, BLOCK, k).transpose(1, 2).contiguous()


def _call(fn, x: torch.Tensor, blocks: torch.Tensor, bias: torch.Tensor | None, out_features: int,
          scale: torch.Tensor | None = None) -> torch.Tensor:
    """The kernel on x [..., K] (kept lean: a verify pass makes ~200 of these calls); ``scale``: the int8 kernel's."""
    k = blocks.shape[1]
    if not x.is_contiguous():
        x = x.contiguous()
    rows = x.numel() // k
    y = x.new_empty((*x.shape[:-1], out_features), dtype=torch.float32)
    if rows:
        fn(x.data_ptr(), blocks.data_ptr(), *(() if scale is None else (scale.data_ptr(),)),
           None if bias is None else bias.data_ptr(), y.data_ptr(), rows, k, out_features, torch.get_num_threads())
    return y


def blocked_linear(x: torch.Tensor, blocks: torch.Tensor, bias: torch.Tensor | None, out_features: int) -> torch.Tensor:
    """``F.linear(x, W, bias)`` from ``pack(W)``: float32 CPU tensors; call only when ``available()``."""
    fn = _library()
    if fn is None:
        raise RuntimeError(f"the blocked kernel is not available: {_reason}")
    if bias is not None and not bias.is_contiguous():
        bias = bias.contiguous()
    return _call(fn, x, blocks, bias, out_features)


def pack_int8(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Weight-only int8 of a float weight [O, K]: int8 blocks [ceil(O/64), K, 64] (zero-padded) and one float32
    scale per output (the row's largest magnitude / 127, so each weight is rounded to the nearest of 255 levels)."""
    w = weight.detach().float()
    scale = (w.abs().amax(dim=1) / 127).clamp_min(torch.finfo(torch.float32).tiny)
    q = torch.round(w / scale[:, None]).clamp_(-127, 127).to(torch.int8)
    return _blocks(q), scale.contiguous()


def dequantized(blocks: torch.Tensor, scale: torch.Tensor, out_features: int) -> torch.Tensor:
    """The float weight [O, K] that ``pack_int8``'s blocks and scales stand for (what the int8 kernel multiplies by)."""
    nb, k, _ = blocks.shape
    q = blocks.transpose(1, 2).reshape(nb * BLOCK, k)[:out_features]
    return q.float() * scale[:, None]


def _call_int8(fn, x: torch.Tensor, blocks: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor | None,
               out_features: int) -> torch.Tensor:
    return _call(fn, x, blocks, bias, out_features, scale)


def int8_linear(x: torch.Tensor, blocks: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor | None,
                out_features: int) -> torch.Tensor:
    """``F.linear(x, dequantized(blocks, scale), bias)`` (to float rounding) from ``pack_int8(W)``: float32 CPU
    tensors; call only when ``int8_available()``."""
    fn = _int8_library()
    if fn is None:
        raise RuntimeError(f"the int8 kernel is not available: {unavailable_reason() or 'its self-test failed'}")
    if bias is not None and not bias.is_contiguous():
        bias = bias.contiguous()
    return _call_int8(fn, x, blocks, scale, bias, out_features)
