"""Self-distillation corpus: varied instructions and the embedded target's own greedy answers, in shards.

Both the speculative draft (scripts/train_draft.py) and the EAGLE heads (scripts/train_eagle.py,
scripts/train_eagle3.py) train on it. Instructions come from scripts/corpus_instructions.py: 25 task
kinds with several phrasings each, subject lists (topics, dishes, situations, goals, problems, ...),
optional context and constraint sentences, and a share written by the model itself from seed
requests. The held-out split is built only from held-out topics AND held-out phrasings.

    python scripts/make_corpus.py --out assets/corpus --train 5200 --heldout 240 --max-new-tokens 256

Stages, each resumable (rerun the same command after an interrupt; finished files are kept):
1. ``instructions.jsonl.gz``: the full instruction list (model-written ones generated here, greedy).
2. ``heldout-NNNNN.jsonl.gz`` and ``train-NNNNN.jsonl.gz``: shards of --shard instructions with the
   target's greedy answers, each written atomically (temporary name, then rename). Shards are a
   shuffled order, so any prefix of them is a representative sample and training can start early.
Each row: {"split", "kind", "instruction", "prompt_ids", "answer_ids", "complete"}. ``manifest.json``
says how the corpus was made and how far it got. Progress with an ETA goes to stderr and
``--log`` (default: OUT/../../runs/corpus.log).

Extending a finished corpus (more training data, the held-out split untouched):

    python scripts/make_corpus.py --out assets/corpus --extend 1500 --extend-seed 1 --dtype bfloat16

draws 1,500 more training instructions (same bank and same train/held-out split, a new sampling seed,
none repeating an instruction already in the corpus) into ``instructions-x1.jsonl.gz`` and answers them
in shards ``train-x1-NNNNN.jsonl.gz``; the manifest keeps the base command and lists each extension.
``--wide-bank`` draws an extension from the wide bank (corpus_instructions.EXTRA_*: more topics, task kinds,
phrasings and self-instruct seeds, added to the training parts only), and ``--self-tries`` asks the model for
more instructions per one wanted (it writes few usable ones); ``--requests-only`` keeps only what it wrote that
reads as a user's request (corpus_instructions.looks_like_request: a question or a request opening, not the
assistant's own voice or a statement); ``--self-temperature`` (with ``--self-min-p``) samples what the model
writes instead of taking its greedy answer, so one seed request yields many phrasings (the answers the trainers
learn stay greedy). ``--fresh-bank`` draws every training instruction about subjects found in no earlier
list (corpus_instructions.FRESH_*): the drafts lose tau to new topics, not to new wording, so this extension adds
topics.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import signal
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_instructions import InstructionBank, clean_self_instruction, looks_like_request  # noqa: E402

from decoding_core.models import EMBEDDED_NAME, load_model  # noqa: E402
from decoding_core.processors import apply_processors, build_processors  # noqa: E402
from decoding_core.samplers import sample_multinomial  # noqa: E402
from decoding_core.settings import SamplingSettings  # noqa: E402


def write_jsonl_gz(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt", compresslevel=9) as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    tmp.replace(path)  # atomic: an interrupted write never leaves half a shard


def read_jsonl_gz(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


@torch.inference_mode()
def greedy_batch(model, prompts: list[list[int]], max_new_tokens: int, eos: set[int], pad: int,
                 pick=None) -> list[tuple[list[int], bool]]:
    """Greedy answers for a batch of prompts: (answer ids, ended on EOS) per prompt, in order.

    Left-padded prefill, then one token per row per step; a row that emits EOS leaves the batch (its
    KV rows are dropped), so finished answers cost nothing more. Position ids follow each row's real
    tokens, as in transformers' generate. ``pick`` (logits [B, V] -> ids [B]) replaces the argmax: the
    model-written instructions may be sampled (``sampler``); the answers the trainers learn are greedy."""
    pick = pick or (lambda logits: logits.argmax(-1))
    device = next(model.parameters()).device
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, p in enumerate(prompts):
        ids[r, width - len(p):] = torch.tensor(p)
        mask[r, width - len(p):] = 1
    ids, mask = ids.to(device), mask.to(device)
    pos = (mask.cumsum(-1) - 1).clamp(min=0)
    out = model(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True, logits_to_keep=1)
    cache = out.past_key_values
    nxt = pick(out.logits[:, -1])
    pos = pos[:, -1]
    alive = list(range(len(prompts)))
    answers: list[list[int]] = [[] for _ in prompts]
    ended = [False] * len(prompts)
    for _ in range(max_new_tokens):
        keep = []
        for j, r in enumerate(alive):
            t = int(nxt[j])
            answers[r].append(t)
            if t in eos:
                ended[r] = True
            else:
                keep.append(j)
        if not keep or len(answers[alive[keep[0]]]) >= max_new_tokens:
            break
        if len(keep) < len(alive):
            sel = torch.tensor(keep, device=device)
            cache.batch_select_indices(sel)
            mask, nxt, pos = mask[sel], nxt[sel], pos[sel]
            alive = [alive[j] for j in keep]
        mask = torch.cat([mask, mask.new_ones(len(alive), 1)], dim=1)
        pos = pos + 1
        out = model(input_ids=nxt[:, None], attention_mask=mask, position_ids=pos[:, None], cache=cache,
                    use_cache=True)
        nxt = pick(out.logits[:, -1])
    return list(zip(answers, ended))


def sampler(temperature: float, min_p: float, seed: int):
    """A ``pick`` for greedy_batch drawing from softmax(logits / temperature) cut by min-p (the app's own
    processors), with its own seeded generator; None (greedy) for temperature 0."""
    if temperature <= 0:
        return None
    procs = build_processors(SamplingSettings(temperature=temperature, min_p=min_p or None))
    gen = torch.Generator().manual_seed(seed)

    def pick(logits):
        return sample_multinomial(apply_processors(procs, None, logits.float()).cpu(), gen).to(logits.device)

    return pick


def answer_all(model, prompts: list[list[int]], max_new_tokens: int, batch: int, eos: set[int], pad: int, pick=None):
    """greedy_batch over prompts in batches of similar prompt length; results in the prompts' order."""
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    res: dict[int, tuple[list[int], bool]] = {}
    for s in range(0, len(order), batch):
        idx = order[s : s + batch]
        for i, a in zip(idx, greedy_batch(model, [prompts[i] for i in idx], max_new_tokens, eos, pad, pick)):
            res[i] = a
    return [res[i] for i in range(len(prompts))]


