"""Device-aware draft sizes: measure what a verify pass and a draft step cost HERE, pick N and the tree.

A speculative step of chain length N costs N draft steps plus one target forward over N + 1 tokens;
an EAGLE step costs ``depth`` head levels plus one target forward over the tree's T tokens. What a
forward over T tokens costs relative to one token depends on the device (on a 2-core CPU it grows
with T; on a GPU it is nearly flat up to dozens of tokens), so the best N and T differ by device.

- ``forward_costs`` measures the target forward over T new tokens after a KV prefix (fastest of a
  few rounds, interleaved), ``draft_step_cost`` / ``head_level_cost`` one draft step / head level.
- The mean accepted length each size WOULD reach is measured once per asset on held-out prompts by
  replaying the drafts of one large-size run (``accepted_lengths_for_sizes``: with greedy
  verification the accepted path of a smaller tree or chain is read off the bigger one against the
  target's greedy continuation, which is the same whatever the size). The asset's manifest stores
  that table (``tau_by_size``).
- ``choose_chain`` / ``choose_tree`` combine the two: expected tokens per second = tau(size) /
  (draft cost + verify cost), maximised over the sizes in the table. A tree's head levels are costed by
  the rows each one runs (``tree_draft_cost``).
Measured costs are kept per (model, device, dtype, threads) for the life of the process, and across processes in
``cost_store()`` (JSON beside the model cache, keyed by processor, torch, threads, model, dtype, device and weight
layout): each measurement is merged with the earlier ones there, point by point, keeping the fastest. Noise on a shared
machine only adds time, so the merged curve converges to the quiet machine's, and the chosen sizes stop moving between
visits (two sizes whose expected rates are within the noise used to swap from one process to the next).
"""
from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from pathlib import Path

import torch
from transformers import DynamicCache

from .draft import draft_manifest
from .fastpath import crop_to
from .heads import head_manifest
from .layout import _machine_key, _read_store, _write_store, layout_of, module_weights
from .messages import Msg
from .models import LoadedModel, cache_root
from .trees import additive_mask
from .settings import REFERENCE_N, REFERENCE_TREE
from .trees import depths as tree_depths

LENGTHS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64)
_costs: dict[tuple, dict[int, float]] = {}
_lock = threading.Lock()
_store_lock = threading.Lock()


def _key(lm: LoadedModel, what: str) -> tuple:
    return (what, lm.name, str(lm.device), str(lm.dtype), torch.get_num_threads())


def cost_store() -> Path:
    """Where measured costs are remembered across processes (``remember_fastest``)."""
    return cache_root() / "sizing-costs.json"


STORE_VERSION = 1  # raised when what a step runs changes enough to make the stored costs stale


def _store_key(lm: LoadedModel, what: str) -> str:
    """What a cost depends on: processor, torch, threads, the model's class, size and dtype (``layout._machine_key``),
    the device (a GPU by its name), the layout of its weights (each has its own cost curve; the blocked ones by their
    kernel build) and this module's ``STORE_VERSION``."""
    from . import kernels

    lin = next((m for m in lm.model.modules() if isinstance(m, torch.nn.Linear)), None)
    layout = "" if lin is None else layout_of(lin)
    if layout.startswith("blocked") or layout == "int8":
        layout += f" {kernels._library_path().stem}"
    device = str(lm.device)
    if lm.device.type == "cuda":
        device += f" {torch.cuda.get_device_name(lm.device)}"
    return f"{what} | {_machine_key(lm.model)} | {device} | {layout} | v{STORE_VERSION}"


def known_forward_costs(lm: LoadedModel, prefix: int = 128) -> dict[int, float] | None:
    """The fastest forward over T tokens measured for this model, device and layout here so far (this process or an
    earlier one, ``forward_costs``), {T: seconds}; None where nothing (or no one-token figure) was. Measures nothing:
    a check on a timing just made (was the machine busy?) reads it."""
    costs = _stored_points(_read_store(cost_store()).get(_store_key(lm, f"forward after {prefix}")))
    return costs if 1 in costs else None


def _stored_points(entry) -> dict[int, float]:
    """A store entry's valid points, {T: seconds} (a damaged entry or point is skipped: it is measured again)."""
    points = {}
    for t, v in (entry.items() if isinstance(entry, dict) else ()):
        try:
            t, v = int(t), float(v)
        except (TypeError, ValueError):
            continue
        if t > 0 and v > 0:
            points[t] = v
    return points


def remember_fastest(key: str, measured: dict[int, float], store: Path | None = None) -> dict[int, float]:
    """``measured`` merged with what earlier processes measured under ``key`` in ``store`` (default ``cost_store()``),
    point by point, keeping the fastest; the merge is written back. An unreadable or unwritable store: the measurement
    alone (and it is measured again next time)."""
    store = cost_store() if store is None else store
    with _store_lock, _file_lock(store):  # threads of the app, and other processes (the bench, a script, tests)
        known = _read_store(store)
        old = _stored_points(known.get(key))
        merged = {t: min(v, old.get(t, v)) for t, v in measured.items()}
        # points measured before and not now (another call's lengths) stay
        known[key] = {str(t): v for t, v in {**old, **merged}.items()}
        _write_store(store, known)
    return merged


