"""Train the EAGLE-3 head for the embedded SmolLM2-135M-Instruct (decoding_core/eagle3_head.py).

1. Draft vocabulary: the --vocab most frequent answer tokens of the training split (coverage of the
   answers for several sizes goes to the log and the manifest). Fixed once in --work/vocab.json, so a
   resumed run keeps it even when the corpus has grown.
2. Target features, computed once per sequence and cached in --work/features (append-only files and
   an index, resumable): the hidden states entering the feature layers (float16), the last hidden
   state after the final norm (float16; the soft labels are its logits over the draft vocabulary)
   and the target's full-vocabulary argmax. With --live-features the training split is not cached: each
   step runs the target over its own batch (LiveFeatures), so a fresh machine trains at once.
3. Training-time test: the head runs --ttt times over each batch, step k feeding step k-1's output
   hidden states (Eagle3Head.unrolled); loss = sum_k 0.8^k soft cross-entropy against the target's
   distribution renormalised over the draft vocabulary, at answer positions whose target top-1 is in
   the draft vocabulary (as in EAGLE-3's trainer). No feature-regression loss.
AdamW, warm-up + cosine; checkpoints every --ckpt-every steps (loaded without pickle); a rerun of
the same command resumes. Progress, held-out top-1 per depth and an ETA go to --work/train.log.

    python scripts/train_eagle3.py --corpus assets/corpus --out assets/eagle3 --epochs 2
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import torch

from train_common import (BF16_HELP, OPENING_HELP, autocast, batches, choose_vocab, command_line, corpus_summary,
                          coverage_of, first_answer_tokens, git_commit, load_corpus, lr_at, precision, resume,
                          save_checkpoint, start_run, write_manifest)

from decoding_core.eagle3_head import build_eagle3, save_eagle3
from decoding_core.models import load_model

class FeatureStore:
    """Append-only float16 feature files + an index {sequence key: (offset, length)}; resumable."""

    def __init__(self, folder: Path, widths: dict[str, tuple[int, str]]):
        self.folder, self.widths = folder, widths
        folder.mkdir(parents=True, exist_ok=True)
        idx = folder / "index.json"
        self.index = json.loads(idx.read_text()) if idx.exists() else {"rows": 0, "seqs": {}}
        for name, (w, dt) in widths.items():  # drop anything written after the last index save
            path = folder / f"{name}.bin"
            keep = self.index["rows"] * w * np.dtype(dt).itemsize
            if path.exists() and path.stat().st_size > keep:
                with open(path, "r+b") as f:
                    f.truncate(keep)
        self._maps: dict = {}

    @staticmethod
    def key(seq) -> str:
        return str(hash(tuple(seq)) & 0xFFFFFFFFFFFF) + f"-{len(seq)}"

    def has(self, seq) -> bool:
        return self.key(seq) in self.index["seqs"]

    def append(self, items: list[tuple[list[int], dict[str, np.ndarray]]]) -> None:
        for name, (w, dt) in self.widths.items():
            with open(self.folder / f"{name}.bin", "ab") as f:
                for _, arrays in items:
                    f.write(np.ascontiguousarray(arrays[name].astype(dt)).tobytes())
        for seq, arrays in items:
            n = len(seq)
            self.index["seqs"][self.key(seq)] = [self.index["rows"], n]
            self.index["rows"] += n
        tmp = self.folder / "index.json.tmp"
        tmp.write_text(json.dumps(self.index))
        tmp.replace(self.folder / "index.json")
        self._maps = {}

    def get(self, seq, name: str) -> np.ndarray:
        if name not in self._maps:
            w, dt = self.widths[name]
            self._maps[name] = np.memmap(self.folder / f"{name}.bin", dtype=dt, mode="r", shape=(self.index["rows"], w))
        off, n = self.index["seqs"][self.key(seq)]
        return self._maps[name][off : off + n]


class LiveFeatures:
    """The FeatureStore's interface without the disk (--live-features): the target's features for one training batch,
    computed when the batch comes and rounded to the store's dtypes, so a step sees what it would read from the cache.
    Training starts at once on a machine without the cache; each step pays one target forward over its batch (the
    cache pays it once per sequence, up front)."""

    def __init__(self, target, layers, widths: dict[str, tuple[int, str]]):
        self.target, self.layers, self.widths, self.rows = target, layers, widths, {}

    key = staticmethod(FeatureStore.key)

    def has(self, seq) -> bool:
        return self.key(seq) in self.rows

    def append(self, items: list[tuple[list[int], dict[str, np.ndarray]]]) -> None:
        for seq, arrays in items:
            self.rows[self.key(seq)] = {n: arrays[n].astype(dt) for n, (_, dt) in self.widths.items()}

    def get(self, seq, name: str) -> np.ndarray:
        return self.rows[self.key(seq)][name]

    def fill(self, seqs) -> "LiveFeatures":
        """Hold the features of these sequences (and only these)."""
        self.rows = {}
        extract(self.target, self, self.layers, [(s, None) for s in seqs], lambda *_: None)
        return self


@torch.no_grad()
def extract(target, store: FeatureStore, layers, seqs, log, batch_tokens: int = 4096) -> None:
    """Run the target over every sequence not in the store yet; store its features."""
    todo = sorted({tuple(s) for s, _ in seqs if not store.has(s)}, key=len)
    if not todo:
        return
    t0, done, total = time.perf_counter(), 0, sum(len(s) for s in todo)
    i = 0
    while i < len(todo):
        group = [todo[i]]
        while i + len(group) < len(todo) and (len(group) + 1) * len(todo[i + len(group)]) <= batch_tokens:
            group.append(todo[i + len(group)])
        width = max(len(s) for s in group)
        ids = torch.zeros(len(group), width, dtype=torch.long)
        for r, s in enumerate(group):
            ids[r, : len(s)] = torch.tensor(s)
        out = target.model.model(input_ids=ids, output_hidden_states="low" in store.widths)  # right padding: causal
        fields = {"last": out.last_hidden_state}
        if "argmax" in store.widths:
            fields["argmax"] = target.model.lm_head(out.last_hidden_state).argmax(-1)
        if "low" in store.widths:
            fields["low"] = torch.cat([out.hidden_states[j] for j in layers], dim=-1)
        store.append([(list(s), {n: v[r, : len(s)].numpy() for n, v in fields.items()}) for r, s in enumerate(group)])
        done += sum(len(s) for s in group)
        i += len(group)
        el = time.perf_counter() - t0
        log(f"features: {done}/{total} tokens, {done / el:.0f} tok/s, ETA {(total - done) / max(1, done / el) / 60:.1f} min")


def gather(store: FeatureStore, seqs, group, width: int, name: str, dim: int, dtype=torch.float32) -> torch.Tensor:
    out = torch.zeros(len(group), width, dim, dtype=dtype) if dim else torch.zeros(len(group), width, dtype=dtype)
    for r, k in enumerate(group):
        a = torch.from_numpy(np.asarray(store.get(seqs[k][0], name)))
        out[r, : a.shape[0]] = a.to(dtype) if dim else a.to(dtype).view(-1)
    return out


def ttt_losses(head, embed, w_draft, in_vocab, ids, mask, answer, low, last, argmax, ttt: int):
    """Per-depth soft cross-entropy and top-1 agreement (training-time test). Shapes: ids/mask/answer
    [B, L]; low [B, L, 3H]; last [B, L, H]; argmax [B, L] (the target's full-vocabulary top-1).
    Depth k at index j predicts the target's distribution at position i = j + k + 1 (token i + 1)."""
    B, L = ids.shape
    with torch.no_grad(), torch.autocast("cpu", enabled=False):  # the soft labels stay float32 under --bf16
        p = torch.softmax(last @ w_draft.t(), dim=-1)            # target over the draft vocab, [B, L, V_d]
        p_top = p.argmax(-1)
        valid = torch.zeros(B, L, dtype=torch.bool)
        valid[:, :-1] = answer[:, 1:] & mask[:, 1:]              # p_i counts if token i + 1 is an answer token
        in_vd = in_vocab[argmax] & valid                          # ... and its top-1 is in the draft vocab
    g = head.fc(low)                                              # fused features g_j
    embeds = []
    for k in range(ttt):
        shifted = torch.zeros_like(ids)
        shifted[:, : L - k - 1] = ids[:, k + 1 :]
        embeds.append(embed(shifted))
    outs = head.unrolled(g, embeds)
    losses, accs, counts = [], [], []
    for k, out in enumerate(outs):
        n = L - k - 1
        logq = torch.log_softmax(head.draft_logits(out[:, :n]).float(), dim=-1)
        pk, mk, vk = p[:, k + 1 :], in_vd[:, k + 1 :], valid[:, k + 1 :]
        ce = -(pk * logq).sum(-1)
        losses.append((ce * mk).sum() / mk.sum().clamp(min=1))
        hit = (logq.argmax(-1) == p_top[:, k + 1 :]) & mk
        accs.append(float(hit.sum()) / max(1, int(vk.sum())))   # out-of-vocabulary targets count as misses
        counts.append(int(vk.sum()))
    return losses, accs, counts


def init_head(target, d2t: torch.Tensor, layers):
    """Start from the target where shapes allow: LM head = the target's rows for the draft vocabulary,
    final norm, post-attention norm and MLP from the target's last layer; fc picks the highest feature
    layer; o_proj starts at zero (the layer begins as 'g + MLP(g)')."""
    head = build_eagle3(target.model.config, d2t, layers)
    t = target.model
    h = t.config.hidden_size
    with torch.no_grad():
        head.lm_head.weight.copy_(t.lm_head.weight[d2t])
        head.norm.weight.copy_(t.model.norm.weight)
        last = t.model.layers[-1]
        head.post_norm.weight.copy_(last.post_attention_layernorm.weight)
        head.mlp.load_state_dict({k: v.clone() for k, v in last.mlp.state_dict().items()})
        head.fc.weight.normal_(0, 0.02 / h ** 0.5)
        head.fc.weight[:, -h:] += torch.eye(h)
        head.o_proj.weight.zero_()
    return head


def warm_d2t(folder) -> list[int]:
    """The draft vocabulary (target ids) of an EAGLE-3 asset folder."""
    from safetensors import safe_open

    with safe_open(str(Path(folder) / "model.safetensors"), "pt") as f:
        return f.get_tensor("d2t").tolist()


def widen_head(head, warm) -> str:
    """Load a trained head ``warm`` into ``head`` (from init_head). With the same vocabulary everything is
    copied; with another one (e.g. a larger V_d) every weight but the LM head is copied, and the LM-head
    rows of the tokens both vocabularies share come from ``warm``: the new tokens keep the target's rows."""
    state = {k: v.float() for k, v in warm.state_dict().items()}
    old, new = warm.d2t.tolist(), head.d2t.tolist()
    if old == new:
        head.load_state_dict(state)
        return "same draft vocabulary"
    rows = state.pop("lm_head.weight")
    state.pop("d2t", None)
    missing, unexpected = head.load_state_dict(state, strict=False)
    if unexpected or set(missing) - {"lm_head.weight", "d2t"}:
        raise SystemExit(f"--init-from: the head does not fit (missing {missing[:3]}, unexpected {unexpected[:3]})")
    where = {t: i for i, t in enumerate(old)}
    shared = [(i, where[t]) for i, t in enumerate(new) if t in where]
    with torch.no_grad():
        if shared:
            dst, src = map(torch.tensor, zip(*shared))
            head.lm_head.weight[dst] = rows[src]
    return (f"draft vocabulary {len(old)} -> {len(new)} tokens; LM-head rows of the {len(shared)} shared tokens "
            f"kept, {len(new) - len(shared)} new rows from the target's LM head")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--out", default="assets/eagle3")
    ap.add_argument("--work", default="runs/eagle3")
    ap.add_argument("--vocab", type=int, default=8192, help="draft vocabulary size V_d")
    ap.add_argument("--ttt", type=int, default=5, help="training-time test steps (depths trained)")
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--seq-len", type=int, default=384)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--ckpt-every", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--heldout", type=int, default=48, help="held-out sequences for the evaluation")
    ap.add_argument("--max-train", type=int, default=None, help="use at most this many training sequences")
    ap.add_argument("--skip-train", type=int, default=0,
                    help="leave out the first K training sequences (e.g. those an --init-from head already saw)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bf16", action="store_true", help=BF16_HELP)
    ap.add_argument("--head-lr-scale", type=float, default=1.0,
                    help="learning rate of the head's own LM head (and final norm) relative to --lr: below 1 keeps "
                         "the rows copied from the target from drifting while the layer learns")
    ap.add_argument("--init-from", default=None,
                    help="start from an existing EAGLE-3 asset folder (e.g. assets/eagle3) instead of the target-initialised "
                         "head (a warm start; a checkpoint in --work wins). With the same --vocab size it keeps the "
                         "asset's vocabulary; with another it chooses one from the corpus and widens the head into it "
                         "(shared tokens keep their LM-head rows)")
    ap.add_argument("--opening", type=int, default=64, help=OPENING_HELP)
    ap.add_argument("--live-features", action="store_true",
                    help="no feature cache for the training split: each step runs the target over its batch (one "
                         "forward per step; no up-front extraction, no disk). Pays on a machine without the cache "
                         "for runs under about an epoch; the held-out split is still cached (it is small)")
    ap.add_argument("--features-only", action="store_true",
                    help="extract (or extend) the target-feature cache for the corpus and stop, e.g. before train_draft.py "
                         "--features, which reads the same cache")
    args = ap.parse_args(argv)
    if args.live_features and args.features_only:
        ap.error("--features-only fills the cache; --live-features trains without it")
    work, out, log = start_run(args)

    target = load_model(device="cpu", dtype="float32")
    cfg = target.model.config
    layers = (2, cfg.num_hidden_layers // 2, cfg.num_hidden_layers - 3)
    pad = target.eos_ids[0]
    train = load_corpus(args.corpus, "train", args.seq_len)[args.skip_train:]
    train = train[:args.max_train] if args.max_train else train
    held = load_corpus(args.corpus, "heldout", args.seq_len, args.heldout)
    vocab_path = work / "vocab.json"
    warm_vocab = warm_d2t(args.init_from) if args.init_from and not vocab_path.exists() else None
    if vocab_path.exists():
        vocab = json.loads(vocab_path.read_text())
    elif warm_vocab and len(warm_vocab) == args.vocab:  # a warm start keeps its head's vocabulary
        vocab = {"d2t": warm_vocab, "coverage": choose_vocab(train, args.vocab, target.vocab_size)[1],
                 "from": f"{args.init_from} (warm start)"}
        vocab_path.write_text(json.dumps(vocab))
    else:
        d2t_list, coverage = choose_vocab(train, args.vocab, target.vocab_size)
        vocab = {"d2t": d2t_list, "coverage": coverage, "from_sequences": len(train)}
        vocab_path.write_text(json.dumps(vocab))
    d2t = torch.tensor(vocab["d2t"])
    held_coverage = coverage_of(held, vocab["d2t"])
    opening_coverage = coverage_of(held, vocab["d2t"], args.opening or None)
    log(f"draft vocabulary V_d = {len(d2t)}; train answer coverage by size {vocab['coverage']}; "
        f"held-out coverage at V_d: {held_coverage:.4f}"
        + (f" ({opening_coverage:.4f} on the first {args.opening} answer tokens)" if args.opening else ""))

    h = cfg.hidden_size
    store = FeatureStore(work / "features", {"low": (len(layers) * h, "float16"), "last": (h, "float16"),
                                             "argmax": (1, "int32")})
    t_feat = time.perf_counter()
    extract(target, store, layers, held if args.live_features else held + train, log)
    log(f"features ready ({store.index['rows']} rows, {time.perf_counter() - t_feat:.0f} s this run)"
        + ("; the training split's are computed per batch (--live-features)" if args.live_features else ""))
    live = LiveFeatures(target, layers, store.widths) if args.live_features else None
    if args.features_only:
        return

    head = init_head(target, d2t, layers)
    if args.init_from and not (work / "ckpt.pt").exists():
        from decoding_core.eagle3_head import load_eagle3

        warm = load_eagle3(target, args.init_from)
        log(f"warm start from {args.init_from}: {widen_head(head, warm)}")
    embed = target.model.get_input_embeddings()
    w_draft = target.model.lm_head.weight[d2t].detach().clone()
    in_vocab = torch.zeros(target.vocab_size, dtype=torch.bool)
    in_vocab[d2t] = True
    params = [p for p in head.parameters() if p.requires_grad]
    out_names = ("lm_head.", "norm.")  # the head's own LM head and the final norm before it
    groups = [{"params": [p for n, p in head.named_parameters() if p.requires_grad and not n.startswith(out_names)],
               "scale": 1.0},
              {"params": [p for n, p in head.named_parameters() if p.requires_grad and n.startswith(out_names)],
               "scale": args.head_lr_scale}]
    opt = torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.95), weight_decay=0.0)
    steps_per_epoch = sum(1 for _ in batches(train, args.batch_tokens, random.Random(0), pad))
    total = args.max_steps or max(1, int(steps_per_epoch * args.epochs))
    n_params = sum(p.numel() for p in params)
    n_tokens = sum(len(s) for s, _ in train)
    log(f"EAGLE-3 head: {n_params / 1e6:.2f}M params; {len(train)} train / {len(held)} held-out sequences, "
        f"{n_tokens} tokens; {steps_per_epoch} steps per epoch, {total} steps, TTT {args.ttt}")
    ckpt_path = work / "ckpt.pt"
    step, curve, wall0, commands = resume(ckpt_path, head, opt, log, strict=False)
    weights = [0.8 ** k for k in range(args.ttt)]

    def run_batch(ids, mask, answer, group, seqs):
        width = ids.shape[1]
        src = live.fill([seqs[k][0] for k in group]) if live is not None and seqs is train else store
        low = gather(src, seqs, group, width, "low", len(layers) * h)
        last = gather(src, seqs, group, width, "last", h)
        argmax = gather(src, seqs, group, width, "argmax", 0, torch.long)
        with autocast(args.bf16):
            return ttt_losses(head, embed, w_draft, in_vocab, ids, mask, answer, low, last, argmax, args.ttt)

    def evaluate(first=None):
        head.eval()
        hits, n = [0.0] * args.ttt, [0] * args.ttt
        with torch.no_grad():
            for ids, mask, answer, group in batches(held, args.batch_tokens, random.Random(0), pad, with_index=True):
                _, accs, counts = run_batch(ids, mask, first_answer_tokens(answer, first), group, held)
                for k in range(args.ttt):
                    hits[k] += accs[k] * counts[k]
                    n[k] += counts[k]
        head.train()
        return [round(hits[k] / max(1, n[k]), 4) for k in range(args.ttt)]

    t0 = time.perf_counter()
    first_step = step
    evals = []
    if step == 0 and args.init_from:  # the warm start's own figure (a widened vocabulary changes it)
        evals.append([0] + evaluate())
        log(f"held-out top-1 by depth at the warm start: {evals[-1][1:]}")
    head.train()
    epoch = step // max(1, steps_per_epoch)
    skip = step - epoch * steps_per_epoch  # batches of this epoch already trained before a resume
    while step < total:
        for b, (ids, mask, answer, group) in enumerate(batches(train, args.batch_tokens,
                                                               random.Random(args.seed + epoch), pad, with_index=True)):
            if b < skip:
                continue
            if step >= total:
                break
            for grp in opt.param_groups:
                grp["lr"] = lr_at(step, total, args.lr, args.warmup) * grp.get("scale", 1.0)
            losses, accs, _ = run_batch(ids, mask, answer, group, train)
            loss = sum(w * l for w, l in zip(weights, losses))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 0.5)
            opt.step()
            step += 1
            curve.append([step, round(loss.item(), 4)] + [round(a, 4) for a in accs])
            el = wall0 + time.perf_counter() - t0
            if step % 5 == 0 or step == total:
                per_step = (time.perf_counter() - t0) / (step - first_step)
                log(f"step {step}/{total} loss {loss.item():.4f} top1 by depth {' '.join(f'{a:.3f}' for a in accs)} "
                    f"{el:.0f}s, ETA {(total - step) * per_step / 60:.1f} min")
            if step % args.ckpt_every == 0 or step == total:
                save_checkpoint(ckpt_path, model=head.state_dict(), opt=opt.state_dict(), step=step, curve=curve,
                                commands=commands, wall_s=wall0 + time.perf_counter() - t0)
            if step % args.eval_every == 0:
                evals.append([step] + evaluate())
                log(f"held-out top-1 by depth at step {step}: {evals[-1][1:]}")
        epoch += 1
        skip = 0
    wall = wall0 + time.perf_counter() - t0
    log(f"held-out top-1 agreement by depth (float32): {evaluate()}")
    with torch.no_grad():  # the asset stores bfloat16 (half the bytes): evaluate what it loads as
        for prm in head.parameters():
            prm.copy_(prm.to(torch.bfloat16).float())
    held_acc = evaluate()
    log(f"held-out top-1 agreement by depth with the stored bfloat16 weights: {held_acc}")
    opening_acc = evaluate(args.opening) if args.opening else None
    if opening_acc:
        log(f"... on the first {args.opening} answer tokens: {opening_acc}")
    digest = save_eagle3(head, out, torch.bfloat16)
    write_manifest(out, {
        "what": "EAGLE-3 draft head for the embedded SmolLM2-135M-Instruct: fc(3H->H) over the hidden states entering "
                f"layers {list(layers)}, one decoder layer over [norm(embed); norm(feature)], final norm and its own LM "
                f"head over a {len(d2t)}-token draft vocabulary (d2t stored with the weights).",
        "architecture": {"feature_layers": list(layers), "hidden": h, "draft_vocab_size": len(d2t),
                         "params_stored": n_params,
                         "init": "LM head rows, final norm and last-layer MLP from the target; fc picks the highest "
                                 "feature layer; o_proj zero"},
        "vocabulary": {"size": len(d2t), "train_answer_coverage_by_size": vocab["coverage"],
                       "heldout_answer_coverage": round(held_coverage, 4),
                       **({f"heldout_coverage_first_{args.opening}": round(opening_coverage, 4)} if args.opening else {})},
        "command": command_line(),
        "commands": commands,
        "git_commit": git_commit(),
        "data": {"corpus": args.corpus, **corpus_summary(args.corpus), "train_sequences": len(train),
                 "train_tokens": n_tokens, "heldout_sequences": len(held), "seq_len": args.seq_len},
        "training": {"steps": step, "epochs": round(step / max(1, steps_per_epoch), 2), "batch_tokens": args.batch_tokens,
                     "ttt_steps": args.ttt, "ttt_weights": [round(w, 4) for w in weights], "lr": args.lr,
                     "head_lr_scale": args.head_lr_scale, "init_from": args.init_from,
                     "optimizer": "AdamW(0.9, 0.95), warm-up + cosine, grad clip 0.5",
                     "loss": "soft cross-entropy against the target's distribution over the draft vocabulary, at "
                             "answer positions whose target top-1 is in it; no feature loss",
                     "wall_s": round(wall, 1), "threads": torch.get_num_threads(),
                     "precision": precision(args)},
        "losses": {"columns": ["step", "loss"] + [f"top1_depth{k + 1}" for k in range(args.ttt)],
                   "rows": curve[:: max(1, len(curve) // 100)] + ([curve[-1]] if curve else [])},
        "heldout_evals": {"columns": ["step"] + [f"top1_depth{k + 1}" for k in range(args.ttt)], "rows": evals},
        "heldout": {"top1_agreement_by_depth": held_acc,
                    **({f"top1_agreement_by_depth_first_{args.opening}": opening_acc} if args.opening else {}),
                    "note": "share of held-out answer positions where the head's top-1 (fed its own features for "
                            "depths > 1) equals the target's; targets outside the draft vocabulary count as misses"},
        "sha256": {"model.safetensors": digest},
    })
    log(f"wrote {out}/model.safetensors ({(out / 'model.safetensors').stat().st_size / 1e6:.1f} MB) and manifest.json")


if __name__ == "__main__":
    main()
