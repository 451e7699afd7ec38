"""Beam search, batched over beams with the KV cache reordered each step, with Freitag & Al-Onaizan
(2017) pruning and the hybrid "sample a prefix, then beam search".

Two EOS policies (docs/ALGORITHMS.md section 2):
- "in-beam" (the source notes): a hypothesis ending in EOS stays in the beam; its next-token
  log-probs are -inf everywhere except 0 at EOS, so it keeps its score and keeps competing. The
  candidate set C is the global top-k; stop when every kept hypothesis ends in EOS.
- "finished-set" (transformers): C is the global top 2k; a candidate ending in EOS (or reaching the
  length limit) ranked among the first k goes to a finished set with score / generated_len ** lp;
  the best non-finished candidates refill the k running beams. Same stop rules as transformers.

Pruning (each rule optional), on C with s* = max s(c) and l(c) the last token's log-prob:
  relative  rp in (0,1]:  prune c if s(c) <= log(rp) + s*        (P(c) <= rp P*)
  absolute  ap >= 0:      prune c if s(c) <= s* - ap
  local     rpl in (0,1]: prune c if l(c) <= log(rpl) + max_C l
  per node  mc >= 1:      at most mc survivors share a parent
The best candidate is never pruned. Pruned candidates are NOT replaced: the beam shrinks, so fewer
hypotheses are fed to the model next step. ``literal_rp`` applies the notes' rule
s(c) <= rp * s* to log-probs as written: the pitfall, which prunes the best hypothesis too.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import torch
from transformers import DynamicCache

from .decoders import AutoregressiveDecoder, DecodeResult, Decoder, TokenStep, forward
from .models import LoadedModel
from .settings import BeamSettings, SamplingSettings  # noqa: F401 - BeamSettings is part of this module's API

NEG = -1.0e9  # transformers' "very large negative" score


@dataclass(frozen=True)
class Candidate:
    """One extension considered at a step (a node of the search tree)."""

    node: int
    parent: int
    token_id: int
    token_text: str
    token_logp: float
    score: float              # cumulative log-prob of the hypothesis
    rank: int                 # by score among this step's candidates, 0 = best
    status: str               # kept | pruned | off-top-k | finished (EOS) | length-limit | carried (in-beam EOS)
    rules: tuple[str, ...] = ()
    key: float | None = None  # stochastic beam search: the perturbed, truncated Gumbel key it was ranked by


@dataclass(frozen=True)
class Hypothesis:
    node: int
    tokens: tuple[int, ...]   # new tokens (prefix included), prompt excluded
    score: float              # cumulative log-prob (finished-set: normalised by length ** lp)
    finished: bool


@dataclass(frozen=True)
class BeamStep:
    index: int
    kind: str                                  # "beam" or "sample" (hybrid prefix)
    candidates: tuple[Candidate, ...]
    frontier: tuple[Hypothesis, ...]           # running beams after this step, best first
    finished: tuple[Hypothesis, ...]           # finished set (finished-set policy), best first
    rows_expanded: int                         # hypotheses fed to the model at this step
    elapsed_s: float
    sample: TokenStep | None = None


def per_row_top_k(scores: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's top-k of scores [n, V], pooled and sorted (best first, ties by position), finite ones only:
    (values [m], flat indices [m], row = index // V, token = index % V)."""
    v = scores.shape[1]
    per_row = torch.topk(scores, min(k, v), dim=-1)
    flat_idx = (per_row.indices + torch.arange(scores.shape[0])[:, None] * v).reshape(-1)
    flat = per_row.values.reshape(-1)
    finite = torch.isfinite(flat)
    values, order = torch.sort(flat[finite], descending=True, stable=True)
    return values, flat_idx[finite][order]


