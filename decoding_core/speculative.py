"""Speculative decoding (Leviathan et al. 2023; Chen et al. 2023) on the step-wise contract.

One step: the draft proposes y_1..y_N autoregressively (keeping q_i for each); the target runs ONE
forward over [pending tokens, y_1..y_N] and yields p_1..p_{N+1}; a verification rule accepts n
drafts; one more token comes from the target (the correction at the first rejection, else the bonus
from p_{N+1}); both KV caches are cut back to the accepted prefix. Every step emits n + 1 tokens.

Verification rules are pure functions that take their random draws as arguments:
- ``verify_topk``   accept y_i while y_i in TopK(p_i) (the source notes; lossless only for K = 1
                    with a greedy target)
- ``verify_greedy`` accept while y_i == argmax p_i (output = target greedy decoding)
- ``verify_sample`` accept y_i with probability min(1, p_i(y_i) / q_i(y_i)); on the first rejection
                    sample from norm(max(0, p_i - q_i)); all pass: bonus from p_{N+1}. Lossless.
Prompt-lookup drafts have no q: q is a point mass at y_i (accept with probability p(y); on
rejection zero p(y) and renormalise).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from transformers import DynamicCache

from .decoders import DraftVerifyDecoder, crop_to, forward
from .lean import LeanCache
from .models import LoadedModel
from .processors import SamplingSettings, apply_processors, build_processors
from .settings import COPY_MAX, LOOKUP_MAX, RULES
from .trees import children_of, depths, keep_path, merge_path, position_ids, tree_verify_mask

TOP_N = 12


@dataclass(frozen=True)
class Verification:
    """What a rule decided. Lists are per drafted token (length N)."""

    n_accepted: int
    next_token: int
    next_source: str                 # "correction" or "bonus"
    p_draft: tuple[float, ...]       # p_i(y_i)
    q_draft: tuple[float, ...]       # q_i(y_i) (1.0 for a point-mass draft)
    accept_prob: tuple[float, ...]   # min(1, p/q) for "sample"; 1/0 for the deterministic rules
    uniforms: tuple[float, ...]      # the draws r_i compared with accept_prob ("sample" only)
    residual: torch.Tensor | None = None  # norm(max(0, p - q)) at the rejection, [V]


def _finish(draft, p, q_draft, accept, n, next_token, source, uniforms=(), residual=None) -> Verification:
    return Verification(n, int(next_token), source, tuple(float(p[i, t]) for i, t in enumerate(draft)),
                        tuple(q_draft), tuple(accept), tuple(uniforms), residual)


def verify_greedy(draft: list[int], p: torch.Tensor) -> Verification:
    """draft [N] token ids; p [N+1, V] target probabilities (processed). Accept while y_i == argmax p_i."""
    best = p.argmax(dim=-1).tolist()
    n = 0
    while n < len(draft) and draft[n] == best[n]:
        n += 1
    accept = [1.0 if i < n else 0.0 for i in range(len(draft))]
    return _finish(draft, p, [1.0] * len(draft), accept, n, best[n], "bonus" if n == len(draft) else "correction")


def verify_topk(draft: list[int], p: torch.Tensor, k: int, generator: torch.Generator | None = None) -> Verification:
    """Accept y_i while y_i is among the k most likely tokens of p_i. The next token is the target's own
    choice at the stopping position: argmax p (generator None) or a sample from p (generator given)."""
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"top-K verification needs K >= 1, got {k!r}")
    top = torch.topk(p, min(k, p.shape[-1]), dim=-1).indices
    n = 0
    while n < len(draft) and bool((top[n] == draft[n]).any()):
        n += 1
    if generator is None:
        nxt = int(p[n].argmax())
    else:
        nxt = int(torch.multinomial(p[n], 1, generator=generator))
    accept = [1.0 if i < n else 0.0 for i in range(len(draft))]
    return _finish(draft, p, [1.0] * len(draft), accept, n, nxt, "bonus" if n == len(draft) else "correction")


def verify_sample(draft: list[int], p: torch.Tensor, q: torch.Tensor | None, uniforms: torch.Tensor,
                  generator: torch.Generator) -> Verification:
    """Lossless speculative sampling. p [N+1, V], q [N, V] draft probabilities (None = point mass at y_i),
    uniforms [N] the r_i ~ U(0, 1); generator draws the correction / bonus token."""
    q_draft = [float(q[i, y]) if q is not None else 1.0 for i, y in enumerate(draft)]
    accept = [min(1.0, float(p[i, y]) / q_y) if q_y > 0 else 1.0 for i, (y, q_y) in enumerate(zip(draft, q_draft))]
    for i, y in enumerate(draft):
        if float(uniforms[i]) >= accept[i]:  # rejected (accepted with probability min(1, p/q): r_i < p/q)
            if q is not None:
                residual = torch.clamp(p[i] - q[i], min=0)
            else:
                residual = p[i].clone()
                residual[y] = 0
            total = float(residual.sum())
            residual = residual / total if total > 0 else p[i]
            nxt = int(torch.multinomial(residual, 1, generator=generator))
            return _finish(draft, p, q_draft, accept, i, nxt, "correction", uniforms[: i + 1].tolist(), residual)
    nxt = int(torch.multinomial(p[len(draft)], 1, generator=generator))
    return _finish(draft, p, q_draft, accept, len(draft), nxt, "bonus", uniforms[: len(draft)].tolist())


LOOKUP_MAX_NGRAM = 3  # the longest match prompt lookup tries first


def prompt_lookup(context: list[int], n: int, max_ngram: int = LOOKUP_MAX_NGRAM, never: frozenset[int] = frozenset(),
                  min_ngram: int = 1) -> list[int]:
    """Draft by copying: find the most recent earlier occurrence of the context's last n-gram
    (longest first, ``max_ngram`` down to ``min_ngram`` tokens) and propose the n tokens that followed it, cut before
    the first token in ``never`` (special tokens such as chat markers: copying them from the template is no guess)."""
    for size in range(min(max_ngram, len(context) - 1), min_ngram - 1, -1):
        tail = context[-size:]
        for start in range(len(context) - size - 1, -1, -1):
            if context[start : start + size] == tail:
                follow = context[start + size : start + size + n]
                follow = follow[: next((i for i, t in enumerate(follow) if t in never), len(follow))]
                if follow:
                    return follow
    return []


COPY_MIN_NGRAM = 2  # the shortest match the copy mix copies after (one token is too weak: docs/eval-s33.log)
LOOKUP_MIN_NGRAM = 2  # ... and a lookup branch beside a draft (docs/eval-s36.log: a shorter pass for the same speed-up)


def lookup_branch(context: list[int], n: int, never: frozenset[int] = frozenset()) -> list[int]:
    """The lookup branch verified beside a draft (the speculative tree's, EAGLE's): up to n tokens that followed the
    latest earlier occurrence of the context's last 3 or 2 tokens (``prompt_lookup`` from ``LOOKUP_MIN_NGRAM``). After
    a single matching token the copy is right too seldom to pay for the longer verify pass it costs on a CPU; the
    prompt-lookup draft alone (no draft model) still copies after one token, as transformers' does."""
    return prompt_lookup(context, n, never=never, min_ngram=LOOKUP_MIN_NGRAM)


