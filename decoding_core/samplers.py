"""Draw a token from processed logits. Every draw takes an explicit ``torch.Generator``.

All samplers map logits [B, V] (masked entries = -inf) to token ids [B]. They agree in
distribution: softmax(logits). They differ in cost and in which random numbers they consume.

- ``multinomial``: probs = softmax(logits); torch.multinomial(probs, 1). The reference path.
- ``gumbel``: argmax(logits + G), G = -log(-log U), U ~ Uniform on the OPEN interval (0, 1),
  fresh noise for every sampling event (Gumbel 1954; Maddison et al. 2014).
- ``gumbel-block``: the same, with noise pre-drawn for a block of future steps; each row is used
  once. This is the legitimate form of "noise can be precomputed".
- ``exp-race``: argmax(exp(logits) / E), E ~ Exp(1): the first arrival of independent exponential
  clocks with rates p_i. Same distribution, and no normalisation is needed.
- ``ReusedNoiseGumbel``: the source notes' GumbelSampler, which draws its noise ONCE and reuses it.
  Kept only to demonstrate the bug: identical distributions then always give the same token.
"""
from __future__ import annotations

import torch

from .settings import SAMPLERS  # noqa: F401 - the sampler names are part of this module's API



def open_uniform(shape, generator: torch.Generator, device, dtype=torch.float32) -> torch.Tensor:
    """U ~ Uniform(0, 1) clamped away from 0 and 1 (U = 0 or 1 would give infinite Gumbel noise)."""
    u = torch.rand(shape, generator=generator, device=device, dtype=dtype)
    tiny = torch.finfo(dtype).tiny
    return u.clamp_(min=tiny, max=1.0 - torch.finfo(dtype).eps)


def gumbel_noise(shape, generator: torch.Generator, device, dtype=torch.float32) -> torch.Tensor:
    """G = -log(-log U): standard Gumbel noise."""
    return -torch.log(-torch.log(open_uniform(shape, generator, device, dtype)))


