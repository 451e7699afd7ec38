"""Typed, frozen, self-validating settings: what a decoding or a study is run WITH.

Every strategy has one settings class; a run adds the budget, seed, backend and EOS rule. Each class
checks its fields in ``__post_init__`` and names the field in its message, so a page, the command
line and a notebook get the same error for the same bad value. The choice lists (samplers, rules,
trees, heads, ...) live here once; the pages' controls and the CLI read them from here.

No torch import: the pages import this module to build settings without touching the engine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("float32", "bfloat16", "float16")
BACKENDS = ("eager", "static", "compiled")
SAMPLERS = ("multinomial", "gumbel", "gumbel-block", "exp-race", "binary-search", "alias", "linear-scan")
EOS_POLICIES = ("finished-set", "in-beam")
EARLY_STOPPING = {"true": True, "false": False, "never": "never"}
RULES = ("greedy", "topk", "sample")
TREES = ("dynamic", "static")
HEADS = ("eagle1", "eagle3")
DRAFT_KINDS = ("embedded", "prompt-lookup")   # or any model id / folder
BENCH_SECTIONS = ("hardware", "sizing", "greedy", "backends", "bf16", "sample", "beam", "lookup", "speculative",
                  "eagle", "studies", "samplers", "overhead")  # python -m decoding_core bench --only ...
STRATEGIES = ("greedy", "sample", "beam", "stochastic-beam", "speculative", "eagle")
REFERENCE_TREE = (32, 5)   # (total tokens, depth) used where no device-aware size is known
LOOKUP_MAX = 16            # the longest prompt-lookup branch an EAGLE tree or a speculative chain may add
N_MAX = 32                 # the longest draft chain (the app's slider stops at 12; the verify pass grows with N)
REFERENCE_N = 4            # draft length used where no device-aware N is known
COPY_MAX = 0.9             # the largest copy weight a speculative draft's q may be mixed with
COPY_WEIGHT = 0.3          # the copy weight measured (scripts/eval_tau.py --copy) and benchmarked


def _number(name: str, value, lo=None, hi=None, lo_open=False, integer=False):
    """Check one numeric field: a finite number (an int if ``integer``) in [lo, hi] (or (lo, hi])."""
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok_type or (not integer and not math.isfinite(value)):
        raise ValueError(f"{name} must be {'an integer' if integer else 'a finite number'}, got {value!r}")
    if lo is not None and (value <= lo if lo_open else value < lo):
        raise ValueError(f"{name} must be {'>' if lo_open else '>='} {lo}, got {value!r}")
    if hi is not None and value > hi:
        raise ValueError(f"{name} must be <= {hi}, got {value!r}")


def _choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}, got {value!r}")


@dataclass(frozen=True)
class RunSettings:
    """What every decoding shares: the budget, the seed of every random draw, the target's forward path
    (fastpath.py) and whether an EOS token ends the output."""

    max_new_tokens: int = 64
    seed: int = 0
    backend: str = "eager"
    stop_at_eos: bool = True

    def __post_init__(self):
        _number("max new tokens", self.max_new_tokens, lo=1, integer=True)
        _number("seed", self.seed, lo=0, hi=2**63 - 1, integer=True)
        _choice("backend", self.backend, BACKENDS)


@dataclass(frozen=True)
class SamplingSettings:
    """What turns raw logits into the distribution a token is drawn from. None = rule off."""

    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None

    def __post_init__(self):
        _number("temperature", self.temperature, lo=0, lo_open=True)
        if self.top_k is not None:
            _number("top-k", self.top_k, lo=0, integer=True)
        if self.top_p is not None:
            _number("top-p", self.top_p, lo=0, hi=1, lo_open=True)
        if self.min_p is not None:
            _number("min-p", self.min_p, lo=0, hi=1)
        if self.repetition_penalty is not None:
            _number("repetition penalty", self.repetition_penalty, lo=0, lo_open=True)

    def for_argmax(self) -> "SamplingSettings":
        """What still applies when the token is an argmax (greedy, greedy verification): temperature,
        top-k/p and min-p never change the argmax; a repetition penalty does."""
        return SamplingSettings(repetition_penalty=self.repetition_penalty)


@dataclass(frozen=True)
class BeamSettings:
    """Beam search with Freitag & Al-Onaizan pruning (None = rule off) and the hybrid sampled prefix."""

    num_beams: int = 4
    eos_policy: str = "finished-set"          # or "in-beam"
    length_penalty: float = 1.0               # finished-set only
    early_stopping: bool | str = False        # True, False or "never" (finished-set only)
    rp: float | None = None
    ap: float | None = None
    rpl: float | None = None
    mc: int | None = None
    literal_rp: bool = False                  # the notes' relative rule applied literally (pitfall)
    sample_prefix: int = 0                    # hybrid: sample this many tokens first

    def __post_init__(self):
        _number("beam width", self.num_beams, lo=1, integer=True)
        _choice("EOS policy", self.eos_policy, EOS_POLICIES)
        if self.early_stopping not in (True, False, "never"):
            raise ValueError(f"early stopping must be true, false or never, got {self.early_stopping!r}")
        _number("length penalty", self.length_penalty)
        if self.rp is not None:
            _number("relative threshold rp", self.rp, lo=0, hi=1, lo_open=True)
        if self.ap is not None:
            _number("absolute threshold ap", self.ap, lo=0)
        if self.rpl is not None:
            _number("relative local threshold rpl", self.rpl, lo=0, hi=1, lo_open=True)
        if self.mc is not None:
            _number("max candidates per node mc", self.mc, lo=1, integer=True)
        _number("sample prefix", self.sample_prefix, lo=0, integer=True)

    @property
    def pruning(self) -> bool:
        return any(v is not None for v in (self.rp, self.ap, self.rpl, self.mc))

    def without_pruning(self) -> "BeamSettings":
        return BeamSettings(self.num_beams, self.eos_policy, self.length_penalty, self.early_stopping,
                            sample_prefix=self.sample_prefix)


@dataclass(frozen=True)
class Greedy:
    """Argmax at every step (a repetition penalty in ``sampling`` still applies)."""

    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    name = "greedy"


@dataclass(frozen=True)
class Sample:
    """Ancestral sampling through the processors with a named sampler."""

    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    sampler: str = "multinomial"
    name = "sample"

    def __post_init__(self):
        _choice("sampler", self.sampler, SAMPLERS)


@dataclass(frozen=True)
class Beam:
    """Beam search; ``sampling`` and ``sampler`` draw the hybrid's sampled prefix."""

    beam: BeamSettings = field(default_factory=BeamSettings)
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    sampler: str = "multinomial"
    name = "beam"

    def __post_init__(self):
        _choice("prefix sampler", self.sampler, SAMPLERS)


