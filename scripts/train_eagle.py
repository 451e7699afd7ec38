"""Train the EAGLE draft head for the embedded SmolLM2-135M-Instruct (docs/ALGORITHMS.md section 4.2).

Target features (last hidden state after the final norm) are computed ONCE on the self-distillation
corpus (scripts/make_corpus.py) and cached in --work. The head learns f_{i+1} from
(f_i + noise, embed(t_{i+1})) with L = SmoothL1(f_{i+1}, f_hat) + 0.1 * CE(softmax(lm_head(f_{i+1})),
lm_head(f_hat)), AdamW, warm-up + cosine. Checkpoints every --ckpt-every steps; a rerun resumes.

    python scripts/train_eagle.py --corpus data/corpus.jsonl --out assets/eagle --epochs 3
"""
from __future__ import annotations

import argparse
import random
import time

import torch
import torch.nn.functional as F

from train_common import (batches, command_line, corpus_summary, git_commit, load_checkpoint, load_corpus, lr_at,
                          resume, save_checkpoint, start_run, write_manifest)

from decoding_core.eagle_head import EagleHead, head_state, save_head
from decoding_core.models import load_model


@torch.no_grad()
def extract_features(target, seqs, log, batch_tokens=4096):
    """Per sequence: the target's final hidden states [L, H] in bfloat16 (computed once)."""
    feats: list[torch.Tensor | None] = [None] * len(seqs)
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i][0]))
    t0, done = time.perf_counter(), 0
    i = 0
    while i < len(order):
        group = [order[i]]
        while i + len(group) < len(order) and (len(group) + 1) * len(seqs[order[i + len(group)]][0]) <= batch_tokens:
            group.append(order[i + len(group)])
        width = max(len(seqs[j][0]) for j in group)
        ids = torch.zeros(len(group), width, dtype=torch.long)
        for r, j in enumerate(group):
            ids[r, : len(seqs[j][0])] = torch.tensor(seqs[j][0])
        hidden = target.model.model(input_ids=ids).last_hidden_state  # after the final norm
        for r, j in enumerate(group):
            feats[j] = hidden[r, : len(seqs[j][0])].to(torch.bfloat16).clone()
        done += sum(len(seqs[j][0]) for j in group)
        i += len(group)
        log(f"features: {done} tokens, {done / (time.perf_counter() - t0):.0f} tok/s")
    return feats


def feature_batches(seqs, feats, batch_tokens, rng, pad):
    """Batches of (ids, answer mask, features [B, L, H] float32) padded on the right: train_common.batches
    with each sequence's stored features beside it."""
    for ids, _mask, answer, g in batches(seqs, batch_tokens, rng, pad, with_index=True):
        f = torch.zeros(len(g), ids.shape[1], feats[g[0]].shape[-1])
        for r, k in enumerate(g):
            f[r, : len(seqs[k][0])] = feats[k].float()
        yield ids, answer, f


def head_loss(head, embed, lm_head, ids, answer, f, noise: float, w_cls: float, gen=None):
    """Losses on positions i whose NEXT token t_{i+1} is an answer token (predicting f_{i+1})."""
    inp = f[:, :-1]
    if noise:
        inp = inp + (torch.rand(inp.shape, generator=gen) * 2 - 1) * noise
    tok_next = ids[:, 1:]
    pos = torch.arange(inp.shape[1])[None].expand(inp.shape[0], -1)
    f_hat = head(inp, embed(tok_next), pos)
    m = answer[:, 1:]
    target = f[:, 1:][m]
    pred = f_hat[m]
    l_reg = F.smooth_l1_loss(pred, target)
    with torch.no_grad():
        p_target = torch.softmax(lm_head(target), dim=-1)
    logq = torch.log_softmax(lm_head(pred), dim=-1)
    l_cls = -(p_target * logq).sum(-1).mean()
    return l_reg + w_cls * l_cls, l_reg, l_cls, logq, p_target


@torch.no_grad()
def evaluate(head, embed, lm_head, seqs, feats, pad):
    """Held-out: losses, and top-1 agreement of lm_head(f_hat_{i+1}) with the target's own next token
    (depth-1 acceptance with true features)."""
    head.eval()
    tot = {"reg": 0.0, "cls": 0.0, "ok": 0, "n": 0}
    for ids, answer, f in feature_batches(seqs, feats, 4096, random.Random(0), pad):
        _, l_reg, l_cls, logq, p_target = head_loss(head, embed, lm_head, ids, answer, f, 0.0, 0.1)
        n = logq.shape[0]
        tot["reg"] += float(l_reg) * n
        tot["cls"] += float(l_cls) * n
        tot["ok"] += int((logq.argmax(-1) == p_target.argmax(-1)).sum())
        tot["n"] += n
    head.train()
    n = max(tot["n"], 1)
    return tot["reg"] / n, tot["cls"] / n, tot["ok"] / n


