"""One way to turn settings into a decoder: ``build_decoder(lm, strategy, run)``.

The pages, the command line, the studies and the benchmark all build their decoders here, so a
strategy's settings mean the same thing everywhere. Drafts, heads and device-aware sizes come from a
``Loaders`` object: the default loads and measures directly; the app passes one whose functions are
cached per process (a draft or a size is loaded / measured once, not on every rerun).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .messages import Msg
from .models import LoadedModel, ModelLoadError
from .settings import (REFERENCE_N, REFERENCE_TREE, Beam, Eagle, Greedy, RunSettings, Sample, Speculative,
                       StochasticBeam, Strategy)


@dataclass(frozen=True)
class Loaders:
    """Where drafts, heads and device-aware sizes come from (override to cache them)."""

    draft: Callable      # (target, source) -> LoadedModel | None (None: prompt lookup)
    head: Callable       # (target, kind) -> EAGLE head
    chain_size: Callable  # (target, draft, source, copy, lookup, runner_up) -> sizing.auto_chain's dict
    tree_size: Callable   # (target, head, kind, top_k, lookup, corpus) -> sizing.auto_tree's dict


def direct_loaders() -> Loaders:
    from .draft import load_draft
    from .heads import load_head
    from .sizing import auto_chain, auto_tree

    return Loaders(load_draft, load_head, auto_chain, auto_tree)


@dataclass(frozen=True)
class Sizes:
    """The draft sizes a speculative / EAGLE run will use, and how they were chosen (``choice``: the
    measured sizing dict, None when they were given)."""

    n_draft: int | None = None
    total_tokens: int | None = None
    depth: int | None = None
    choice: dict | None = None


def resolve_sizes(lm: LoadedModel, strategy: Strategy, draft=None, head=None, head_kind: str | None = None,
                  loaders: Loaders | None = None) -> Sizes:
    """Replace "auto" by the device-aware size (measured once per model by ``loaders``)."""
    loaders = loaders or direct_loaders()
    if isinstance(strategy, Speculative):
        if strategy.n_draft != "auto":
            return Sizes(n_draft=strategy.n_draft)
        if strategy.draft == "embedded" and draft is not None:
            choice = loaders.chain_size(lm, draft, strategy.draft, strategy.copy, strategy.lookup, strategy.runner_up)
        else:
            choice = {"n_draft": REFERENCE_N, "reason": f"no tau table for this draft: the reference N = {REFERENCE_N}"}
        return Sizes(n_draft=int(choice["n_draft"]), choice=choice)
    if isinstance(strategy, Eagle):
        total, depth, choice = strategy.total_tokens, strategy.depth, None
        if strategy.auto:
            choice = loaders.tree_size(lm, head, head_kind, strategy.top_k, strategy.lookup, strategy.corpus)
            total = choice["total_tokens"] if total == "auto" else total
            depth = choice["depth"] if depth == "auto" else depth
        total = REFERENCE_TREE[0] if total == "auto" else total   # a static tree has its fixed shape
        depth = REFERENCE_TREE[1] if depth == "auto" else depth
        return Sizes(total_tokens=total, depth=depth, choice=choice)
    return Sizes()


def head_kind(strategy: Eagle) -> str:
    from .heads import default_head

    return strategy.head or default_head()


def build_decoder(lm: LoadedModel, strategy: Strategy, run: RunSettings | None = None,
                  loaders: Loaders | None = None, sizes: Sizes | None = None):
    """The decoder for ``strategy`` on ``lm`` (not started). Raises ValueError for a bad combination and
    ModelLoadError when a draft or head cannot be loaded. ``sizes`` skips resolving "auto" again."""
    from .sizing import chosen_by

    run = run or RunSettings()
    loaders = loaders or direct_loaders()
    common = dict(max_new_tokens=run.max_new_tokens, seed=run.seed, stop_at_eos=run.stop_at_eos)
    if isinstance(strategy, (Greedy, Sample)):
        from .decoders import AutoregressiveDecoder

        sampler = strategy.sampler if isinstance(strategy, Sample) else None
        return AutoregressiveDecoder(lm, strategy.sampling, sampler, backend=run.backend, **common)
    if isinstance(strategy, Beam):
        from .beam import BeamSearchDecoder

        if run.backend != "eager":
            raise ValueError(Msg.of("core.err.eager_only", what=Msg.of("core.desc.beam_kind"), backend=run.backend))
        return BeamSearchDecoder(lm, strategy.beam, sampling=strategy.sampling, sampler=strategy.sampler, **common)
    if isinstance(strategy, StochasticBeam):
        from .stochastic_beam import StochasticBeamDecoder

        if run.backend != "eager":
            raise ValueError(Msg.of("core.err.eager_only", what=Msg.of("core.desc.stochastic_kind"), backend=run.backend))
        return StochasticBeamDecoder(lm, strategy.num_beams, temperature=strategy.temperature, **common)
    if isinstance(strategy, Speculative):
        from .speculative import SpeculativeDecoder

        draft = loaders.draft(lm, strategy.draft)
        sizes = sizes or resolve_sizes(lm, strategy, draft=draft, loaders=loaders)
        dec = SpeculativeDecoder(lm, draft, sizes.n_draft, strategy.rule, strategy.verify_k, strategy.sampling,
                                 target_sample=strategy.target_sample, backend=run.backend,
                                 stop_below=strategy.stop_below, copy=strategy.copy, lookup=strategy.lookup,
                                 runner_up=strategy.runner_up, **common)
        dec.chosen_by = chosen_by(sizes.choice)
        return dec
    if isinstance(strategy, Eagle):
        from .eagle import EagleDecoder

        if run.backend != "eager":
            raise ValueError(Msg.of("core.err.eager_only", what="EAGLE", backend=run.backend))
        kind = head_kind(strategy)
        head = loaders.head(lm, kind)
        sizes = sizes or resolve_sizes(lm, strategy, head=head, head_kind=kind, loaders=loaders)
        datastore = None
        if strategy.corpus:
            from .datastore import load_datastore

            datastore = load_datastore(lm)
        dec = EagleDecoder(lm, head, strategy.tree, strategy.top_k, sizes.depth, sizes.total_tokens,
                           strategy.sampling, strategy.sample, lookup=strategy.lookup, datastore=datastore, **common)
        dec.chosen_by = chosen_by(sizes.choice)
        return dec
    raise ValueError(f"unknown strategy {strategy!r}")


def _auto(size):
    """A size for a label: "auto" (not yet measured) as a word the app translates."""
    return Msg.of("core.desc.auto") if size == "auto" else size


def describe(strategy: Strategy, sizes: Sizes | None = None) -> str:
    """A short human label for a strategy and its main settings (tables, legends): a ``Msg``, so the app can
    say it in the reader's language; numbers, symbols and model ids stay as they are."""
    from .heads import HEAD_LABELS

    if isinstance(strategy, Greedy):
        return Msg.of("core.desc.greedy")
    if isinstance(strategy, Sample):
        s = strategy.sampling
        parts = [f"T {s.temperature:g}"] + ([f"top-k {s.top_k}"] if s.top_k else []) + \
            ([f"top-p {s.top_p:g}"] if s.top_p is not None and s.top_p < 1 else []) + \
            ([f"min-p {s.min_p:g}"] if s.min_p else [])
        return Msg.of("core.desc.sample", parts=", ".join(parts), sampler=Msg.of(f"core.sampler.{strategy.sampler}"))
    if isinstance(strategy, Beam):
        b = strategy.beam
        return Msg.of("core.desc.beam", k=b.num_beams, pruning=Msg.of("core.desc.pruning") if b.pruning else "",
                      prefix=Msg.of("core.desc.prefix", n=b.sample_prefix) if b.sample_prefix else "")
    if isinstance(strategy, StochasticBeam):
        return Msg.of("core.desc.stochastic_beam", k=strategy.num_beams, T=strategy.temperature)
    if isinstance(strategy, Speculative):
        n = _auto(sizes.n_draft if sizes and sizes.n_draft else strategy.n_draft)
        src = {"embedded": Msg.of("core.desc.shipped_draft"),
               "prompt-lookup": Msg.of("core.desc.prompt_lookup")}.get(strategy.draft, strategy.draft)
        stop = Msg.of("core.desc.stop_below", q=strategy.stop_below) if strategy.stop_below else ""
        if strategy.draft != "prompt-lookup" and (strategy.lookup or strategy.runner_up):
            stop = Msg.of("core.desc.tree", rest=stop,
                          lookup=Msg.of("core.desc.spec_lookup", n=strategy.lookup) if strategy.lookup else "",
                          runner_up=Msg.of("core.desc.runner_up") if strategy.runner_up else "")
        if strategy.copy and strategy.draft != "prompt-lookup":
            stop = Msg.of("core.desc.copy", w=strategy.copy, rest=stop)
        return Msg.of("core.desc.speculative", src=src, n=n, rule=Msg.of(f"core.rule.{strategy.rule}"), stop=stop)
    if isinstance(strategy, Eagle):
        total = _auto(sizes.total_tokens if sizes and sizes.total_tokens else strategy.total_tokens)
        depth = _auto(sizes.depth if sizes and sizes.depth else strategy.depth)
        head = HEAD_LABELS.get(head_kind(strategy), strategy.head)
        lookup = Msg.of("core.desc.lookup_corpus" if strategy.corpus else "core.desc.lookup", n=strategy.lookup) \
            if strategy.lookup else ""
        tree = Msg.of(f"core.tree.{strategy.tree}")
        if total == "auto" and depth == "auto":
            return Msg.of("core.desc.eagle_auto", head=head, tree=tree, lookup=lookup)
        return Msg.of("core.desc.eagle", head=head, tree=tree, total=total, depth=depth, lookup=lookup)
    return str(strategy)


__all__ = ["Loaders", "Sizes", "build_decoder", "describe", "direct_loaders", "resolve_sizes", "ModelLoadError"]