def copy_candidate(context: list[int], min_ngram: int | None = None, max_ngram: int = LOOKUP_MAX_NGRAM,
                   never: frozenset[int] = frozenset()) -> int | None:
    """The token that followed the most recent earlier occurrence of the context's last n-gram (longest first,
    ``max_ngram`` down to ``min_ngram`` tokens, default ``COPY_MIN_NGRAM``), or None (no such occurrence, or it is a
    token in ``never``): what a copying draft would propose next."""
    chain = prompt_lookup(context, 1, max_ngram, never, COPY_MIN_NGRAM if min_ngram is None else min_ngram)
    return chain[0] if chain else None


def new_draft_cache(draft: LoadedModel, capacity: int):
    """The draft's KV cache: a preallocated LeanCache for a draft with a lean forward, else a DynamicCache."""
    return draft.lean.new_cache(capacity) if draft.lean is not None else DynamicCache()


@torch.inference_mode()
def draft_next_logits(draft: LoadedModel, ids: torch.Tensor, cache, vocab_size: int) -> torch.Tensor:
    """The draft's next-token logits [V] over the TARGET's vocabulary (``vocab_size``) after feeding ids
    [1, L] into ``cache``. A reduced-vocabulary draft computes logits for its V_d tokens only; every other
    token gets -inf, so q is exactly zero outside V_d (lossless rejection sampling stays exact: the
    residual max(0, p - q) keeps those tokens)."""
    if draft.lean is not None and isinstance(cache, LeanCache):
        hidden = draft.lean.hidden(ids, cache)[-1]
        if draft.draft_vocab is None:
            return draft.model.lm_head(hidden).float()
    elif draft.draft_vocab is None:
        return forward(draft.model, ids, cache, 1)[0, -1]
    else:
        hidden = draft.model.model(input_ids=ids, cache=cache, use_cache=True).last_hidden_state[0, -1]
    full = torch.full((vocab_size,), float("-inf"), device=hidden.device)
    full[draft.draft_vocab] = draft.draft_head(hidden).float()
    return full