def sort_written(lm, written, seen: set[str], n_keep: int, requests_only: bool) -> tuple[list[str], dict[str, int]]:
    """The instructions kept from the model's answers to seed requests (added to ``seen``), and what became of
    each answer: unusable (no instruction in it), not a request, a repeat, over the share wanted, or kept."""
    kept: list[str] = []
    fate = {"unusable": 0, "not a request": 0, "repeat": 0, "over the share": 0, "kept": 0}
    for ans, _ in written:
        text = clean_self_instruction(lm.tokenizer.decode(ans, skip_special_tokens=True))
        outcome = ("unusable" if not text else "not a request" if requests_only and not looks_like_request(text)
                   else "repeat" if text in seen else "over the share" if len(kept) >= n_keep else "kept")
        fate[outcome] += 1
        if outcome == "kept":
            seen.add(text)
            kept.append(text)
    return kept, fate


def build_instructions(lm, args, log, splits=None, sample_seed=None, exclude=()) -> list[dict]:
    """Templated + model-written instructions for both splits, deduplicated, shuffled (seeded).

    The bank (and so the train/held-out split) always comes from --seed; ``sample_seed`` draws another
    sample from it (an extension), leaving out any instruction in ``exclude``."""
    bank = InstructionBank(args.seed, wide=args.wide_bank, fresh=args.fresh_bank)
    bank.check_disjoint()
    rng = random.Random(args.seed if sample_seed is None else sample_seed)
    rows = []
    for split, n in splits or (("train", args.train), ("heldout", args.heldout)):
        n_self = round(n * args.self_share)
        seen: set[str] = set(exclude)
        templated = []
        tries = 0
        while len(templated) < n - n_self and tries < 50 * n:
            tries += 1
            kind, text = bank.sample(split, rng)
            if text not in seen:
                seen.add(text)
                templated.append({"split": split, "kind": kind, "instruction": text})
        n_seeds = int(n_self * args.self_tries) + 4
        seeds = [bank.self_instruct_seed(split, rng) for _ in range(n_seeds)]
        if args.self_temperature <= 0:
            seeds = list(dict.fromkeys(seeds))  # greedy writes the same answer to the same request
        log(f"[corpus] {split}: {len(templated)} templated; the model writes {len(seeds)} more from seed requests")
        pick = sampler(args.self_temperature, args.self_min_p, (args.seed if sample_seed is None else sample_seed) + 1)
        written = answer_all(lm.model, [lm.encode(s, chat=True) for s in seeds], 48, args.batch, set(lm.eos_ids),
                             pad_id(lm), pick)
        kept, fate = sort_written(lm, written, seen, n_self, args.requests_only)
        selfmade = [{"split": split, "kind": "self-instruct", "instruction": text} for text in kept]
        log(f"[corpus] {split}: the model's {len(written)} answers to seed requests: "
            + ", ".join(f"{v} {k}" for k, v in fate.items()))
        while sample_seed is not None and len(templated) + len(selfmade) < n and tries < 100 * n:
            tries += 1  # an extension delivers the number asked: templated ones stand in for repeats the model wrote
            kind, text = bank.sample(split, rng)
            if text not in seen:
                seen.add(text)
                templated.append({"split": split, "kind": kind, "instruction": text})
        rows += templated + selfmade
    rng.shuffle(rows)
    return rows


