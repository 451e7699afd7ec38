"""`python -m decoding_core run ...`: one decoding to the end on the core the pages use, as JSON.

Bad options exit with status 2 and a one-line message on stderr; logs go to stderr.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys

STRATEGIES = ("greedy", "sample", "beam", "speculative", "eagle")


class UsageError(Exception):
    """A bad option: reported as one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
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


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m decoding_core", description="Decoding Lab's decoding core.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    r = sub.add_parser("run", help="run one decoding to the end and print JSON")
    r.add_argument("--strategy", choices=STRATEGIES, default="greedy")
    r.add_argument("--model", default="embedded")
    r.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "mps"])
    r.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--prompt", help="raw text, tokenized as is")
    src.add_argument("--chat", help="a user message wrapped in the model's chat template")
    r.add_argument("--max-new-tokens", type=int, default=64)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--temperature", type=float, default=1.0)
    r.add_argument("--top-k", type=int, default=None)
    r.add_argument("--top-p", type=float, default=None)
    r.add_argument("--min-p", type=float, default=None)
    r.add_argument("--repetition-penalty", type=float, default=None)
    r.add_argument("--sampler", default="multinomial", choices=["multinomial", "gumbel", "gumbel-block", "exp-race"])
    r.add_argument("--no-stop-at-eos", action="store_true", help="decode max-new-tokens even past EOS")
    r.add_argument("--backend", choices=["eager", "static", "compiled"], default="eager",
                   help="target forward: dynamic KV cache, static KV cache, or static + torch.compile "
                        "(greedy, sample, speculative)")
    # beam
    r.add_argument("--num-beams", type=int, default=4)
    r.add_argument("--eos-policy", choices=["in-beam", "finished-set"], default="finished-set")
    r.add_argument("--length-penalty", type=float, default=1.0)
    r.add_argument("--early-stopping", choices=["true", "false", "never"], default="false")
    r.add_argument("--rp", type=float, default=None, help="relative threshold in (0, 1]")
    r.add_argument("--ap", type=float, default=None, help="absolute threshold >= 0")
    r.add_argument("--rpl", type=float, default=None, help="relative local threshold in (0, 1]")
    r.add_argument("--mc", type=int, default=None, help="max candidates per node >= 1")
    r.add_argument("--sample-prefix", type=int, default=0, help="hybrid: sample this many tokens first")
    # speculative
    r.add_argument("--draft", default="embedded")
    r.add_argument("--n-draft", type=_int_or_auto, default=None,
                   help="draft length N, or auto: the N that maximises tokens/s on this device (default: auto for "
                        "the shipped draft, 4 otherwise)")
    r.add_argument("--verify", choices=["topk", "greedy", "sample"], default="greedy")
    r.add_argument("--verify-k", type=int, default=1)
    r.add_argument("--target-sample", action="store_true",
                   help="top-K verification and EAGLE: the target samples (with the processor options) instead of argmax")
    # eagle
    r.add_argument("--head", choices=["eagle1", "eagle3"], default=None,
                   help="EAGLE head (default: eagle3 where it is shipped, else eagle1)")
    r.add_argument("--tree", choices=["static", "dynamic"], default="dynamic")
    r.add_argument("--tree-top-k", type=int, default=8)
    r.add_argument("--depth", type=_int_or_auto, default="auto",
                   help="tree depth, or auto (default): chosen with --total-tokens for this device")
    r.add_argument("--total-tokens", type=_int_or_auto, default="auto",
                   help="tree size, or auto (default): the size that maximises tokens/s on this device")
    b = sub.add_parser("bench", help="the benchmark runner (see README)")
    b.add_argument("--quick", action="store_true", help="fewer repeats and shorter outputs")
    b.add_argument("--out", default="runs/bench.json")
    b.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "mps"])
    b.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    b.add_argument("--only", default=None, help="comma-separated sections to run")
    return p


def sampling_settings(args):
    from .processors import SamplingSettings

    return SamplingSettings(temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                            min_p=args.min_p, repetition_penalty=args.repetition_penalty)


def build_decoder(lm, args):
    """The decoder for parsed `run` options (raises ValueError on bad values)."""
    from .processors import build_processors

    settings = sampling_settings(args)
    build_processors(settings)  # validate every processor option, whatever the strategy
    common = dict(max_new_tokens=args.max_new_tokens, seed=args.seed, stop_at_eos=not args.no_stop_at_eos)
    backend = getattr(args, "backend", "eager")
    if backend != "eager" and args.strategy in ("beam", "eagle"):
        raise ValueError(f"--backend {backend} applies to greedy, sample and speculative; {args.strategy} runs eager")
    if args.strategy in ("greedy", "sample"):
        from .decoders import AutoregressiveDecoder

        sampler = None if args.strategy == "greedy" else args.sampler
        return AutoregressiveDecoder(lm, settings, sampler, backend=backend, **common)
    if args.strategy == "beam":
        from .beam import BeamSettings, BeamSearchDecoder

        beam = BeamSettings.from_cli(args)
        return BeamSearchDecoder(lm, beam, sampling=settings, sampler=args.sampler, **common)
    if args.strategy == "speculative":
        from .speculative import build_speculative_from_cli

        return build_speculative_from_cli(lm, args, settings, dict(common, backend=backend))
    if args.strategy == "eagle":
        from .eagle import build_eagle_from_cli

        return build_eagle_from_cli(lm, args, settings, common)
    raise ValueError(f"unknown strategy {args.strategy!r}")


def cmd_run(args) -> int:
    from .models import ModelLoadError, load_model

    if args.max_new_tokens < 1:
        raise UsageError(f"--max-new-tokens must be >= 1, got {args.max_new_tokens}")
    text = args.chat if args.chat is not None else args.prompt
    if not text or not text.strip():
        raise UsageError("the prompt is empty")
    try:
        lm = load_model(args.model, args.device, args.dtype)
        decoder = build_decoder(lm, args)
        prompt_ids = lm.encode(text, chat=args.chat is not None)
        result = decoder.start(prompt_ids).run()
    except (ModelLoadError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    payload = {
        "strategy": args.strategy,
        "settings": {k: v for k, v in vars(args).items() if k not in ("command", "prompt", "chat")},
        "prompt_tokens": result.prompt_tokens,
        "tokens": result.tokens,
        "text": result.text,
        "metrics": result.metrics,
    }
    extra = getattr(decoder, "extra_output", None)
    if extra:
        payload.update(extra())
    json.dump(payload, sys.stdout)
    sys.stdout.write("\n")
    return 0


def main(argv=None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    try:
        args = build_parser().parse_args(argv)
        if args.command == "run":
            return cmd_run(args)
        from .bench import main as bench_main

        return bench_main(args)
    except UsageError as exc:
        print(f"error: {str(exc).splitlines()[0] if str(exc) else 'bad options'}", file=sys.stderr)
        return 2