@dataclass(frozen=True)
class DraftToken:
    token_id: int
    text: str
    p: float
    q: float | None      # None: a token copied from the context (no draft probability)
    accept_prob: float
    uniform: float | None
    status: str          # accepted | rejected | discarded
    copied: bool = False  # the copy (prompt lookup inside the mix, ``copy`` > 0) chose this token, not the draft
    source: str = "draft"  # draft (the chain) | runner-up (the draft's second guess, a leaf) | lookup (copied branch)
    depth: int = 0         # 1-based position in the step's text (a branch token sits beside the chain's token there)


@dataclass(frozen=True)
class SpecStep:
    index: int
    drafts: tuple[DraftToken, ...]
    n_accepted: int
    next_token: int
    next_text: str
    next_source: str                      # correction | bonus (all drafts accepted) | own (nothing drafted)
    emitted: tuple[int, ...]              # tokens this step added (accepted drafts + next)
    residual_top: tuple | None            # (ids, texts, p, q, residual) at the rejection, top slice
    draft_s: float
    target_s: float
    elapsed_s: float
    is_verify = True                      # every step is one verify pass (metrics_so_far)
    branch: tuple[DraftToken, ...] = ()   # tokens verified beside the chain (runner-up leaves, the lookup branch)

    @property
    def n_drafted(self) -> int:
        return len(self.drafts) + len(self.branch)

    @property
    def accepted_branch(self) -> tuple[DraftToken, ...]:
        """The branch tokens on the accepted path that were emitted (they follow the chain's accepted drafts in
        ``emitted``; an EOS among the accepted tokens ends what is emitted)."""
        on_path = [d for d in self.branch if d.status == "accepted"]
        kept = min(len(self.emitted), self.n_accepted) - sum(d.status == "accepted" for d in self.drafts)
        return tuple(on_path[: max(0, kept)])


