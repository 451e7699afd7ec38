"""Shared pieces of the training scripts: the corpus, batches, checkpoints, logs and manifests."""
from __future__ import annotations

import gzip
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from decoding_core.export import git_commit  # noqa: E402,F401 - the manifests' commit, one helper for all


def corpus_rows(path: str | Path, split: str) -> list[dict]:
    """The rows of one split: from a shard folder (scripts/make_corpus.py: SPLIT-NNNNN.jsonl.gz) or a
    single JSON-lines file (the earlier format), in a fixed order."""
    path = Path(path)
    if path.is_dir():
        rows = []
        for shard in sorted(path.glob(f"{split}-*.jsonl.gz")):
            with gzip.open(shard, "rt") as f:
                rows += [json.loads(line) for line in f if line.strip()]
        return rows
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["split"] == split]


def load_corpus(path: str | Path, split: str, max_len: int, limit: int | None = None) -> list[tuple[list[int], int]]:
    """(prompt + the target's answer, prompt length) for one split, cut to max_len tokens (at most
    ``limit`` sequences)."""
    seqs = [((r["prompt_ids"] + r["answer_ids"])[:max_len], len(r["prompt_ids"])) for r in corpus_rows(path, split)
            if r["answer_ids"]][:limit]
    if not seqs:
        raise SystemExit(f"{path} has no {split!r} rows: run scripts/make_corpus.py first")
    return seqs


def corpus_summary(path: str | Path) -> dict:
    """How the corpus was made: its manifest (a shard folder) or summary file (a JSON-lines file)."""
    path = Path(path)
    p = path / "manifest.json" if path.is_dir() else path.with_suffix(".summary.json")
    if not p.exists():
        return {}
    m = json.loads(p.read_text())
    if path.is_dir():
        return {k: m[k] for k in ("command", "settings", "splits", "shards_made", "shards_total") if k in m}
    return m


COVERAGE_SIZES = (1024, 2048, 4096, 8192, 16384, 32768)


def answer_counts(seqs, first: int | None = None) -> Counter:
    """Answer-token counts; with ``first``, of each answer's first tokens only."""
    c: Counter = Counter()
    for seq, n_prompt in seqs:
        c.update(seq[n_prompt:][:first])
    return c


def coverage_of(seqs, vocab, first: int | None = None) -> float:
    """Share of the answer tokens (each answer's first ``first`` with it) inside the draft vocabulary."""
    counts, inside = answer_counts(seqs, first), set(vocab)
    return sum(c for t, c in counts.items() if t in inside) / max(1, sum(counts.values()))


def first_answer_tokens(answer: torch.Tensor, n: int | None) -> torch.Tensor:
    """The answer mask [B, L] cut to each row's first n answer tokens: the answer openings, where the tau aims
    are measured (eval_tau.py times each held-out answer's first 64 tokens)."""
    return answer if not n else answer & (answer.cumsum(1) <= n)


OPENING_HELP = ("also report the held-out figures on each answer's first N tokens (the openings eval_tau.py measures "
                "tau on; 0: off)")


def choose_vocab(seqs, size: int, vocab_size: int) -> tuple[list[int], dict]:
    """The ``size`` most frequent answer tokens (sorted ids) and the answer-token coverage of each size."""
    counts = answer_counts(seqs)
    total = sum(counts.values())
    ranked = [t for t, _ in counts.most_common()]
    coverage = {str(n): round(sum(counts[t] for t in ranked[:n]) / total, 4) for n in COVERAGE_SIZES}
    chosen = ranked[:size]
    if len(chosen) < size:  # a small corpus: fill with the lowest unused ids so V_d is as asked
        used = set(chosen)
        chosen += [t for t in range(vocab_size) if t not in used][: size - len(chosen)]
    return sorted(chosen), coverage


def batches(seqs: list[tuple[list[int], int]], batch_tokens: int, rng: random.Random, pad: int, with_index=False):
    """Length-bucketed batches of about batch_tokens tokens: ids [B, L], attention mask [B, L] (real
    tokens) and answer mask [B, L] (positions holding an answer token: what the loss counts); with
    with_index, also the batch's sequence indices."""
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i][0]))
    groups, cur = [], []
    for i in order:
        cur.append(i)
        if len(cur) * len(seqs[cur[-1]][0]) >= batch_tokens:
            groups.append(cur)
            cur = []
    if cur:
        groups.append(cur)
    rng.shuffle(groups)
    for g in groups:
        width = max(len(seqs[i][0]) for i in g)
        ids = torch.full((len(g), width), pad, dtype=torch.long)
        mask = torch.zeros((len(g), width), dtype=torch.bool)
        answer = torch.zeros((len(g), width), dtype=torch.bool)
        for r, i in enumerate(g):
            seq, n_prompt = seqs[i]
            ids[r, : len(seq)] = torch.tensor(seq)
            mask[r, : len(seq)] = True
            answer[r, n_prompt : len(seq)] = True
        yield (ids, mask, answer, g) if with_index else (ids, mask, answer)


