"""What drawing a token costs: the source notes' table of sampling methods, each exact.

Two regimes (docs/ALGORITHMS.md section 1):
- ``draw_one_distribution(method, logits [k], n, g)``: n draws from ONE distribution (Monte Carlo).
  A CDF or an alias table is built once and reused; Gumbel-max needs k fresh noises per draw.
- ``draw_new_distributions(method, logits [B, k], g)``: one draw from each of B NEW distributions (one
  decoding step for a batch). Nothing can be reused: the alias table is rebuilt for every row.

Methods and their cost for n draws over k categories:
    linear-scan     build the CDF, scan it for every draw               O(k + n k)
    binary-search   build the CDF once, binary-search it per draw       O(k + n log k)
    alias           Vose's alias table (two work lists, no sort)        O(k + n)
    multinomial     softmax + torch.multinomial (a CDF inside)          O(k + n log k)
    gumbel-max      argmax(l + G), G = -log(-log U) fresh per draw      O(n k)
    exp-race        argmax(exp(l - max l) / E), E ~ Exp(1) per draw     O(n k)
U is drawn on the open interval (0, 1) (samplers.open_uniform), so the noise is bounded: a token more
than ~20 nats below the best is never drawn by Gumbel-max or the race (probability < 1e-8).
"""
from __future__ import annotations

import numpy as np
import torch

from .samplers import gumbel_noise, open_uniform

METHODS = ("linear-scan", "binary-search", "alias", "multinomial", "gumbel-max", "exp-race")
COST = {  # the cost model drawn beside the measured points: (n, k) -> operations
    "linear-scan": lambda n, k: k + n * k,
    "binary-search": lambda n, k: k + n * np.log2(max(k, 2)),
    "alias": lambda n, k: k + n,
    "multinomial": lambda n, k: k + n * np.log2(max(k, 2)),
    "gumbel-max": lambda n, k: n * k,
    "exp-race": lambda n, k: n * k,
}
COMPLEXITY = {"linear-scan": "O(k + nk)", "binary-search": "O(k + n log k)", "alias": "O(k + n)",
              "multinomial": "O(k + n log k)", "gumbel-max": "O(nk)", "exp-race": "O(nk)"}
NOTES_COMPLEXITY = {"linear-scan": "O(nk)", "binary-search": "O(k + n log k)", "alias": "O(k log k + n)"}  # the notes'
# table (its direct method scans a CDF it does not count building; Vose builds the alias table in O(k), not by a sort)
CHUNK = 1 << 22  # numbers held at once by the O(nk) methods


def probabilities(logits: torch.Tensor) -> torch.Tensor:
    """softmax in float64 (the CDF methods sum k terms; float32 would drift at k = 49,152)."""
    return torch.softmax(logits.double(), dim=-1)


def build_alias(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vose's alias method: (prob [k], alias [k]) in O(k) with two work lists. Column i keeps i with
    probability prob[i], else gives alias[i]; every column has mass 1/k."""
    k = probs.size
    scaled = (probs * k).tolist()
    prob, alias = [1.0] * k, list(range(k))
    small = [i for i, p in enumerate(scaled) if p < 1.0]
    large = [i for i, p in enumerate(scaled) if p >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s], alias[s] = scaled[s], g
        scaled[g] = scaled[g] + scaled[s] - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    return np.asarray(prob), np.asarray(alias, dtype=np.int64)   # leftovers (rounding) keep prob 1


def draw_alias(prob: np.ndarray, alias: np.ndarray, n: int, g: torch.Generator) -> torch.Tensor:
    """n draws from an alias table: a uniform column, then a biased coin: O(1) each (on g's device)."""
    dev = g.device
    col = torch.randint(prob.size, (n,), generator=g, device=dev)
    coin = torch.rand(n, generator=g, dtype=torch.float64, device=dev)
    keep = coin < torch.from_numpy(prob).to(dev)[col]
    return torch.where(keep, col, torch.from_numpy(alias).to(dev)[col])


def _linear_scan(cdf: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """For each u, the first index whose CDF value exceeds u, by scanning: O(k) per draw."""
    chunk = max(1, CHUNK // cdf.shape[-1])
    out = [(cdf[None, :] <= u[i:i + chunk, None]).sum(-1) for i in range(0, u.numel(), chunk)]
    return torch.cat(out).clamp_max(cdf.numel() - 1)


def _argmax_noisy(logits: torch.Tensor, n: int, g: torch.Generator, race: bool) -> torch.Tensor:
    """n draws by perturbation, k fresh numbers per draw, in chunks: Gumbel-max or the exponential race."""
    k = logits.numel()
    chunk = max(1, CHUNK // k)
    base = torch.exp(logits - logits.max()) if race else logits
    out = []
    for i in range(0, n, chunk):
        m = min(chunk, n - i)
        if race:
            e = -torch.log(open_uniform((m, k), g, logits.device))   # E ~ Exp(1)
            out.append(torch.argmax(base[None] / e, dim=-1))
        else:
            out.append(torch.argmax(base[None] + gumbel_noise((m, k), g, logits.device), dim=-1))
    return torch.cat(out)


def draw_one_distribution(method: str, logits: torch.Tensor, n: int, g: torch.Generator) -> torch.Tensor:
    """n independent draws (ids [n]) from softmax(logits [k]) with ``method``; builds what it needs once."""
    logits = logits.float()
    if method == "linear-scan":
        cdf = torch.cumsum(probabilities(logits), 0)
        return _linear_scan(cdf, torch.rand(n, generator=g, dtype=torch.float64, device=cdf.device) * cdf[-1])
    if method == "binary-search":
        cdf = torch.cumsum(probabilities(logits), 0)
        u = torch.rand(n, generator=g, dtype=torch.float64, device=cdf.device) * cdf[-1]
        return torch.searchsorted(cdf, u, right=True).clamp_max(cdf.numel() - 1)
    if method == "alias":
        return draw_alias(*build_alias(probabilities(logits).cpu().numpy()), n, g)
    if method == "multinomial":
        return torch.multinomial(torch.softmax(logits, -1), n, replacement=True, generator=g)
    if method in ("gumbel-max", "exp-race"):
        return _argmax_noisy(logits, n, g, race=method == "exp-race")
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def draw_new_distributions(method: str, logits: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """One draw from each row of logits [B, k] (ids [B]): a decoding step, nothing reused between rows."""
    logits = logits.float()
    b, k = logits.shape
    if method in ("linear-scan", "binary-search"):
        cdf = torch.cumsum(probabilities(logits), -1)
        u = torch.rand(b, 1, generator=g, dtype=torch.float64, device=cdf.device) * cdf[:, -1:]
        if method == "binary-search":
            return torch.searchsorted(cdf, u, right=True)[:, 0].clamp_max(k - 1)
        return (cdf <= u).sum(-1).clamp_max(k - 1)
    if method == "alias":  # the table is rebuilt for every new distribution: O(k) per row, reused never
        return torch.cat([draw_alias(*build_alias(probabilities(row).cpu().numpy()), 1, g) for row in logits])
    if method == "multinomial":
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=g)[:, 0]
    if method == "gumbel-max":
        return torch.argmax(logits + gumbel_noise(logits.shape, g, logits.device), dim=-1)
    if method == "exp-race":
        e = -torch.log(open_uniform(logits.shape, g, logits.device))
        return torch.argmax(torch.exp(logits - logits.amax(-1, keepdim=True)) / e, dim=-1)
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