@contextlib.contextmanager
def _file_lock(store: Path):
    """An exclusive lock on a file beside ``store`` while it is read, merged and written (POSIX ``flock``); where
    there is none (another OS, a read-only folder) no lock: a lost merge only costs a measurement next time."""
    handle = None
    try:
        import fcntl

        store.parent.mkdir(parents=True, exist_ok=True)
        handle = open(store.with_suffix(".lock"), "a")
        fcntl.flock(handle, fcntl.LOCK_EX)
    except (ImportError, OSError):
        if handle is not None:
            handle.close()
        handle = None
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # closing releases the lock


@torch.inference_mode()
def forward_costs(lm: LoadedModel, lengths=LENGTHS, prefix: int = 128, rounds: int = 4) -> dict[int, float]:
    """Seconds for one target forward over T new tokens after a ``prefix``-token KV cache, with logits
    for all T (a verify pass), for each T in ``lengths``: the fastest of ``rounds`` interleaved rounds (noise
    on a shared machine only adds time, and a median of three once made 2 tokens look dearer than 4), and of what
    earlier processes measured here (``remember_fastest``)."""
    key = _key(lm, f"forward-{prefix}-{tuple(lengths)}")
    with _lock:
        if key in _costs:
            return dict(_costs[key])
    dev = lm.device
    ids = _token_ids(lm, prefix + max(lengths))
    cache = DynamicCache()
    lm.model(input_ids=ids[:, :prefix], cache=cache, use_cache=True)
    times: dict[int, list[float]] = {t: [] for t in lengths}
    lm.model(input_ids=ids[:, prefix : prefix + 4], cache=cache, use_cache=True)  # warm-up
    crop_to(cache, prefix)
    for _ in range(rounds):
        for t in lengths:
            _sync(dev)
            t0 = time.perf_counter()
            lm.model(input_ids=ids[:, prefix : prefix + t], cache=cache, use_cache=True, logits_to_keep=t)
            _sync(dev)
            times[t].append(time.perf_counter() - t0)
            crop_to(cache, prefix)
    out = remember_fastest(_store_key(lm, f"forward after {prefix}"), {t: min(v) for t, v in times.items()})
    with _lock:
        _costs[key] = out
    return dict(out)


