"""`python -m decoding_core bench`: every speed figure in ONE run, same machine, model, dtype, prompts.

Each figure is the median of several repeats after a warm-up; ratios come from the same run. Prints a
table and writes JSON (--out). Sections (--only a,b): hardware, sizing (verify-pass cost by length),
greedy, backends, bf16, sample, beam, lookup, speculative (the shipped draft at N = 4 and at the
device-aware N), eagle (EAGLE-3 and EAGLE-1 heads, device-aware dynamic tree and the static tree),
studies (the pages' comparison study), samplers, overhead.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
from transformers import GenerationConfig

from .beam import BeamSearchDecoder, BeamSettings
from .hardware import gemv_bandwidth_gbs, median_time, memory_bandwidth_gbs, weight_bytes
from .decoders import AutoregressiveDecoder, forward
from .models import load_model
from .prompts import PROMPTS, heldout_instructions
from .processors import SamplingSettings
from .samplers import SAMPLERS, make_sampler
from .settings import BENCH_SECTIONS
from .speculative import SpeculativeDecoder

SECTIONS = BENCH_SECTIONS  # in settings.py: the command line's help lists them without importing torch
BENCH_LOOKUP = 8  # the prompt-lookup branch the eagle section adds to the EAGLE-3 head's device-sized tree


@contextlib.contextmanager
def fixed_assistant_length(assistant, n_draft: int):
    """Make transformers' assisted generation draft exactly ``n_draft`` tokens per step with ``assistant``.

    Its candidate generator reads the draft length, its schedule and the confidence stop from the ASSISTANT's
    generation config, not from the config passed to generate(); the defaults there (20 tokens, stop below
    confidence 0.4, a threshold it re-fits as it goes) make it an adaptive-length method, not "the same N"."""
    saved = assistant.generation_config
    assistant.generation_config = copy.deepcopy(saved)
    assistant.generation_config.num_assistant_tokens = n_draft
    assistant.generation_config.num_assistant_tokens_schedule = "constant"
    assistant.generation_config.assistant_confidence_threshold = 0.0
    try:
        yield
    finally:
        assistant.generation_config = saved


class Bench:
    def __init__(self, lm, quick: bool):
        self.lm, self.quick = lm, quick
        self.n = 24 if quick else 64
        self.repeats = 2 if quick else 3
        self.general = [lm.encode(p, chat=True) for p in (PROMPTS[:1] if quick else PROMPTS)]
        self.heldout = [lm.encode(p, chat=True) for p in heldout_instructions(2 if quick else 4)]
        self.prompts = self.general
        self.rows: list[dict] = []

    def tok_s(self, run, tokens_of) -> float:
        """Median over prompts of the median tokens/s of run(prompt_ids)."""
        rates = []
        for ids in self.prompts:
            out = {}

            def once():
                out["t"] = run(ids)

            secs = median_time(once, self.repeats)
            rates.append(tokens_of(out["t"]) / secs)
        return statistics.median(rates)

    def paired(self, a, b, tokens_a, tokens_b) -> tuple[float, float, float]:
        """tokens/s of a and b and the ratio a / b, timed in alternation (a, b, a, b, ...) on every prompt
        so that drift on a shared machine hits both alike; the ratio is the median of per-pair ratios."""
        rates_a, rates_b, ratios = [], [], []
        for ids in self.prompts:
            a(ids), b(ids)  # warm-up
            for _ in range(self.repeats):
                t0 = time.perf_counter()
                ra = a(ids)
                t1 = time.perf_counter()
                rb = b(ids)
                t2 = time.perf_counter()
                rates_a.append(tokens_a(ra) / (t1 - t0))
                rates_b.append(tokens_b(rb) / (t2 - t1))
                ratios.append(rates_a[-1] / rates_b[-1])
        return statistics.median(rates_a), statistics.median(rates_b), statistics.median(ratios)

    def add(self, section, name, value, unit, **extra):
        row = {"section": section, "name": name, "value": round(value, 3), "unit": unit, **extra}
        self.rows.append(row)
        print(f"  {section:12s} {name:58s} {value:10.3f} {unit}", file=sys.stderr, flush=True)
        return value

    def hf(self, ids, **kw):
        gc = GenerationConfig(max_new_tokens=self.n, min_new_tokens=self.n, pad_token_id=self.lm.eos_ids[0],
                              eos_token_id=None, **kw)
        return self.lm.model.generate(torch.tensor([ids], device=self.lm.device), generation_config=gc)

    def ours(self, ids, **kw):
        return AutoregressiveDecoder(self.lm, max_new_tokens=self.n, stop_at_eos=False, **kw).start(ids).run()

    # -- sections -------------------------------------------------------------------------------------
    def hardware(self):
        bw = self.add("hardware", "memory read bandwidth (streaming sum)", memory_bandwidth_gbs(), "GB/s")
        wb = weight_bytes(self.lm.model)
        self.add("hardware", "weight bytes read per token", wb / 1e6, "MB")
        self.bound = self.add("hardware", "bandwidth bound (bandwidth / weight bytes)", bw * 1e9 / wb, "tok/s")
        gemv = self.add("hardware", "batch-1 matrix-vector read bandwidth (the model's Linears)",
                        gemv_bandwidth_gbs(self.lm.model), "GB/s")
        self.gemv_bound = self.add("hardware", "matrix-vector bound (gemv bandwidth / weight bytes)", gemv * 1e9 / wb,
                                   "tok/s")

    def greedy(self):
        ours, hf, ratio = self.paired(self.ours, self.hf, lambda r: len(r.tokens), lambda o: self.n)
        self.add("greedy", "transformers generate (greedy)", hf, "tok/s")
        self.add("greedy", "ours (step-wise greedy)", ours, "tok/s")
        self.add("greedy", "ratio ours / transformers (target >= 1.0)", ratio, "x")
        if getattr(self, "bound", None):
            self.add("greedy", "share of the bandwidth bound (aim >= 0.40)", ours / self.bound, "x")
            self.add("greedy", "share of the matrix-vector bound", ours / self.gemv_bound, "x")
        self.greedy_tok_s = ours

    def backends(self):
        """The target forward paths: dynamic cache, static cache, static + torch.compile (CUDA graphs on CUDA)."""
        from .fastpath import warm_up

        t0 = time.perf_counter()
        tp = warm_up(self.lm, "compiled")
        self.add("backends", "torch.compile: first decode pass (compile time, once per process)",
                 time.perf_counter() - t0, "s")
        if tp.fallback:
            self.add("backends", f"torch.compile unavailable, fell back: {tp.fallback[:60]}", float("nan"), "")

        def with_backend(name):
            return lambda i: AutoregressiveDecoder(self.lm, max_new_tokens=self.n, stop_at_eos=False,
                                                   backend=name).start(i).run()

        def tokens(r):
            return len(r.tokens)

        for name in ("static", "compiled"):
            fast, eager, ratio = self.paired(with_backend(name), with_backend("eager"), tokens, tokens)
            self.add("backends", f"greedy, {name} backend", fast, "tok/s")
            self.add("backends", f"{name} / eager (dynamic cache), same run", ratio, "x")
            if getattr(self, "bound", None):
                self.add("backends", f"{name}: share of the bandwidth bound", fast / self.bound, "x")
        same = all(with_backend("compiled")(i).tokens == with_backend("eager")(i).tokens for i in self.prompts)
        self.add("backends", "compiled greedy tokens equal eager on every prompt", float(same), "bool")

    def bf16(self):
        """bfloat16 weights on the same device: greedy speed, and agreement with float32 greedy."""
        if self.lm.dtype != torch.float32:
            return
        lm16 = load_model(device=self.lm.device.type, dtype="bfloat16")
        rate = self.tok_s(lambda i: AutoregressiveDecoder(lm16, max_new_tokens=self.n, stop_at_eos=False).start(i).run(),
                          lambda r: len(r.tokens))
        self.add("bf16", "ours greedy, bfloat16 weights", rate, "tok/s")
        if getattr(self, "greedy_tok_s", None):
            self.add("bf16", "bfloat16 / float32 speed", rate / self.greedy_tok_s, "x")
        agree, first = [], []
        for ids in self.prompts:
            a = self.ours(ids).tokens
            b = AutoregressiveDecoder(lm16, max_new_tokens=self.n, stop_at_eos=False).start(ids).run().tokens
            agree.append(sum(x == y for x, y in zip(a, b)) / len(a))
            first.append(next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a)))
        self.add("bf16", "greedy tokens equal to float32, same position", statistics.mean(agree), "share")
        self.add("bf16", "first differing position (median over prompts)", statistics.median(first), "token")

    def sample(self):
        kw = dict(do_sample=True, temperature=0.8, top_p=0.95, top_k=0)
        s = SamplingSettings(temperature=0.8, top_p=0.95)
        ours, hf, ratio = self.paired(lambda i: self.ours(i, settings=s, sampler="multinomial"),
                                      lambda i: self.hf(i, **kw), lambda r: len(r.tokens), lambda o: self.n)
        self.add("sample", "transformers generate (T=0.8, top-p 0.95)", hf, "tok/s")
        self.add("sample", "ours (same settings, multinomial)", ours, "tok/s")
        self.add("sample", "ratio ours / transformers (target >= 1.0)", ratio, "x")

    def beam(self):
        k = 4
        n = self.n

        def run(i):
            return BeamSearchDecoder(self.lm, BeamSettings(num_beams=k), n, stop_at_eos=False).start(i).run()

        ours, hf, ratio = self.paired(run, lambda i: self.hf(i, num_beams=k, do_sample=False, length_penalty=1.0),
                                      lambda r: n, lambda o: n)
        self.add("beam", f"transformers beam search k={k}", hf, "tok/s")
        self.add("beam", f"ours k={k}", ours, "tok/s")
        self.add("beam", "ratio ours / transformers (target >= 1.0)", ratio, "x")
        plain_f, pruned_f, same = [], [], 0
        t_plain, t_pruned = [], []
        for ids in self.prompts:
            a = BeamSearchDecoder(self.lm, BeamSettings(num_beams=k), n).start(ids)
            t0 = time.perf_counter()
            ra = a.run()
            t_plain.append(time.perf_counter() - t0)
            b = BeamSearchDecoder(self.lm, BeamSettings(num_beams=k, rp=0.6, ap=2.5, rpl=0.02, mc=3), n).start(ids)
            t0 = time.perf_counter()
            rb = b.run()
            t_pruned.append(time.perf_counter() - t0)
            plain_f.append(ra.metrics["hypotheses_expanded"])
            pruned_f.append(rb.metrics["hypotheses_expanded"])
            same += ra.tokens == rb.tokens
        self.add("beam", "Freitag pruning (0.6/2.5/0.02/3): hypotheses fed saved", 1 - sum(pruned_f) / sum(plain_f), "share")
        self.add("beam", "Freitag pruning: time saved", 1 - sum(t_pruned) / sum(t_plain), "share")
        self.add("beam", "Freitag pruning: prompts with the best hypothesis unchanged", same / len(self.prompts), "share")

    def lookup(self):
        n_draft = 4
        ours, hf, ratio = self.paired(
            lambda i: SpeculativeDecoder(self.lm, None, n_draft, "greedy", max_new_tokens=self.n,
                                         stop_at_eos=False).start(i).run(),
            lambda i: self.hf(i, do_sample=False, prompt_lookup_num_tokens=n_draft), lambda r: len(r.tokens),
            lambda o: self.n)
        self.add("lookup", "transformers prompt lookup (greedy, 4 tokens)", hf, "tok/s")
        self.add("lookup", "ours prompt lookup (greedy match, N=4)", ours, "tok/s")
        self.add("lookup", "ratio ours / transformers", ratio, "x")

    def sizing(self):
        """What one target forward over T new tokens costs here, relative to one token (the verify pass)."""
        from .layout import last_choice
        from .sizing import forward_costs

        choice = last_choice()  # the CPU weight layout the loader measured (or read, or was told) for this model
        for kind, ms in choice.get("ms", {}).items():
            for rows, value in ms.items():
                self.add("sizing", f"layout {kind}: forward over {rows} tokens, no KV cache", value, "ms",
                         chosen=kind == choice["layout"])
        if choice:
            print(f"  sizing       CPU weight layout: {choice['layout']} ({choice['source']})", file=sys.stderr)
        costs = forward_costs(self.lm, rounds=2 if self.quick else 4)
        for t in (1, 2, 4, 8, 16, 32, 64):
            if t in costs:
                self.add("sizing", f"target forward over {t} tokens (KV prefix 128; the fastest measured here so far)",
                         1000 * costs[t], "ms",
                         relative=round(costs[t] / costs[1], 3))

    def speculative(self):
        from .draft import load_embedded_draft
        from .sizing import auto_chain, draft_step_cost

        self.prompts = self.heldout  # speculation is measured on held-out instructions
        draft = load_embedded_draft(self.lm)
        layers = draft.model.config.num_hidden_layers
        forwards = ([("lean forward", draft)] if draft.lean is not None else []) + [
            ("transformers' forward", dataclasses.replace(draft, lean=None))]
        for label, d in forwards:
            self.add("speculative", f"draft step ({layers} layers, one token after 128, q included): {label}",
                     1000 * draft_step_cost(self.lm, d), "ms")
        chosen = auto_chain(self.lm, draft, "embedded")
        self.add("speculative", f"device-aware N ({chosen['reason']})", chosen["n_draft"], "tokens")
        for n_draft in dict.fromkeys([4, chosen["n_draft"]]):
            ours, plain, speedup = self.chain_rows(draft, n_draft, f"N={n_draft}", rate=True)
            if n_draft == chosen["n_draft"]:
                self.greedy_heldout = plain
        self.default_settings(draft)
        run4, hf_assisted = self.assisted_pairing(draft)
        try:
            _, hf, ratio = self.paired(run4, hf_assisted, lambda r: len(r.tokens), lambda o: self.n)
            self.add("speculative", "transformers assisted generation (same draft, N=4)", hf, "tok/s")
            self.add("speculative", "ratio ours / transformers assisted (same full-vocabulary draft, N=4)", ratio, "x")
            if draft.draft_vocab is not None:
                _, _, ratio_v = self.paired(lambda i: run4(i, draft), hf_assisted, lambda r: len(r.tokens),
                                            lambda o: self.n)
                self.add("speculative", f"ratio ours with the {draft.draft_vocab.numel()}-token draft vocabulary / "
                                        "transformers assisted (N=4)", ratio_v, "x")
            # what a user of transformers gets without choosing: its own adaptive draft length, against our default
            n_auto = chosen["n_draft"]
            ours_auto, hf_defaults = self.assisted_pairing(draft, n_auto, fixed=False)
            _, hf_d, ratio_d = self.paired(lambda i: ours_auto(i, draft), hf_defaults, lambda r: len(r.tokens),
                                           lambda o: self.n)
            self.add("speculative", "transformers assisted generation at its defaults (same draft; up to 20 drafts, "
                                    "stops below confidence 0.4)", hf_d, "tok/s")
            self.add("speculative", f"ratio ours at the device-aware N={n_auto} / transformers assisted at its "
                                    "defaults", ratio_d, "x")
        except Exception as exc:  # noqa: BLE001 - report, keep benchmarking
            print(f"  assisted generation failed: {exc}", file=sys.stderr)
        self.add("speculative", "plain greedy on held-out instructions", self.greedy_heldout, "tok/s")

    def chain_rows(self, draft, n_draft: int, label: str, rate: bool = False, **kw) -> tuple[float, float, float]:
        """Speculative decoding with the draft at N (``kw``: SpeculativeDecoder's copy, lookup, runner_up) timed in
        alternation with plain greedy: its speed-up, tau and acceptance rate (and its tokens/s with ``rate``)."""
        runs = []

        def run(i):
            r = SpeculativeDecoder(self.lm, draft, n_draft, "greedy", max_new_tokens=self.n, stop_at_eos=False,
                                   **kw).start(i).run()
            runs.append(r.metrics)
            return r

        ours, plain, speedup = self.paired(run, self.ours, lambda r: len(r.tokens), lambda r: len(r.tokens))
        if rate:
            self.add("speculative", f"ours draft model (greedy match, {label})", ours, "tok/s")
        self.add("speculative", f"{label}: speed-up over plain greedy (ours, same run)", speedup, "x")
        self.add("speculative", f"{label}: mean accepted length tau",
                 statistics.median(m["mean_accepted_length"] for m in runs), "tok")
        self.add("speculative", f"{label}: acceptance rate", statistics.median(m["acceptance_rate"] for m in runs),
                 "share")
        return ours, plain, speedup

    def default_settings(self, draft):
        """The draft mixed with a copy of the context (the measured weight), then the page's and the CLI's default:
        with it, a lookup branch and runner-up leaves verified beside the chain; each at N = 4 and at the
        device-aware N for those settings. The default's speed-up at its N is what EAGLE is compared with."""
        from .settings import Speculative
        from .sizing import auto_chain

        d = Speculative()
        for what, kw in ((f"draft + copy weight {d.copy}", dict(copy=d.copy)),
                         (f"default (copy weight {d.copy}, lookup branch {d.lookup}, runner-up leaves)",
                          dict(copy=d.copy, lookup=d.lookup, runner_up=d.runner_up))):
            n_auto = auto_chain(self.lm, draft, "embedded", **kw)["n_draft"]
            for n_draft in dict.fromkeys([4, n_auto]):
                label = f"N={n_draft}{' (device-aware)' if n_draft == n_auto else ''}, {what}"
                _, _, speedup = self.chain_rows(draft, n_draft, label, **kw)
                if n_draft == n_auto and kw.get("lookup") == d.lookup:
                    self.spec_speedup = speedup

    def assisted_pairing(self, draft, n_draft: int = 4, fixed: bool = True):
        """(ours, transformers' assisted generation) as run(prompt ids) functions with the same draft and N: ours runs
        the draft over the full vocabulary unless given another draft (``ours(i, d)``), as assisted generation does.
        ``fixed=False``: assisted generation at its own defaults (adaptive length), not N."""
        same_draft = dataclasses.replace(draft, draft_vocab=None, draft_head=None)  # what assisted generation runs

        def ours(i, d=same_draft):
            return SpeculativeDecoder(self.lm, d, n_draft, "greedy", max_new_tokens=self.n, stop_at_eos=False).start(i).run()

        def assisted(i):
            gc = GenerationConfig(max_new_tokens=self.n, min_new_tokens=self.n, pad_token_id=self.lm.eos_ids[0],
                                  eos_token_id=None, do_sample=False)
            with fixed_assistant_length(draft.model, n_draft) if fixed else contextlib.nullcontext():
                return self.lm.model.generate(torch.tensor([i], device=self.lm.device), generation_config=gc,
                                              assistant_model=draft.model)

        return ours, assisted

    def eagle(self):
        from .eagle import EagleDecoder
        from .heads import HEAD_LABELS, load_head
        from .models import ModelLoadError
        from .sizing import auto_tree

        self.prompts = self.heldout
        for kind in ("eagle3", "eagle1"):
            try:
                head = load_head(self.lm, kind)
            except ModelLoadError as exc:
                print(f"  {kind} skipped: {exc}", file=sys.stderr)
                continue
            chosen = auto_tree(self.lm, head, kind)
            label = HEAD_LABELS[kind]
            self.add("eagle", f"{label}: device-aware tree size ({chosen['reason']})", chosen["total_tokens"], "tokens",
                     depth=chosen["depth"])
            sized = dict(top_k=8, depth=chosen["depth"], total_tokens=chosen["total_tokens"])
            configs = (("dynamic", sized), ("static", {}))
            if kind == "eagle3":  # with the prompt-lookup branch, at the size chosen for tree + branch
                looked = auto_tree(self.lm, head, kind, lookup=BENCH_LOOKUP)
                self.add("eagle", f"{label} + {BENCH_LOOKUP}-token lookup branch: device-aware tree size "
                         f"({looked['reason']})", looked["total_tokens"], "tokens", depth=looked["depth"])
                configs += (("dynamic", dict(top_k=8, depth=looked["depth"], total_tokens=looked["total_tokens"],
                                             lookup=BENCH_LOOKUP)),)
                try:  # ... and with the branch drafted from the corpus where the context has nothing to copy
                    from .datastore import load_datastore

                    store = load_datastore(self.lm)
                except ModelLoadError as exc:
                    print(f"  corpus branch skipped: {exc}", file=sys.stderr)
                else:
                    fell = auto_tree(self.lm, head, kind, lookup=BENCH_LOOKUP, corpus=True)
                    self.add("eagle", f"{label} + {BENCH_LOOKUP}-token lookup branch, corpus where none: device-aware "
                             f"tree size ({fell['reason']})", fell["total_tokens"], "tokens", depth=fell["depth"])
                    configs += (("dynamic", dict(top_k=8, depth=fell["depth"], total_tokens=fell["total_tokens"],
                                                 lookup=BENCH_LOOKUP, datastore=store)),)
            for tree, kw in configs:
                runs = []

                def run(i, tree=tree, kw=kw, runs=runs):
                    r = EagleDecoder(self.lm, head, tree, max_new_tokens=self.n, stop_at_eos=False, **kw).start(i).run()
                    runs.append(r.metrics)
                    return r

                ours, _, speedup = self.paired(run, self.ours, lambda r: len(r.tokens), lambda r: len(r.tokens))
                name = f"{label} {tree}" + (f" ({kw['total_tokens']} tokens, depth {kw['depth']})" if kw else "") + \
                    (f" + {kw['lookup']}-token lookup branch" if kw.get("lookup") else "") + \
                    (", corpus where none" if kw.get("datastore") else "")
                self.add("eagle", f"{name} (greedy)", ours, "tok/s")
                self.add("eagle", f"{name}: speed-up over plain greedy (same run)", speedup, "x")
                if getattr(self, "spec_speedup", None):  # each speed-up is timed against its own plain runs
                    self.add("eagle", f"{name}: speed-up over speculative (ratio of the two speed-ups over plain)",
                             speedup / self.spec_speedup, "x")
                self.add("eagle", f"{name}: mean accepted length tau",
                         statistics.median(m["mean_accepted_length"] for m in runs), "tok")

    def studies(self):
        """The pages' own comparison study (studies/compare.py) on held-out instructions: what a student
        pressing "Measure" sees, with the device-aware default sizes."""
        from .settings import Eagle, Greedy, RunSettings, Speculative
        from .studies.compare import compare

        run = RunSettings(self.n, stop_at_eos=False)
        speedups: dict[str, list[float]] = {}
        for ids in self.heldout:
            for r in compare(self.lm, ids, [Greedy(), Speculative(), Eagle()], run).runs:
                if r.speedup is not None:
                    speedups.setdefault(r.label, []).append(r.speedup)
        for label, values in speedups.items():
            self.add("studies", f"compare study: {label} over greedy", statistics.median(values), "x")

    def samplers(self):
        self.prompts = self.general
        v = self.lm.vocab_size
        g = torch.Generator(device=self.lm.device).manual_seed(0)
        for batch in (1, 8, 64):
            logits = torch.randn(batch, v, device=self.lm.device) * 3
            for name in SAMPLERS:
                sampler = make_sampler(name)
                reps = 50 if self.quick else 200
                secs = median_time(lambda: [sampler(logits, g) for _ in range(reps)], 3) / reps
                self.add("samplers", f"{name} batch {batch} (vocab {v})", secs * 1e6, "us/call")

    def overhead(self):
        """Step-wise API (start/step, records) against a bare loop of the same forward + argmax."""
        self.prompts = self.general
        n = self.n

        def bare(ids):
            from transformers import DynamicCache

            cache, out, x = DynamicCache(), [], torch.tensor([ids], device=self.lm.device)
            for _ in range(n):
                tok = int(forward(self.lm.model, x, cache, logits_to_keep=1)[0, -1].argmax())
                out.append(tok)
                x = torch.tensor([[tok]], device=self.lm.device)
            return out

        s, b, ratio = self.paired(self.ours, bare, lambda r: len(r.tokens), len)
        self.add("overhead", "bare loop (forward + argmax)", b, "tok/s")
        self.add("overhead", "step-wise API (start/step + records)", s, "tok/s")
        self.add("overhead", "step-wise / bare (target >= 0.95)", ratio, "x")


def main(args) -> int:
    only = [s.strip() for s in args.only.split(",")] if args.only else list(SECTIONS)
    unknown = [s for s in only if s not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown bench section(s) {', '.join(unknown)}: choose from {', '.join(SECTIONS)}")
    lm = load_model(device=args.device, dtype=args.dtype)
    bench = Bench(lm, args.quick)
    info = {"machine": platform.platform(), "processor": platform.processor(), "threads": torch.get_num_threads(),
            "device": str(lm.device), "dtype": str(lm.dtype), "model": lm.name, "torch": torch.__version__,
            "new_tokens": bench.n, "repeats": bench.repeats, "prompts": len(bench.prompts),
            "date": time.strftime("%Y-%m-%d %H:%M")}
    print(f"bench: {json.dumps(info)}", file=sys.stderr)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    failed = []
    for section in SECTIONS:
        if section in only:
            try:
                getattr(bench, section)()
            except Exception as exc:  # noqa: BLE001 - one failing section must not hide the others
                bench.add(section, f"FAILED: {type(exc).__name__}: {str(exc)[:80]}", float("nan"), "")
                failed.append(section)
            out.write_text(json.dumps({"info": info, "rows": bench.rows}, indent=1))  # a stopped run keeps its rows
    print("| section | measurement | value | unit |\n|---|---|---|---|")
    for r in bench.rows:
        print(f"| {r['section']} | {r['name']} | {r['value']} | {r['unit']} |")
    print(f"\n(wrote {out})", file=sys.stderr)
    if failed:
        print(f"bench: sections that failed: {', '.join(failed)} (their FAILED rows say why)", file=sys.stderr)
    return 1 if failed else 0
