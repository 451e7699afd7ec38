"""Install a trained candidate (a train_*.py --out folder, measured by eval_tau.py --write) as a shipped asset,
keeping the asset's history: the candidate's manifest becomes the asset's, with one history entry added (the
session, the commands, steps, wall time, data, the held-out figures before and after) and the totals carried on;
then the checksums shipped in code are rewritten (scripts/asset_sums.py).

    python scripts/install_asset.py eagle3 runs/eagle3-v16b-out --session 15 --data "all 10,446 training sequences"
    python scripts/install_asset.py draft runs/draft-s15 --session 15 --data "..." --dry-run   # print the entry only

A candidate whose weights do not match its manifest's sha256, or whose held-out tau has not been measured
(eval_tau.py --draft / --eagle3 FOLDER --write), is refused: a shipped figure must be a measured one.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from decoding_core.models import _sha256  # noqa: E402

# the files of each kind of asset; the first one is the weights the manifest's sha256 covers
FILES = {"eagle3": ("model.safetensors", "config.json"),
         "eagle": ("model.safetensors", "config.json"),
         "draft": ("draft.safetensors", "config.json", "vocab.safetensors")}


class Refused(Exception):
    pass


def tau_of(manifest: dict) -> dict:
    """The held-out tau figures eval_tau.py wrote into a manifest (dynamic / chain, and static where measured)."""
    out = {}
    for key in ("heldout_tau", "heldout_tau_static"):
        if key in manifest:
            out[key] = manifest[key]["tau"]
    return out


def commands_of(manifest: dict) -> list[str]:
    """The commands that made an asset: its ``commands``, or the single ``command`` of an older manifest."""
    return manifest.get("commands") or ([manifest["command"]] if manifest.get("command") else [])


def steps_added(old: dict, new: dict) -> int:
    """Optimizer steps the candidate adds to the asset: all of its steps, or, where it resumed the asset's own run
    (its commands continue the asset's), those after the asset's last step."""
    old_cmds, new_cmds = commands_of(old), commands_of(new)
    if old_cmds and new_cmds[: len(old_cmds)] == old_cmds:
        return new["training"]["steps"] - old["training"]["steps"]
    return new["training"]["steps"]


def seq_len_of(manifest: dict) -> int | None:
    """The --seq-len of the run that made a manifest (its held-out figures cut sequences to that length)."""
    words = (manifest.get("command") or " ".join(manifest.get("commands") or [])).split()
    return next((int(v) for k, v in zip(words, words[1:]) if k == "--seq-len" and v.isdigit()), None)


def history_entry(old: dict, new: dict, session: int, data: str) -> dict:
    tr = new["training"]
    entry = {"session": session, "commands": new.get("commands", [new.get("command")]), "steps": steps_added(old, new),
             "steps_of_the_run": tr["steps"],
             "wall_s": tr.get("wall_s"), "precision": tr.get("precision"), "data": data,
             "heldout": new.get("heldout"), "heldout_before": old.get("heldout"),
             "heldout_tau": tau_of(new), "heldout_tau_before": tau_of(old)}
    if "stored" in tr:
        entry["stored"] = tr["stored"]
    lens = seq_len_of(old), seq_len_of(new)
    if None not in lens and lens[0] != lens[1]:
        entry["heldout_note"] = (f"held-out sequences cut at --seq-len {lens[0]} before, {lens[1]} after: the figures over "
                                 "whole sequences do not compare; those on the first 64 answer tokens and tau do")
    sizes = [m.get("vocabulary", {}).get("size") for m in (old, new)]
    if any(sizes):
        entry["vocabulary"] = f"{sizes[0]} -> {sizes[1]}"
    return entry


def install(kind: str, src: Path, session: int, data: str, dest: Path | None = None, dry_run: bool = False) -> dict:
    """Check the candidate, merge the manifests and copy the files; returns the new history entry."""
    dest = dest or ROOT / "assets" / kind
    files = FILES[kind]
    if not (src / "manifest.json").exists():
        raise Refused(f"{src} has no manifest.json (train_{kind}.py --out writes one)")
    new = json.loads((src / "manifest.json").read_text())
    old = json.loads((dest / "manifest.json").read_text()) if (dest / "manifest.json").exists() else {}
    missing = [f for f in files if f != "vocab.safetensors" and not (src / f).exists()]
    if missing:
        raise Refused(f"{src} lacks {', '.join(missing)}")
    for name, digest in new.get("sha256", {}).items():
        if (src / name).exists() and _sha256(src / name) != digest:
            raise Refused(f"{src / name} does not match the sha256 in its manifest (damaged or retrained in place)")
    if "heldout_tau" not in new:
        flag = "--eagle3" if kind == "eagle3" else "--draft" if kind == "draft" else "--only eagle1 --eagle1"
        raise Refused(f"{src}: no held-out tau measured; run python scripts/eval_tau.py --corpus assets/corpus "
                      f"--prompts 48 --max-new-tokens 64 {flag} {src} --write first")
    entry = history_entry(old, new, session, data)
    if dry_run:
        return entry
    merged = dict(new)
    for key in ("experiments",):  # what earlier sessions tried and did not ship stays on record
        if key in old and key not in merged:
            merged[key] = old[key]
    merged["history"] = old.get("history", []) + [entry]
    merged["training"] = dict(new["training"], session=session, data=data,
                              total_steps_all_sessions=entry["steps"] + old.get("training", {}).get(
                                  "total_steps_all_sessions", old.get("training", {}).get("steps", 0)))
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        if (src / f).exists():
            shutil.copy(src / f, dest / f)
    (dest / "manifest.json").write_text(json.dumps(merged, indent=1) + "\n")
    return entry


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=sorted(FILES))
    ap.add_argument("src", type=Path, help="the candidate folder (a train_*.py --out)")
    ap.add_argument("--session", type=int, required=True, help="the working session that made it (for the history)")
    ap.add_argument("--data", required=True, help="what it was trained on, in words (for the history)")
    ap.add_argument("--dest", type=Path, default=None, help="the asset folder (default assets/KIND)")
    ap.add_argument("--dry-run", action="store_true", help="print the history entry; change nothing")
    args = ap.parse_args(argv)
    try:
        entry = install(args.kind, args.src, args.session, args.data, args.dest, args.dry_run)
    except Refused as e:
        print(f"refused: {e}", file=sys.stderr)
        return 2
    print(json.dumps(entry, indent=1))
    if not args.dry_run and args.dest is None:
        import asset_sums

        asset_sums.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
