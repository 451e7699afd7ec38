"""EAGLE decoding (Li et al. 2024, EAGLE-1 static trees and EAGLE-2 dynamic trees).

Notation: committed tokens x_0..x_{n-1}; the ROOT is x_{n-1}, the last token the target produced.
The target's KV cache holds x_0..x_{n-2}; its features f_0..f_{n-2} are known (f_j predicts x_{j+1}).
The head's input pair at position j is (f_j, x_{j+1}); the root's pair (f_{n-2}, x_{n-1}) gives
f_hat_root, whose lm_head distribution proposes the root's children. Deeper nodes feed their
parent's PREDICTED feature with their own token.

One step: (1) draft a tree with the head (static or dynamic), (2) verify the WHOLE tree in ONE target
forward with the tree attention mask and position ids = prefix_len + depth, (3) accept a path
(greedy: the node equals the target's argmax at its parent; sampling: walk down trying children
with probability p(x), renormalising after each rejection), (4) keep only the accepted nodes' KV
entries (copied to the end of the prefix) and their true features for the head's next step.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from transformers import DynamicCache

from .decoders import DraftVerifyDecoder, crop_to
from .eagle_head import EagleHead
from .messages import Msg
from .models import LoadedModel
from .processors import SamplingSettings, apply_processors, build_processors
from .settings import LOOKUP_MAX
from .speculative import lookup_branch
from .trees import (REFERENCE_STATIC_TREE, additive_mask, children_of, depths, keep_path, merge_path, position_ids,
                    static_tree_parents, tree_attention_mask, tree_verify_mask)


@dataclass
class DraftTree:
    """A drafted tree: node 0 is the root. ``scores`` are cumulative draft log-probs (root 0)."""

    tokens: list[int]
    parents: list[int]
    scores: list[float]
    ranks: list[int]          # rank among its parent's proposals (0 = the head's top choice; -1 = copied by lookup,
                              # -2 = drafted from the corpus datastore where lookup found nothing)


@dataclass(frozen=True)
class EagleStep:
    index: int
    kind: str                          # "prefill" (the target's first token) or "tree"
    tokens: tuple[int, ...]            # tree tokens, node 0 = root
    texts: tuple[str, ...]
    parents: tuple[int, ...]
    scores: tuple[float, ...]          # cumulative draft log-prob
    mask: torch.Tensor | None          # [T, T] bool tree attention mask
    accepted_path: tuple[int, ...]     # node indices from the root (root included)
    next_token: int                    # the target's own token after the path (correction / bonus)
    next_text: str
    emitted: tuple[int, ...]
    draft_s: float
    target_s: float
    elapsed_s: float
    lookup_nodes: tuple[int, ...] = ()  # nodes of the lookup branch (copied from the context), not drafted by the head
    corpus_nodes: tuple[int, ...] = ()  # those of them drafted from the corpus datastore (prompt lookup found nothing)

    @property
    def is_verify(self) -> bool:
        """A tree step is a verify pass; the prefill step is the target's own first token."""
        return self.kind == "tree"

    @property
    def n_drafted(self) -> int:
        return len(self.tokens) - 1 if self.is_verify else 0

    @property
    def n_accepted(self) -> int:
        return len(self.accepted_path) - 1


def accept_greedy(tree: DraftTree, target_next: list[int]) -> list[int]:
    """Longest root-to-leaf path whose every node equals the target's argmax at its parent.
    target_next[i] = argmax p at node i. Returns the accepted node indices (root first)."""
    children = children_of(tree.parents)
    path = [0]
    while True:
        node = path[-1]
        match = [c for c in children.get(node, []) if tree.tokens[c] == target_next[node]]
        if not match:
            return path
        path.append(match[0])  # siblings carry distinct tokens: at most one matches