BF16_HELP = ("bfloat16 autocast for the matmuls (weights, optimizer and losses stay float32): faster where the CPU has "
             "AMX / AVX512-BF16 (an EAGLE-3 step 8.5 -> 6.2 s, a draft step 1.9 -> 1.7 s on a 2-core Xeon with AMX); ignored "
             "(float32, said in the log and the manifest) on a CPU with AVX2 only, where it runs several times slower")


def autocast(enabled: bool):
    """bfloat16 autocast on the CPU (matmuls in bfloat16, accumulation and the optimizer in float32), or a no-op."""
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled)


# CPUs whose bfloat16 matmuls are emulated slowly (torch.backends.cpu.get_cpu_capability()): on a 2-core AMD EPYC
# with AVX2 only (2026-12-05) --bf16 made the EAGLE-3 warm-start evaluation 6.2x slower (83.0 s against 13.3 s) and
# a training step over 4x slower (5 steps not done after 9.5 min; float32: 141 s)
SLOW_BF16 = ("AVX2", "DEFAULT", "NO AVX")


def bf16_is_fast() -> bool:
    """Whether bfloat16 autocast pays on this CPU (AVX-512 or AMX); DECODING_LAB_FORCE_BF16=1 says yes anyway."""
    return os.environ.get("DECODING_LAB_FORCE_BF16") == "1" or torch.backends.cpu.get_cpu_capability() not in SLOW_BF16


def precision(args) -> str:
    """What a manifest records as training.precision (args.bf16 as start_run left it)."""
    if args.bf16:
        return "bfloat16 autocast (float32 weights, optimizer and losses)"
    return "float32 (--bf16 asked; float32 instead: slow bfloat16 on this CPU)" if getattr(args, "bf16_asked", False) \
        else "float32"


def lr_at(step: int, total: int, peak: float, warmup: int) -> float:
    """Linear warm-up, then cosine decay to 10% of the peak."""
    import math

    if step < warmup:
        return peak * (step + 1) / warmup
    frac = (step - warmup) / max(1, total - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


class Logger:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(path, "a")
        self.t0 = time.perf_counter()

    def __call__(self, msg: str):
        line = f"[{time.perf_counter() - self.t0:7.1f}s] {msg}"
        print(line, flush=True)
        self.f.write(line + "\n")
        self.f.flush()


def start_run(args) -> tuple[Path, Path, "Logger"]:
    """What every training script sets up the same way: torch threads (--threads), the work and output
    folders (--work, --out, relative to the repo), the log in WORK/train.log and the seed (--seed)."""
    if args.threads:
        torch.set_num_threads(args.threads)
    # the oneDNN-packed layout keeps the target's weights row-major: training reads the tied embedding row by row
    # (column-major storage, which the loader may measure faster for decoding, makes each lookup strided)
    os.environ.setdefault("DECODING_LAB_LAYOUT", "packed")
    work, out = ROOT / args.work, ROOT / args.out
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    log = Logger(work / "train.log")
    args.bf16_asked = bool(getattr(args, "bf16", False))
    if args.bf16_asked and not bf16_is_fast():
        args.bf16 = False
        log(f"--bf16 ignored: this CPU ({torch.backends.cpu.get_cpu_capability()}) has no AVX-512 or AMX, where bfloat16 "
            "autocast runs several times slower than float32; DECODING_LAB_FORCE_BF16=1 uses it anyway")
    return work, out, log


def save_checkpoint(path: Path, **state):
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(path)  # atomic: an interrupted save never leaves a half checkpoint


def load_checkpoint(path: Path):
    return torch.load(path, map_location="cpu", weights_only=True) if path.exists() else None  # no pickle


def resume(path: Path, model, opt, log, strict: bool = True) -> tuple[int, list, float, list[str]]:
    """Load a checkpoint into model and optimizer if one exists. Returns (step, loss curve, wall seconds
    so far, commands so far), with this run's command appended."""
    step, curve, wall, commands = 0, [], 0.0, []
    ck = load_checkpoint(path)
    if ck:
        model.load_state_dict(ck["model"], strict=strict)
        opt.load_state_dict(ck["opt"])
        step, curve, wall = ck["step"], ck["curve"], ck["wall_s"]
        commands = ck.get("commands", ["(an earlier run, not recorded)"])
        log(f"resumed from step {step}")
    commands.append(f"{command_line()}  # from step {step}")
    return step, curve, wall, commands




def command_line() -> str:
    return "python " + " ".join([str(Path(sys.argv[0]).resolve().relative_to(ROOT))] + sys.argv[1:])


def write_manifest(folder: Path, manifest: dict):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
