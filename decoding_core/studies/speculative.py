"""Speculative-decoding studies: how long the draft should be (N sweep), and top-K verification's drift."""
from __future__ import annotations

import math

from dataclasses import dataclass, replace

import torch
from transformers import DynamicCache

from ..decoders import forward
from ..models import LoadedModel
from ..processors import apply_processors, build_processors
from ..settings import N_MAX, Greedy, RunSettings, Sample, Speculative
from ..speculative import draft_next_logits, expected_speedup, expected_tokens_per_step
from ..strategies import Loaders, build_decoder, direct_loaders
from . import Progress, StopCheck, never, no_progress
from ..messages import Msg


def plain_run(lm: LoadedModel, prompt_ids: list[int], strategy: Speculative, run: RunSettings):
    """Plain target decoding of the same prompt, length and device: the baseline of every speed-up
    (sampled with the strategy's settings when the strategy samples, else greedy)."""
    plain = Sample(strategy.sampling) if strategy.samples else Greedy(strategy.sampling)
    return build_decoder(lm, plain, run).start(prompt_ids).run()


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def step_bytes(lm: LoadedModel, n: int, has_draft: bool) -> int:
    """Bytes of the full-vocabulary rows one step of draft length N holds at once: the target's N + 1 rows
    of float32 logits and of probabilities, and the draft's N rows of each (the notes' "more softmax work
    and memory"). The KV caches grow by N + 1 positions per step on top (cut back after verification)."""
    rows = 2 * (n + 1) + (2 * n if has_draft else 0)
    return rows * lm.vocab_size * 4


@dataclass(frozen=True)
class SweepRow:
    n: int
    tau: float                 # mean accepted length (A + S) / S
    acceptance: float          # A / D
    speedup: float             # tokens/s over plain decoding's, same run
    c: float                   # draft time per drafted token / target time per token
    tau_theory: float
    speedup_theory: float
    step_ms_median: float      # what a user waits per step: median wall time of one draft + verify step
    step_ms_p90: float         # ... and its 90th percentile
    draft_ms_per_step: float   # the draft's share of a step (median)
    step_mib: float            # working memory of one step's logits and probabilities, from tensor shapes
    speedup_sd: float = 0.0    # standard deviation of the speed-up over the repeats
    repeats: int = 1


@dataclass(frozen=True)
class Sweep:
    rows: tuple[SweepRow, ...]
    alpha: float               # acceptance at N = 1, the theory's per-token acceptance
    c: float                   # mean measured cost ratio
    plain_tokens_per_s: float
    stopped: bool = False

    @property
    def best(self) -> SweepRow:
        return max(self.rows, key=lambda r: r.speedup)

    def level_with_best(self) -> tuple[int, ...]:
        """The other N whose speed-up lies within the repeats' spread of the best one's (the two ± one standard
        deviation overlap): on this machine they are not told apart. Empty with one repeat (no spread measured)."""
        best = self.best
        return tuple(r.n for r in self.rows if r is not best and r.repeats > 1 and best.repeats > 1
                     and best.speedup - r.speedup <= best.speedup_sd + r.speedup_sd)


def check_max_n(max_n) -> None:
    """The sweep's largest N: an integer from 1 to N_MAX (ValueError otherwise)."""
    if not isinstance(max_n, int) or isinstance(max_n, bool) or not 1 <= max_n <= N_MAX:
        raise ValueError(f"the largest N must be an integer from 1 to {N_MAX}, got {max_n!r}")


def n_sweep(lm: LoadedModel, prompt_ids: list[int], strategy: Speculative, run: RunSettings, max_n: int = 8,
            loaders: Loaders | None = None, progress: Progress = no_progress, should_stop: StopCheck = never,
            repeats: int = 1) -> Sweep:
    """Every N from 1 to max_n is an actual run of ``strategy``'s chain (no lookup branch or runner-up leaves: the
    theory is a chain's; EOS ignored, so each run emits
    run.max_new_tokens tokens), ``repeats`` times; each repeat times plain decoding first, so every speed-up
    is against a baseline measured next to it. Rows hold the mean over repeats (speedup_sd: the spread
    between them); alpha and c are measured, the theory curves drawn from them."""
    check_max_n(max_n)
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    loaders = loaders or direct_loaders()
    run = replace(run, stop_at_eos=False)
    per_n: dict[int, list] = {}
    per_tokens, stopped, total = [], False, repeats * (max_n + 1)
    for rep in range(repeats):
        if should_stop():
            stopped = True
            break
        progress((rep * (max_n + 1)) / total, Msg.of("core.progress.plain_repeat", rep=rep + 1))
        base = plain_run(lm, prompt_ids, strategy, run).metrics
        per_token = base["wall_s"] / base["new_tokens"]
        per_tokens.append(per_token)
        for n in range(1, max_n + 1):
            if should_stop():
                stopped = True
                break
            chain = replace(strategy, n_draft=n, lookup=0, runner_up=False)  # the formula's chain: no tree beside it
            dec = build_decoder(lm, chain, run, loaders).start(prompt_ids)
            m = dec.run().metrics
            steps = [s for s in dec.history[1:]] or dec.history  # the first step also reads the prompt
            per_n.setdefault(n, []).append((
                m["mean_accepted_length"], m["acceptance_rate"] or 0.0, (m["new_tokens"] / m["wall_s"]) * per_token,
                (m["draft_s"] / m["drafted"]) / per_token if m["drafted"] else 0.0,
                1000 * _quantile([s.elapsed_s for s in steps], 0.5), 1000 * _quantile([s.elapsed_s for s in steps], 0.9),
                1000 * _quantile([s.draft_s for s in steps], 0.5)))
            progress((rep * (max_n + 1) + n + 1) / total,
                     Msg.of("core.progress.n_repeat", rep=rep + 1, n=n, tau=m["mean_accepted_length"]))
        if stopped:
            break
    if not per_n:
        return Sweep((), 0.0, 0.0, 1 / per_tokens[0] if per_tokens else 0.0, True)
    mean = {n: [sum(col) / len(col) for col in zip(*runs)] for n, runs in per_n.items()}
    alpha = min(mean[1][1], 0.999) if 1 in mean else 0.0
    c = sum(v[3] for v in mean.values()) / len(mean)
    rows = tuple(SweepRow(n, tau, acc, sp, cc, expected_tokens_per_step(alpha, n), expected_speedup(alpha, n, c),
                          *rest, step_bytes(lm, n, getattr(strategy, "draft", None) != "prompt-lookup") / 2**20,
                          _sd([r[2] for r in per_n[n]]), len(per_n[n]))
                 for n, (tau, acc, sp, cc, *rest) in sorted(mean.items()))
    return Sweep(rows, alpha, c, len(per_tokens) / sum(per_tokens), stopped)