class SpeculativeDecoder(DraftVerifyDecoder):
    """Draft N tokens, verify them in one target forward, keep the accepted prefix plus one token."""

    strategy = "speculative"
    backends = ("eager", "static", "compiled")  # for the target's verify pass; the draft runs eager

    def __init__(self, target: LoadedModel, draft: LoadedModel | None, n_draft: int = 4, rule: str = "greedy",
                 verify_k: int = 1, settings: SamplingSettings | None = None, max_new_tokens: int = 64,
                 seed: int = 0, stop_at_eos: bool = True, target_sample: bool = False, backend: str = "eager",
                 stop_below: float = 0.0, copy: float = 0.0, lookup: int = 0, runner_up: bool = False):
        if isinstance(lookup, bool) or not isinstance(lookup, int) or not 0 <= lookup <= LOOKUP_MAX:
            raise ValueError(f"the lookup branch must be an integer in [0, {LOOKUP_MAX}] tokens, got {lookup!r}")
        if not isinstance(runner_up, bool):
            raise ValueError(f"runner-up leaves must be true or false, got {runner_up!r}")
        tree = draft is not None and bool(lookup or runner_up)  # a tree verify pass: the eager forward (as EAGLE)
        super().__init__(target, max_new_tokens, seed, stop_at_eos, "eager" if tree else backend)
        if not isinstance(stop_below, (int, float)) or not 0.0 <= stop_below < 1.0:
            raise ValueError(f"the confidence stop must be in [0, 1), got {stop_below!r}")
        if isinstance(copy, bool) or not isinstance(copy, (int, float)) or not 0.0 <= copy <= COPY_MAX:
            raise ValueError(f"the copy weight must be in [0, {COPY_MAX}], got {copy!r}")
        if rule not in RULES:
            raise ValueError(f"verification rule must be one of {', '.join(RULES)}, got {rule!r}")
        if not isinstance(n_draft, int) or n_draft < 1:
            raise ValueError(f"draft length N must be an integer >= 1, got {n_draft!r}")
        limit = getattr(target.model.config, "max_position_embeddings", None)
        if limit and n_draft >= limit:
            raise ValueError(f"draft length N = {n_draft} does not fit the model's context of {limit} tokens")
        if rule == "topk" and (not isinstance(verify_k, int) or not 1 <= verify_k <= target.vocab_size):
            raise ValueError(f"top-K verification needs 1 <= K <= {target.vocab_size}, got {verify_k!r}")
        if draft is not None and draft.device != target.device:
            raise ValueError("the draft and the target must be on the same device")
        self.draft = draft
        self.n_draft, self.rule, self.verify_k = n_draft, rule, verify_k
        self.stop_below = float(stop_below)  # stop drafting after a token the draft gave q(y) < this (0 = always N)
        # the draft's q mixed with a copy of the context: q' = (1 - copy) q + copy * [the copied token] (0 = the draft)
        self.copy = float(copy) if draft is not None else 0.0
        self.copied: list[bool] = []  # per token of the last proposal: chosen by the copy
        # a tree around the chain, verified in the same forward (a drafting model only: prompt lookup IS the copy)
        self.lookup = lookup if draft is not None else 0   # a branch of up to this many tokens copied from the context
        self.runner_up = runner_up and draft is not None  # a second guess at every position, as a leaf
        self.settings = settings or SamplingSettings()
        self.sampling = rule == "sample" or (rule == "topk" and target_sample)
        self.processors = build_processors(self.settings, argmax=not self.sampling)

    def metrics(self) -> dict:
        sizes = {"n_draft": self.n_draft, "chosen_by": self.chosen_by}
        if self.stop_below:
            sizes["stop_below"] = self.stop_below
        if self.copy:
            sizes["copy"] = self.copy
        if self.lookup:
            sizes["lookup"] = self.lookup
        if self.runner_up:
            sizes["runner_up"] = True
        return {**super().metrics(), "sizes": sizes}

    def _reset(self):
        cap = len(self.prompt_ids) + self.max_new_tokens + 2 * self.n_draft + self.lookup + 1
        self.t_cache = self.target.new_cache(cap)
        self.d_cache = new_draft_cache(self.draft, cap) if self.draft is not None else None
        self.t_len = self.d_len = 0     # tokens of prompt + output already in each cache
        self._reset_counts()

    def _probs(self, logits: torch.Tensor, contexts: list[list[int]]) -> torch.Tensor:
        """Processed probabilities, one row per position, each with its own context (repetition
        penalty sees the drafts before it)."""
        if not self.processors:  # nothing to apply: one softmax over every row, no context tensors
            return torch.softmax(logits.float(), dim=-1)
        rows = []
        for row, ctx in zip(logits, contexts):
            ids = torch.tensor([ctx], device=row.device)
            rows.append(torch.softmax(apply_processors(self.processors, ids, row.unsqueeze(0)).float(), dim=-1)[0])
        return torch.stack(rows)

    def _propose(self, n: int) -> tuple[list[int], torch.Tensor | None]:
        """The draft's tokens (at most n) and q [len, V] (None for prompt lookup). With ``stop_below`` > 0 the
        draft stops after a token it gave probability q(y) < stop_below (a variable draft length, as
        transformers' assisted generation does by default): the choice to go on reads only the draft's own q
        and draws, so every verification rule stays what it was (greedy equal to plain greedy, sampling
        lossless).

        With ``copy`` > 0 each token is drawn from the mixture q' = (1 - copy) q + copy * [c], c the token that
        followed the latest earlier occurrence of the context's last 2-3 tokens (``copy_candidate``; no c: q' = q).
        Greedy proposes argmax q'; sampling draws the part first (the copy with probability ``copy``, else the
        draft), which draws from q' exactly; every rule then reads q', so greedy stays equal to plain greedy and
        rejection sampling stays lossless."""
        self.copied = []
        if n == 0:
            return [], None
        if self.draft is None:
            return prompt_lookup(self.context, n, never=self.special_ids), None
        ys, qs = [], []
        ctx = self.context
        feed = ctx[self.d_len:]
        for _ in range(n):
            logits = draft_next_logits(self.draft, torch.tensor([feed], device=self.lm.device), self.d_cache,
                                       self.lm.vocab_size)
            self.d_len += len(feed)
            q = self._probs(logits.unsqueeze(0), [ctx + ys])[0]
            c = copy_candidate(ctx + ys, never=self.special_ids) if self.copy else None
            if c is None:
                y = int(torch.multinomial(q, 1, generator=self.generator)) if self.sampling else int(q.argmax())
                self.copied.append(False)
            else:
                y, took = self._mixed(q, c)
                self.copied.append(took)
            ys.append(y)
            qs.append(q)
            feed = [y]
            if self.stop_below and float(q[y]) < self.stop_below:
                break
        return ys, torch.stack(qs)

    def _mixed(self, q: torch.Tensor, c: int) -> tuple[int, bool]:
        """One token from q' = (1 - copy) q + copy * [c]; q becomes q' in place. Returns (token, chosen by the
        copy)."""
        w = self.copy
        if self.sampling:
            took = float(torch.rand((), generator=self.generator, device=q.device)) < w
            y = c if took else int(torch.multinomial(q, 1, generator=self.generator))
        else:
            y = int(q.argmax())
            took = c != y and w + (1 - w) * float(q[c]) > (1 - w) * float(q[y])
            y = c if took else y
        q.mul_(1 - w)
        q[c] += w
        return y, took

    def _step(self, t0):
        if self.lookup or self.runner_up:
            return self._tree_step(t0)
        budget = self.max_new_tokens - len(self.tokens)
        n = min(self.n_draft, budget - 1)
        d0 = time.perf_counter()
        ys, q = self._propose(n)
        d1 = time.perf_counter()
        ctx = self.context
        feed = ctx[self.t_len:] + ys
        logits = self.target(torch.tensor([feed], device=self.lm.device), self.t_cache,
                             logits_to_keep=len(ys) + 1, prefill=self.t_len == 0)[0]
        self.target_forwards += 1
        p = self._probs(logits, [ctx + ys[:i] for i in range(len(ys) + 1)])
        if self.rule == "greedy":
            v = verify_greedy(ys, p)
        elif self.rule == "topk":
            v = verify_topk(ys, p, self.verify_k, self.generator if self.sampling else None)
        else:
            u = torch.rand(len(ys), generator=self.generator, device=p.device)
            v = verify_sample(ys, p, q, u, self.generator)
        d2 = time.perf_counter()
        # keep the accepted prefix in both caches; the next token is fed at the next step
        old = len(ctx)
        crop_to(self.t_cache, old + v.n_accepted)
        self.t_len = old + v.n_accepted
        if self.draft is not None and self.d_len > old + v.n_accepted:
            crop_to(self.d_cache, old + v.n_accepted)
            self.d_len = old + v.n_accepted
        emitted = self._commit(ys[: v.n_accepted], v.next_token, len(ys), d1 - d0, d2 - d1)
        return self._record(ys, q, p, v, emitted, d1 - d0, d2 - d1, t0)

    def _record(self, ys, q, p, v: Verification, emitted, draft_s, target_s, t0) -> SpecStep:
        drafts = []
        for i, y in enumerate(ys):
            status = "accepted" if i < v.n_accepted else "rejected" if i == v.n_accepted else "discarded"
            qy = float(q[i, y]) if q is not None else v.q_draft[i]  # the draft's own confidence, whatever the rule
            drafts.append(DraftToken(y, self.lm.token_text(y), v.p_draft[i], qy, v.accept_prob[i],
                                     v.uniforms[i] if i < len(v.uniforms) else None, status,
                                     i < len(self.copied) and self.copied[i]))
        residual_top = None
        if v.next_source == "correction" and v.n_accepted < len(ys):
            i = v.n_accepted
            res = v.residual if v.residual is not None else p[i]
            qi = q[i] if q is not None else torch.zeros_like(p[i]).index_fill_(0, torch.tensor([ys[i]]), 1.0)
            residual_top = self._top_slice(p[i], qi, res)
        source = v.next_source if ys else "own"  # nothing drafted: the target's own token, not a "bonus"
        return SpecStep(len(self.history), tuple(drafts), v.n_accepted, v.next_token, self.lm.token_text(v.next_token),
                        source, tuple(emitted), residual_top, draft_s, target_s, time.perf_counter() - t0)


    def _top_slice(self, p: torch.Tensor, q: torch.Tensor, res: torch.Tensor) -> tuple:
        """(ids, texts, p, q, residual) of the TOP_N tokens that matter most at a rejection."""
        ids = torch.topk(p + q + res, min(TOP_N, p.shape[-1])).indices.tolist()
        return (tuple(ids), tuple(self.lm.token_text(t) for t in ids), tuple(p[ids].tolist()), tuple(q[ids].tolist()),
                tuple(res[ids].tolist()))

    # -- a tree around the chain: runner-up leaves and a lookup branch -------------------------------------
    def _tree(self, ctx: list[int], ys: list[int], q: torch.Tensor | None, budget: int):
        """The step's tree: node 0 the last token (not yet in the target's cache), the chain ys, with
        ``runner_up`` a second draft beside every chain token (a leaf), with ``lookup`` the tokens that followed the
        latest earlier occurrence of the context's last 2-3 tokens, merged where a node already holds the copied
        token. Siblings carry distinct tokens. The runner-up is the draft's second choice, except under rejection
        sampling, where it is drawn from q without the chain's token (q' = q with y removed, renormalised: a draw
        without replacement, which rejection sampling then verifies against q', ``runner_up_q``). Returns (tokens,
        parents, kinds, the row of ``qs`` each node was drawn from (None: a point mass), qs: q with the runner-ups'
        q' rows after it)."""
        tokens, parents, kinds, rows = [ctx[-1]], [-1], ["root"], [None]
        for i, y in enumerate(ys):
            tokens.append(y), parents.append(i), kinds.append("draft"), rows.append(i)
        qs = q
        if self.runner_up and q is not None and self.rule == "sample":
            q_alt = runner_up_q(q[: len(ys)], ys)
            drawn = [int(torch.multinomial(r, 1, generator=self.generator)) if r.sum() > 0 else None for r in q_alt]
            qs = torch.cat([q, q_alt])
            for i, alt in enumerate(drawn):
                if alt is not None:  # a reduced-vocabulary draft leaves nothing to draw where q is one token
                    tokens.append(alt), parents.append(i), kinds.append("runner-up"), rows.append(len(q) + i)
        elif self.runner_up and q is not None:
            second = torch.topk(q, 2, dim=-1)
            for i, y in enumerate(ys):
                vals, ids = second.values[i].tolist(), second.indices[i].tolist()
                alt, q_alt = (ids[1], vals[1]) if ids[0] == y else (ids[0], vals[0])
                if q_alt > 0:  # a reduced-vocabulary draft gives no second choice where q is one token
                    tokens.append(alt), parents.append(i), kinds.append("runner-up"), rows.append(None)
        if self.lookup:
            def add(parent: int, tok: int) -> int:
                tokens.append(tok), parents.append(parent), kinds.append("lookup"), rows.append(None)
                return len(tokens) - 1

            merge_path(tokens, parents, lookup_branch(ctx, min(self.lookup, budget - 1), self.special_ids), add)
        return tokens, parents, kinds, rows, qs

    def _tree_step(self, t0):
        budget = self.max_new_tokens - len(self.tokens)
        n = min(self.n_draft, budget - 1)
        d0 = time.perf_counter()
        ys, q = self._propose(n)
        ctx = self.context
        tokens, parents, kinds, rows, qs = self._tree(ctx, ys, q, budget)
        d1 = time.perf_counter()
        prefix = len(ctx) - 1                 # the last token is the root; what the cache lacks before it is fed first
        pending = ctx[self.t_len:-1]
        dev = self.lm.device
        positions = torch.cat([torch.arange(self.t_len, prefix), position_ids(parents, prefix)])
        with torch.inference_mode():  # the model's own forward (its logit scaling, any architecture), a tree mask
            logits = self.lm.model(input_ids=torch.tensor([pending + tokens], device=dev), cache=self.t_cache,
                                   use_cache=True, position_ids=positions[None].to(dev), logits_to_keep=len(tokens),
                                   attention_mask=tree_verify_mask(parents, self.t_len, self.lm.dtype, dev,
                                                                   len(pending))).logits[0].float()
        self.target_forwards += 1
        p = self._probs(logits, self._node_contexts(ctx, tokens, parents))
        path, nxt, trials, res = verify_tree(tokens, parents, p, qs, rows, self.rule, self.verify_k,
                                             self.generator, self.sampling)
        d2 = time.perf_counter()
        keep_path(self.t_cache, prefix, path)
        self.t_len = prefix + len(path)
        on_chain = next((k for k, node in enumerate(path[1:]) if kinds[node] != "draft"), len(path) - 1)
        if self.d_len > len(ctx) + on_chain:  # the draft read its chain: keep what the accepted path shares with it
            crop_to(self.d_cache, len(ctx) + on_chain)
            self.d_len = len(ctx) + on_chain
        emitted = self._commit([tokens[i] for i in path[1:]], nxt, len(tokens) - 1, d1 - d0, d2 - d1)
        return self._record_tree(tokens, parents, kinds, qs, rows, p, path, nxt, trials, res, emitted, d1 - d0,
                                 d2 - d1, t0)

    @staticmethod
    def _node_contexts(ctx: list[int], tokens: list[int], parents: list[int]) -> list[list[int]]:
        """The text each node's prediction conditions on (the repetition penalty reads it)."""
        out = [ctx]
        for i in range(1, len(tokens)):
            out.append(out[parents[i]] + [tokens[i]])
        return out

    def _record_tree(self, tokens, parents, kinds, qs, rows, p, path, nxt, trials, res, emitted, draft_s, target_s,
                     t0) -> SpecStep:
        """The step's record. ``qs``/``rows`` as ``_tree`` returns them (q's rows first). A node's q is the row it was
        drawn from (``qs[rows[i]]``: a chain draft's q, a sampled runner-up's q'), else q at its depth (a greedy
        runner-up), none for copied tokens."""
        on_path, depth = set(path), depths(parents)
        drafts, branch = [], []
        for i in range(1, len(tokens)):
            status = "accepted" if i in on_path else "rejected" if i in trials else "discarded"  # trials: compared
            a, u = trials.get(i, (1.0 if i in on_path else 0.0, None))
            chain = kinds[i] == "draft"
            if rows[i] is not None:
                qy = float(qs[rows[i], tokens[i]])
            else:
                qy = float(qs[depth[i] - 1, tokens[i]]) if qs is not None and kinds[i] != "lookup" else None
            tok = DraftToken(tokens[i], self.lm.token_text(tokens[i]), float(p[parents[i], tokens[i]]), qy, a, u,
                             status, chain and self.copied[i - 1], kinds[i], depth[i])
            (drafts if chain else branch).append(tok)
        last = path[-1]
        stopped = [c for c in range(1, len(tokens)) if parents[c] == last]
        residual_top = None
        if stopped:
            chain_child = next((c for c in stopped if kinds[c] == "draft"), None)
            qi = qs[depth[chain_child] - 1] if chain_child is not None else torch.zeros_like(p[last])
            residual_top = self._top_slice(p[last], qi, res if res is not None else p[last])
        source = "own" if len(tokens) == 1 else "correction" if stopped else "bonus"  # own: nothing was drafted
        return SpecStep(len(self.history), tuple(drafts), len(path) - 1, nxt, self.lm.token_text(nxt),
                        source, tuple(emitted), residual_top, draft_s, target_s,
                        time.perf_counter() - t0, tuple(branch))