def init_head(target, cfg) -> EagleHead:
    """Start at the "next feature = this feature" baseline: fc = [small noise | identity] and the
    layer's output projections (attention o_proj, MLP down_proj) zeroed, so the residual layer is the
    identity and training learns the change. (Starting from the target's last layer was far worse:
    its weights expect a residual stream, not post-norm features.)"""
    head = EagleHead(cfg)
    h = cfg.hidden_size
    with torch.no_grad():
        head.fc.weight.normal_(0, 0.02 / h ** 0.5)
        head.fc.weight[:, h:] += torch.eye(h)
        head.fc.bias.zero_()
        head.layer.self_attn.o_proj.weight.zero_()
        head.layer.mlp.down_proj.weight.zero_()
    return head


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="data/corpus.jsonl")
    ap.add_argument("--out", default="assets/eagle")
    ap.add_argument("--work", default="runs/eagle")
    ap.add_argument("--epochs", type=float, default=3.0)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--noise", type=float, default=0.1, help="uniform feature noise U(-a, a)")
    ap.add_argument("--w-cls", type=float, default=0.1)
    ap.add_argument("--ckpt-every", type=int, default=25)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    work, out, log = start_run(args)
    gen = torch.Generator().manual_seed(args.seed)

    target = load_model(device="cpu", dtype="float32")
    pad = target.eos_ids[0]
    embed, lm_head = target.model.get_input_embeddings(), target.model.get_output_embeddings()
    train = load_corpus(args.corpus, "train", args.seq_len)
    held = load_corpus(args.corpus, "heldout", args.seq_len)
    feat_path = work / "features.pt"
    cached = load_checkpoint(feat_path)
    if cached and cached.get("corpus") == str(args.corpus) and len(cached["train"]) == len(train):
        train_f, held_f = cached["train"], cached["held"]
        log("features loaded from cache")
    else:
        t0 = time.perf_counter()
        train_f = extract_features(target, train, log)
        held_f = extract_features(target, held, log)
        save_checkpoint(feat_path, corpus=str(args.corpus), train=train_f, held=held_f)
        log(f"features extracted in {time.perf_counter() - t0:.0f}s")

    cfg = type(target.model.config).from_dict(target.model.config.to_dict())
    cfg._attn_implementation = target.model.config._attn_implementation
    head = init_head(target, cfg)
    opt = torch.optim.AdamW(head.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.0)
    n_tokens = sum(len(s) for s, _ in train)
    steps_per_epoch = sum(1 for _ in feature_batches(train, train_f, args.batch_tokens, random.Random(0), pad))
    total = args.max_steps or max(1, int(steps_per_epoch * args.epochs))
    log(f"EAGLE head: {sum(v.numel() for v in head_state(head).values()) / 1e6:.2f}M params; {len(train)} train / "
        f"{len(held)} held-out sequences, {n_tokens} tokens; {total} steps")
    ckpt_path = work / "ckpt.pt"
    step, curve, wall0, commands = resume(ckpt_path, head, opt, log)
    t0 = time.perf_counter()
    head.train()
    epoch = step // max(1, steps_per_epoch)
    while step < total:
        for ids, answer, f in feature_batches(train, train_f, args.batch_tokens, random.Random(args.seed + epoch), pad):
            if step >= total:
                break
            for g in opt.param_groups:
                g["lr"] = lr_at(step, total, args.lr, args.warmup)
            loss, l_reg, l_cls, logq, p_target = head_loss(head, embed, lm_head, ids, answer, f, args.noise,
                                                           args.w_cls, gen)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(head.parameters(), 0.5)
            opt.step()
            step += 1
            acc = float((logq.argmax(-1) == p_target.argmax(-1)).float().mean())
            curve.append([step, round(l_reg.item(), 4), round(l_cls.item(), 4), round(acc, 4)])
            if step % 5 == 0 or step == total:
                el = wall0 + time.perf_counter() - t0
                log(f"step {step}/{total} reg {l_reg.item():.4f} cls {l_cls.item():.4f} top1 {acc:.3f} {el:.0f}s")
            if step % args.ckpt_every == 0:
                save_checkpoint(ckpt_path, model=head.state_dict(), opt=opt.state_dict(), step=step, curve=curve, commands=commands,
                                wall_s=wall0 + time.perf_counter() - t0)
        epoch += 1
    wall = wall0 + time.perf_counter() - t0
    h_reg, h_cls, h_acc = evaluate(head, embed, lm_head, held, held_f, pad)
    log(f"held-out: reg {h_reg:.4f} cls {h_cls:.4f} top-1 agreement {h_acc:.3f}")
    digest = save_head(head, out)
    write_manifest(out, {
        "what": "EAGLE draft head for the embedded SmolLM2-135M-Instruct: fc(2H->H) + one Llama decoder layer "
                "without input norm; the target's frozen embedding and LM head are used, not stored. Public EAGLE "
                "layout (fc.*, layers.0.*).",
        "architecture": {"hidden": cfg.hidden_size, "params_stored": sum(v.numel() for v in head_state(head).values()),
                         "init": "identity: fc = [noise | I], o_proj and down_proj zero"},
        "command": command_line(),
        "commands": commands,
        "git_commit": git_commit(),
        "data": {"corpus": args.corpus, **corpus_summary(args.corpus), "train_sequences": len(train),
                 "train_tokens": n_tokens, "heldout_sequences": len(held)},
        "training": {"steps": step, "epochs": round(step / max(1, steps_per_epoch), 2), "batch_tokens": args.batch_tokens,
                     "lr": args.lr, "optimizer": "AdamW(0.9, 0.95), warm-up + cosine, grad clip 0.5",
                     "loss": f"SmoothL1 + {args.w_cls} x soft cross-entropy", "noise": f"U(-{args.noise}, {args.noise})",
                     "wall_s": round(wall, 1), "threads": torch.get_num_threads()},
        "losses": {"columns": ["step", "reg", "cls", "top1"],
                   "rows": curve[:: max(1, len(curve) // 100)] + ([curve[-1]] if curve else [])},
        "heldout": {"reg": round(h_reg, 4), "cls": round(h_cls, 4), "top1_agreement": round(h_acc, 4)},
        "sha256": {"model.safetensors": digest},
    })
    log(f"wrote {out}/model.safetensors ({(out / 'model.safetensors').stat().st_size / 1e6:.1f} MB) and manifest.json")


if __name__ == "__main__":
    main()
