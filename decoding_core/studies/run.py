"""Run a study by its command-line name (``python -m decoding_core study NAME``)."""
from __future__ import annotations

from dataclasses import replace

from ..models import LoadedModel
from ..settings import Beam, RunSettings, Speculative
from . import beam, compare, sampling, speculative


def study_document(name: str, record, settings: dict, prompt: str, chat: bool, prompt_ids) -> dict:
    """What ``python -m decoding_core study NAME`` prints, and a page's download of the same study: the study, its
    settings, the prompt and the whole record (``as_json``)."""
    from . import as_json

    return {"study": name, "settings": settings, "prompt": prompt, "chat": chat, "prompt_tokens": list(prompt_ids),
            **as_json(record)}


def _instructions(path: str) -> list[str]:
    import json

    try:
        items = json.loads(open(path, encoding="utf-8").read())
    except (OSError, ValueError) as exc:
        raise ValueError(f"--prompts {path}: not a readable JSON list of instructions ({exc})") from exc
    if not isinstance(items, list) or not items or not all(isinstance(t, str) and t.strip() for t in items):
        raise ValueError(f"--prompts {path}: expected a non-empty JSON list of instruction strings")
    return items


def _need(strategy, kind, name: str):
    if not isinstance(strategy, kind):
        raise ValueError(f"the {name} study needs --strategy {kind.name}")
    return strategy


def study_strategy(name: str, strategy, opts: dict):
    """The strategy study ``name`` runs for the given one (None for compare, which runs its own list): pruning-sweep
    runs beam search (a plain beam of ``--num-beams`` when the strategy is not one), topk-drift top-K verification."""
    if name == "pruning-sweep":
        return strategy if strategy.name == "beam" else Beam(replace(Beam().beam, num_beams=opts["num_beams"]))
    if name == "topk-drift":
        return replace(_need(strategy, Speculative, name), rule="topk")
    return None if name == "compare" else strategy


def run_study(name: str, lm: LoadedModel, prompt_ids: list[int], strategy, run: RunSettings, opts: dict,
              others: list | None = None):
    """The record of study ``name``; ``opts`` holds the study's own options (command-line names)."""
    s = getattr(strategy, "sampling", None)
    if name == "next-token":
        return sampling.next_token(lm, prompt_ids, s, opts["top_n"])
    if name == "sampler-fit":
        names = tuple(x.strip() for x in opts["samplers"].split(",") if x.strip())
        return sampling.sampler_fit(lm, prompt_ids, s, names, opts["draws"], run.seed)
    if name == "reused-noise":
        return sampling.reused_noise(lm, prompt_ids, s, opts["steps"], run.seed)
    if name == "pruning":
        return beam.pruning_savings(lm, prompt_ids, _need(strategy, Beam, name), run)
    if name == "diversity":
        return beam.diversity(lm, prompt_ids, _need(strategy, Beam, name), run, opts["seeds"], opts["prefix_m"])
    if name == "n-sweep":
        return speculative.n_sweep(lm, prompt_ids, _need(strategy, Speculative, name), run, opts["max_n"])
    if name == "topk-drift":
        from ..draft import load_draft

        spec = study_strategy(name, strategy, opts)
        return speculative.topk_drift(lm, load_draft(lm, spec.draft), prompt_ids, spec, opts["drift_k"],
                                      opts["trials"], run.seed)
    if name == "sampling-cost":
        from ..sizing import forward_now, known_forward_costs
        from .sampling_cost import sampling_cost

        ints = lambda text: tuple(int(x) for x in text.split(",") if x.strip())  # noqa: E731
        regimes = ("one", "new") if opts["regime"] == "both" else (opts["regime"],)
        return sampling_cost(sampling.next_token_logits(lm, prompt_ids), ks=ints(opts["k"]) if opts["k"] else None,
                             ns=ints(opts["n"]), regimes=regimes, budget_s=opts["budget"], seed=run.seed,
                             probe=lambda: forward_now(lm),  # the JSON's "probes" and "probe_quiet": busy?
                             probe_quiet=(known_forward_costs(lm) or {}).get(1))
    if name == "pruning-sweep":
        from .pruning import pruning_sweep

        beam_strategy = study_strategy(name, strategy, opts)
        prompts = [prompt_ids] if prompt_ids else [lm.encode(t, chat=True) for t in _instructions(opts["prompts"])]
        return pruning_sweep(lm, prompts, beam_strategy, run)
    if name == "compare":
        return compare.compare(lm, prompt_ids, others or [strategy], run)
    raise ValueError(f"unknown study {name!r}")
