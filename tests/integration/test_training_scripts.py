"""The corpus, draft and EAGLE training scripts end to end on a tiny configuration (embedded target)."""
import json
import subprocess
import sys

import pytest

from decoding_core.decoders import greedy_decoder
from decoding_core.draft import load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle_head import load_embedded_head
from decoding_core.speculative import SpeculativeDecoder
from tests.conftest import ROOT


def script(*args, timeout=600):
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    script("scripts/make_corpus.py", "--out", str(d / "corpus.jsonl"), "--n", "10", "--max-new-tokens", "10",
           "--batch", "5")
    rows = [json.loads(x) for x in (d / "corpus.jsonl").read_text().splitlines()]
    assert len(rows) == 10 and {r["split"] for r in rows} == {"train", "heldout"}
    train_topics = {r["instruction"] for r in rows if r["split"] == "train"}
    assert not train_topics & {r["instruction"] for r in rows if r["split"] == "heldout"}
    return d / "corpus.jsonl"


def test_draft_training_end_to_end(corpus, tmp_path, embedded):
    out, work = tmp_path / "draft", tmp_path / "work"
    script("scripts/train_draft.py", "--corpus", str(corpus), "--out", str(out), "--work", str(work), "--max-steps", "3",
           "--batch-tokens", "256", "--ckpt-every", "2")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["training"]["steps"] == 3 and manifest["sha256"]["draft.safetensors"]
    assert manifest["architecture"]["cost_ratio_multiply_adds"] <= 0.25
    assert (out / "draft.safetensors").stat().st_size < 40e6
    assert (work / "ckpt.pt").exists()
    # a rerun resumes from the checkpoint instead of starting over
    proc = script("scripts/train_draft.py", "--corpus", str(corpus), "--out", str(out), "--work", str(work),
                  "--max-steps", "4", "--batch-tokens", "256", "--ckpt-every", "2")
    assert "resumed from step 2" in proc.stdout
    draft = load_embedded_draft(embedded, out)
    ids = embedded.encode("Name a fruit.", chat=True)
    ref = greedy_decoder(embedded, 12).start(ids).run().tokens
    assert SpeculativeDecoder(embedded, draft, 3, "greedy", max_new_tokens=12).start(ids).run().tokens == ref


def test_eagle_training_end_to_end(corpus, tmp_path, embedded):
    out, work = tmp_path / "eagle", tmp_path / "work"
    script("scripts/train_eagle.py", "--corpus", str(corpus), "--out", str(out), "--work", str(work), "--max-steps", "3",
           "--batch-tokens", "256", "--ckpt-every", "2")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["training"]["steps"] == 3 and len(manifest["losses"]["rows"]) >= 3
    assert (work / "features.pt").exists()
    head = load_embedded_head(embedded, out)
    ids = embedded.encode("Name a fruit.", chat=True)
    ref = greedy_decoder(embedded, 12).start(ids).run().tokens
    assert EagleDecoder(embedded, head, "dynamic", 4, 3, 12, max_new_tokens=12).start(ids).run().tokens == ref


def test_corrupt_draft_asset_is_explained(tmp_path, embedded, corpus):
    from decoding_core.models import ModelLoadError

    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelLoadError, match="missing"):
        load_embedded_draft(embedded, tmp_path)
    (tmp_path / "draft.safetensors").write_bytes(b"not a safetensors file")
    (tmp_path / "manifest.json").write_text(json.dumps({"sha256": {"draft.safetensors": "0" * 64}}))
    with pytest.raises(ModelLoadError, match="sha256"):
        load_embedded_draft(embedded, tmp_path)