def prune(scores: list[float], token_logps: list[float], parents: list[int], order: list[int],
          s: BeamSettings) -> dict[int, tuple[str, ...]]:
    """Pruning rules on a candidate set. Candidates are given as parallel lists; ``order`` lists the
    candidates eligible to survive, best first. Returns {index: rules that pruned it}. The best
    candidate (highest score overall) is never pruned, except by the literal (buggy) relative rule."""
    if not scores:
        return {}
    best = max(range(len(scores)), key=lambda i: scores[i])
    s_star, l_star = scores[best], max(token_logps)
    out: dict[int, list[str]] = {}
    for i in order:
        rules = []
        if s.rp is not None:
            if s.literal_rp and scores[i] <= s.rp * s_star:
                rules.append("rp (literal)")
            elif not s.literal_rp and i != best and scores[i] <= math.log(s.rp) + s_star:
                rules.append("rp")
        if s.ap is not None and i != best and scores[i] <= s_star - s.ap:
            rules.append("ap")
        if s.rpl is not None and i != best and token_logps[i] <= math.log(s.rpl) + l_star:
            rules.append("rpl")
        if rules:
            out[i] = rules
    if s.mc is not None:
        per_parent: dict[int, int] = {}
        for i in order:
            if i in out:
                continue
            per_parent[parents[i]] = per_parent.get(parents[i], 0) + 1
            if per_parent[parents[i]] > s.mc and i != best:
                out[i] = ["mc"]
    return {i: tuple(r) for i, r in out.items()}


def kv_cache_bytes(lm: LoadedModel, rows: int, length: int) -> int:
    cfg = lm.model.config
    kv_heads = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    itemsize = torch.finfo(lm.dtype).bits // 8
    return 2 * cfg.num_hidden_layers * kv_heads * head_dim * rows * length * itemsize