RUNNER_UP_MIN_MASS = 1e-6  # less left beside the chain's token: no runner-up (skipping one is always lossless)


def runner_up_q(q: torch.Tensor, ys: list[int]) -> torch.Tensor:
    """q [n, V] with each row's drawn token ys[i] removed and the rest renormalised (in float64, so every row sums to 1
    exactly as the verification reads it); all zeros where less than ``RUNNER_UP_MIN_MASS`` is left (a near-empty
    row could not be renormalised faithfully): what a runner-up drawn without replacement beside the chain's token
    comes from."""
    rest = q.double().clone()
    rest[torch.arange(len(ys)), torch.tensor(ys, dtype=torch.long)] = 0
    total = rest.sum(-1, keepdim=True)
    ok = total > RUNNER_UP_MIN_MASS
    return torch.where(ok, rest / torch.where(ok, total, torch.ones_like(total)), torch.zeros_like(rest)).to(q.dtype)


def verify_tree(tokens: list[int], parents: list[int], p: torch.Tensor, q: torch.Tensor | None, rows: list,
                rule: str, k: int = 1, generator: torch.Generator | None = None, sample_target: bool = False):
    """Verify a drafted tree in one pass. p [T, V] the target's (processed) probabilities at every node; children
    are tried in index order (the chain's child first). A child with a q row (``rows[c]``: drawn from that row of q: the
    chain's draft, or under sampling a runner-up drawn from q without the chain's token) is verified against it; a
    child without one is a point mass. Rules:
    - greedy: follow the child that equals argmax p; the next token is argmax p at the last node;
    - topk: follow the first child among the k most likely tokens of p; the next token is argmax p (or a sample
      from p with ``sample_target``);
    - sample (lossless; recursive rejection sampling as in SpecInfer): a child x drawn from a row q_c is accepted
      with probability min(1, p(x) / q_c(x)), else p becomes norm(max(0, p - q_c)); a point-mass child is accepted
      with probability p(x), else p(x) = 0 and p is renormalised; no child accepted: the next token is drawn from what
      remains. Each step of this keeps the output distributed as p.
    Returns (accepted path of node indices from the root, next token, {node: (acceptance probability, u)} of every
    child compared with the target (u None for greedy and top-K, whose probability is 1 or 0), the distribution the
    next token was drawn from (sample; None otherwise))."""
    children = children_of(parents)
    path, trials = [0], {}
    while True:
        node = path[-1]
        kids = children.get(node, [])
        if rule in ("greedy", "topk"):
            ok = ({int(p[node].argmax())} if rule == "greedy"
                  else set(torch.topk(p[node], min(k, p.shape[-1])).indices.tolist()))
            hit = None
            for c in kids:  # in order, up to the first that passes (the ones after it are never compared)
                trials[c] = (1.0 if tokens[c] in ok else 0.0, None)
                if tokens[c] in ok:
                    hit = c
                    break
            if hit is None and rule == "greedy":
                return path, next(iter(ok)), trials, None
            if hit is None:
                nxt = int(torch.multinomial(p[node], 1, generator=generator)) if sample_target else int(p[node].argmax())
                return path, nxt, trials, None
        else:
            dist, hit = p[node], None
            for c in kids:
                x = tokens[c]
                u = float(torch.rand((), generator=generator, device=p.device))
                if rows[c] is not None:
                    q_x = float(q[rows[c], x])
                    a = min(1.0, float(dist[x]) / q_x) if q_x > 0 else 1.0
                    rest = torch.clamp(dist - q[rows[c]], min=0)
                else:
                    a = float(dist[x])
                    rest = dist.clone()
                    rest[x] = 0
                trials[c] = (a, u)
                if u < a:
                    hit = c
                    break
                total = float(rest.sum())
                dist = rest / total if total > 0 else dist
            if hit is None:
                return path, int(torch.multinomial(dist, 1, generator=generator)), trials, dist
        path.append(hit)


def expected_tokens_per_step(alpha: float, n: int) -> float:
    """(1 - alpha^(N+1)) / (1 - alpha): tokens per target forward with i.i.d. acceptance alpha."""
    return n + 1.0 if alpha >= 1 else (1 - alpha ** (n + 1)) / (1 - alpha)


def expected_speedup(alpha: float, n: int, c: float) -> float:
    """(1 - alpha^(N+1)) / ((1 - alpha)(N c + 1)), c = draft cost / target cost per token."""
    return expected_tokens_per_step(alpha, n) / (n * c + 1)