def pad_id(lm) -> int:
    return lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else lm.eos_ids[0]


def shard_names(rows: list[dict], shard: int, part: str = "") -> list[tuple[str, list[int]]]:
    """(file name, row indices) for every shard: held-out first, then training; an extension's shards
    carry its part name (train-x1-00000.jsonl.gz), so they sort after the base shards."""
    out = []
    tag = f"{part}-" if part else ""
    for split in ("heldout", "train"):
        idx = [i for i, r in enumerate(rows) if r["split"] == split]
        for k, s in enumerate(range(0, len(idx), shard)):
            out.append((f"{split}-{tag}{k:05d}.jsonl.gz", idx[s : s + shard]))
    return out


def all_parts(out: Path, shard: int, sizes: dict[str, int] | None = None) -> list[tuple[str, list[dict], list]]:
    """(part, instructions, shards) for the base corpus ("") and every extension found in ``out``; ``sizes``
    gives a part's own shard size where it was made with another --shard than ``shard``."""
    parts = []
    sizes = sizes or {}
    base = out / "instructions.jsonl.gz"
    if base.exists():
        rows = read_jsonl_gz(base)
        parts.append(("", rows, shard_names(rows, sizes.get("", shard))))
    for path in sorted(out.glob("instructions-x*.jsonl.gz")):
        part = path.name[len("instructions-"):-len(".jsonl.gz")]
        rows = read_jsonl_gz(path)
        parts.append((part, rows, shard_names(rows, sizes.get(part, shard), part)))
    return parts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="assets/corpus", help="folder for the shards and manifest")
    ap.add_argument("--train", type=int, default=5200, help="training instructions")
    ap.add_argument("--heldout", type=int, default=240, help="held-out instructions")
    ap.add_argument("--self-share", type=float, default=0.2, help="share of instructions the model writes itself")
    ap.add_argument("--self-tries", type=float, default=1.4,
                    help="seed requests per model-written instruction asked (the model writes few usable ones)")
    ap.add_argument("--self-temperature", type=float, default=0.0,
                    help="sample the model-written instructions at this temperature (0 = greedy, as before x8): "
                         "more phrasings from the same seed requests; the answers stay greedy")
    ap.add_argument("--self-min-p", type=float, default=0.0,
                    help="with --self-temperature: drop tokens below this share of the most likely one's probability")
    ap.add_argument("--wide-bank", action="store_true",
                    help="draw training instructions from the wide bank (more topics, kinds and phrasings, training "
                         "parts only; the held-out split is unchanged): corpus_instructions.EXTRA_*")
    ap.add_argument("--fresh-bank", action="store_true",
                    help="draw training instructions about new subjects only (the wide bank's kinds and phrasings, "
                         "subjects from corpus_instructions.FRESH_*, none sharing a word with a held-out subject)")
    ap.add_argument("--requests-only", action="store_true",
                    help="keep only model-written instructions that read as a user's request (not the assistant's "
                         "voice or a statement): corpus_instructions.looks_like_request")
    ap.add_argument("--max-new-tokens", type=int, default=256,
                    help="answer tokens per instruction at most; the trainers read prompt + answer cut at --seq-len "
                         "(112 since session 20: ~57 answer tokens after a ~48-token prompt, 80 at most), so an "
                         "extension with 96 spends its time on more instructions instead (extension x5)")
    ap.add_argument("--batch", type=int, default=96)
    ap.add_argument("--shard", type=int, default=192, help="instructions per shard")
    ap.add_argument("--max-shards", type=int, default=0, help="stop after this many new shards (0 = all)")
    ap.add_argument("--dtype", default="float32", help="float32 is faster than bfloat16 on CPUs without bf16 units")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch's default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log", default=None)
    ap.add_argument("--extend", type=int, default=0,
                    help="add this many training instructions to a finished corpus (a new part; held-out untouched)")
    ap.add_argument("--extend-seed", type=int, default=1, help="the extension's sampling seed (its part is xSEED)")
    ap.add_argument("--manifest-only", action="store_true",
                    help="only (re)write manifest.json from the shards already made (no model, no generation)")
    args = ap.parse_args(argv)
    if not (args.self_temperature >= 0 and 0 <= args.self_min_p <= 1):
        ap.error(f"--self-temperature must be >= 0 and --self-min-p in [0, 1], got {args.self_temperature} and "
                 f"{args.self_min_p}")
    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log_path = Path(args.log) if args.log else Path(__file__).resolve().parents[1] / "runs" / "corpus.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    logf = log_path.open("a")

    def log(msg: str):
        print(msg, file=sys.stderr, flush=True)
        logf.write(time.strftime("%H:%M:%S ") + msg + "\n")
        logf.flush()

    t0 = time.perf_counter()
    instr_path = out / "instructions.jsonl.gz"
    if args.manifest_only:
        write_manifest(out, args, EMBEDDED_NAME)
        log(f"[corpus] manifest written for the shards made so far ({out / 'manifest.json'})")
        return
    if args.extend and not instr_path.exists():
        raise SystemExit(f"--extend adds to a corpus: {instr_path} does not exist yet (make the base corpus first)")
    if args.extend and args.extend_seed == args.seed:
        raise SystemExit("--extend-seed must differ from --seed (the base corpus's sample)")
    lm = load_model(device=args.device, dtype=args.dtype)
    eos, pad = set(lm.eos_ids), pad_id(lm)
    part = f"x{args.extend_seed}" if args.extend else ""
    if args.extend:
        instr_path = out / f"instructions-{part}.jsonl.gz"
    if instr_path.exists():
        rows = read_jsonl_gz(instr_path)
        log(f"[corpus] {len(rows)} instructions from {instr_path}")
    elif args.extend:
        known = {r["instruction"] for _, rs, _ in all_parts(out, args.shard) for r in rs}
        rows = build_instructions(lm, args, log, splits=(("train", args.extend),), sample_seed=args.extend_seed,
                                  exclude=known)
        write_jsonl_gz(instr_path, rows)
        log(f"[corpus] wrote {len(rows)} new training instructions to {instr_path} ({time.perf_counter() - t0:.0f} s)")
    else:
        rows = build_instructions(lm, args, log)
        write_jsonl_gz(instr_path, rows)
        log(f"[corpus] wrote {len(rows)} instructions ({time.perf_counter() - t0:.0f} s)")

    shards = shard_names(rows, args.shard, part)
    todo = [(name, idx) for name, idx in shards if not (out / name).exists()]
    if args.max_shards:
        todo = todo[: args.max_shards]
    log(f"[corpus] {len(shards) - len(todo)} of {len(shards)} shards done; {len(todo)} to make now")
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it like Ctrl-C: the manifest is still written
    try:
        make_shards(lm, args, rows, todo, out, eos, pad, log)
    except KeyboardInterrupt:
        log("[corpus] stopped; the finished shards are kept (rerun the same command to continue)")
    finally:
        write_manifest(out, args, lm.name)
    log(f"[corpus] done in {time.perf_counter() - t0:.0f} s")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def make_shards(lm, args, rows, todo, out: Path, eos, pad, log) -> None:
    t_gen, tok_gen = 0.0, 0
    for k, (name, idx) in enumerate(todo):
        ts = time.perf_counter()
        prompts = [lm.encode(rows[i]["instruction"], chat=True) for i in idx]
        answers = answer_all(lm.model, prompts, args.max_new_tokens, args.batch, eos, pad)
        shard_rows = [{**rows[i], "prompt_ids": p, "answer_ids": a, "complete": done}
                      for i, p, (a, done) in zip(idx, prompts, answers)]
        write_jsonl_gz(out / name, shard_rows)
        n_tok = sum(len(a) for a, _ in answers)
        t_gen += time.perf_counter() - ts
        tok_gen += n_tok
        eta = t_gen / (k + 1) * (len(todo) - k - 1)
        log(f"[corpus] {name}: {len(idx)} answers, {n_tok} tokens, {n_tok / (time.perf_counter() - ts):.0f} tok/s; "
            f"{k + 1}/{len(todo)} shards this run, {tok_gen} tokens, ETA {eta / 60:.1f} min")


