"""Train the speculative draft for the embedded SmolLM2-135M-Instruct by self-distillation.

The draft (decoding_core/draft.py) is --layers Llama layers (2 by default) with a narrower MLP,
initialised from evenly spread target layers, sharing the target's frozen embedding / LM head; an
--init-from draft with fewer layers is grown without changing its function (draft.grow_draft). It learns to
predict the target's own greedy answers (scripts/make_corpus.py). Checkpoints go to --work every
--ckpt-every steps and a rerun resumes from there; the asset and its manifest go to --out.

    python scripts/train_draft.py --corpus data/corpus.jsonl --out assets/draft --epochs 2

Reduced vocabulary (EAGLE-3 style): with --vocab (a JSON {"d2t": [...]}, e.g. runs/eagle3/vocab.json) the
draft's logits cover only those tokens (its LM head is the target's rows for them), the hard labels are the
target's greedy tokens that fall inside, and --features (a feature store written by train_eagle3.py, e.g.
runs/eagle3/features, or 'live' to compute them per batch) gives soft labels over the same tokens; --init-from
warm-starts from a draft asset. --vocab also takes an asset folder (assets/draft) and reuses its token list.
The asset then carries vocab.safetensors (d2t), which load_embedded_draft applies.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from train_common import (BF16_HELP, OPENING_HELP, ROOT, autocast, batches, command_line, corpus_summary, coverage_of,
                          first_answer_tokens, git_commit, load_checkpoint, load_corpus, lr_at, precision, resume,
                          save_checkpoint, start_run, write_manifest)

from decoding_core.draft import (draft_config, draft_cost_ratio, grow_draft, init_draft_from_target, save_draft,
                                 source_layers, trainable_state)
from decoding_core.models import load_model


def w_d_vocab_size(draft) -> int:
    return draft.config.vocab_size


def t2d_of(d2t: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Target id -> draft index (-1 outside the draft vocabulary)."""
    t2d = torch.full((vocab_size,), -1, dtype=torch.long)
    t2d[d2t] = torch.arange(len(d2t))
    return t2d


def draft_logits(draft, ids, mask, w_d=None):
    """Logits [B, L, V] over the full vocabulary, or [B, L, V_d] over the draft vocabulary (w_d: its LM-head rows)."""
    if w_d is None:
        return draft(input_ids=ids, attention_mask=mask.long()).logits
    return draft.model(input_ids=ids, attention_mask=mask.long()).last_hidden_state @ w_d.t()


@torch.no_grad()
def evaluate(draft, seqs, pad, batch_tokens=4096, w_d=None, d2t=None, first=None):
    """Held-out next-token loss and top-1 agreement with the target's own (greedy) next token, over
    answer tokens (with ``first``, each answer's first tokens only): a direct estimate of the greedy
    acceptance rate alpha. With a draft vocabulary the loss counts in-vocabulary targets and
    out-of-vocabulary targets count as misses."""
    draft.eval()
    tot_loss, tot_ok, n, n_in = 0.0, 0, 0, 0
    for ids, mask, answer in batches(seqs, batch_tokens, random.Random(0), pad):
        logits = draft_logits(draft, ids, mask, w_d)[:, :-1].float()
        tgt, m = ids[:, 1:], first_answer_tokens(answer, first)[:, 1:]
        if d2t is None:
            tot_loss += float(F.cross_entropy(logits[m], tgt[m], reduction="sum"))
            tot_ok += int((logits.argmax(-1)[m] == tgt[m]).sum())
            n_in += int(m.sum())
        else:
            td = t2d_of(d2t, w_d_vocab_size(draft))[tgt[m]]
            inside = td >= 0
            tot_loss += float(F.cross_entropy(logits[m][inside], td[inside], reduction="sum"))
            tot_ok += int((d2t[logits[m].argmax(-1)] == tgt[m]).sum())
            n_in += int(inside.sum())
        n += int(m.sum())
    draft.train()
    return tot_loss / max(n_in, 1), tot_ok / max(n, 1)