@torch.inference_mode()
def forward_now(lm: LoadedModel, prefix: int = 128, rounds: int = 3) -> float:
    """Seconds for one one-token target forward after a ``prefix``-token cache, timed NOW: the median of ``rounds``
    after one warm-up. A probe of how busy the machine is at this moment, to set beside ``known_forward_costs``'s
    fastest (a study that times something else, the sampling methods, calls it before, between and after). Stores
    nothing: a probe judged against a figure it had written itself would find a machine busy throughout quiet."""
    dev = lm.device
    ids = _token_ids(lm, prefix + 1)
    cache = DynamicCache()
    lm.model(input_ids=ids[:, :prefix], cache=cache, use_cache=True)
    times = sorted(_round_times(lambda: lm.model(input_ids=ids[:, prefix:], cache=cache, use_cache=True,
                                                 logits_to_keep=1), cache, prefix, rounds, dev))
    return times[len(times) // 2]


def _token_ids(lm: LoadedModel, n: int) -> torch.Tensor:
    """n seeded token ids to time a forward on: ordinary ones (past the first 100, where special tokens live)."""
    lo, hi = min(100, lm.vocab_size // 2), min(lm.vocab_size, 20000)
    return torch.randint(lo, hi, (1, n), generator=torch.Generator().manual_seed(0)).to(lm.device)


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize()


def draft_weights_of(draft) -> str:
    """The weights a draft step runs on ("int8", "float32", ...): its reduced-vocabulary head's where it has one, else
    its model's (what the stored draft-step costs are keyed by and the Speculative page names)."""
    head = getattr(draft, "draft_head", None)
    return module_weights(head if head is not None else getattr(draft, "model", None))


@torch.inference_mode()
def draft_step_cost(lm: LoadedModel, draft: LoadedModel, prefix: int = 128, rounds: int = 5) -> float:
    """Seconds for one draft-model step (one token after a ``prefix``-token cache, its distribution q
    included), through the draft's reduced vocabulary when it has one."""
    from .speculative import draft_next_logits, new_draft_cache

    vocab = None if draft.draft_vocab is None else draft.draft_vocab.numel()
    weights = draft_weights_of(draft)
    key = _key(draft, f"draft-step-{prefix}-{vocab}-{'lean' if draft.lean is not None else 'hf'}-{weights}")
    with _lock:
        if key in _costs:
            return _costs[key][1]
    ids = _token_ids(lm, prefix + 1)
    cache = new_draft_cache(draft, prefix + 8)
    draft_next_logits(draft, ids[:, :prefix], cache, lm.vocab_size)
    def step():
        logits = draft_next_logits(draft, ids[:, prefix:], cache, lm.vocab_size)
        torch.softmax(logits.float(), -1).argmax()

    return _timed(key, step, cache, prefix, rounds, _store_key(draft, f"draft step after {prefix}, vocabulary {vocab}, "
                                                                  f"{'lean' if draft.lean is not None else 'hf'}, "
                                                                  f"{weights} weights"),
                  lm.device)


@torch.inference_mode()
def head_level_cost(lm: LoadedModel, head, nodes: int, prefix: int = 128, rounds: int = 5) -> float:
    """Seconds for one EAGLE head level: the head over ``nodes`` tree nodes after a ``prefix``-pair cache,
    plus its draft log-probs (what one level of tree growth costs, Python overhead included)."""
    d2t = getattr(head, "d2t", None)
    weights = module_weights(head)
    key = _key(lm, f"head-{getattr(head, 'kind', 'eagle1')}-{None if d2t is None else d2t.numel()}-{nodes}-{prefix}-"
                   f"{weights}")
    with _lock:
        if key in _costs:
            return _costs[key][1]
    dev, h = lm.device, lm.model.config.hidden_size
    emb = lm.model.get_input_embeddings()
    tok = _token_ids(lm, prefix + nodes)
    feats = torch.zeros(1, prefix + nodes, h, device=dev, dtype=lm.dtype)
    cache = DynamicCache()
    head(feats[:, :prefix], emb(tok[:, :prefix]), torch.arange(prefix, device=dev)[None], None, cache)
    mask = additive_mask(torch.ones(nodes, prefix + nodes, dtype=torch.bool, device=dev), lm.dtype)[None, None]
    pos = torch.full((1, nodes), prefix, device=dev)
    def level():
        out = head(feats[:, prefix:], emb(tok[:, prefix:]), pos, mask, cache)[0]
        logits = head.draft_logits(out) if d2t is not None else lm.model.lm_head(out)
        torch.topk(torch.log_softmax(logits.float(), -1), min(8, logits.shape[-1]), dim=-1)

    size = sum(p.numel() for p in head.parameters())
    what = (f"head level {getattr(head, 'kind', 'eagle1')} {size:,}, vocabulary {None if d2t is None else d2t.numel()}, "
            f"{weights} weights")
    return _timed(key, level, cache, prefix, rounds, _store_key(lm, f"{what}, {nodes} nodes after {prefix}"), dev)


def _timed(key: tuple, fn, cache, prefix: int, rounds: int, store_key: str, dev: torch.device) -> float:
    """The fastest of ``rounds`` calls of fn after one warm-up (as ``forward_costs``; on a GPU synchronised, so the
    kernels are timed and not only their launch), the cache cut back to ``prefix`` after each, merged with earlier
    processes' under ``store_key`` (``remember_fastest``); remembered under ``key``."""
    out = remember_fastest(store_key, {1: min(_round_times(fn, cache, prefix, rounds, dev))})[1]
    with _lock:
        _costs[key] = {1: out}
    return out


def _round_times(fn, cache, prefix: int, rounds: int, dev: torch.device) -> list[float]:
    """Seconds of ``rounds`` calls of fn after one untimed warm-up call (on a GPU synchronised, so the kernels are
    timed and not only their launch), the cache cut back to ``prefix`` after each."""
    times = []
    for _ in range(rounds + 1):
        _sync(dev)
        t0 = time.perf_counter()
        fn()
        _sync(dev)
        times.append(time.perf_counter() - t0)
        crop_to(cache, prefix)
    return times[1:]


def interpolate(costs: dict[int, float], t: int) -> float:
    """The cost of a forward over t tokens from the measured points (linear in between, flat outside)."""
    xs = sorted(costs)
    if t <= xs[0]:
        return costs[xs[0]]
    for a, b in zip(xs, xs[1:]):
        if t <= b:
            return costs[a] + (costs[b] - costs[a]) * (t - a) / (b - a)
    return costs[xs[-1]] * t / xs[-1]


def pass_cost(verify: dict[int, float], tokens) -> float:
    """Seconds of one verify pass: ``tokens`` is its size (a number, possibly a mean) or the measured distribution of
    its sizes, [[T, share], ...] (then the mean of the cost over it: where the pass size varies, as with a lookup
    branch that copies something at one step and nothing at the next, the cost of the mean size is not the mean
    cost, since the cost curve is not a line)."""
    if isinstance(tokens, (int, float)):
        return interpolate(verify, tokens)
    return sum(share * interpolate(verify, t) for t, share in tokens) / sum(share for _, share in tokens)


def size_shares(sizes: list[int]) -> list[list[float]]:
    """The distribution of verify-pass sizes, [[T, share], ...] by T (shares rounded to 4 places: a manifest row)."""
    counts = Counter(sizes)
    return [[t, round(c / len(sizes), 4)] for t, c in sorted(counts.items())]


# -- counterfactual accepted lengths -----------------------------------------------------------------

def accepted_on_path(tokens: list[int], parents: list[int], keep: set[int], continuation: list[int]) -> int:
    """Greedy acceptance in the subtree ``keep`` (node indices; root 0 implied): the length of the path from
    the root whose tokens are the target's greedy continuation (siblings are distinct, so it is unique)."""
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parents):
        if i and i in keep:
            children.setdefault(p, []).append(i)
    node, n = 0, 0
    while n < len(continuation):
        nxt = next((c for c in children.get(node, []) if tokens[c] == continuation[n]), None)
        if nxt is None:
            break
        node, n = nxt, n + 1
    return n


def tree_subset(scores: list[float], depths: list[int], total_tokens: int, depth: int) -> set[int]:
    """The nodes EAGLE-2's rerank keeps for (total_tokens, depth): the best total_tokens - 1 by cumulative
    score among candidates no deeper than ``depth`` (ties by index, as in the decoder)."""
    cand = [i for i in range(1, len(scores)) if depths[i] <= depth]
    return set(sorted(cand, key=lambda i: (-scores[i], i))[: total_tokens - 1])


def chosen_by(choice: dict | None) -> str:
    """How a decoder's sizes were set, for its metrics: given, measured here, or why the reference size."""
    if choice is None:
        return Msg.of("core.size.given")
    return Msg.of("core.size.auto") if choice["reason"] == "measured" else choice["reason"]


NOISE = 0.02  # expected rates this close to the best are a tie: timings on a shared CPU vary by a few percent


def smallest_near_best(rates: dict, tol: float = NOISE):
    """The smallest key (fewest tokens) whose rate is within ``tol`` of the best: where the measured gain of a
    bigger size is inside the timing noise, the cheaper size is the safer choice (a loaded machine once chose
    N = 9 over N = 3 for a tau 1% higher)."""
    best = max(rates.values())
    return min(k for k, v in rates.items() if v >= best * (1 - tol))


def chain_verify_tokens(n: int, lookup: int = 0, runner_up: bool = False) -> int:
    """Tokens in a speculative verify pass with a chain of N: the last token, the N drafts, with runner-up leaves
    one more per draft, with a lookup branch up to ``lookup`` more (counted in full: the cost's upper bound)."""
    return 1 + n * (2 if runner_up else 1) + lookup


def choose_chain(tau_by_n: dict[int, float], verify: dict[int, float], draft_step_s: float, lookup: int = 0,
                 runner_up: bool = False, tokens_by_n: dict[int, float] | None = None) -> tuple[int, dict]:
    """The N maximising tau(N) / (N * draft step + verify(tokens of the pass)), the smallest within the noise;
    returns (N, {N: expected tokens/s}). ``tokens_by_n``: the pass's size measured for each N (a tree's varies: its
    distribution or its mean, ``pass_cost``), else its largest (``chain_verify_tokens``)."""
    tokens = tokens_by_n or {}
    rates = {n: tau / (n * draft_step_s + pass_cost(verify, tokens.get(n, chain_verify_tokens(n, lookup, runner_up))))
             for n, tau in tau_by_n.items()}
    return smallest_near_best(rates), rates


def tree_draft_cost(total: int, depth: int, tau: float, level_s: float | dict[int, float], top_k: int = 8) -> float:
    """Seconds the head spends drafting one tree of (total, depth): ``level_s`` is one level's cost, or its cost
    by the number of rows the head runs on ({rows: seconds}, interpolated). The first level reads the pairs the
    last step accepted (tau of them on average); each deeper level expands at most min(top_k, total - 2) nodes
    (eagle.EagleDecoder._can_have_kept_child: the others could not have a kept child)."""
    if not isinstance(level_s, dict):
        return depth * level_s
    first = interpolate(level_s, min(top_k, max(1, round(tau))))
    return first + (depth - 1) * interpolate(level_s, min(top_k, max(1, total - 2)))


def choose_tree(tau_by_size: dict[tuple[int, int], float], verify: dict[int, float],
                level_s: float | dict[int, float], top_k: int = 8,
                tokens_by_size: dict[tuple[int, int], float] | None = None) -> tuple[tuple[int, int], dict]:
    """The (total_tokens, depth) maximising tau / (head drafting + verify(tokens of the pass)), the smallest
    within the noise (``tree_draft_cost``). ``tokens_by_size``: the pass's size measured for each size (with a
    lookup branch it holds more than total_tokens: its distribution or its mean, ``pass_cost``), else total_tokens."""
    tokens = tokens_by_size or {}
    rates = {(t, d): tau / (tree_draft_cost(t, d, tau, level_s, top_k) + pass_cost(verify, tokens.get((t, d), t)))
             for (t, d), tau in tau_by_size.items()}
    return smallest_near_best(rates), rates


# -- tau for every size, measured by replaying drafts at every position of the greedy output -----------

def _step_starts(accepted_at: list[int], n_tokens: int) -> list[int]:
    """The output positions where the verify steps of a greedy run start, when it must emit ``n_tokens`` tokens and
    the step starting at output position i would accept accepted_at[i] drafts (then emits one more token). Like the
    decoders, a step never drafts past the token budget (at most n_tokens - i - 1 accepted)."""
    pos, starts = 0, []
    while pos < n_tokens:
        starts.append(pos)
        pos += min(accepted_at[pos], n_tokens - pos - 1) + 1
    return starts


def greedy_references(lm: LoadedModel, prompts: list[list[int]], max_new_tokens: int) -> list[list[int]]:
    """The target's greedy output for each prompt (what the replays read the drafts against)."""
    from .decoders import greedy_decoder

    return [greedy_decoder(lm, max_new_tokens).start(ids).run().tokens for ids in prompts]


@torch.inference_mode()
def tree_tau_table(lm: LoadedModel, head, prompts: list[list[int]], max_new_tokens: int, top_k: int,
                   totals: tuple[int, ...], depths_: tuple[int, ...],
                   references: list[list[int]] | None = None, lookup: int = 0,
                   verify_tokens: dict | None = None, pass_sizes: dict | None = None) -> dict[tuple[int, int], float]:
    """tau of the dynamic EAGLE tree for every (total_tokens, depth), greedy, on ``prompts``.

    For each prompt: the target's greedy output g; at every output position i, the head drafts the
    largest tree (depth max(depths_), top_k) on the committed prefix prompt + g[:i] (its inputs there are
    the target's true features, whatever tree sizes came before); the accepted length of every smaller
    tree is read off against g[i:]; a walk over the positions gives each size's tau. Exact for greedy
    verification (the accepted path is the prefix of g that the kept subtree contains). ``references``:
    the greedy outputs if already computed (greedy_references). ``lookup``: the trees carry the decoder's lookup
    branch of that many tokens; ``verify_tokens`` / ``pass_sizes``: dicts to fill with each size's mean verify-pass
    size and their distribution (``trees_tau``)."""
    d_max, t_max = max(depths_), max(totals)
    trees = recorded_trees(lm, head, prompts, max_new_tokens, top_k, d_max, t_max, references, lookup)
    return trees_tau(trees, [(t, d) for t in totals for d in depths_], verify_tokens=verify_tokens,
                     pass_sizes=pass_sizes)


def recorded_trees(lm: LoadedModel, head, prompts: list[list[int]], max_new_tokens: int, top_k: int, depth: int,
                   total: int, references: list[list[int]] | None = None, lookup: int = 0):
    """drafted_trees' rows for each prompt (a list per prompt, yielded prompt by prompt)."""
    for ids, g in zip(prompts, references or greedy_references(lm, prompts, max_new_tokens)):
        yield list(drafted_trees(lm, head, ids, g, top_k, depth, total, lookup))


def trees_tau(trees_per_prompt, sizes: list[tuple[int, int]], score_fn=None,
              verify_tokens: dict | None = None, pass_sizes: dict | None = None) -> dict[tuple[int, int], float]:
    """Pooled greedy tau (as the decoders count it) of the dynamic tree of every (total_tokens, depth) in ``sizes``,
    read off recorded trees: per prompt, drafted_trees' rows (tokens, parents, scores, continuation[, copied]), one
    per output position. ``score_fn(tokens, parents, scores, depths)`` gives the scores that rank the nodes (default:
    the head's own cumulative log-probabilities). A row's ``copied`` tokens are the lookup branch the decoder merges
    into the kept tree (a path from the root: greedy accepts the longer of the two matches). ``verify_tokens``: a
    dict to fill with each size's mean number of tokens in a verify pass (the root, the kept nodes and the lookup
    tokens the kept tree did not already hold); ``pass_sizes``: one to fill with their distribution (``size_shares``)."""
    sizes = list(dict.fromkeys(sizes))  # each size once: a repeat would read its positions twice
    tokens_total, steps_total, fed = 0, {k: 0 for k in sizes}, {k: [] for k in sizes}
    for rows in trees_per_prompt:
        accepted: dict[tuple[int, int], list[int]] = {k: [] for k in sizes}
        passes: dict[tuple[int, int], list[int]] = {k: [] for k in sizes}
        n = len(rows)
        for i, row in enumerate(rows):
            tokens, parents, scores, cont = row[:4]
            copied = row[4] if len(row) > 4 else []
            d = tree_depths(parents)
            ranked = score_fn(tokens, parents, scores, d) if score_fn else scores
            copy_run = _common_prefix(copied, cont)
            room = n - i - 1  # as the decoder's _fit_budget: no node deeper than the tokens left to emit allow
            for (t, dd) in sizes:
                keep = tree_subset(ranked, d, t, dd)
                run = accepted_on_path(tokens, parents, keep, cont)
                accepted[(t, dd)].append(max(run, copy_run))
                if verify_tokens is not None or pass_sizes is not None:
                    merged = accepted_on_path(tokens, parents, keep, copied) if copied else 0
                    passes[(t, dd)].append(1 + sum(d[j] <= room for j in keep) + max(0, min(len(copied), room) - merged))
        # position i's tree drafts tokens after g[i]; a run's first step is the prefill (emits g[0])
        tokens_total += n
        for k, acc in accepted.items():
            starts = _step_starts(acc, n)
            steps_total[k] += len(starts)
            fed[k] += [passes[k][i] for i in starts] if passes[k] else []
    _fill_passes(fed, verify_tokens, pass_sizes)
    return {k: tokens_total / s if s else 1.0 for k, s in steps_total.items()}


def _fill_passes(fed: dict, verify_tokens: dict | None, pass_sizes: dict | None) -> None:
    """A replay's verify-pass sizes (every step's, by size) into the caller's dicts: their mean, their distribution."""
    if verify_tokens is not None:
        verify_tokens.update({k: sum(v) / len(v) for k, v in fed.items() if v})
    if pass_sizes is not None:
        pass_sizes.update({k: size_shares(v) for k, v in fed.items() if v})


def _common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens a and b share (a copied branch's greedy run against the target's continuation)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


@torch.inference_mode()
def drafted_trees(lm: LoadedModel, head, ids: list[int], g: list[int], top_k: int, depth: int, total: int,
                  lookup: int = 0):
    """Every candidate the head drafts (dynamic growth to ``depth``, top_k, no pruning) at each position i of the
    target's greedy output ``g`` whose tree can still be read against g (i < len(g) - 1), on the committed prefix
    prompt + g[:i+1] with the target's true features: yields (tokens, parents, scores, g[i+1:]), with ``lookup``
    also the decoder's lookup branch there (the copied tokens, ``lookup_branch``)."""
    from .eagle import EagleDecoder
    from .speculative import lookup_branch

    dec = EagleDecoder(lm, head, "dynamic", top_k, depth, total, max_new_tokens=len(g),
                       record_candidates=True).start(ids)
    out = lm.model.model(input_ids=torch.tensor([(ids + g)[:-1]], device=lm.device), cache=DynamicCache(),
                         output_hidden_states=head.kind == "eagle3")
    feats = head.target_features(out.hidden_states)[0] if head.kind == "eagle3" else out.last_hidden_state[0]
    for i in range(len(g) - 1):
        dec.tokens = g[: i + 1]                           # committed: prompt + g[:i+1]; the root is g[i]
        dec.features = feats[: len(ids) + i]
        dec.candidates = []
        dec._draft_tree()
        crop_to(dec.h_cache, dec.h_len)
        _, tokens, parents, scores = dec.candidates[-1]
        if lookup:
            yield tokens, parents, scores, g[i + 1 :], lookup_branch(dec.context, lookup, dec.special_ids)
        else:
            yield tokens, parents, scores, g[i + 1 :]


def corpus_fallback(trees_per_prompt, prompts: list[list[int]], references: list[list[int]], store, n: int,
                    never: frozenset[int] = frozenset()) -> list[list[tuple]]:
    """drafted_trees' rows (with their lookup branch) whose branch, where prompt lookup found nothing, is the
    datastore's of up to n tokens after that position's context (prompt + g[:i+1]), as EagleDecoder(datastore=) drafts."""
    return [[(*row[:4], row[4] or store.branch(ids + g[: i + 1], n, never)) for i, row in enumerate(rows)]
            for ids, g, rows in zip(prompts, references, trees_per_prompt)]


@torch.inference_mode()
def chain_tau_table(lm: LoadedModel, draft: LoadedModel, prompts: list[list[int]], max_new_tokens: int,
                    ns: tuple[int, ...], references: list[list[int]] | None = None, copy: float = 0.0,
                    lookup: int = 0, runner_up: bool = False, verify_tokens: dict | None = None,
                    pass_sizes: dict | None = None) -> dict[int, float]:
    """tau of greedy speculative decoding with the draft for every chain length N in ``ns``, by the same
    replay: at every position of the target's greedy output the draft proposes max(ns) tokens greedily;
    a chain of length N accepts min(matching run, N). ``copy``: the draft's q mixed with a copy of the context
    (SpeculativeDecoder's ``copy``); ``lookup`` / ``runner_up``: the tree the decoder verifies around the chain
    (its lookup branch, its runner-up leaves), the run then the longest path of the tree that matches.
    ``verify_tokens``: a dict to fill with the mean number of tokens in a step's verify pass for each N (the
    tree's size varies: the lookup branch is shorter where the copy merges with the chain or finds nothing);
    ``pass_sizes``: one to fill with their distribution (``size_shares``)."""
    from .speculative import SpeculativeDecoder

    n_max = max(ns)
    tokens_total, steps_total, fed = 0, {n: 0 for n in ns}, {n: [] for n in ns}
    for ids, g in zip(prompts, references or greedy_references(lm, prompts, max_new_tokens)):
        dec = SpeculativeDecoder(lm, draft, n_max, "greedy", max_new_tokens=max_new_tokens, copy=copy,
                                 lookup=lookup, runner_up=runner_up).start(ids)
        runs, sizes = {n: [] for n in ns}, {n: [] for n in ns}
        for i in range(len(g)):
            dec.tokens = g[:i]
            ys, q = dec._propose(n_max)
            crop_to(dec.d_cache, len(ids) + i)
            dec.d_len = len(ids) + i
            budget = max_new_tokens - i  # as the decoder's step at output position i: at most budget - 1 drafts deep
            for n in ns:
                if lookup or runner_up:
                    k = min(n, budget - 1)
                    tokens, parents, *_ = dec._tree(dec.context, ys[:k], q[:k] if q is not None else None, budget)
                    runs[n].append(_tree_run(tokens, parents, g[i:]))
                    sizes[n].append(len(tokens))
                else:
                    runs[n].append(_tree_run([0] + ys[:n], list(range(-1, len(ys[:n]))), g[i:]))
                    sizes[n].append(1 + min(n, budget - 1))
        tokens_total += len(g)
        for n in ns:
            starts = _step_starts(runs[n], len(g))
            steps_total[n] += len(starts)
            fed[n] += [sizes[n][i] for i in starts]
    _fill_passes(fed, verify_tokens, pass_sizes)
    return {n: tokens_total / s if s else 1.0 for n, s in steps_total.items()}


def _tree_run(tokens: list[int], parents: list[int], rest: list[int]) -> int:
    """How many drafted tokens greedy verification accepts from a tree when the target's output goes on with
    ``rest``: the length of the path from the root whose tokens match (siblings carry distinct tokens)."""
    node, run = 0, 0
    while run < len(rest):
        node = next((c for c in range(node + 1, len(tokens)) if parents[c] == node and tokens[c] == rest[run]), None)
        if node is None:
            break
        run += 1
    return run


def same_gate(table: dict, lookup: int) -> bool:
    """Whether a table measured with a lookup branch copied after as many matching tokens as the decoders copy after
    now (``speculative.LOOKUP_MIN_NGRAM``; tables written before session 36 copied after one: absent = 1)."""
    from .speculative import LOOKUP_MIN_NGRAM

    return not lookup or table.get("lookup_min_ngram", 1) == LOOKUP_MIN_NGRAM


def chain_table_rows(manifest: dict, copy: float = 0.0, lookup: int = 0, runner_up: bool = False) -> list:
    """The draft manifest's rows of held-out tau by N, measured with these settings where the manifest has them:
    the tree around the chain (``tau_by_size_tree``: its copy weight, lookup branch and runner-up leaves), the copy
    weight alone (``tau_by_size_copy``), else the draft's own (``tau_by_size``: the lowest, a safe guess). A tree with
    settings the manifest has no table for (its lookup branch gated otherwise too, ``same_gate``): no rows (the
    caller falls back to the reference N)."""
    tree = manifest.get("tau_by_size_tree", {})
    if lookup or runner_up:  # a chain's table would under-state tau and its size the pass: none rather than a wrong N
        return tree["rows"] if tree.get("rows") and (tree.get("copy"), tree.get("lookup"), tree.get("runner_up")) \
            == (copy, lookup, runner_up) and same_gate(tree, lookup) else []
    table = manifest.get("tau_by_size_copy", {})
    if copy and table.get("copy") == copy and table.get("rows"):
        return table["rows"]
    return manifest.get("tau_by_size", {}).get("rows", [])


def auto_chain(target: LoadedModel, draft: LoadedModel | None, source: str, copy: float = 0.0, lookup: int = 0,
               runner_up: bool = False) -> dict:
    """The draft length N that maximises expected tokens/s on THIS device: the shipped draft's held-out
    tau for each N (its manifest's table measured with these settings, ``chain_table_rows``) over the measured
    cost of N draft steps plus a verify pass of the step's tokens (``chain_verify_tokens``). Other drafts have no
    table: the reference N."""
    shipped = source == "embedded" and draft is not None
    rows = chain_table_rows(draft_manifest(), copy, lookup, runner_up) if shipped else []
    if not rows:  # another draft, or the shipped one with settings its manifest has no table for
        if shipped:
            return {"n_draft": REFERENCE_N, "reason": Msg.of("core.size.no_chain_table_for", n=REFERENCE_N, copy=copy,
                                                             lookup=lookup, runner_up="on" if runner_up else "off")}
        return {"n_draft": REFERENCE_N, "reason": Msg.of("core.size.no_chain_table", n=REFERENCE_N)}
    table = {int(row[0]): float(row[1]) for row in rows}
    tokens = {int(row[0]): float(row[2]) for row in rows if len(row) > 2}  # the measured mean verify size
    shares = {int(row[0]): row[3] for row in rows if len(row) > 3}  # ... and its distribution, where measured
    verify = forward_costs(target)
    step_s = draft_step_cost(target, draft)
    sized = {**tokens, **shares}
    n, rates = choose_chain(table, verify, step_s, lookup, runner_up, sized)
    return {"n_draft": n, "tokens_per_s": rates[n], "rates": rates, "verify_s": verify, "draft_step_s": step_s,
            "draft_weights": draft_weights_of(draft), "tau": table[n], "reason": "measured",
            "verify_tokens": {k: tokens.get(k, chain_verify_tokens(k, lookup, runner_up)) for k in table},
            "pass_s": {k: pass_cost(verify, sized.get(k, chain_verify_tokens(k, lookup, runner_up))) for k in table}}


def tree_table_rows(manifest: dict, lookup: int = 0, corpus: bool = False) -> list:
    """A head manifest's rows of held-out tau by (total_tokens, depth): with a lookup branch the table measured with
    that branch, gated as now (``tau_by_size_lookup``, rows [total, depth, tau, mean verify tokens(, their
    distribution)]) or none (the tree-only table would under-state the pass; ``auto_tree`` then bounds it), else the
    tree's own (``tau_by_size``). ``corpus``: the branch falls back to the corpus datastore (the table
    ``tau_by_size_lookup_corpus``)."""
    if lookup:
        table = manifest.get("tau_by_size_lookup_corpus" if corpus else "tau_by_size_lookup", {})
        same = table.get("lookup") == lookup and same_gate(table, lookup)
        if corpus:  # measured with the datastore's rule of now
            from .datastore import same_rule

            same = same and same_rule(table)
        return table["rows"] if table.get("rows") and same else []
    return manifest.get("tau_by_size", {}).get("rows", [])


def auto_tree(target: LoadedModel, head, kind: str, top_k: int = 8, lookup: int = 0, corpus: bool = False) -> dict:
    """The dynamic tree size that maximises expected tokens/s on THIS device: the head's held-out tau for
    each (total_tokens, depth) (its manifest's table for these settings, ``tree_table_rows``) over the measured cost
    of a verify pass of the step's tokens plus the head's levels. A lookup branch with no table of its own: the
    tree's tau without it over a pass with the whole branch (``lookup_bound``: both figures on the safe side). Returns
    the choice and what it was chosen from. ``corpus``: the lookup branch falls back to the corpus datastore (with no
    table of its own: bounded the same way)."""
    manifest = head_manifest(kind)
    rows, bound = tree_table_rows(manifest, lookup, corpus), False
    if not rows and lookup:  # no table with this branch: the tree's own tau, the branch counted at its full length
        rows = [[t, d, tau, t + lookup] for t, d, tau in tree_table_rows(manifest)]
        bound = bool(rows)
    if not rows:
        return {**_reference_tree(), "reason": Msg.of("core.size.no_tree_table")}
    looked = "tau_by_size_lookup_corpus" if corpus else "tau_by_size_lookup"
    measured_k = manifest.get(looked if lookup and not bound else "tau_by_size", {}).get("top_k")
    if measured_k is not None and measured_k != top_k:
        return {**_reference_tree(),
                "reason": Msg.of("core.size.other_top_k", measured=measured_k, top_k=top_k)}
    table = {(int(r[0]), int(r[1])): float(r[2]) for r in rows}
    tokens = {(int(r[0]), int(r[1])): float(r[3]) for r in rows if len(r) > 3}  # the measured mean verify size
    shares = {(int(r[0]), int(r[1])): r[4] for r in rows if len(r) > 4}  # ... and its distribution, where measured
    verify = forward_costs(target)
    by_rows = {n: head_level_cost(target, head, n) for n in sorted({1, 2, 4, top_k}) if n <= top_k}
    sized = {**tokens, **shares}
    (total, depth), rates = choose_tree(table, verify, by_rows, top_k, sized)
    return {"total_tokens": total, "depth": depth, "tokens_per_s": rates[(total, depth)], "rates": rates,
            "verify_s": verify, "level_s": by_rows[top_k], "level_by_rows": by_rows, "tau": table[(total, depth)],
            "reason": "measured", "lookup": lookup, "corpus": corpus, "lookup_bound": bound,
            "verify_tokens": {k: tokens.get(k, float(k[0])) for k in table},
            "pass_s": {k: pass_cost(verify, sized.get(k, k[0])) for k in table}}


def _reference_tree() -> dict:
    return {"total_tokens": REFERENCE_TREE[0], "depth": REFERENCE_TREE[1]}