def write_manifest(out: Path, args, target_name: str) -> None:
    """manifest.json from what is on disk: every part's shards; the base command and settings (kept from
    the existing manifest when this run is an extension) and one entry per extension."""
    path = out / "manifest.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    command = "python scripts/make_corpus.py " + " ".join(a for a in sys.argv[1:] if a != "--manifest-only")
    settings = {"train": args.train, "heldout": args.heldout, "self_share": args.self_share,
                "max_new_tokens": args.max_new_tokens, "dtype": args.dtype, "seed": args.seed, "shard": args.shard}
    extensions = dict(old.get("extensions", {}))
    if args.extend or args.manifest_only:  # not a base run: the base's own command and settings stay
        command, settings = old.get("command", command), old.get("settings", settings)
    if args.extend:
        extensions[f"x{args.extend_seed}"] = {
            "command": "python scripts/make_corpus.py " + " ".join(sys.argv[1:]),
            "settings": {"extend": args.extend, "extend_seed": args.extend_seed, "self_share": args.self_share,
                         "self_tries": args.self_tries, "wide_bank": args.wide_bank,
                         "fresh_bank": args.fresh_bank,
                         "requests_only": args.requests_only, "self_temperature": args.self_temperature,
                         "self_min_p": args.self_min_p,
                         "max_new_tokens": args.max_new_tokens, "dtype": args.dtype, "seed": args.seed,
                         "shard": args.shard}}
    sizes = {"": settings.get("shard", args.shard),
             **{part: e["settings"]["shard"] for part, e in extensions.items() if "shard" in e.get("settings", {})}}
    parts = all_parts(out, args.shard, sizes)
    by_split: dict[str, dict] = {}
    kinds: dict[str, int] = {}
    shards_total = shards_made = 0
    for part, rows, shards in parts:
        shards_total += len(shards)
        for name, _ in shards:
            if not (out / name).exists():
                continue
            shards_made += 1
            rs = read_jsonl_gz(out / name)
            s = by_split.setdefault(name.split("-")[0], {"shards": 0, "instructions": 0, "answer_tokens": 0,
                                                         "complete_answers": 0})
            s["shards"] += 1
            s["instructions"] += len(rs)
            s["answer_tokens"] += sum(len(r["answer_ids"]) for r in rs)
            s["complete_answers"] += sum(bool(r["complete"]) for r in rs)
        for r in rows:
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
        if part and part in extensions:
            extensions[part]["instructions"] = len(rows)
            extensions[part]["shards_made"] = sum((out / n).exists() for n, _ in shards)
            extensions[part]["shards_total"] = len(shards)
    manifest = {
        "what": "Self-distillation corpus: instructions (templated from scripts/corpus_instructions.py and written by "
                "the embedded model) with the embedded target's own greedy answers, as token ids.",
        "target": target_name,
        "command": command,
        "settings": settings,
        "held_out_rule": "held-out instructions use only held-out topics/subjects, held-out phrasings, held-out "
                         "context and constraint sentences and held-out self-instruct seeds (disjoint from training); "
                         "extensions add training instructions only, from the same split",
        "shards_total": shards_total, "shards_made": shards_made, "splits": by_split, "kinds": kinds,
    }
    if extensions:
        manifest["extensions"] = extensions
    path.write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