def sample_multinomial(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    probs = torch.softmax(logits.float(), dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


def sample_gumbel(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    g = gumbel_noise(logits.shape, generator, logits.device)
    return torch.argmax(logits.float() + g, dim=-1)


def sample_exp_race(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    logits = logits.float()
    rates = torch.exp(logits - logits.amax(dim=-1, keepdim=True))  # unnormalised p; -inf -> 0
    e = -torch.log(open_uniform(logits.shape, generator, logits.device))  # Exp(1)
    return torch.argmax(rates / e, dim=-1)


def gumbel_top_k(logits: torch.Tensor, k: int, generator: torch.Generator) -> torch.Tensor:
    """Kool et al. 2019: the top-k of logits + G is an ordered sample WITHOUT replacement."""
    g = gumbel_noise(logits.shape, generator, logits.device)
    return torch.topk(logits.float() + g, k, dim=-1).indices


class Sampler:
    """A named sampler. Stateless ones wrap a function; stateful ones override __call__."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        return _FUNCS[self.name](logits, generator)


class BlockGumbelSampler(Sampler):
    """Gumbel-max with noise pre-drawn ``block`` events at a time; each row is used exactly once."""

    def __init__(self, block: int = 64):
        super().__init__("gumbel-block")
        if block < 1:
            raise ValueError("block must be >= 1")
        self.block = block
        self._noise: torch.Tensor | None = None
        self._next = 0

    def __call__(self, logits, generator):
        b, v = logits.shape
        if self._noise is None or self._next + b > self._noise.shape[0] or self._noise.shape[1] != v:
            rows = max(self.block, b)
            self._noise = gumbel_noise((rows, v), generator, logits.device)
            self._next = 0
        g = self._noise[self._next : self._next + b]
        self._next += b  # never reuse a row: that is the whole difference from the notes' bug
        return torch.argmax(logits.float() + g, dim=-1)


class ReusedNoiseGumbel(Sampler):
    """THE PITFALL (source notes' GumbelSampler): noise drawn once in __init__ and added at every step.
    The token is then a deterministic function of the logits: the same distribution always gives the
    same token, so a histogram over steps collapses onto one bar."""

    def __init__(self, batch_size: int, vocab_size: int, generator: torch.Generator, device="cpu"):
        super().__init__("reused-noise gumbel (bug)")
        self.noise = gumbel_noise((batch_size, vocab_size), generator, device)

    def __call__(self, logits, generator=None):
        return torch.argmax(logits.float() + self.noise, dim=-1)


def _by_table(method: str):
    """A decoding sampler from the cost-of-sampling methods (sampling_cost.py): one draw per row."""
    def sample(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        from .sampling_cost import draw_new_distributions

        flat = logits.reshape(-1, logits.shape[-1])
        return draw_new_distributions(method, flat, generator).reshape(logits.shape[:-1])
    return sample


TABLE_SAMPLERS = ("binary-search", "alias", "linear-scan")   # inverse-CDF and alias-table samplers
_FUNCS = {"multinomial": sample_multinomial, "gumbel": sample_gumbel, "exp-race": sample_exp_race,
          **{m: _by_table(m) for m in TABLE_SAMPLERS}}


def make_sampler(name: str) -> Sampler:
    """A fresh sampler by name (stateful ones must not be shared between decoders)."""
    if name == "gumbel-block":
        return BlockGumbelSampler()
    if name in _FUNCS:
        return Sampler(name)
    raise ValueError(f"unknown sampler {name!r}: choose one of {', '.join(SAMPLERS)}")


def draw_many(name: str, logits: torch.Tensor, m: int, generator: torch.Generator, block: int = 256) -> torch.Tensor:
    """M independent draws from ONE distribution (logits [V]) with the named sampler. Returns ids [M].

    multinomial draws M times from one row (CDF built once: O(V + M log V)). Gumbel-max and the
    exponential race would cost O(M V) on the full vocabulary, so they draw in two exact stages using
    max-stability: the max of (l_i + G_i) over a set S is itself Gumbel with location logsumexp(l_S)
    (for the race: the first clock in S rings at rate sum(p_S)). Stage 1 picks a block of ``block``
    tokens with the same sampler on the blocks' logsumexp; stage 2 picks a token inside the chosen
    block. Same distribution, O(M (V / block + block)) numbers instead of O(M V)."""
    if m < 1:
        raise ValueError("the number of draws must be >= 1")
    logits = logits.float()
    if name in TABLE_SAMPLERS:  # build the CDF / alias table once, then M cheap draws (sampling_cost.py)
        from .sampling_cost import draw_one_distribution

        return draw_one_distribution(name, logits, m, generator)
    if name == "multinomial":
        probs = torch.softmax(logits, dim=-1)
        return torch.multinomial(probs, m, replacement=True, generator=generator)
    sampler = make_sampler(name)
    v = logits.numel()
    pad = (-v) % block
    blocks = torch.cat([logits, logits.new_full((pad,), float("-inf"))]).view(-1, block)
    chosen = _draw_rows(sampler, torch.logsumexp(blocks, dim=-1), m, generator)
    out = torch.empty(m, dtype=torch.long)
    for b in torch.unique(chosen).tolist():
        rows = chosen == b
        out[rows] = b * block + _draw_rows(sampler, blocks[b], int(rows.sum()), generator)
    return out


def _draw_rows(sampler: Sampler, logits: torch.Tensor, m: int, generator: torch.Generator,
               max_elems: int = 1 << 22) -> torch.Tensor:
    """m rows of the same logits [V] through a sampler, in chunks of at most max_elems numbers."""
    chunk = max(1, max_elems // logits.numel())
    return torch.cat([sampler(logits.unsqueeze(0).expand(min(chunk, m - s), -1), generator)
                      for s in range(0, m, chunk)])
