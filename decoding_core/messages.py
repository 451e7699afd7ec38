"""Words the core hands to people: a ``Msg`` is a str (its English text, for the CLI, logs and exceptions) that
also keeps a catalogue id and its arguments, so the app can show it in the reader's language.

The English templates live here (``EN``), beside the code that says them; the app's English catalogue includes
them (ui/locales/en.py) and the Chinese catalogue translates every id (tests/unit/test_i18n.py checks both).
An argument that is itself a ``Msg`` (a method's or a status's name) is translated too.
"""
from __future__ import annotations

EN: dict[str, str] = {
    # sampling cost (decoding_core/studies/sampling_cost.py crossovers)
    "core.cost.beats": "n draws from one distribution (k = {k:,}): {method} beats Gumbel-max from n = {n:,} on.",
    "core.cost.fastest": "one draw per new distribution, batch {batch} (k = {k:,}): fastest is {method}{extra}.",
    "core.cost.alias_extra": "; the alias table (rebuilt per row) takes {ratio:.0f}× as long",
    "core.cost.skipped": "skipped: predicted {seconds:.1f} s",
    "core.method.linear-scan": "linear scan",
    "core.method.binary-search": "binary search",
    "core.method.alias": "alias",
    "core.method.multinomial": "multinomial",
    "core.method.gumbel-max": "Gumbel-max",
    "core.method.exp-race": "exponential race",
    # device-aware sizes (decoding_core/sizing.py)
    "core.size.no_chain_table": "no tau table for this draft: the reference N = {n}",
    "core.size.static": "the static tree's own shape",
    "core.size.no_chain_table_for": "no tau table for these settings (copy {copy:g}, lookup {lookup}, runner-up "
                                    "{runner_up}): the reference N = {n}",
    "core.size.no_tree_table": "no tau table in the head's manifest: the reference size",
    "core.size.other_top_k": "the head's tau table was measured with top-k {measured}, not {top_k}: the reference size",
    "core.size.given": "given",
    "core.size.auto": "auto (measured on this device)",
    # strategies' short labels (decoding_core/strategies.py describe)
    "core.desc.greedy": "greedy",
    "core.desc.sample": "sampling ({parts}, {sampler})",
    "core.desc.beam": "beam search (k {k}{pruning}{prefix})",
    "core.desc.pruning": ", pruning",
    "core.desc.prefix": ", sampled prefix {n}",
    "core.desc.stochastic_beam": "stochastic beam search (k {k}, T {T:g})",
    "core.desc.speculative": "speculative ({src}, N {n}{stop}, {rule})",
    "core.desc.stop_below": ", stop below q {q:g}",
    "core.desc.copy": ", copy weight {w:g}{rest}",
    "core.desc.tree": "{lookup}{runner_up}{rest}",
    "core.desc.runner_up": ", + runner-ups",
    "core.desc.spec_lookup": ", + lookup {n}",
    "core.desc.shipped_draft": "shipped draft",
    "core.desc.prompt_lookup": "prompt lookup",
    "core.desc.eagle": "EAGLE ({head}, {tree} tree, {total} tokens, depth {depth}{lookup})",
    "core.desc.lookup": ", + {n}-token lookup branch",
    "core.desc.lookup_corpus": ", + {n}-token lookup branch, from the corpus where the context has no match",
    "core.desc.eagle_auto": "EAGLE ({head}, {tree} tree, size for this device{lookup})",
    "core.desc.auto": "auto",
    # samplers' names in the labels (settings.SAMPLERS)
    "core.sampler.multinomial": "multinomial",
    "core.sampler.gumbel": "gumbel",
    "core.sampler.gumbel-block": "gumbel-block",
    "core.sampler.exp-race": "exp-race",
    "core.sampler.binary-search": "binary-search",
    "core.sampler.alias": "alias",
    "core.sampler.linear-scan": "linear-scan",
    "core.rule.greedy": "greedy",
    "core.rule.topk": "topk",
    "core.rule.sample": "sample",
    "core.tree.static": "static",
    "core.tree.dynamic": "dynamic",
    # studies' progress and the labels of their runs
    "core.progress.tokens": "{label}: {made} of {of} tokens",
    "core.progress.done": "done",
    "core.cmp.seed": "{label} (seed {seed})",
    "core.cmp.nth": "{i} of {n} · {label}",
    "core.cmp.stopped": "{label} (stopped after {n} tokens)",
    "core.progress.seed": "{label}, seed {seed}",
    "core.progress.pruning_off": "pruning off",
    "core.progress.pruning_warmup": "a warm-up search",
    "core.progress.plain_repeat": "repeat {rep}: plain target decoding",
    "core.progress.n_repeat": "repeat {rep}, N = {n}: τ = {tau}",
    "core.progress.cost_one": "{method}, one distribution, k = {k:,}",
    "core.progress.cost_new": "{method}, new distributions, k = {k:,}",
    "core.progress.exactness": "exactness",
    # beam diversity's methods (decoding_core/studies/beam.py)
    "core.div.plain": "plain beam",
    "core.div.sample_then_beam": "sample {m} then beam",
    "core.div.sampling": "sampling",
    "core.div.stochastic": "stochastic beam (one run, k = n)",
    # top-K drift (decoding_core/studies/speculative.py topk_drift): the two rules compared
    "core.drift.topk": "top-{k} (notes)",
    "core.drift.sample": "rejection sampling",
    # engine errors a page shows
    "core.err.empty_prompt": "The prompt is empty: type some text to decode from.",
    'core.err.no_chat_template': '{name} has no chat template: turn the chat toggle off.',
    'core.err.no_cuda': 'CUDA was chosen but this machine has no CUDA GPU: choose auto or cpu.',
    'core.err.no_mps': 'MPS was chosen but this machine has no Apple GPU: choose auto or cpu.',
    'core.err.offline': '{source} is not a local folder, the Hugging Face hub cannot be reached from here and the model is not in the local cache.',
    'core.err.name_too_long': '{source}… is not a model id or folder: a name in it is over 255 characters.',
    'core.err.is_file': '{source} is a file; give the folder that holds config.json and the weights.',
    'core.err.no_config': '{source} has no config.json: it is not a model folder.',
    'core.err.no_weights': '{source} has no weights (*.safetensors or *.bin).',
    'core.err.not_found': 'Could not load {source}: it is not a local folder and the Hugging Face hub could not provide it (offline, a typo, or a gated model). Details: {details}',
    'core.err.not_causal_lm': '{source} is not a causal language model transformers can load: {details}',
    'core.err.unreadable': '{source} could not be read ({details}); its weights may be corrupt or truncated.',
    'core.err.draft_for_embedded': "The shipped draft was made for the embedded SmolLM2 target; it cannot draft for {target}. Choose prompt lookup or a draft model with {target}'s tokenizer.",
    'core.err.corpus_read': 'The corpus in {path} cannot be read for the corpus branch ({error}). Restore it with `git checkout -- assets/corpus`, or turn the corpus branch off.',
    'core.err.corpus_tokenizer': 'The corpus branch drafts from token ids of {made_by}; {target} uses another tokenizer, so its branches would be other words. Turn the corpus branch off for this model.',
    'core.err.tokenizer_mismatch': 'The draft {draft} has a different tokenizer from {target} ({nd:,} vs {nt:,} tokens; {differ:,} have another id in the draft or are missing from one of them): speculative decoding needs the same token ids. Choose a draft from the same model family, or prompt lookup.',
    'core.err.eager_only': '{what} runs the target eager, not with the {backend} backend',
    'core.desc.beam_kind': 'beam search',
    'core.desc.stochastic_kind': 'stochastic beam search',
}


class Msg(str):
    """English text that remembers its catalogue id and arguments (``Msg.of(id, **args)``)."""

    id: str
    args: dict

    @classmethod
    def of(cls, id_: str, **args) -> Msg:
        obj = super().__new__(cls, EN[id_].format(**args) if args else EN[id_])
        obj.id, obj.args = id_, args
        return obj

    def __reduce__(self):  # pickles (st.cache_data, multiprocessing) keep the id
        return (_rebuild, (self.id, self.args))


def _rebuild(id_: str, args: dict) -> Msg:
    return Msg.of(id_, **args)


def render(text, lookup) -> str:
    """``text`` in another language: ``lookup(id, **args)`` for a ``Msg`` (its ``Msg`` arguments first), the
    text itself otherwise."""
    if not isinstance(text, Msg):
        return str(text)
    args = {k: render(v, lookup) if isinstance(v, Msg) else v for k, v in text.args.items()}
    return lookup(text.id, **args)


def of_exception(exc: BaseException) -> str:
    """An exception's message, keeping the ``Msg`` the core raised it with (so its catalogue id survives):
    the single argument when there is one string, ``str(exc)`` otherwise."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)


__all__ = ["EN", "Msg", "of_exception", "render"]