def vocab_of(path) -> dict:
    """{"d2t": [...], ...} from a vocabulary JSON, or from the d2t stored in a draft asset (vocab.safetensors) or an
    EAGLE-3 asset (model.safetensors) folder; the JSON's "coverage" comes along when there is one."""
    from safetensors import safe_open

    path = Path(path)
    if path.is_file():
        return json.loads(path.read_text())
    for name in ("vocab.safetensors", "model.safetensors"):
        if (path / name).exists():
            with safe_open(str(path / name), "pt") as f:
                if "d2t" in f.keys():
                    return {"d2t": f.get_tensor("d2t").tolist(), "from": str(path / name)}
    raise SystemExit(f"{path}: neither a vocabulary JSON nor an asset folder with a stored d2t")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="data/corpus.jsonl")
    ap.add_argument("--out", default="assets/draft")
    ap.add_argument("--work", default="runs/draft")
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--max-steps", type=int, default=None, help="stop after this many steps (tiny runs)")
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--intermediate", type=int, default=896)
    ap.add_argument("--ckpt-every", type=int, default=50)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bf16", action="store_true", help=BF16_HELP)
    ap.add_argument("--distill", default=None, help="target features cached by train_eagle.py (runs/eagle/features.pt): "
                    "adds soft-label distillation against the target's full distribution lm_head(f)")
    ap.add_argument("--w-soft", type=float, default=1.0)
    ap.add_argument("--vocab", default=None, help='draft vocabulary: a JSON file {"d2t": [target ids]} (train_eagle3.py '
                    "writes one in its --work), or a draft / EAGLE-3 asset folder, whose token list is reused")
    ap.add_argument("--features", default=None, help="a feature store of train_eagle3.py (soft labels over --vocab), "
                    "or 'live': the target's distribution computed per batch (one target forward per step, no cache)")
    ap.add_argument("--init-from", default=None, help="warm-start from a draft asset folder (draft.safetensors)")
    ap.add_argument("--store-bf16", action="store_true", help="store the weights in bfloat16 (half the bytes; the "
                    "held-out figures are measured on the rounded weights)")
    ap.add_argument("--opening", type=int, default=64, help=OPENING_HELP)
    ap.add_argument("--max-train", type=int, default=None, help="use at most this many training sequences (the first)")
    ap.add_argument("--skip-train", type=int, default=0,
                    help="leave out the first K training sequences (e.g. those an --init-from draft already saw)")
    args = ap.parse_args(argv)
    if args.features and not args.vocab:
        ap.error("--features gives soft labels over a draft vocabulary: give --vocab too")
    if args.vocab and args.distill:
        ap.error("--distill is the full-vocabulary soft label; with --vocab use --features")
    work, out, log = start_run(args)

    target = load_model(device="cpu", dtype="float32")
    pad = target.eos_ids[0]
    cfg = draft_config(target.model.config, args.layers, args.intermediate)
    draft = init_draft_from_target(target.model, cfg)
    init = f"target layers {source_layers(target.model.config.num_hidden_layers, cfg.num_hidden_layers)} (MLP sliced)"
    if args.init_from:
        from safetensors.torch import load_file

        state = load_file(str(ROOT / args.init_from / "draft.safetensors"))
        where = grow_draft(draft, state)  # the same function when the asset has fewer layers
        if len(where) < cfg.num_hidden_layers:
            init = (f"grown from the {len(where)}-layer draft in {args.init_from} (its layers at positions {where}); "
                    f"the new layers from {init} with o_proj and down_proj zero, so training starts from the "
                    f"smaller draft's function")
            log(init)
    draft.model.embed_tokens.weight.requires_grad_(False)
    d2t = w_d = t2d = vocab = None
    if args.vocab:
        vocab = vocab_of(ROOT / args.vocab)
        d2t = torch.tensor(vocab["d2t"])
        w_d = target.model.get_output_embeddings().weight[d2t].detach().clone()
        t2d = t2d_of(d2t, cfg.vocab_size)
    params = [p for n, p in draft.named_parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, betas=(0.9, 0.95), weight_decay=0.0)
    train = load_corpus(args.corpus, "train", args.seq_len)[args.skip_train:]
    train = train[:args.max_train] if args.max_train else train
    held = load_corpus(args.corpus, "heldout", args.seq_len)
    n_tokens = sum(len(s) for s, _ in train)
    steps_per_epoch = sum(1 for _ in batches(train, args.batch_tokens, random.Random(0), pad))
    total = args.max_steps or max(1, int(steps_per_epoch * args.epochs))
    log(f"draft: {cfg.num_hidden_layers} layers, MLP {cfg.intermediate_size}, cost ratio "
        f"{draft_cost_ratio(cfg, target.model.config):.3f}; {len(train)} train / {len(held)} held-out sequences, "
        f"{n_tokens} train tokens; {total} steps")

    soft_feats = store = None
    if args.features:
        from train_eagle3 import FeatureStore, LiveFeatures, gather

        h = cfg.hidden_size
        if args.features == "live":
            store = LiveFeatures(target, (), {"last": (h, "float16")})
            missing = 0
        else:
            store = FeatureStore(ROOT / args.features, {"last": (h, "float16")})
            missing = sum(not store.has(s) for s, _ in train)
        if missing:
            raise SystemExit(f"{args.features} lacks features for {missing} training sequences: run train_eagle3.py "
                             "on the same corpus and --seq-len first")
        log(f"soft labels over the draft vocabulary from {args.features}, weight {args.w_soft}")
    if args.distill:
        cached = load_checkpoint(ROOT / args.distill)
        if not cached or len(cached["train"]) != len(train):
            raise SystemExit(f"{args.distill} does not hold features for this corpus: run train_eagle.py first")
        soft_feats = cached["train"]
        lm_head = target.model.get_output_embeddings()
        log(f"distilling from the target's distribution (features in {args.distill}), weight {args.w_soft}")
    ckpt_path = work / "ckpt.pt"
    step, curve, wall0, commands = resume(ckpt_path, draft, opt, log, strict=False)
    t0 = time.perf_counter()
    first_step = step
    draft.train()
    epoch = step // max(1, steps_per_epoch)
    skip = step - epoch * steps_per_epoch  # batches of this epoch already trained before a resume
    while step < total:
        for b, (ids, mask, answer, index) in enumerate(batches(train, args.batch_tokens, random.Random(args.seed + epoch),
                                                                pad, with_index=True)):
            if b < skip:
                continue
            if step >= total:
                break
            for g in opt.param_groups:
                g["lr"] = lr_at(step, total, args.lr, args.warmup)
            with autocast(args.bf16):
                logits = draft_logits(draft, ids, mask, w_d)[:, :-1]
            m = answer[:, 1:]
            if t2d is None:
                loss = F.cross_entropy(logits[m].float(), ids[:, 1:][m])
            else:  # hard labels: the target's greedy tokens inside the draft vocabulary
                td = t2d[ids[:, 1:][m]]
                loss = F.cross_entropy(logits[m].float()[td >= 0], td[td >= 0])
            if store is not None:  # soft labels: the target's distribution over the draft vocabulary
                if isinstance(store, LiveFeatures):
                    store.fill([train[k][0] for k in index])
                last = gather(store, train, index, ids.shape[1], "last", cfg.hidden_size)
                with torch.no_grad():
                    p_target = torch.softmax(last[:, :-1][m] @ w_d.t(), dim=-1)
                soft = -(p_target * torch.log_softmax(logits[m].float(), dim=-1)).sum(-1).mean()
                loss = loss + args.w_soft * soft
            elif soft_feats is not None:  # the target's distribution at the same positions: lm_head(f_i)
                f = torch.zeros(ids.shape[0], ids.shape[1], soft_feats[0].shape[-1])
                for r, k in enumerate(index):
                    f[r, : soft_feats[k].shape[0]] = soft_feats[k].float()
                with torch.no_grad():
                    p_target = torch.softmax(lm_head(f[:, :-1][m]), dim=-1)
                soft = -(p_target * torch.log_softmax(logits[m].float(), dim=-1)).sum(-1).mean()
                loss = loss + args.w_soft * soft
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            step += 1
            curve.append([step, round(loss.item(), 4)])
            if step % 10 == 0 or step == total:
                el = wall0 + time.perf_counter() - t0
                per_step = (time.perf_counter() - t0) / (step - first_step)
                log(f"step {step}/{total} loss {loss.item():.4f} lr {opt.param_groups[0]['lr']:.2e} {el:.0f}s, "
                    f"ETA {(total - step) * per_step / 60:.1f} min")
            if step % args.ckpt_every == 0:
                save_checkpoint(ckpt_path, model=trainable_state(draft), opt=opt.state_dict(), step=step, curve=curve,
                                commands=commands,
                                wall_s=wall0 + time.perf_counter() - t0)
        epoch += 1
        skip = 0
    wall = wall0 + time.perf_counter() - t0
    if args.store_bf16:  # the asset stores bfloat16: evaluate what it loads as
        with torch.no_grad():
            for prm in params:
                prm.copy_(prm.to(torch.bfloat16).float())
    held_loss, held_acc = evaluate(draft, held, pad, w_d=w_d, d2t=d2t)
    log(f"held-out: loss {held_loss:.4f}, top-1 agreement with the target {held_acc:.3f}")
    opening = evaluate(draft, held, pad, w_d=w_d, d2t=d2t, first=args.opening) if args.opening else None
    if opening:
        log(f"... on the first {args.opening} answer tokens: loss {opening[0]:.4f}, top-1 {opening[1]:.3f}")
    digest = save_draft(draft, out, torch.bfloat16 if args.store_bf16 else None)
    vocab_info = {}
    if d2t is not None:
        from safetensors.torch import save_file

        from decoding_core.draft import sha256

        save_file({"d2t": d2t.long()}, str(out / "vocab.safetensors"))
        cov = vocab.get("coverage", {})
        vocab_info = {"vocabulary": {"size": len(d2t), "train_answer_coverage_by_size": cov, "from": args.vocab,
                                     "heldout_answer_coverage": round(coverage_of(held, d2t.tolist()), 4),
                                     **({f"heldout_coverage_first_{args.opening}":
                                         round(coverage_of(held, d2t.tolist(), args.opening), 4)} if args.opening else {}),
                                     "note": "the draft's logits cover only these tokens (trained so)"}}
    write_manifest(out, {
        "what": f"Speculative draft for the embedded SmolLM2-135M-Instruct: a {cfg.num_hidden_layers}-layer Llama (the "
                "target's hidden size, narrower MLP) sharing the target's frozen tied embedding / LM head, which are not "
                "stored here.",
        "architecture": {"layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size,
                         "intermediate": cfg.intermediate_size, "init": init,
                         "params_stored": sum(v.numel() for v in trainable_state(draft).values()),
                         "cost_ratio_multiply_adds": round(draft_cost_ratio(cfg, target.model.config,
                                                                            len(d2t) if d2t is not None else None), 4)},
        "command": command_line(),
        "commands": commands,
        "git_commit": git_commit(),
        "data": {"corpus": args.corpus, **corpus_summary(args.corpus), "train_sequences": len(train),
                 "train_tokens": n_tokens, "heldout_sequences": len(held)},
        "training": {"steps": step, "epochs": round(step / max(1, steps_per_epoch), 2), "batch_tokens": args.batch_tokens,
                     "lr": args.lr, "optimizer": "AdamW(0.9, 0.95), cosine, grad clip 1.0", "loss": "cross-entropy on "
                     "the target's greedy answer tokens" + (f" + {args.w_soft} x soft cross-entropy against the target's "
                     "distribution (distillation)" if args.distill else "") + (
                         f" + {args.w_soft} x soft cross-entropy against the target's distribution over the draft "
                         f"vocabulary (from {args.features})" if args.features else ""), "wall_s": round(wall, 1), "threads": torch.get_num_threads(),
                     "precision": precision(args), "stored": "bfloat16" if args.store_bf16 else "float32"},
        "losses": curve[:: max(1, len(curve) // 100)] + ([curve[-1]] if curve else []),
        "heldout": {"loss": round(held_loss, 4), "top1_agreement": round(held_acc, 4),
                    **({f"loss_first_{args.opening}": round(opening[0], 4),
                        f"top1_agreement_first_{args.opening}": round(opening[1], 4)} if opening else {})},
        "sha256": {"draft.safetensors": digest,
                   **({"vocab.safetensors": sha256(out / "vocab.safetensors")} if d2t is not None else {})},
        **vocab_info,
    })
    log(f"wrote {out}/draft.safetensors ({(out / 'draft.safetensors').stat().st_size / 1e6:.1f} MB) and manifest.json")


if __name__ == "__main__":
    main()
