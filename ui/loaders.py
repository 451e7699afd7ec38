"""Drafts, heads and device-aware sizes, loaded / measured once per process (st.cache_resource) and
handed to the core as a ``strategies.Loaders``."""
from __future__ import annotations

import streamlit as st

from decoding_core.models import LoadedModel
from decoding_core.strategies import Loaders
from ui.i18n import t


def _key(lm: LoadedModel) -> tuple:
    return (lm.name, str(lm.device), str(lm.dtype))


@st.cache_resource(show_spinner=False, max_entries=4)
def _draft(_target, target_key, source):
    from decoding_core.draft import load_draft

    return load_draft(_target, source)


@st.cache_resource(show_spinner=False, max_entries=4)
def _head(_target, target_key, kind):
    from decoding_core.heads import load_head

    return load_head(_target, kind)


@st.cache_resource(show_spinner=False, max_entries=8)
def _chain(_target, _draft_model, target_key, source, copy, lookup, runner_up):
    from decoding_core.sizing import auto_chain

    return auto_chain(_target, _draft_model, source, copy, lookup, runner_up)


@st.cache_resource(show_spinner=False, max_entries=8)
def _tree(_target, _head_model, target_key, kind, top_k, lookup, corpus):
    from decoding_core.sizing import auto_tree

    return auto_tree(_target, _head_model, kind, top_k, lookup, corpus)


def draft(lm: LoadedModel, source: str):
    with st.spinner(t("load.draft", source=source)):
        return _draft(lm, _key(lm), source)


def head(lm: LoadedModel, kind: str):
    with st.spinner(t("load.head")):
        return _head(lm, _key(lm), kind)


def chain_size(lm: LoadedModel, draft_model, source: str, copy: float = 0.0, lookup: int = 0,
               runner_up: bool = False) -> dict:
    with st.spinner(t("load.chain")):
        return _chain(lm, draft_model, _key(lm), source, copy, lookup, runner_up)


def tree_size(lm: LoadedModel, head_model, kind: str, top_k: int, lookup: int = 0, corpus: bool = False) -> dict:
    with st.spinner(t("load.tree")):
        return _tree(lm, head_model, _key(lm), kind, top_k, lookup, corpus)


@st.cache_resource(show_spinner=False, max_entries=8)  # the spinner is next_logits' (in the session's language)
def _next_logits(_lm, key):
    from decoding_core.studies.sampling import next_token_logits

    return next_token_logits(_lm, list(key[3]))


def next_logits(lab):
    """The raw next-token logits [V] after the sidebar's prompt (one forward, kept per model and prompt)."""
    with st.spinner(t("load.prompt", n=len(lab.prompt_ids))):  # a long prompt takes seconds on a CPU
        return _next_logits(lab.lm, lab.key)


CACHED = Loaders(draft, head, chain_size, tree_size)


def auto_sizes(lm: LoadedModel, strategy):
    """The sizes "auto" stands for in ``strategy`` (Speculative or Eagle) on this device, or None when its
    draft or head cannot load (the page's own check below the controls says why). The pages put them into
    the disabled size sliders, so what a slider shows is what runs."""
    from decoding_core.models import ModelLoadError
    from decoding_core.settings import Speculative
    from decoding_core.strategies import resolve_sizes

    try:
        if isinstance(strategy, Speculative):
            return resolve_sizes(lm, strategy, draft=draft(lm, strategy.draft), loaders=CACHED)
        return resolve_sizes(lm, strategy, head=head(lm, strategy.head), head_kind=strategy.head, loaders=CACHED)
    except (ModelLoadError, ValueError):
        return None
