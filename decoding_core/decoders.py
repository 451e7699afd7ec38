"""The step-wise decoder contract and the autoregressive (greedy / sampling) decoders.

A decoder is a small object: ``start(prompt_ids)``, ``step() -> StepRecord``, ``done``, ``result()``
and ``run()``. It owns its KV cache, its ``torch.Generator`` and its history; the model is shared
read-only. Step records are frozen and hold small CPU data only (top-k slices, ids, scores).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import torch
from transformers import DynamicCache

from .fastpath import TargetPass, crop_to  # noqa: F401 - crop_to is part of this module's API
from .messages import Msg
from .models import LoadedModel
from .processors import SamplingSettings, apply_processors, build_processors
from .samplers import make_sampler

TOP_N = 20  # how many candidates a step record keeps for the pictures


@dataclass(frozen=True)
class DecodeResult:
    prompt_tokens: list[int]
    tokens: list[int]
    text: str
    metrics: dict


@torch.inference_mode()
def forward(model, input_ids: torch.Tensor, cache: DynamicCache, logits_to_keep: int = 0,
            **kwargs) -> torch.Tensor:
    """One target forward over input_ids [B, L] appended to ``cache``; returns float32 logits
    [B, L, V] (or the last ``logits_to_keep`` positions)."""
    out = model(input_ids=input_ids, cache=cache, use_cache=True,
                logits_to_keep=logits_to_keep, **kwargs)
    return out.logits.float()


class Decoder:
    """Base of every decoder: prompt, budget, EOS ids, history, timing and the run loop."""

    strategy = "base"
    backends = ("eager",)  # target forward paths this decoder supports (see fastpath.py)

    def __init__(self, lm: LoadedModel, max_new_tokens: int = 64, seed: int = 0, stop_at_eos: bool = True,
                 backend: str = "eager"):
        if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise ValueError(f"max new tokens must be an integer >= 1, got {max_new_tokens!r}")
        if backend not in self.backends:
            raise ValueError(f"{self.strategy} runs the target with the {' or '.join(self.backends)} backend, "
                             f"not {backend!r}")
        self.lm = lm
        self.target = TargetPass(lm, backend)
        self.max_new_tokens = max_new_tokens
        self.seed = int(seed)
        self.eos_ids = set(lm.eos_ids) if stop_at_eos else set()
        self.history: list = []
        self.prompt_ids: list[int] = []
        self.tokens: list[int] = []
        self.wall_s = 0.0
        self.target_forwards = 0
        self._started = False

    # -- contract -------------------------------------------------------------------------------
    def start(self, prompt_ids: list[int]) -> "Decoder":
        if not prompt_ids:
            raise ValueError(Msg.of("core.err.empty_prompt"))
        limit = getattr(self.lm.model.config, "max_position_embeddings", None)
        if limit and len(prompt_ids) + self.max_new_tokens > limit:
            raise ValueError(f"prompt ({len(prompt_ids)} tokens) + max new tokens ({self.max_new_tokens}) "
                             f"exceeds the model's context of {limit} tokens")
        self.prompt_ids = [int(t) for t in prompt_ids]
        self.tokens, self.history = [], []
        self.wall_s, self.target_forwards = 0.0, 0
        self.generator = torch.Generator(device=self.lm.device).manual_seed(self.seed)
        self._reset()
        self._started = True
        return self

    def step(self):
        if not self._started:
            raise RuntimeError("call start(prompt_ids) before step()")
        if self.done:
            raise RuntimeError("the decoder is done; start again to decode more")
        t0 = time.perf_counter()
        record = self._step(t0)
        self.wall_s += time.perf_counter() - t0
        self.history.append(record)
        return record

    @property
    def done(self) -> bool:
        if not self._started:
            return False
        if len(self.tokens) >= self.max_new_tokens:
            return True
        return bool(self.tokens) and self.tokens[-1] in self.eos_ids

    def run(self) -> DecodeResult:
        while not self.done:
            self.step()
        return self.result()

    def result(self) -> DecodeResult:
        tokens = self.tokens[: self.max_new_tokens]
        return DecodeResult(list(self.prompt_ids), list(tokens), self.lm.decode(tokens), self.metrics())

    def metrics(self) -> dict:
        n = len(self.tokens[: self.max_new_tokens])
        out = {"new_tokens": n, "wall_s": round(self.wall_s, 6), "target_forwards": self.target_forwards,
               "tokens_per_s": round(n / self.wall_s, 3) if self.wall_s > 0 else None, "backend": self.target.active}
        if self.target.fallback:
            out["compile_fallback"] = self.target.fallback
        if self.target.compile_s:
            out["compile_s"] = round(self.target.compile_s, 6)  # inside wall_s: first calls that compiled
            decoding_s = self.wall_s - self.target.compile_s  # what a decoding costs once the graphs exist
            out["tokens_per_s_excluding_compile"] = round(n / decoding_s, 3) if decoding_s > 0 else None
        return out

    # -- for subclasses -------------------------------------------------------------------------
    def _reset(self) -> None:
        raise NotImplementedError

    def _step(self, t0: float):
        raise NotImplementedError


def acceptance_rate(accepted: int, drafted: int) -> float | None:
    """A / D: accepted drafts over drafted tokens (the target's own token NOT counted)."""
    return accepted / drafted if drafted else None


def mean_accepted_length(accepted: int, verify_steps: int) -> float | None:
    """tau = (A + S) / S: tokens per verify pass, the target's own token included (plain decoding = 1)."""
    return (accepted + verify_steps) / verify_steps if verify_steps else None


def speculation_metrics(drafted: int, accepted: int, verify_steps: int, draft_s: float, target_s: float,
                        accepted_per_step: list[int] | None = None) -> dict:
    """The glossary's figures (docs/ALGORITHMS.md section 3): acceptance rate = A / D, mean accepted
    length tau = (A + S) / S, which counts the target's own token (plain decoding = 1.00), and the
    acceptance per depth: the share of verify steps whose accepted drafts reach depth d (1-based)."""
    s = verify_steps
    rate, tau = acceptance_rate(accepted, drafted), mean_accepted_length(accepted, s)
    out = dict(drafted=drafted, accepted=accepted, verify_steps=s,
               acceptance_rate=round(rate, 4) if rate is not None else None,
               mean_accepted_length=round(tau, 4) if tau is not None else None,
               draft_s=round(draft_s, 6), target_s=round(target_s, 6))
    if accepted_per_step:
        deepest = max(accepted_per_step)
        out["acceptance_by_depth"] = [round(sum(n >= d for n in accepted_per_step) / len(accepted_per_step), 4)
                                      for d in range(1, deepest + 1)]
    return out


def metrics_so_far(steps) -> dict:
    """The speculation figures over recorded steps (a speculative or EAGLE history up to a cursor):
    counts only the accepted drafts that were emitted, as the decoder does. Adds ``new_tokens``,
    ``wall_s`` and ``target_forwards`` (every step is one target forward)."""
    verify = [s for s in steps if s.is_verify]
    acc = [min(s.n_accepted, len(s.emitted)) for s in verify]
    out = speculation_metrics(sum(s.n_drafted for s in verify), sum(acc), len(verify),
                              sum(s.draft_s for s in steps), sum(s.target_s for s in steps), acc)
    out.update(new_tokens=sum(len(s.emitted) for s in steps), wall_s=sum(s.elapsed_s for s in steps),
               target_forwards=len(steps))
    return out


class DraftVerifyDecoder(Decoder):
    """Shared by speculative decoding and EAGLE: the draft/verify counters, the EOS cut and the metrics."""

    chosen_by = "given"  # how the draft sizes were set (sizing.chosen_by); reported in metrics["sizes"]

    @functools.cached_property
    def special_ids(self) -> frozenset[int]:
        """Token ids prompt lookup never copies (chat markers and other special tokens: no guess)."""
        return frozenset(getattr(self.lm.tokenizer, "all_special_ids", ()) or ())

    def _reset_counts(self) -> None:
        self.drafted = self.accepted = self.verify_steps = 0
        self.draft_s = self.target_s = 0.0
        self.accepted_per_step: list[int] = []

    @property
    def context(self) -> list[int]:
        return self.prompt_ids + self.tokens

    def _commit(self, accepted: list[int], next_token: int, drafted: int, draft_s: float, target_s: float) -> list[int]:
        """Emit the accepted drafts and the target's own token, cut right after an EOS (even one among the
        drafts), and count only what was emitted: A grows by the accepted drafts that made it out
        (docs/ALGORITHMS.md section 3). Returns the emitted tokens."""
        emitted = list(accepted) + [int(next_token)]
        if self.eos_ids:
            cut = next((i + 1 for i, t in enumerate(emitted) if t in self.eos_ids), len(emitted))
            emitted = emitted[:cut]
        n_emitted_drafts = min(len(accepted), len(emitted))
        self.tokens.extend(emitted)
        self.drafted += drafted
        self.accepted += n_emitted_drafts
        self.accepted_per_step.append(n_emitted_drafts)
        self.verify_steps += 1
        self.draft_s += draft_s
        self.target_s += target_s
        return emitted

    def metrics(self) -> dict:
        return {**super().metrics(), **speculation_metrics(self.drafted, self.accepted, self.verify_steps,
                                                             self.draft_s, self.target_s, self.accepted_per_step)}


@dataclass(frozen=True)
class TokenStep:
    """One autoregressive step: the distribution it drew from (top-N slice) and the token drawn."""

    index: int
    token_id: int
    token_text: str
    raw_prob: float            # softmax of the model's logits
    prob: float                # after the processors: what the token was drawn from
    top_ids: tuple[int, ...]
    top_texts: tuple[str, ...]
    top_raw: tuple[float, ...]
    top_processed: tuple[float, ...]
    kept: int                  # tokens left with probability > 0 after the processors
    entropy: float             # nats, of the processed distribution
    elapsed_s: float
    finished: bool = False


def entropy(p: torch.Tensor) -> float:
    """-sum p log p in nats over the tokens with p > 0, never below 0 (a one-hot row whose mass rounds to
    slightly above 1 would otherwise show as -0.00)."""
    p = p[p > 0].float()
    return max(0.0, float(-(p * p.log()).sum()))


def summarize_distribution(lm: LoadedModel, raw_logits: torch.Tensor, logits: torch.Tensor, top_n: int = TOP_N):
    """Top-N slice of raw and processed probabilities for one position (CPU floats)."""
    raw = torch.softmax(raw_logits.float(), dim=-1)
    proc = raw if logits is raw_logits else torch.softmax(logits.float(), dim=-1)
    top = torch.topk(raw, min(top_n, raw.numel()))
    ids = top.indices.tolist()
    return dict(
        top_ids=tuple(ids),
        top_texts=tuple(lm.token_text(i) for i in ids),
        top_raw=tuple(top.values.tolist()),
        top_processed=tuple(proc[ids].tolist()),
        kept=int((proc > 0).sum()),
        entropy=entropy(proc),
    ), raw, proc


class AutoregressiveDecoder(Decoder):
    """One token per target forward: greedy (argmax) or ancestral sampling with a named sampler."""

    backends = ("eager", "static", "compiled")

    def __init__(self, lm: LoadedModel, settings: SamplingSettings | None = None, sampler: str | None = None,
                 max_new_tokens: int = 64, seed: int = 0, stop_at_eos: bool = True, backend: str = "eager"):
        super().__init__(lm, max_new_tokens, seed, stop_at_eos, backend)
        self.settings = settings or SamplingSettings()
        self.sampler_name = sampler
        self.processors = build_processors(self.settings, argmax=sampler is None)
        if sampler is not None:
            make_sampler(sampler)  # validate the name now, not mid-run
        self.strategy = "greedy" if sampler is None else "sample"

    def _reset(self):
        self.cache = self.target.new_cache(len(self.prompt_ids) + self.max_new_tokens)
        self.sampler = make_sampler(self.sampler_name) if self.sampler_name else None
        self._next_input = torch.tensor([self.prompt_ids], device=self.lm.device)

    def next_logits(self) -> torch.Tensor:
        """Feed the pending input (the prompt first, then the last token) and return logits [V]."""
        logits = self.target(self._next_input, self.cache, logits_to_keep=1, prefill=not self.tokens)[0, -1]
        self.target_forwards += 1
        return logits

    def choose(self, logits: torch.Tensor) -> tuple[int, torch.Tensor]:
        """Apply the processors and pick a token; returns (token, processed logits)."""
        if not self.processors:  # plain greedy / T = 1 sampling: nothing to apply, no context tensor to build
            processed = logits.unsqueeze(0)
        else:
            context = torch.tensor([self.prompt_ids + self.tokens], device=logits.device)
            processed = apply_processors(self.processors, context, logits.unsqueeze(0))
        if self.sampler is None:
            token = int(torch.argmax(processed, dim=-1))
        else:
            token = int(self.sampler(processed, self.generator))
        return token, (logits if not self.processors else processed[0])

    def _step(self, t0):
        logits = self.next_logits()
        token, processed = self.choose(logits)
        summary, raw, proc = summarize_distribution(self.lm, logits, processed)
        self.tokens.append(token)
        self._next_input = torch.tensor([[token]], device=self.lm.device)
        return TokenStep(
            index=len(self.tokens) - 1, token_id=token, token_text=self.lm.token_text(token),
            raw_prob=float(raw[token]), prob=float(proc[token]), elapsed_s=time.perf_counter() - t0,
            finished=token in self.eos_ids, **summary,
        )


def greedy_decoder(lm: LoadedModel, max_new_tokens: int = 64, **kw) -> AutoregressiveDecoder:
    return AutoregressiveDecoder(lm, sampler=None, max_new_tokens=max_new_tokens, **kw)


def sampling_decoder(lm: LoadedModel, settings: SamplingSettings, sampler: str = "multinomial",
                     max_new_tokens: int = 64, seed: int = 0, **kw) -> AutoregressiveDecoder:
    return AutoregressiveDecoder(lm, settings, sampler, max_new_tokens, seed, **kw)