def _sd(xs: list[float]) -> float:
    """Sample standard deviation (0 for a single value)."""
    if len(xs) < 2:
        return 0.0
    mu = sum(xs) / len(xs)
    return (sum((x - mu) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5


@dataclass(frozen=True)
class Drift:
    """The first token's distribution under each verification rule, over many trials, against p."""

    ids: tuple[int, ...]
    texts: tuple[str, ...]
    p: tuple[float, ...]       # the target's distribution on the shown tokens
    q: tuple[float, ...]       # the draft's
    freq: dict                 # rule -> empirical frequency of each shown token
    tv: dict                   # rule -> total-variation distance to p over the whole vocabulary
    trials: int
    exact: dict = None         # rule -> the rule's exact first-token distribution on the shown tokens
    tv_exact: dict = None      # rule -> its exact total-variation distance to p (no sampling noise)
    tv_noise: float = None     # the expected TV of a ``trials``-draw histogram of p itself: ½ Σ √(2 p (1 − p) / (π M))


def topk_drift(lm: LoadedModel, draft: LoadedModel, prompt_ids: list[int], strategy: Speculative, k: int = 5,
               trials: int = 3000, seed: int = 0, shown: int = 15) -> Drift:
    """The draft samples y ~ q; top-K verification and rejection sampling each decide, ``trials`` times."""
    if draft is None:
        raise ValueError("the drift needs a draft model with a distribution q (not prompt lookup)")
    if not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be an integer >= 1, got {trials!r}")
    ids = torch.tensor([prompt_ids], device=lm.device)
    procs = build_processors(strategy.sampling)
    p_logits = forward(lm.model, ids, DynamicCache(), 1)[0, -1:]
    q_logits = draft_next_logits(draft, ids, DynamicCache(), lm.vocab_size)[None]  # as the decoder drafts
    p1 = torch.softmax(apply_processors(procs, ids, p_logits).float(), -1)
    q1 = torch.softmax(apply_processors(procs, ids, q_logits).float(), -1)
    gen = torch.Generator().manual_seed(seed)
    topk_name, sample_name = Msg.of("core.drift.topk", k=k), Msg.of("core.drift.sample")
    p, q = p1[0].cpu(), q1[0].cpu()
    first = _first_tokens(p, q, k, trials, gen)
    freqs = {topk_name: torch.bincount(first["topk"], minlength=p.numel()).float() / trials,
             sample_name: torch.bincount(first["sample"], minlength=p.numel()).float() / trials}
    in_top = torch.zeros_like(p, dtype=torch.bool)
    in_top[torch.topk(p, min(k, p.numel())).indices] = True
    exact = {topk_name: torch.where(in_top, q, 0.0) + float(q[~in_top].sum()) * p, sample_name: p}
    top = torch.topk(p + q, min(shown, p.numel())).indices.tolist()
    return Drift(tuple(top), tuple(lm.token_text(t) for t in top), tuple(p[top].tolist()), tuple(q[top].tolist()),
                 {name: tuple(f[top].tolist()) for name, f in freqs.items()},
                 {name: 0.5 * float((f - p).abs().sum()) for name, f in freqs.items()}, trials,
                 {name: tuple(e[top].tolist()) for name, e in exact.items()},
                 {name: 0.5 * float((e - p).abs().sum()) for name, e in exact.items()},
                 0.5 * float(torch.sqrt(2 * p * (1 - p) / (math.pi * trials)).sum()))


def _first_tokens(p: torch.Tensor, q: torch.Tensor, k: int, trials: int, gen: torch.Generator) -> dict:
    """The first emitted token of ``trials`` one-token speculative steps at once (y ~ q each), under the
    rules of speculative.verify_topk (accept y in top-k(p), else a sample from p) and verify_sample (accept
    with probability min(1, p(y)/q(y)), else a sample from norm(max(0, p - q))): one tensor op per rule."""
    y = torch.multinomial(q, trials, replacement=True, generator=gen)
    in_top = torch.zeros_like(p, dtype=torch.bool)
    in_top[torch.topk(p, min(k, p.numel())).indices] = True
    from_p = torch.multinomial(p, trials, replacement=True, generator=gen)
    accept = torch.rand(trials, generator=gen) < (p[y] / q[y]).clamp(max=1.0)
    residual = torch.clamp(p - q, min=0)
    residual = residual / residual.sum() if float(residual.sum()) > 0 else p
    from_residual = torch.multinomial(residual, trials, replacement=True, generator=gen)
    return {"topk": torch.where(in_top[y], y, from_p), "sample": torch.where(accept, y, from_residual)}