@dataclass(frozen=True)
class StochasticBeam:
    """Stochastic beam search (Kool et al. 2019): k sequences sampled without replacement, at a temperature."""

    num_beams: int = 4
    temperature: float = 1.0
    name = "stochastic-beam"

    def __post_init__(self):
        _number("beam width", self.num_beams, lo=1, integer=True)
        _number("temperature", self.temperature, lo=0, lo_open=True)


@dataclass(frozen=True)
class Speculative:
    """Draft N tokens (``draft``: embedded, prompt-lookup, or a model id / folder), verify in one pass.
    ``n_draft`` "auto" = the N that maximises tokens/s on this device (the shipped draft only)."""

    draft: str = "embedded"
    n_draft: int | str = "auto"
    rule: str = "greedy"
    verify_k: int = 1
    target_sample: bool = False               # top-K: the target samples its own token instead of argmax
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    stop_below: float = 0.0                   # stop drafting after a token with draft confidence q(y) below this
    copy: float = COPY_WEIGHT                 # mix the draft's q with a copy of the context: (1 - copy) q + copy [c]
    lookup: int = 8                           # verify beside the chain a branch of up to this many copied tokens
    runner_up: bool = True                    # ... and a second guess at every position (a leaf; sampled: q minus y)
    name = "speculative"
    BEFORE_FIELD = {"copy": 0.0, "lookup": 0, "runner_up": False}  # how runs saved before these fields existed ran

    def __post_init__(self):
        if not isinstance(self.draft, str) or not self.draft.strip():
            raise ValueError("draft must be embedded, prompt-lookup or a model id / folder")
        if self.n_draft != "auto":
            _number("draft length N", self.n_draft, lo=1, hi=N_MAX, integer=True)
        _choice("verification rule", self.rule, RULES)
        _number("K (top-K verification)", self.verify_k, lo=1, integer=True)
        _number("confidence stop", self.stop_below, lo=0.0, hi=0.99)
        _number("copy weight", self.copy, lo=0.0, hi=COPY_MAX)
        _number("lookup branch", self.lookup, lo=0, hi=LOOKUP_MAX, integer=True)
        if not isinstance(self.runner_up, bool):
            raise ValueError(f"runner-up leaves must be true or false, got {self.runner_up!r}")

    @property
    def samples(self) -> bool:
        """Whether tokens are drawn (rejection sampling, or a sampling target under top-K)."""
        return self.rule == "sample" or (self.rule == "topk" and self.target_sample)


@dataclass(frozen=True)
class Eagle:
    """EAGLE with a shipped head (None = the default head) and a static or dynamic tree; ``depth`` and
    ``total_tokens`` "auto" = the size that maximises tokens/s on this device (dynamic trees). ``lookup`` > 0 adds
    one more branch to every tree: up to that many tokens copied from the context (prompt lookup), verified with
    the rest; ``corpus``: where prompt lookup finds nothing, the branch is drafted from the corpus datastore (the
    embedded target's own training answers, ``datastore.py``) instead."""

    head: str | None = None
    tree: str = "dynamic"
    top_k: int = 8
    depth: int | str = "auto"
    total_tokens: int | str = "auto"
    sample: bool = False
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    lookup: int = 0
    corpus: bool = False
    name = "eagle"

    def __post_init__(self):
        if self.head is not None:
            _choice("head", self.head, HEADS)
        _choice("tree", self.tree, TREES)
        _number("tree top-k", self.top_k, lo=1, hi=64, integer=True)
        if self.depth != "auto":
            _number("tree depth", self.depth, lo=1, hi=12, integer=True)
        if self.total_tokens != "auto":
            _number("total tokens", self.total_tokens, lo=2, hi=256, integer=True)
        _number("lookup branch", self.lookup, lo=0, hi=LOOKUP_MAX, integer=True)
        if not isinstance(self.corpus, bool):
            raise ValueError(f"corpus must be true or false, got {self.corpus!r}")
        if self.corpus and not self.lookup:
            raise ValueError("the corpus branch is the lookup branch's fallback: give the lookup branch a length > 0")

    @property
    def auto(self) -> bool:
        return self.tree == "dynamic" and "auto" in (self.depth, self.total_tokens)


Strategy = Greedy | Sample | Beam | StochasticBeam | Speculative | Eagle
