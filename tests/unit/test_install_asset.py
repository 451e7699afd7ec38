"""scripts/install_asset.py: a measured candidate becomes the asset, its history kept; anything else is refused."""
import hashlib
import json
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from install_asset import Refused, install, main  # noqa: E402


def folder(path, weights: bytes, manifest: dict):
    path.mkdir()
    (path / "draft.safetensors").write_bytes(weights)
    (path / "config.json").write_text("{}")
    (path / "vocab.safetensors").write_bytes(b"vocab")
    manifest = dict(manifest, sha256={"draft.safetensors": hashlib.sha256(weights).hexdigest()})
    (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def candidate_manifest(**extra):
    return {"commands": ["python scripts/train_draft.py --max-steps 7  # from step 0"],
            "training": {"steps": 7, "wall_s": 12.5, "precision": "bfloat16 autocast", "stored": "bfloat16"},
            "vocabulary": {"size": 16384}, "heldout": {"top1_agreement": 0.55}, **extra}


@pytest.fixture
def asset(tmp_path):
    old = {"training": {"steps": 5, "total_steps_all_sessions": 100}, "vocabulary": {"size": 8192},
           "heldout": {"top1_agreement": 0.5}, "heldout_tau": {"tau": 1.6},
           "history": [{"session": 1}], "experiments": [{"what": "a 4-layer draft"}]}
    return folder(tmp_path / "asset", b"old weights", old)


def test_a_measured_candidate_is_installed_with_its_history(tmp_path, asset):
    src = folder(tmp_path / "cand", b"new weights", candidate_manifest(heldout_tau={"tau": 1.7}))
    entry = install("draft", src, 15, "all training sequences", dest=asset)
    assert (asset / "draft.safetensors").read_bytes() == b"new weights"
    merged = json.loads((asset / "manifest.json").read_text())
    assert merged["history"] == [{"session": 1}, entry]
    assert entry["heldout_tau"] == {"heldout_tau": 1.7} and entry["heldout_tau_before"] == {"heldout_tau": 1.6}
    assert entry["heldout"] == {"top1_agreement": 0.55} and entry["heldout_before"] == {"top1_agreement": 0.5}
    assert entry["vocabulary"] == "8192 -> 16384" and entry["steps"] == 7 and entry["session"] == 15
    assert merged["training"]["total_steps_all_sessions"] == 107 and merged["training"]["session"] == 15
    assert merged["experiments"] == [{"what": "a 4-layer draft"}] and merged["heldout_tau"] == {"tau": 1.7}
    # a candidate that resumed the asset's own run adds only the steps after the asset's
    again = folder(tmp_path / "resumed", b"newer", candidate_manifest(
        heldout_tau={"tau": 1.75}, commands=merged["commands"] + ["python scripts/train_draft.py  # from step 7"],
        training={"steps": 10, "wall_s": 20.0}))
    entry = install("draft", again, 16, "more steps", dest=asset)
    assert entry["steps"] == 3 and entry["steps_of_the_run"] == 10
    assert json.loads((asset / "manifest.json").read_text())["training"]["total_steps_all_sessions"] == 110
    assert "heldout_note" not in entry  # neither run gave --seq-len


def test_a_change_of_seq_len_is_noted_beside_the_held_out_figures(tmp_path, asset):
    first = folder(tmp_path / "c320", b"w320", candidate_manifest(
        heldout_tau={"tau": 1.7}, commands=["python scripts/train_draft.py --seq-len 320 --max-steps 7  # from step 0"]))
    assert "heldout_note" not in install("draft", first, 15, "long sequences", dest=asset)  # nothing known before
    second = folder(tmp_path / "c160", b"w160", candidate_manifest(
        heldout_tau={"tau": 1.8}, commands=["python scripts/train_draft.py --seq-len 160 --max-steps 7  # from step 0"]))
    entry = install("draft", second, 16, "openings", dest=asset)
    assert "--seq-len 320 before, 160 after" in entry["heldout_note"]


def test_unmeasured_or_damaged_candidates_are_refused(tmp_path, asset, capsys):
    before = (asset / "manifest.json").read_text()
    unmeasured = folder(tmp_path / "unmeasured", b"w", candidate_manifest())
    with pytest.raises(Refused, match="eval_tau.py .* --draft .* --write"):
        install("draft", unmeasured, 15, "x", dest=asset)
    damaged = folder(tmp_path / "damaged", b"w", candidate_manifest(heldout_tau={"tau": 2.0}))
    (damaged / "draft.safetensors").write_bytes(b"changed after training")
    assert main(["draft", str(damaged), "--session", "15", "--data", "x", "--dest", str(asset)]) == 2
    assert "does not match the sha256" in capsys.readouterr().err
    with pytest.raises(Refused, match="no manifest.json"):
        install("draft", tmp_path / "nowhere", 15, "x", dest=asset)
    # a dry run prints the entry and changes nothing
    good = folder(tmp_path / "good", b"good", candidate_manifest(heldout_tau={"tau": 1.8}))
    assert main(["draft", str(good), "--session", "15", "--data", "x", "--dest", str(asset), "--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out)["heldout_tau"] == {"heldout_tau": 1.8}
    assert (asset / "manifest.json").read_text() == before and (asset / "draft.safetensors").read_bytes() == b"old weights"


def test_a_shrunk_asset_must_be_measured_again_and_adds_no_steps(tmp_path):
    """shrink_asset.py re-stores the weights in bfloat16: the figures measured on the old weights are dropped (so
    install refuses it until eval_tau.py measures it), and installing it adds no training steps."""
    import torch
    from safetensors.torch import load_file, save_file
    from shrink_asset import shrink

    src = tmp_path / "eagle"
    src.mkdir()
    weights = {"fc.weight": torch.randn(4, 8), "layer.ids": torch.arange(3)}
    save_file(weights, str(src / "model.safetensors"))
    (src / "config.json").write_text("{}")
    old = {"command": "python scripts/train_eagle.py --epochs 4", "training": {"steps": 208},
           "sha256": {"model.safetensors": hashlib.sha256((src / "model.safetensors").read_bytes()).hexdigest()},
           "heldout_tau": {"tau": 1.9}, "tau_by_size": {"rows": []}}
    (src / "manifest.json").write_text(json.dumps(old))
    out = tmp_path / "eagle-bf16"
    manifest = shrink(src, out, "model.safetensors")
    state = load_file(str(out / "model.safetensors"))
    assert state["fc.weight"].dtype == torch.bfloat16 and torch.allclose(state["fc.weight"].float(), weights["fc.weight"],
                                                                         rtol=1e-2, atol=1e-2)
    assert torch.equal(state["layer.ids"], weights["layer.ids"])  # integer tensors are kept as they are
    assert (out / "model.safetensors").stat().st_size < (src / "model.safetensors").stat().st_size
    assert manifest["sha256"]["model.safetensors"] == hashlib.sha256((out / "model.safetensors").read_bytes()).hexdigest()
    assert "heldout_tau" not in manifest and "tau_by_size" not in manifest and manifest["training"]["stored"] == "bfloat16"
    with pytest.raises(Refused, match="--only eagle1 --eagle1"):
        install("eagle", out, 25, "the same head in bfloat16", dest=src)
    (out / "manifest.json").write_text(json.dumps(dict(manifest, heldout_tau={"tau": 1.88})))  # as eval_tau --write
    entry = install("eagle", out, 25, "the same head in bfloat16", dest=src)
    assert entry["steps"] == 0 and entry["stored"] == "bfloat16" and entry["heldout_tau_before"] == {"heldout_tau": 1.9}
    assert json.loads((src / "manifest.json").read_text())["training"]["total_steps_all_sessions"] == 208