def memory_budget_bytes() -> int:
    """What one search may hold in KV cache: half of the memory available right now (other sessions and the
    models already hold theirs), at most half of the physical memory; a cache beyond it is refused up front."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 16 << 30
    try:
        with open("/proc/meminfo") as f:
            available = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        available = physical
    return min(physical, available) // 2


class BeamSearchDecoder(Decoder):
    """Beam search on the step-wise contract. One step = one model forward over all running beams."""

    strategy = "beam"
    width_within_vocab = True  # k <= V: a wider beam could not be filled from the first step
    temperature = 1.0          # divides the logits before the log-softmax (stochastic beam search sets it)

    def __init__(self, lm: LoadedModel, beam: BeamSettings, max_new_tokens: int = 32, seed: int = 0,
                 stop_at_eos: bool = True, sampling: SamplingSettings | None = None, sampler: str = "multinomial",
                 backend: str = "eager"):
        super().__init__(lm, max_new_tokens, seed, stop_at_eos, backend)
        if beam.num_beams > lm.vocab_size and self.width_within_vocab:
            raise ValueError(f"beam width {beam.num_beams} exceeds the vocabulary ({lm.vocab_size} tokens)")
        if beam.sample_prefix >= max_new_tokens:
            raise ValueError(f"the sampled prefix ({beam.sample_prefix}) must be shorter than max new tokens "
                             f"({max_new_tokens})")
        self.beam = beam
        self.sampling = sampling or SamplingSettings()
        self.sampler_name = sampler
        self.k = beam.num_beams
        n_eos = max(1, len(self.eos_ids))
        self.c_size = max(2, 1 + n_eos) * self.k if beam.eos_policy == "finished-set" else self.k * self.k

    def _reset(self):
        need = kv_cache_bytes(self.lm, self.c_size, len(self.prompt_ids) + self.max_new_tokens)
        if need > memory_budget_bytes():
            raise ValueError(f"beam width {self.k} for {self.max_new_tokens} new tokens needs about "
                             f"{need / 2**30:.1f} GiB of KV cache, more than this machine allows: lower either")
        self.prefix_decoder = None
        if self.beam.sample_prefix:
            self.prefix_decoder = AutoregressiveDecoder(self.lm, self.sampling, self.sampler_name,
                                                        self.beam.sample_prefix, self.seed, stop_at_eos=True)
            self.prefix_decoder.start(self.prompt_ids)
        self.prefix: list[int] = []
        self.cache: DynamicCache | None = None
        self.running: list[Hypothesis] = []          # alive hypotheses (in-beam: finished ones too)
        self.rows: list[int] = []                    # cache row of each running hypothesis (-1: none)
        self.finished: list[Hypothesis] = []
        self.next_node = 1
        self.improvable = True                       # transformers' is_early_stop_heuristic_unsatisfied
        self.stopped = False
        self.hypotheses_expanded = 0
        self.candidates_scored = 0
        self.pending_logits: torch.Tensor | None = None
        self.beam_steps = 0

    # -- contract -------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._started and self.stopped

    def metrics(self) -> dict:
        m = super().metrics()
        m.update(hypotheses_expanded=self.hypotheses_expanded, candidates_scored=self.candidates_scored,
                 beam_steps=sum(1 for h in self.history if h.kind == "beam"))
        return m

    def hypotheses(self) -> list[Hypothesis]:
        """The n-best list, best first."""
        if self.beam.eos_policy == "finished-set":
            return list(self.finished) if self.finished else sorted(self.running, key=lambda h: -h.score)
        return sorted(self.running, key=lambda h: -h.score)

    def result(self) -> DecodeResult:
        best = self.hypotheses()[0] if self.hypotheses() else Hypothesis(0, tuple(self.prefix), 0.0, False)
        self.tokens = list(best.tokens)
        return DecodeResult(list(self.prompt_ids), list(best.tokens), self.lm.decode(best.tokens), self.metrics())

    def extra_output(self) -> dict:
        return {"hypotheses": [{"tokens": list(h.tokens), "score": h.score, "finished": h.finished}
                               for h in self.hypotheses()]}

    # -- steps ------------------------------------------------------------------------------------
    def _step(self, t0):
        if self.prefix_decoder is not None and not self.prefix_decoder.done:
            rec = self.prefix_decoder.step()
            self.prefix.append(rec.token_id)
            self.target_forwards += 1
            self.hypotheses_expanded += 1
            if rec.finished or len(self.prefix) >= self.max_new_tokens:  # the sampled prefix ended the text
                self.running = [Hypothesis(0, tuple(self.prefix), 0.0, rec.finished)]
                self.stopped = True
            self.tokens = list(self.prefix)
            hyp = Hypothesis(0, tuple(self.prefix), 0.0, rec.finished)
            return BeamStep(len(self.history), "sample", (), (hyp,), (), 1, time.perf_counter() - t0, sample=rec)
        if self.cache is None:
            self._prefill()
        rec = self._beam_step(t0)
        return rec

    def _prefill(self):
        self.cache = DynamicCache()
        ids = torch.tensor([self.prompt_ids + self.prefix], device=self.lm.device)
        self.pending_logits = forward(self.lm.model, ids, self.cache, logits_to_keep=1)[:, -1]
        self.target_forwards += 1
        self.hypotheses_expanded += 1
        self.running = [Hypothesis(0, tuple(self.prefix), 0.0, False)]
        self.rows = [0]
        self.run_scores = torch.zeros(1, dtype=torch.float32)

    def _log_probs(self) -> torch.Tensor:
        """Next-token log-probs [n_running, V]; finished (in-beam) rows are 0 at EOS, -inf elsewhere."""
        v = self.lm.vocab_size
        live = torch.log_softmax(self.pending_logits.float() / self.temperature, dim=-1).cpu()
        out = torch.full((len(self.running), v), float("-inf"))
        eos = min(self.eos_ids) if self.eos_ids else 0
        for i, row in enumerate(self.rows):
            if row >= 0:
                out[i] = live[row]
            else:
                out[i, eos] = 0.0
        return out

    def _beam_step(self, t0) -> BeamStep:
        s, k = self.beam, self.k
        parent_nodes = [h.node for h in self.running]
        logp = self._log_probs()
        acc = logp + self.run_scores[:, None]
        v = logp.shape[1]
        if s.eos_policy == "finished-set":  # transformers: the global top 2k of all continuations
            flat = acc.reshape(-1)
            top_scores, top_idx = torch.topk(flat, min(self.c_size, int(torch.isfinite(flat).sum())))
        else:  # the notes: each hypothesis proposes its top-k; the heap keeps the global top-k of those
            top_scores, top_idx = per_row_top_k(acc, k)
        m = top_idx.numel()
        parents = (top_idx // v).tolist()
        tokens = (top_idx % v).tolist()
        scores = top_scores.tolist()
        token_logps = [float(logp[p, t]) for p, t in zip(parents, tokens)]
        self.beam_steps += 1
        gen_len = self.beam_steps  # tokens generated by the beam phase, this step's included
        at_limit = len(self.prefix) + gen_len >= self.max_new_tokens
        ends = [t in self.eos_ids for t in tokens]
        nodes = list(range(self.next_node, self.next_node + m))
        self.next_node += m
        self.candidates_scored += m

        if s.eos_policy == "in-beam":
            eligible = list(range(min(k, m)))             # the global top-k
        else:  # transformers: running = best k non-finishing of C; finished = finishing ranked < k
            hits = [e or at_limit for e in ends]
            non_hit = [i for i in range(m) if not hits[i]][:k]
            eligible = sorted(set(non_hit) | {i for i in range(min(k, m)) if hits[i]})
        pruned = prune(scores, token_logps, parents, eligible, s) if s.pruning else {}
        survivors = [i for i in eligible if i not in pruned]

        status = {}
        new_running, new_rows_src = [], []
        new_finished = []
        for i in range(m):
            if i in pruned:
                status[i] = "pruned"
            elif i not in survivors:
                status[i] = "off-top-k"
        if s.eos_policy == "in-beam":
            for i in survivors:
                parent = self.running[parents[i]]
                if parent.finished:  # EOS at log-prob 0: carried unchanged, same node, same score
                    status[i] = "carried"
                    new_running.append(parent)
                    new_rows_src.append(-1)
                    continue
                hyp = Hypothesis(nodes[i], parent.tokens + (tokens[i],), scores[i], ends[i])
                status[i] = "finished" if ends[i] else "kept"
                new_running.append(hyp)
                new_rows_src.append(-1 if ends[i] else self.rows[parents[i]])
            self.run_scores = torch.tensor([h.score for h in new_running], dtype=torch.float32)
            self.stopped = not new_running or all(h.finished for h in new_running) or at_limit
        else:
            lp_div = torch.tensor(float(gen_len), dtype=torch.float32) ** s.length_penalty
            may_add = self.improvable and not (len(self.finished) == k and s.early_stopping is True)
            for i in survivors:
                parent = self.running[parents[i]]
                toks = parent.tokens + (tokens[i],)
                if hits[i]:
                    status[i] = "finished" if ends[i] else "length-limit"  # stopped by max new tokens, no EOS
                    if may_add:
                        norm = float(top_scores[i] / lp_div)
                        new_finished.append(Hypothesis(nodes[i], toks, norm, True))
                else:
                    status[i] = "kept"
                    new_running.append(Hypothesis(nodes[i], toks, scores[i], False))
                    new_rows_src.append(self.rows[parents[i]])
            merged = sorted(self.finished + new_finished, key=lambda h: -h.score)[:k]
            self.finished = merged
            keep_idx = [i for i in survivors if not hits[i]]
            self.run_scores = top_scores[keep_idx].clone() if keep_idx else torch.zeros(0)
            # transformers' early-stop heuristic, evaluated with the new length
            if new_running:
                if s.early_stopping == "never" and s.length_penalty > 0.0:
                    best_len = self.max_new_tokens - len(self.prefix)
                else:
                    best_len = gen_len
                best_possible = float(self.run_scores[0] / (torch.tensor(float(best_len)) ** s.length_penalty))
                if len(self.finished) == k:
                    self.improvable = self.improvable and best_possible > min(h.score for h in self.finished)
            all_done = len(self.finished) == k and s.early_stopping is True
            self.stopped = not new_running or at_limit or not self.improvable or all_done

        rows_fed = sum(1 for r in self.rows if r >= 0)
        self.running = new_running
        if not self.stopped:
            self._advance(new_rows_src)
        self.tokens = list(self.hypotheses()[0].tokens) if self.hypotheses() else list(self.prefix)
        cands = tuple(
            Candidate(nodes[i], parent_nodes[parents[i]], tokens[i], self.lm.token_text(tokens[i]),
                      token_logps[i], scores[i], i, status[i], pruned.get(i, ()))
            for i in range(m))
        return BeamStep(len(self.history), "beam", cands, tuple(sorted(self.running, key=lambda h: -h.score)),
                        tuple(self.finished), rows_fed, time.perf_counter() - t0)

    def _advance(self, rows_src: list[int]):
        """Reorder the KV cache to the new running beams and run the model on their last tokens."""
        live = [i for i, r in enumerate(rows_src) if r >= 0]
        self.rows = [-1] * len(rows_src)
        if not live:
            self.pending_logits = None
            return
        self.cache.reorder_cache(torch.tensor([rows_src[i] for i in live], device=self.lm.device))
        for new_row, i in enumerate(live):
            self.rows[i] = new_row
        last = torch.tensor([[self.running[i].tokens[-1]] for i in live], device=self.lm.device)
        self.pending_logits = forward(self.lm.model, last, self.cache, logits_to_keep=1)[:, -1]
        self.target_forwards += 1
        self.hypotheses_expanded += len(live)
