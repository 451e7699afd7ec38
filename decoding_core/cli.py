"""The command line: `run` (one decoding to the end; `--out FILE` writes the whole run), `replay FILE` (decode a
run file again, exit 0 only on equal tokens), `study NAME` (one of the pages' experiments) and `bench`, each
printing JSON on the core the pages use. Arguments become typed settings here and only
here (settings.py); decoders are built from them by strategies.build_decoder.

Bad options exit with status 2 and a one-line message on stderr; logs go to stderr.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys

from .settings import (BACKENDS, BENCH_SECTIONS, DEVICES, DTYPES, EARLY_STOPPING, EOS_POLICIES, HEADS, N_MAX, RULES,
                       SAMPLERS, STRATEGIES, TREES, Beam, BeamSettings, Eagle, Greedy, RunSettings, Sample,
                       SamplingSettings, Speculative, StochasticBeam)


class UsageError(Exception):
    """A bad option: reported as one line on stderr, exit status 2."""


def _has_default(action) -> bool:
    """A default worth printing: not None, not a flag's False, not suppressed (0 is one: ``--seed``)."""
    return not (action.default is None or action.default is False or action.default == argparse.SUPPRESS)


class _Help(argparse.HelpFormatter):
    """--help gives each option's default (unless its text already says it, or there is none)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.option_strings and _has_default(action) and "default" not in text:
            text += (" " if text else "") + "(default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):
        action = super().add_argument(*args, **kwargs)
        if not action.help and action.option_strings and _has_default(action):
            action.help = "(default: %(default)s)"  # argparse shows no line at all for an option without help
        return action

    def error(self, message):  # one line, status 2 (argparse's default prints the usage too)
        raise UsageError(message)


def _bool(text: str) -> bool:
    low = text.lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _int_or_auto(text: str):
    if text == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or auto, got {text!r}") from None


def add_run_options(r: argparse.ArgumentParser, prompt_required: bool = True) -> None:
    """The options of one decoding (model, prompt, budget, processors, every strategy's settings)."""
    r.add_argument("--strategy", choices=STRATEGIES, default="greedy")
    r.add_argument("--model", default="embedded")
    r.add_argument("--device", default="auto", choices=DEVICES)
    r.add_argument("--dtype", default="float32", choices=DTYPES)
    src = r.add_mutually_exclusive_group(required=prompt_required)
    src.add_argument("--prompt", help="raw text, tokenized as is")
    src.add_argument("--chat", help="a user message wrapped in the model's chat template")
    r.add_argument("--max-new-tokens", type=int, default=64)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--temperature", type=float, default=1.0)
    r.add_argument("--top-k", type=int, default=None, help="keep the k most likely tokens (0 or none: off)")
    r.add_argument("--top-p", type=float, default=None)
    r.add_argument("--min-p", type=float, default=None)
    r.add_argument("--repetition-penalty", type=float, default=None)
    r.add_argument("--sampler", default="multinomial", choices=SAMPLERS)
    r.add_argument("--no-stop-at-eos", action="store_true", help="decode max-new-tokens even past EOS")
    r.add_argument("--backend", choices=BACKENDS, default="eager",
                   help="target forward: dynamic KV cache, static KV cache, or static + torch.compile "
                        "(greedy, sample, speculative)")
    # beam
    r.add_argument("--num-beams", type=int, default=4)
    r.add_argument("--eos-policy", choices=EOS_POLICIES, default="finished-set")
    r.add_argument("--length-penalty", type=float, default=1.0)
    r.add_argument("--early-stopping", choices=list(EARLY_STOPPING), default="false")
    r.add_argument("--rp", type=float, default=None, help="relative threshold in (0, 1]")
    r.add_argument("--ap", type=float, default=None, help="absolute threshold >= 0")
    r.add_argument("--rpl", type=float, default=None, help="relative local threshold in (0, 1]")
    r.add_argument("--mc", type=int, default=None, help="max candidates per node >= 1")
    r.add_argument("--sample-prefix", type=int, default=0, help="hybrid: sample this many tokens first")
    # speculative
    r.add_argument("--draft", default="embedded", help="embedded, prompt-lookup, or a model id / folder")
    r.add_argument("--n-draft", type=_int_or_auto, default="auto",
                   help=f"draft length N (1 to {N_MAX}), or auto (default): the N that maximises tokens/s on this "
                        "device for the shipped draft, the reference N = 4 for other drafts")
    r.add_argument("--stop-below", type=float, default=0.0,
                   help="stop drafting after a token the draft gave probability below this (0, default: always N; "
                        "transformers' assisted generation stops below 0.4)")
    r.add_argument("--copy", type=float, default=Speculative.copy,
                   help="mix the draft's distribution with a copy of the context: q' = (1 - w) q + w [the token that "
                        "followed the latest earlier occurrence of the last 2-3 tokens]; 0 = the draft alone")
    r.add_argument("--runner-up", action=argparse.BooleanOptionalAction, default=Speculative.runner_up,
                   help="verify a second guess beside every drafted token too (a leaf of the step's tree: the draft's "
                        "second choice; under --verify sample a second draw without the first token; on by default)")
    r.add_argument("--verify", choices=RULES, default="greedy")
    r.add_argument("--verify-k", type=int, default=1)
    r.add_argument("--target-sample", action="store_true",
                   help="top-K verification and EAGLE: the target samples (with the processor options) instead of argmax")
    # eagle
    r.add_argument("--head", choices=HEADS, default=None,
                   help="EAGLE head (default: the shipped head with the higher held-out tau)")
    r.add_argument("--tree", choices=TREES, default="dynamic")
    r.add_argument("--tree-top-k", type=int, default=8, help="children per expanded node (dynamic trees)")
    r.add_argument("--depth", type=_int_or_auto, default="auto",
                   help="tree depth, or auto (default): chosen with --total-tokens for this device (dynamic trees; "
                        "the static tree has its own shape)")
    r.add_argument("--total-tokens", type=_int_or_auto, default="auto",
                   help="tree size, or auto (default): the size that maximises tokens/s on this device (dynamic "
                        "trees)")
    r.add_argument("--lookup", type=int, default=None,
                   help="EAGLE and speculative: verify beside the draft a branch of up to this many tokens copied "
                        f"from the context (prompt lookup; 0 = none; default {Eagle.lookup} for EAGLE, "
                        f"{Speculative.lookup} for speculative)")
    r.add_argument("--corpus-branch", action="store_true",
                   help="EAGLE with --lookup > 0: where prompt lookup finds nothing, draft the branch from the corpus "
                        "datastore (the embedded target's own training answers; decoding_core/datastore.py)")


STUDY_OPTIONS = (  # each study's own options (the study that reads one is named first in its help)
    ("--prompts", dict(default=None, help="pruning-sweep: a JSON list of instructions (chat template applied), "
                                          "instead of --chat / --prompt")),
    ("--top-n", dict(type=int, default=25, help="next-token: tokens shown")),
    ("--draws", dict(type=int, default=10000, help="sampler-fit: draws M")),
    ("--samplers", dict(default="multinomial,gumbel", help="sampler-fit: comma-separated samplers")),
    ("--steps", dict(type=int, default=500, help="reused-noise: steps T")),
    ("--seeds", dict(type=int, default=4, help="diversity: seeds n")),
    ("--prefix-m", dict(type=int, default=3, help="diversity: sampled prefix m")),
    ("--max-n", dict(type=int, default=8, help="n-sweep: N from 1 to this")),
    ("--drift-k", dict(type=int, default=5, help="topk-drift: K")),
    ("--trials", dict(type=int, default=3000, help="topk-drift: trials")),
    ("--strategies", dict(default="greedy,sample,beam,speculative,eagle",
                          help="compare: comma-separated strategies, each with this command's options")),
    ("--k", dict(default=None, help="sampling-cost: comma-separated category counts (default 100,1000,10000,V)")),
    ("--n", dict(default="1,10,100,1000,10000,100000", help="sampling-cost: comma-separated draw counts")),
    ("--regime", dict(choices=["one", "new", "both"], default="both",
                      help="sampling-cost: n draws from one distribution, one draw per new distribution, or both")),
    ("--budget", dict(type=float, default=1.0, help="sampling-cost: seconds allowed per measured point")),
)
STUDY_DEFAULTS = {flag[2:].replace("-", "_"): kwargs["default"] for flag, kwargs in STUDY_OPTIONS}


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m decoding_core", description="Decoding Lab's decoding core.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    r = sub.add_parser("run", help="run one decoding to the end and print JSON")
    add_run_options(r)
    r.add_argument("--out", default=None, help="also write the whole run (settings, every step, metrics, versions) "
                                               "as JSON to this file (decoding_core/export.py; read back by replay)")
    rp = sub.add_parser("replay", help="decode a run file (run --out, or a page's JSON download) again; exit 0 "
                                       "only if the tokens are equal")
    rp.add_argument("file", help="a JSON file written by run --out or downloaded from a page")
    st = sub.add_parser("study", help="run one of the pages' experiments and print its record as JSON")
    st.add_argument("name", choices=list(STUDIES), help="; ".join(f"{k}: {v}" for k, v in STUDIES.items()))
    add_run_options(st, prompt_required=False)
    for flag, kwargs in STUDY_OPTIONS:
        st.add_argument(flag, **kwargs)
    b = sub.add_parser("bench", help="the benchmark runner (see README)")
    b.add_argument("--quick", action="store_true", help="fewer repeats and shorter outputs")
    b.add_argument("--out", default="runs/bench.json")
    b.add_argument("--device", default="auto", choices=DEVICES)
    b.add_argument("--dtype", default="float32", choices=DTYPES)
    b.add_argument("--only", default=None, help="comma-separated sections to run, of: " + ", ".join(BENCH_SECTIONS)
                   + " (default: all)")
    return p


STUDIES = {"next-token": "the next-token distribution before and after the processors",
           "sampler-fit": "M draws from one distribution per sampler against the exact probabilities",
           "reused-noise": "T draws with fresh Gumbel noise against noise drawn once and reused",
           "pruning": "the beam search with pruning on and off",
           "diversity": "plain beam search against sample-then-beam over several seeds",
           "n-sweep": "speculative decoding for every draft length N, with the theory",
           "topk-drift": "the first token under top-K verification and rejection sampling, many trials",
           "compare": "strategies side by side on one prompt and seed",
           "sampling-cost": "what drawing a token costs, per method, in both regimes (the notes' table)",
           "pruning-sweep": "every pruning threshold over a set of prompts: saving against fidelity"}


OPTIONS = {  # settings' field names (in their messages) -> the options that set them
    "max new tokens": "--max-new-tokens", "seed": "--seed", "temperature": "--temperature", "top-k": "--top-k",
    "top-p": "--top-p", "min-p": "--min-p", "repetition penalty": "--repetition-penalty", "beam width": "--num-beams",
    "length penalty": "--length-penalty", "relative threshold rp": "--rp", "absolute threshold ap": "--ap",
    "relative local threshold rpl": "--rpl", "max candidates per node mc": "--mc", "sample prefix": "--sample-prefix",
    "draft length N": "--n-draft", "K (top-K verification)": "--verify-k", "tree top-k": "--tree-top-k",
    "tree depth": "--depth", "total tokens": "--total-tokens", "lookup branch": "--lookup", "draft": "--draft",
    "confidence stop": "--stop-below", "copy weight": "--copy",
}


def with_option(exc: ValueError) -> ValueError:
    """A settings error with the command-line option named first ("--n-draft: draft length N must be ...")."""
    text = str(exc)
    field = max((f for f in OPTIONS if text.startswith(f + " ")), key=len, default=None)
    return ValueError(f"{OPTIONS[field]}: {text}") if field else exc


def sampling_settings(args) -> SamplingSettings:
    return SamplingSettings(temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                            min_p=args.min_p, repetition_penalty=args.repetition_penalty)


def run_settings(args) -> RunSettings:
    try:
        return RunSettings(args.max_new_tokens, args.seed, args.backend, not args.no_stop_at_eos)
    except ValueError as exc:
        raise with_option(exc) from exc


def strategy_settings(args, name: str | None = None):
    """The typed settings of ``--strategy`` (or ``name``) from parsed options (ValueError on bad values, the
    option named first)."""
    try:
        return _strategy_settings(args, name or args.strategy)
    except ValueError as exc:
        raise with_option(exc) from exc


def _strategy_settings(args, name: str):
    sampling = sampling_settings(args)
    if name == "greedy":
        return Greedy(sampling)
    if name == "sample":
        return Sample(sampling, args.sampler)
    if name == "beam":
        beam = BeamSettings(args.num_beams, args.eos_policy, args.length_penalty, EARLY_STOPPING[args.early_stopping],
                            args.rp, args.ap, args.rpl, args.mc, sample_prefix=args.sample_prefix)
        return Beam(beam, sampling, args.sampler)
    if name == "stochastic-beam":
        return StochasticBeam(args.num_beams, args.temperature)
    if name == "speculative":
        return Speculative(args.draft, args.n_draft, args.verify, args.verify_k, args.target_sample, sampling,
                           args.stop_below, args.copy, Speculative.lookup if args.lookup is None else args.lookup,
                           args.runner_up)
    if name == "eagle":
        return Eagle(args.head, args.tree, args.tree_top_k, args.depth, args.total_tokens, args.target_sample, sampling,
                     Eagle.lookup if args.lookup is None else args.lookup, args.corpus_branch)
    raise ValueError(f"unknown strategy {name!r}: choose from {', '.join(STRATEGIES)}")


COMMON = {"command", "strategy", "model", "device", "dtype", "prompt", "chat", "max_new_tokens", "seed",
          "no_stop_at_eos", "backend", "out", "name", "prompts"}
PROCESSORS = {"temperature", "top_k", "top_p", "min_p", "repetition_penalty"}
READS = {  # the options each strategy reads (besides COMMON); the study options are the studies' own
    "greedy": PROCESSORS, "sample": PROCESSORS | {"sampler"},
    "beam": PROCESSORS | {"sampler", "num_beams", "eos_policy", "length_penalty", "early_stopping", "rp", "ap", "rpl",
                          "mc", "sample_prefix"},
    "stochastic-beam": {"num_beams", "temperature"},
    "speculative": PROCESSORS | {"draft", "n_draft", "stop_below", "copy", "runner_up", "verify", "verify_k",
                                 "target_sample", "lookup"},
    "eagle": PROCESSORS | {"head", "tree", "tree_top_k", "depth", "total_tokens", "target_sample", "lookup",
                           "corpus_branch"},
}


def ignored_options(args, parser_defaults: dict) -> list[str]:
    """The options given a non-default value that ``--strategy`` does not read (for a warning, not an error: a
    script may pass one set of options to several strategies)."""
    reads = READS.get(args.strategy, set())
    if args.strategy == "eagle" and args.tree == "static":
        reads = reads - {"tree_top_k", "depth", "total_tokens"}
    return _changed_unread(args, parser_defaults, COMMON | reads)


def _changed_unread(args, defaults: dict, reads) -> list[str]:
    """The options (in ``defaults``' order) whose value is not their default and that are not in ``reads``."""
    return ["--" + k.replace("_", "-") for k, default in defaults.items()
            if k not in reads and getattr(args, k, default) != default]


def run_options_defaults() -> dict:
    parser = argparse.ArgumentParser(add_help=False)
    add_run_options(parser, prompt_required=False)
    return {a.dest: a.default for a in parser._actions}


def readable_text(lm, tokens, eos_ids, max_new_tokens: int) -> dict:
    """stdout's ``text`` without the end-of-text marker a finished text ends with (``<|im_end|>``; the token stays in
    ``tokens`` and the run file), and what ended the text."""
    tokens = list(tokens)
    ended = ("eos" if tokens and tokens[-1] in eos_ids else "max_new_tokens" if len(tokens) >= max_new_tokens
             else "stopped")  # stopped: neither (a beam search whose every candidate was pruned)
    return {"text": lm.decode(tokens[:-1] if ended == "eos" else tokens), "ended_by": ended}


def cmd_run(args) -> int:
    from .models import ModelLoadError, load_model

    if args.max_new_tokens < 1:
        raise UsageError(f"--max-new-tokens must be >= 1, got {args.max_new_tokens}")
    text = args.chat if args.chat is not None else args.prompt
    if not text or not text.strip():
        raise UsageError("the prompt is empty")
    ignored = ignored_options(args, run_options_defaults())
    if ignored:
        logging.warning("note: %s not read by --strategy %s%s", ", ".join(ignored), args.strategy,
                        " --tree static" if args.strategy == "eagle" and args.tree == "static" else "")
    if args.out:
        from pathlib import Path

        folder = Path(args.out).expanduser().resolve().parent
        if not folder.is_dir():  # said before the decoding, not after it
            raise UsageError(f"--out {args.out}: the folder {folder} does not exist")
    try:
        strategy, run = strategy_settings(args), run_settings(args)  # bad values fail before the model loads
        lm = load_model(args.model, args.device, args.dtype)
        from .strategies import build_decoder as build

        decoder = build(lm, strategy, run)
        prompt_ids = lm.encode(text, chat=args.chat is not None)
        result = decoder.start(prompt_ids).run()
    except (ModelLoadError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    from .export import resolved, to_json

    payload = {  # the settings as the run file (--out) writes them: the fields this strategy has, the sizes it used
        "strategy": args.strategy,
        "settings": {"strategy": to_json(resolved(strategy, decoder)), "run": to_json(run), "model": args.model,
                     "device": args.device, "dtype": args.dtype},
        "prompt": text,
        "chat": args.chat is not None,
        "prompt_tokens": result.prompt_tokens,
        "tokens": result.tokens,
        "text": result.text,
        "metrics": result.metrics,
    }
    payload.update(readable_text(lm, result.tokens, decoder.eos_ids, run.max_new_tokens))
    extra = getattr(decoder, "extra_output", None)
    if extra:
        payload.update(extra())
    if args.out:
        from .export import run_record

        record = run_record(lm, strategy, run, decoder, text, args.chat is not None, args.model, args.device,
                            args.dtype)
        try:
            with open(args.out, "w") as f:
                json.dump(record, f)
        except OSError as exc:
            raise UsageError(f"--out {args.out}: {exc}") from exc
    json.dump(payload, sys.stdout)
    sys.stdout.write("\n")
    return 0


def _replay_columns(rec: dict, lm) -> list[dict]:
    """Every column of a comparison file decoded again: its tokens then and now."""
    from .strategies import build_decoder as build
    from .studies.compare import column_run

    out = []
    for col in rec["columns"]:
        run = column_run(col["strategy"], col["run"])
        result = build(lm, col["strategy"], run).start(rec["prompt_ids"]).run()
        out.append({"column": col["column"], "spec": col["spec"], "equal": list(result.tokens) == list(col["tokens"]),
                    "tokens": list(result.tokens), "expected": col["tokens"]})
    return out


def cmd_replay(args) -> int:
    """Decode a run file's prompt ids with its settings on its model (a comparison file: every column); 0 if the
    tokens are the file's, else 1."""
    from .export import COMPARE_SCHEMA, read_export
    from .models import ModelLoadError, load_model
    from .strategies import build_decoder as build

    try:
        rec = read_export(args.file)
        compare_file = rec["schema"] == COMPARE_SCHEMA
        s = rec["settings"]
        lm = load_model(s["model"], s["device"], s["dtype"])
        if compare_file:
            columns = _replay_columns(rec, lm)
            equal = all(c["equal"] for c in columns)
            json.dump({"file": args.file, "equal": equal, "columns": columns, "versions_then": rec.get("versions")},
                      sys.stdout)
            sys.stdout.write("\n")
            return 0 if equal else 1
        dec = build(lm, s["strategy"], s["run"]).start(rec["prompt_ids"])
        for _ in range(len(rec["steps"])):  # as many steps as the file took (a page may export mid-run)
            if dec.done:
                break
            dec.step()
        result = dec.result()
    except (OSError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{args.file}: not a readable run file ({type(exc).__name__}: {exc})") from exc
    except (ModelLoadError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    equal = list(result.tokens) == list(rec["tokens"])
    json.dump({"file": args.file, "equal": equal, "tokens": list(result.tokens), "expected": rec["tokens"],
               "versions_then": rec.get("versions")}, sys.stdout)
    sys.stdout.write("\n")
    return 0 if equal else 1


STUDY_READS = {  # each study's own options (command-line dests)
    "next-token": ("top_n",), "sampler-fit": ("samplers", "draws"), "reused-noise": ("steps",), "pruning": (),
    "diversity": ("seeds", "prefix_m"), "n-sweep": ("max_n",), "topk-drift": ("drift_k", "trials"),
    "compare": ("strategies",), "sampling-cost": ("k", "n", "regime", "budget"), "pruning-sweep": ("prompts",),
}  # every study reads the run options as well; STUDY_OPTIONS (above) are the studies' own


def study_ignored(args) -> list[str]:
    """The study options given a non-default value that study ``args.name`` does not read."""
    return _changed_unread(args, STUDY_DEFAULTS, STUDY_READS[args.name])


def cmd_study(args) -> int:
    from .models import ModelLoadError, load_model
    from .studies.run import run_study, study_document, study_strategy

    text = args.chat if args.chat is not None else args.prompt
    if args.prompts and args.name != "pruning-sweep":
        raise UsageError("--prompts applies to the pruning-sweep study only")
    if not args.prompts and (not text or not text.strip()):
        raise UsageError("the prompt is empty: give --prompt or --chat")
    if args.name == "n-sweep":  # said before the model loads
        from .studies.speculative import check_max_n

        try:
            check_max_n(args.max_n)
        except ValueError as exc:
            raise UsageError(f"--max-n: {exc}") from exc
    unread = study_ignored(args)
    if unread:
        logging.warning("note: %s not read by the %s study", ", ".join(unread), args.name)
    try:
        strategy = strategy_settings(args)
        others = [strategy_settings(args, n.strip()) for n in args.strategies.split(",") if n.strip()]
        run = run_settings(args)
        lm = load_model(args.model, args.device, args.dtype)
        prompt_ids = lm.encode(text, chat=args.chat is not None) if not args.prompts else []
        record = run_study(args.name, lm, prompt_ids, strategy, run, vars(args), others)
    except (ModelLoadError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    from .export import to_json

    ran = study_strategy(args.name, strategy, vars(args))  # what the study ran (pruning-sweep: a beam; topk-drift:
    settings = {"run": to_json(run), "model": args.model, "device": args.device,  # top-K; compare: its list)
                "dtype": args.dtype, "study": {k: getattr(args, k) for k in STUDY_READS[args.name]}}
    if ran is not None:
        settings = {"strategy": to_json(ran), **settings}
    if args.name == "compare":
        settings["strategies"] = [to_json(o) for o in others]
    json.dump(study_document(args.name, record, settings, text, args.chat is not None, prompt_ids), sys.stdout)
    sys.stdout.write("\n")
    return 0


def main(argv=None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    try:
        args = build_parser().parse_args(argv)
        if args.command == "run":
            return cmd_run(args)
        if args.command == "study":
            return cmd_study(args)
        if args.command == "replay":
            return cmd_replay(args)
        from .bench import main as bench_main

        try:
            return bench_main(args)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    except UsageError as exc:
        print(f"error: {str(exc).splitlines()[0] if str(exc) else 'bad options'}", file=sys.stderr)
        return 2