def accept_sampling(tree: DraftTree, p: torch.Tensor, uniforms, generator: torch.Generator) -> tuple[list[int], int]:
    """Lossless tree acceptance (draft as a point mass). p [T, V] target probabilities per node;
    uniforms: an iterator of U(0,1) draws. At a node, children are tried in order of draft score:
    child x is accepted with probability p(x); on rejection p(x) = 0 and p is renormalised. When all
    children fail (or at a leaf), the next token is sampled from the remaining p.
    Returns (accepted path, next token)."""
    children = children_of(tree.parents)
    path = [0]
    while True:
        node = path[-1]
        dist = p[node].clone()
        accepted = None
        for c in sorted(children.get(node, []), key=lambda c: -tree.scores[c]):
            x = tree.tokens[c]
            if float(next(uniforms)) < float(dist[x]):
                accepted = c
                break
            dist[x] = 0.0
            total = float(dist.sum())
            if total <= 0:
                break
            dist = dist / total
        if accepted is None:
            return path, int(torch.multinomial(dist, 1, generator=generator))
        path.append(accepted)


class EagleDecoder(DraftVerifyDecoder):
    strategy = "eagle"

    def __init__(self, target: LoadedModel, head: EagleHead, tree: str = "dynamic", top_k: int = 8, depth: int = 5,
                 total_tokens: int = 48, settings: SamplingSettings | None = None, sample: bool = False,
                 max_new_tokens: int = 64, seed: int = 0, stop_at_eos: bool = True, static_paths=None,
                 backend: str = "eager", record_candidates: bool = False, lookup: int = 0, datastore=None):
        super().__init__(target, max_new_tokens, seed, stop_at_eos, backend)
        if not (isinstance(lookup, int) and 0 <= lookup <= LOOKUP_MAX):
            raise ValueError(f"the lookup branch must be an integer in [0, {LOOKUP_MAX}] tokens, got {lookup!r}")
        self.lookup = lookup
        self.datastore = datastore if lookup else None  # the lookup branch's fallback (datastore.Datastore)
        self.record_candidates = record_candidates
        self.prune = True  # skip expanding tree nodes that cannot have a kept child (_can_have_kept_child)
        if tree not in ("static", "dynamic"):
            raise ValueError(f"tree must be 'static' or 'dynamic', got {tree!r}")
        if head.config.hidden_size != target.model.config.hidden_size:
            raise ValueError(f"the EAGLE head's hidden size ({head.config.hidden_size}) does not match the target's "
                             f"({target.model.config.hidden_size})")
        d2t = getattr(head, "d2t", None)
        draft_vocab = int(d2t.numel()) if d2t is not None else target.vocab_size
        if not (isinstance(top_k, int) and 1 <= top_k <= min(64, draft_vocab)):
            raise ValueError(f"tree top-k must be an integer in [1, {min(64, draft_vocab)}], got {top_k!r}")
        if not (isinstance(depth, int) and 1 <= depth <= 12):
            raise ValueError(f"tree depth must be an integer in [1, 12], got {depth!r}")
        if not (isinstance(total_tokens, int) and 2 <= total_tokens <= 256):
            raise ValueError(f"total tokens must be an integer in [2, 256], got {total_tokens!r}")
        limit = getattr(target.model.config, "max_position_embeddings", None)
        if limit and depth + 2 >= limit:
            raise ValueError(f"a tree of depth {depth} does not fit the model's context of {limit} tokens")
        self.head = head
        self.d2t = d2t.tolist() if d2t is not None else None
        self.tree_kind, self.top_k, self.depth, self.total_tokens = tree, top_k, depth, total_tokens
        self.static_keys = static_tree_parents(static_paths or REFERENCE_STATIC_TREE)[1]
        self.sampling = sample
        self.settings = settings or SamplingSettings()
        self.processors = build_processors(self.settings, argmax=not sample)

    def metrics(self) -> dict:
        static = self.tree_kind == "static"  # its own shape: the dynamic tree's sizes are not read
        return {**super().metrics(), "sizes": {"head": self.head.kind, "tree": self.tree_kind,
                                               "total_tokens": len(self.static_keys) if static else self.total_tokens,
                                               "depth": max(map(len, self.static_keys)) if static else self.depth,
                                               "top_k": None if static else self.top_k, "lookup": self.lookup,
                                               "corpus": self.datastore is not None,
                                               "chosen_by": Msg.of("core.size.static") if static else self.chosen_by}}

    # -- state ----------------------------------------------------------------------------------
    def _reset(self):
        self.t_cache, self.h_cache = DynamicCache(), DynamicCache()
        self.features = None                   # [n-1, H] true target features f_0..f_{n-2}
        self.h_len = 0                         # head pairs already in the head cache
        self.candidates: list[tuple] = []      # (context length, tokens, parents, scores) per dynamic tree
        self._reset_counts()

    # -- target ---------------------------------------------------------------------------------
    def _target(self, ids, **kw):
        """One target forward: (float logits [T, V], its output for ``_features``)."""
        with torch.inference_mode():
            out = self.lm.model.model(input_ids=ids, cache=self.t_cache, use_cache=True,
                                      output_hidden_states=self.head.kind == "eagle3", **kw)
            logits = self.lm.model.lm_head(out.last_hidden_state)
        self.target_forwards += 1
        return logits[0].float(), out

    def _features(self, out, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The head's input features [rows, H] of a target forward (all rows when None): the last hidden state for
        an EAGLE-1 head, the fused low/middle/high hidden states for an EAGLE-3 head, fused for the kept rows
        only (a tree step keeps its accepted path; the fc is a 3H x H product per row)."""
        with torch.inference_mode():
            if self.head.kind != "eagle3":
                h = out.last_hidden_state[0]
                return h if rows is None else h[rows]
            n = len(out.hidden_states)
            layers = {i % n for i in self.head.feature_layers}  # a layer may be given from the end (-1)
            hs = [h if i not in layers or rows is None else h[:, rows] for i, h in enumerate(out.hidden_states)]
            return self.head.target_features(hs)[0]

    def _choose(self, logits: torch.Tensor, context: list[int]) -> int:
        ids = torch.tensor([context], device=logits.device)
        proc = apply_processors(self.processors, ids, logits.unsqueeze(0))
        if self.sampling:
            return int(torch.multinomial(torch.softmax(proc.float(), -1)[0], 1, generator=self.generator))
        return int(proc.argmax())

    # -- head -----------------------------------------------------------------------------------
    @torch.inference_mode()
    def _head(self, feats, tokens, positions, allowed) -> torch.Tensor:
        """Run the head on pairs (feats [m, H], tokens [m]) at ``positions`` [m]; ``allowed`` [m, K] bool
        over the head cache + these pairs. Appends them to the head cache; returns f_hat [m, H]."""
        dev = self.lm.device
        embeds = self.lm.model.get_input_embeddings()(torch.tensor([tokens], device=dev))
        mask = additive_mask(allowed.to(dev), embeds.dtype)[None, None]
        out = self.head(feats[None].to(embeds.dtype), embeds, torch.tensor([positions], device=dev), mask, self.h_cache)
        return out[0]

    def _draft_logp(self, f_hat: torch.Tensor) -> torch.Tensor:
        """Draft log-probs over the head's vocabulary [m, V_d] (the target's for EAGLE-1; map indices
        with ``_to_target``)."""
        with torch.inference_mode():
            logits = self.head.draft_logits(f_hat) if self.d2t is not None else self.lm.model.lm_head(f_hat)
            return torch.log_softmax(logits.float(), dim=-1)

    def _to_target(self, indices: list[int]) -> list[int]:
        """Draft-vocabulary indices -> target token ids (EAGLE-3's d2t; the identity for EAGLE-1)."""
        return indices if self.d2t is None else [self.d2t[i] for i in indices]

    def _draft_tree(self) -> DraftTree:
        """Feed the head the pending prefix pairs (true features), then grow the tree level by level."""
        n = len(self.context)
        root_pos = n - 2                                   # head position of the root's pair
        pending = list(range(self.h_len, n - 1))           # pairs j = h_len .. n-2 (the root's pair last)
        ctx = self.context
        m = len(pending)
        allowed = torch.ones(m, self.h_len + m, dtype=torch.bool)
        allowed[:, self.h_len:] = torch.ones(m, m, dtype=torch.bool).tril()
        f_hat = self._head(self.features[pending], [ctx[j + 1] for j in pending], pending, allowed)
        self.h_len = n - 1
        root_logp = self._draft_logp(f_hat[-1:])[0]
        tree = DraftTree([ctx[-1]], [-1], [0.0], [0])
        slots = {0: root_pos}                              # node -> head cache slot (root: its pair)
        frontier = [(0, root_logp)]                        # nodes whose children are known now
        level_feats = {0: f_hat[-1]}
        if self.tree_kind == "static":
            return self._grow_static(tree, frontier, level_feats, slots)
        return self._grow_dynamic(tree, frontier, level_feats, slots)

    def _expand_level(self, tree: DraftTree, nodes: list[int], feats: dict, slots: dict) -> dict:
        """Run the head on tree nodes (one level): each sees the prefix, its ancestors and itself.
        Returns {node: draft log-probs of its children}."""
        base = self.h_cache.get_seq_length()
        m = len(nodes)
        allowed = torch.zeros(m, base + m, dtype=torch.bool)
        allowed[:, : self.h_len] = True                    # all prefix pairs, the root's included
        for r, node in enumerate(nodes):
            anc = tree.parents[node]
            while anc > 0:
                allowed[r, slots[anc]] = True
                anc = tree.parents[anc]
            allowed[r, base + r] = True
        d = depths(tree.parents)
        f_in = torch.stack([feats[tree.parents[nd]] for nd in nodes])
        positions = [self.h_len - 1 + d[nd] for nd in nodes]
        out = self._head(f_in, [tree.tokens[nd] for nd in nodes], positions, allowed)
        for r, node in enumerate(nodes):
            slots[node] = base + r
            feats[node] = out[r]
        return dict(zip(nodes, self._draft_logp(out)))

    def _add(self, tree: DraftTree, parent: int, token: int, score: float, rank: int) -> int:
        tree.tokens.append(int(token))
        tree.parents.append(parent)
        tree.scores.append(float(score))
        tree.ranks.append(rank)
        return len(tree.tokens) - 1

    def _grow_static(self, tree, frontier, feats, slots) -> DraftTree:
        """The fixed tree of rank paths: a node with path (r1..rd) is the parent's rd-th choice."""
        node_of = {(): 0}
        logp = {0: frontier[0][1]}
        max_depth = max(len(k) for k in self.static_keys)
        for level in range(1, max_depth + 1):
            keys = [k for k in self.static_keys if len(k) == level]
            for key in keys:
                parent = node_of[key[:-1]]
                top = torch.topk(logp[parent], key[-1] + 1)
                node_of[key] = self._add(tree, parent, self._to_target([int(top.indices[-1])])[0],
                                         tree.scores[parent] + float(top.values[-1]), key[-1])
            expandable = sorted({node_of[k[:-1]] for k in self.static_keys if len(k) == level + 1})
            if expandable:
                logp.update(self._expand_level(tree, expandable, feats, slots))
        return tree

    def _grow_dynamic(self, tree, frontier, feats, slots) -> DraftTree:
        """EAGLE-2: expand the top_k best frontier nodes by cumulative score for ``depth`` levels, then
        keep the best total_tokens - 1 drafted nodes (a parent always outranks its child)."""
        k = self.top_k
        top = torch.topk(frontier[0][1], k)
        level = [self._add(tree, 0, t, s, r) for r, (t, s) in
                 enumerate(zip(self._to_target(top.indices.tolist()), top.values.tolist()))]
        for _ in range(self.depth - 1):
            if self.prune and not self.record_candidates:  # the replays need every candidate
                level = self._can_have_kept_child(tree, level)
                if not level:
                    break
            logps = self._expand_level(tree, level, feats, slots)
            t = torch.topk(torch.stack([logps[node] for node in level]), k, dim=-1)  # one top-k for the level
            cand_scores, cand = [], []
            for node, idx, vals in zip(level, t.indices.tolist(), t.values.tolist()):
                for r, (tok, lp) in enumerate(zip(self._to_target(idx), vals)):
                    cand.append((node, tok, r))
                    cand_scores.append(tree.scores[node] + lp)
            order = sorted(range(len(cand)), key=lambda i: -cand_scores[i])
            new_level = []
            for rank_i, i in enumerate(order):
                node, tok, r = cand[i]
                idx = self._add(tree, node, tok, cand_scores[i], r)
                if rank_i < k:
                    new_level.append(idx)
            level = new_level
        if self.record_candidates:  # every drafted node before the rerank (sizing.py replays smaller trees)
            self.candidates.append((len(self.context), list(tree.tokens), list(tree.parents), list(tree.scores)))
        return self._rerank(tree)

    def _add_lookup(self, tree: DraftTree) -> None:
        """Merge the lookup branch (``speculative.lookup_branch``: the tokens that followed the latest earlier
        occurrence of the context's last 2-3 tokens) into the tree as one more path from the root: where a node
        already holds the copied token the chain follows it, otherwise it adds a node (scored as its parent: the head
        gave it no probability, and rank -1 marks it). Siblings stay distinct, so greedy and sampling acceptance are
        unchanged. With a ``datastore``, where prompt lookup finds nothing the branch is the datastore's (rank -2):
        a deterministic function of the context like the copy, so both rules stay exact."""
        branch, rank = lookup_branch(self.context, self.lookup, self.special_ids), -1
        if not branch and self.datastore is not None:
            branch, rank = self.datastore.branch(self.context, self.lookup, self.special_ids), -2
        merge_path(tree.tokens, tree.parents, branch,
                   lambda parent, tok: self._add(tree, parent, tok, tree.scores[parent], rank))

    def _can_have_kept_child(self, tree: DraftTree, level: list[int]) -> list[int]:
        """The nodes of ``level`` that the rerank could still keep WITH a child (the others are not expanded:
        the tree that comes out is the same, for fewer head rows). The rerank keeps the best total_tokens - 1
        drafted nodes by (-score, index). A child scores at most its parent (log-probs <= 0) and comes later, so
        it ranks behind its parent and behind every node ahead of its parent, and nodes added later only push
        ranks down: a node with r nodes ahead of it now can have a kept child only if r + 2 <= total_tokens - 1.
        (Skipped nodes' would-be descendants all rank behind a node that is already out, so they could not push
        a kept node out either.)"""
        room = self.total_tokens - 2                       # places ahead of a kept child, its parent included
        ok = set(self._by_score(tree)[:room])
        return [node for node in level if node in ok]

    @staticmethod
    def _by_score(tree: DraftTree) -> list[int]:
        """The drafted nodes (root excluded), best cumulative score first, ties by index: the rerank's order."""
        return sorted(range(1, len(tree.tokens)), key=lambda i: (-tree.scores[i], i))

    def _rerank(self, tree: DraftTree) -> DraftTree:
        keep = self._by_score(tree)[: self.total_tokens - 1]
        d = depths(tree.parents)
        return self._subtree(tree, sorted(keep, key=lambda i: (d[i], i)))

    def _subtree(self, tree: DraftTree, keep: list[int]) -> DraftTree:
        """The tree of the root and the ``keep`` nodes (each one's parent kept before it), re-indexed."""
        new_index = {0: 0}
        out = DraftTree([tree.tokens[0]], [-1], [0.0], [0])
        for i in keep:
            assert tree.parents[i] in new_index  # a parent always outranks (and precedes) its child
            new_index[i] = len(out.tokens)
            self._add(out, new_index[tree.parents[i]], tree.tokens[i], tree.scores[i], tree.ranks[i])
        return out

    # -- steps ----------------------------------------------------------------------------------
    def _step(self, t0):
        if self.features is None:
            return self._prefill_step(t0)
        d0 = time.perf_counter()
        budget = self.max_new_tokens - len(self.tokens)
        if budget <= 1 and not self.record_candidates:     # one token left: the target's own, no tree to draft
            tree = DraftTree([self.context[-1]], [-1], [0.0], [0])  # (a recording run drafts it: replays align)
        else:
            tree = self._draft_tree()
            crop_to(self.h_cache, self.h_len)              # drop the tree's head entries
            if self.lookup:
                self._add_lookup(tree)                     # drafting time: the copying is part of the draft
        d1 = time.perf_counter()
        prefix = len(self.context) - 1
        tree = self._fit_budget(tree, budget)
        lookup_nodes = tuple(i for i, r in enumerate(tree.ranks) if r < 0) if self.lookup else ()
        corpus_nodes = tuple(i for i, r in enumerate(tree.ranks) if r == -2) if self.datastore is not None else ()
        ids = torch.tensor([tree.tokens], device=self.lm.device)
        pos = position_ids(tree.parents, prefix)[None].to(self.lm.device)
        mask = tree_verify_mask(tree.parents, prefix, self.lm.dtype, self.lm.device)
        logits, out = self._target(ids, position_ids=pos, attention_mask=mask)
        ctx = self.context
        node_ctx = self._node_contexts(tree, ctx) if self.processors else None
        if not self.processors and not self.sampling:  # plain greedy: one argmax over every node at once
            target_next = logits.argmax(-1).tolist()
            path = accept_greedy(tree, target_next)
            nxt = target_next[path[-1]]
        elif self.sampling:
            node_ctx = node_ctx or [ctx] * len(tree.tokens)
            probs = torch.stack([torch.softmax(apply_processors(self.processors, torch.tensor([c], device=logits.device),
                                                                logits[i:i + 1]).float(), -1)[0]
                                 for i, c in enumerate(node_ctx)])
            draws = iter(torch.rand(4 * len(tree.tokens) + 8, generator=self.generator, device=probs.device).tolist())
            path, nxt = accept_sampling(tree, probs, draws, self.generator)
        else:
            target_next = [self._choose(logits[i], c) for i, c in enumerate(node_ctx)]
            path = accept_greedy(tree, target_next)
            nxt = target_next[path[-1]]
        d2 = time.perf_counter()
        self._keep(prefix, path, out)
        emitted = self._commit([tree.tokens[i] for i in path[1:]], nxt, len(tree.tokens) - 1, d1 - d0, d2 - d1)
        return EagleStep(len(self.history), "tree", tuple(tree.tokens), tuple(self.lm.token_text(t) for t in tree.tokens),
                         tuple(tree.parents), tuple(tree.scores), tree_attention_mask(tree.parents), tuple(path), nxt,
                         self.lm.token_text(nxt), tuple(emitted), d1 - d0, d2 - d1, time.perf_counter() - t0,
                         lookup_nodes, corpus_nodes)

    def _fit_budget(self, tree: DraftTree, budget: int) -> DraftTree:
        """Drop nodes deeper than the token budget allows (a path of d nodes emits d + 1 tokens)."""
        d = depths(tree.parents)
        if max(d) + 1 <= budget:
            return tree
        return self._subtree(tree, [i for i in range(1, len(tree.tokens)) if d[i] + 1 <= budget])

    @staticmethod
    def _node_contexts(tree: DraftTree, ctx: list[int]) -> list[list[int]]:
        """The text each node's prediction conditions on (for the repetition penalty)."""
        out = []
        for i in range(len(tree.tokens)):
            path, j = [], i
            while j > 0:
                path.append(tree.tokens[j])
                j = tree.parents[j]
            out.append(ctx + path[::-1])
        return out

    def _keep(self, prefix: int, path: list[int], out) -> None:
        """Keep the root's and the accepted nodes' KV entries, contiguous after the prefix, and their
        true features (the head's inputs next step). ``out``: the verify forward's output."""
        keep_path(self.t_cache, prefix, path)
        sel = torch.tensor(path, device=self.lm.device)
        self.features = torch.cat([self.features, self._features(out, sel)])

    def _prefill_step(self, t0) -> EagleStep:
        """The target reads the prompt and produces the first token itself (the first tree's root)."""
        ids = torch.tensor([self.prompt_ids], device=self.lm.device)
        logits, out = self._target(ids)
        tok = self._choose(logits[-1], self.prompt_ids)
        self.features = self._features(out)
        self.tokens.append(tok)
        dt = time.perf_counter() - t0
        self.target_s += dt
        return EagleStep(len(self.history), "prefill", (tok,), (self.lm.token_text(tok),), (-1,), (0.0,), None, (0,),
                         tok, self.lm.token_text(tok), (tok,), 0.0, dt, dt)
