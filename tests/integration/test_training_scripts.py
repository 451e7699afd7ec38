"""The corpus, draft and EAGLE training scripts end to end on a tiny configuration (embedded target)."""
import json
import os
import re
import subprocess
import sys

import pytest
import torch

from decoding_core.decoders import greedy_decoder
from decoding_core.draft import load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle_head import load_embedded_head
from decoding_core.speculative import SpeculativeDecoder
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from train_common import bf16_is_fast, corpus_rows  # noqa: E402


def script(*args, timeout=600, env=None):
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A tiny sharded corpus; a rerun of the same command resumes (finished shards are kept)."""
    d = tmp_path_factory.mktemp("corpus")
    args = ("scripts/make_corpus.py", "--out", str(d), "--train", "10", "--heldout", "4", "--max-new-tokens", "10",
            "--batch", "5", "--shard", "4", "--log", str(d / "corpus.log"))
    script(*args, "--max-shards", "2")
    assert len(list(d.glob("*-*.jsonl.gz"))) == 2
    proc = script(*args)
    assert "2 of 4 shards done" in proc.stderr
    sys.path.insert(0, str(ROOT / "scripts"))
    from train_common import corpus_rows

    train, held = corpus_rows(d, "train"), corpus_rows(d, "heldout")
    assert len(train) == 10 and len(held) == 4
    assert all(r["answer_ids"] and r["prompt_ids"] for r in train + held)
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["shards_made"] == manifest["shards_total"] == 4
    assert manifest["splits"]["train"]["answer_tokens"] == sum(len(r["answer_ids"]) for r in train)
    assert not {r["instruction"] for r in train} & {r["instruction"] for r in held}
    # an extension adds training instructions in its own shards; the base and the held-out split stay as they were
    proc = script(*args, "--extend", "4", "--extend-seed", "3", "--wide-bank", "--self-tries", "2",
                  "--requests-only", "--self-temperature", "0.8", "--self-min-p", "0.05")
    assert "0 of 1 shards done" in proc.stderr
    # every model-written answer to a seed request is accounted for: kept, or the filter that dropped it
    tally = re.search(r"the model's (\d+) answers to seed requests: (\d+) unusable, (\d+) not a request, (\d+) repeat, "
                      r"(\d+) over the share, (\d+) kept", proc.stderr)
    assert tally, proc.stderr[-2000:]
    counts = [int(g) for g in tally.groups()]
    assert counts[0] > 0 and sum(counts[1:]) == counts[0]
    train2, held2 = corpus_rows(d, "train"), corpus_rows(d, "heldout")
    assert train2[:10] == train and held2 == held and len(train2) == 14
    assert len({r["instruction"] for r in train2}) == 14  # no instruction repeated from the base corpus
    assert (d / "train-x3-00000.jsonl.gz").exists()
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["command"].endswith("--log " + str(d / "corpus.log")) and "--extend" not in manifest["command"]
    ext = manifest["extensions"]["x3"]
    assert ext["instructions"] == 4 and ext["shards_made"] == ext["shards_total"] == 1 and "--extend 4" in ext["command"]
    assert ext["settings"]["wide_bank"] is True and ext["settings"]["self_tries"] == 2.0
    assert ext["settings"]["requests_only"] is True
    assert ext["settings"]["self_temperature"] == 0.8 and ext["settings"]["self_min_p"] == 0.05
    from corpus_instructions import looks_like_request

    written = [r for r in corpus_rows(d, "train")[10:] if r.get("kind") == "self-instruct"]
    assert all(looks_like_request(r["instruction"]) for r in written)  # kept only what reads as a request
    assert len(written) == counts[5]
    assert manifest["shards_made"] == manifest["shards_total"] == 5
    assert manifest["splits"]["train"]["answer_tokens"] == sum(len(r["answer_ids"]) for r in train2)
    return d


def test_fresh_bank_extension(corpus, tmp_path):
    """--fresh-bank: an extension whose templated instructions name only new subjects (where the kind has a fresh
    list); the base and held-out rows stay; the manifest records the setting."""
    import shutil

    import corpus_instructions as ci

    d = tmp_path / "corpus"
    shutil.copytree(corpus, d)
    before = {split: corpus_rows(d, split) for split in ("train", "heldout")}
    script("scripts/make_corpus.py", "--out", str(d), "--train", "10", "--heldout", "4", "--max-new-tokens", "8",
           "--batch", "5", "--shard", "4", "--extend", "4", "--extend-seed", "5", "--fresh-bank", "--self-share", "0")
    train = corpus_rows(d, "train")
    assert train[:len(before["train"])] == before["train"] and corpus_rows(d, "heldout") == before["heldout"]
    new = train[len(before["train"]):]
    assert len(new) == 4 and all(r["answer_ids"] for r in new)
    bank = ci.InstructionBank(0, fresh=True)
    for r in new:
        subject_list = bank.kinds["train"][r["kind"]][0]
        subjects = bank.parts["train"]["subj:" + subject_list]
        if subject_list in ci.FRESH_SUBJECTS:
            assert any((" ".join(x) if isinstance(x, tuple) else x).split()[-1] in r["instruction"] for x in subjects), r
    settings = json.loads((d / "manifest.json").read_text())["extensions"]["x5"]["settings"]
    assert settings["fresh_bank"] is True


def test_instruction_bank_splits_topics_and_phrasings():
    sys.path.insert(0, str(ROOT / "scripts"))
    import random

    from corpus_instructions import KINDS, InstructionBank, clean_self_instruction, looks_like_request

    bank = InstructionBank(0)
    bank.check_disjoint()  # no subject, phrasing, context, constraint or seed in both splits
    rng = random.Random(1)
    train = [bank.sample("train", rng) for _ in range(400)]
    held = [bank.sample("heldout", rng) for _ in range(100)]
    assert len({k for k, _ in train}) >= 20 and len(KINDS) >= 20  # many task kinds
    assert not {t for _, t in train} & {t for _, t in held}
    held_phrasings = [p for k in KINDS for p in bank.parts["heldout"]["kind:" + k]]
    assert held_phrasings and not set(held_phrasings) & {p for k in KINDS for p in bank.parts["train"]["kind:" + k]}
    assert clean_self_instruction('A student might ask: "Why do cats purr?"') == "Why do cats purr?"
    assert clean_self_instruction("Here is a question:\n\nWhat is rust made of?") == "What is rust made of?"
    assert clean_self_instruction("I'm ready to help!") is None
    # what the model writes as a "request" is often its own voice or a statement (seen in extensions x3 and x4)
    for request in ("What's the best way to celebrate Diwali without eating sweets?", "How to draw a unicorn.",
                    "Invent one homework question about volleyball.", "I'm looking for a comparison of blood types.",
                    "What can I do to sleep better?", "Who painted the Mona Lisa"):
        assert looks_like_request(request), request
    for not_request in ("I'm here to assist you with your pet turtles. If you're looking for a pet, I'm here to help.",
                        "Hey there, I'm here to help with badminton. What can I assist you with today?",
                        "The cells are the building blocks of life.", "In this task, you will be given a list of words.",
                        "Chatbots are designed to assist users with various tasks.", "How can I help you today?",
                        "Whole grains are healthy.", "However, the tides rise twice a day.", "Planets orbit the sun."):
        assert not looks_like_request(not_request), not_request


def test_wide_bank_adds_to_training_only(monkeypatch):
    """The wide bank adds topics, kinds and phrasings to the training parts; the held-out parts (and so every
    held-out instruction) are exactly the plain bank's, and no added subject shares a word with a held-out one."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import random

    import corpus_instructions as ci

    plain, wide = ci.InstructionBank(0), ci.InstructionBank(0, wide=True)
    wide.check_disjoint()
    assert wide.parts["heldout"] == plain.parts["heldout"]
    assert len(wide.parts["train"]["subj:topic"]) >= 2 * len(plain.parts["train"]["subj:topic"])
    rng = random.Random(2)
    train_kinds = {wide.sample("train", rng)[0] for _ in range(2000)}
    held_kinds = {wide.sample("heldout", rng)[0] for _ in range(500)}
    assert set(ci.EXTRA_KINDS) <= train_kinds and not set(ci.EXTRA_KINDS) & held_kinds
    # the plain bank draws the same sequence as before the wide bank existed (same kinds, same order)
    assert list(plain.kinds["train"]) == list(ci.KINDS)
    assert ci.content_words("Saving money") == {"saving", "money"}
    held_topic = plain.parts["heldout"]["subj:topic"][0]
    monkeypatch.setitem(ci.EXTRA_SUBJECTS, "topic", [*ci.EXTRA_TOPICS, held_topic + " for beginners"])
    with pytest.raises(AssertionError, match="shares"):
        ci.InstructionBank(0, wide=True).check_disjoint()


def test_fresh_bank_draws_new_subjects_only():
    """The fresh bank's training instructions are about subjects in no other list and sharing no word with a
    held-out subject; its held-out parts are the plain bank's; a fresh subject that shares a word is dropped."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import random

    import corpus_instructions as ci

    plain, fresh = ci.InstructionBank(0), ci.InstructionBank(0, fresh=True)
    fresh.check_disjoint()
    assert fresh.parts["heldout"] == plain.parts["heldout"] and fresh.wide
    earlier = {x for lst in [*ci.SUBJECTS.values(), *ci.EXTRA_SUBJECTS.values()] for x in lst}
    held_words = fresh.held_out_words()
    for name in ci.FRESH_SUBJECTS:
        kept = fresh.parts["train"]["subj:" + name]
        assert len(kept) >= 10 and not set(kept) & earlier
        assert not any(ci.content_words(x) & held_words for x in kept)
    rng = random.Random(3)
    topics = fresh.parts["train"]["subj:topic"]
    texts = [fresh.sample("train", rng)[1] for _ in range(300)]
    assert sum(any(t in text for t in topics) for text in texts) > 150  # most draws name a fresh topic
    assert not any(t in text for text in texts for t in plain.parts["train"]["subj:topic"] if len(t) > 12)
    held_topic = plain.parts["heldout"]["subj:topic"][0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(ci.FRESH_SUBJECTS, "topic", [*ci.FRESH_TOPICS, held_topic + " for beginners"])
        assert held_topic + " for beginners" not in ci.InstructionBank(0, fresh=True).parts["train"]["subj:topic"]


def test_answer_openings_mask_and_coverage():
    """The held-out figures on answer openings (--opening N) count each answer's first N tokens only."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from train_common import coverage_of, first_answer_tokens

    answer = torch.tensor([[0, 0, 1, 1, 1, 1], [0, 1, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0]], dtype=torch.bool)
    assert first_answer_tokens(answer, 2).int().tolist() == [[0, 0, 1, 1, 0, 0], [0, 1, 1, 0, 0, 0], [0] * 6]
    assert torch.equal(first_answer_tokens(answer, 0), answer) and torch.equal(first_answer_tokens(answer, 9), answer)
    seqs = [([7, 7, 1, 2, 3, 4], 2), ([7, 5, 5], 1)]  # (token ids, prompt length): answers [1, 2, 3, 4] and [5, 5]
    assert coverage_of(seqs, [1, 5]) == pytest.approx(3 / 6)
    assert coverage_of(seqs, [1, 5], first=1) == 1.0 and coverage_of(seqs, [2, 3], first=2) == pytest.approx(1 / 4)


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
    # grown into 3 layers (the trained 2 kept, one new layer that starts as the identity), one more step
    grown = tmp_path / "grown"
    proc = script("scripts/train_draft.py", "--corpus", str(corpus), "--out", str(grown), "--work", str(tmp_path / "gw"),
                  "--max-steps", "1", "--batch-tokens", "256", "--layers", "3", "--init-from", str(out))
    arch = json.loads((grown / "manifest.json").read_text())["architecture"]
    assert arch["layers"] == 3 and "grown from the 2-layer draft" in arch["init"] and "positions [0, 2]" in arch["init"]
    big = load_embedded_draft(embedded, grown)
    assert big.model.config.num_hidden_layers == 3 and big.lean is not None and "3-layer" in big.name
    assert SpeculativeDecoder(embedded, big, 3, "greedy", max_new_tokens=12).start(ids).run().tokens == ref


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


def test_eagle3_training_end_to_end(corpus, tmp_path, embedded):
    from decoding_core.eagle3_head import load_eagle3
    from train_common import load_corpus

    out, work = tmp_path / "eagle3", tmp_path / "work"
    args = ("scripts/train_eagle3.py", "--corpus", str(corpus), "--out", str(out), "--work", str(work), "--vocab", "512",
            "--ttt", "2", "--batch-tokens", "256", "--ckpt-every", "2", "--eval-every", "2", "--opening", "4")
    script(*args, "--max-steps", "2")
    proc = script(*args, "--max-steps", "3")
    assert "resumed from step 2" in proc.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["training"]["steps"] == 3 and manifest["vocabulary"]["size"] == 512
    assert len(manifest["heldout"]["top1_agreement_by_depth"]) == 2
    # the same figures on each held-out answer's first 4 tokens (the openings tau is measured on)
    assert len(manifest["heldout"]["top1_agreement_by_depth_first_4"]) == 2
    assert all(0 <= a <= 1 for a in manifest["heldout"]["top1_agreement_by_depth_first_4"])
    assert 0 < manifest["vocabulary"]["heldout_coverage_first_4"] <= 1
    assert (work / "features" / "index.json").exists()
    head = load_eagle3(embedded, out)
    ids = embedded.encode("Name a fruit.", chat=True)
    ref = greedy_decoder(embedded, 12).start(ids).run().tokens
    for tree in ("static", "dynamic"):
        assert EagleDecoder(embedded, head, tree, 4, 3, 12, max_new_tokens=12).start(ids).run().tokens == ref
    # a warm start on sequences the head has not seen keeps its draft vocabulary (taken from the asset)
    out2 = tmp_path / "eagle3-more"
    script("scripts/train_eagle3.py", "--corpus", str(corpus), "--out", str(out2), "--work", str(tmp_path / "work2"),
           "--vocab", "512", "--ttt", "2", "--batch-tokens", "256", "--init-from", str(out), "--skip-train", "1",
           "--max-steps", "1", "--bf16", env={"DECODING_LAB_FORCE_BF16": "1"})  # the bfloat16 path, on any CPU
    again = load_eagle3(embedded, out2)
    assert json.loads((out2 / "manifest.json").read_text())["training"]["precision"].startswith("bfloat16")
    assert again.d2t.tolist() == head.d2t.tolist()
    assert json.loads((tmp_path / "work2" / "vocab.json").read_text())["from"].endswith("(warm start)")
    # ... and one with a larger --vocab widens it: the shared tokens keep their trained LM-head rows
    out3 = tmp_path / "eagle3-wide"
    proc = script("scripts/train_eagle3.py", "--corpus", str(corpus), "--out", str(out3), "--work", str(tmp_path / "work3"),
                  "--vocab", "600", "--ttt", "2", "--batch-tokens", "256", "--init-from", str(out), "--max-steps", "1")
    assert "draft vocabulary 512 -> 600 tokens" in proc.stderr + proc.stdout
    wide = load_eagle3(embedded, out3)
    assert wide.d2t.numel() == 600 and set(head.d2t.tolist()) <= set(wide.d2t.tolist())
    assert EagleDecoder(embedded, wide, "dynamic", 4, 3, 12, max_new_tokens=12).start(ids).run().tokens == ref
    # the speculative draft retrained on the same draft vocabulary and soft labels, warm-started from the shipped one
    dout = tmp_path / "draft"
    script("scripts/train_draft.py", "--corpus", str(corpus), "--out", str(dout), "--work", str(tmp_path / "dwork"),
           "--max-steps", "2", "--batch-tokens", "256", "--seq-len", "384", "--vocab", str(work / "vocab.json"),
           "--features", str(work / "features"), "--init-from", "assets/draft", "--bf16", "--store-bf16")
    manifest = json.loads((dout / "manifest.json").read_text())
    # --bf16 without the override: bfloat16 where the CPU runs it fast, else float32 and the manifest says so
    assert manifest["training"]["precision"].startswith("bfloat16" if bf16_is_fast() else "float32 (--bf16 asked")
    assert manifest["training"]["stored"] == "bfloat16"
    from safetensors.torch import load_file

    assert {v.dtype for v in load_file(str(dout / "draft.safetensors")).values()} == {torch.bfloat16}
    assert manifest["vocabulary"]["size"] == 512 and manifest["sha256"]["vocab.safetensors"]
    assert 0 <= manifest["heldout"]["top1_agreement_first_64"] <= 1 and "heldout_coverage_first_64" in manifest["vocabulary"]
    assert manifest["architecture"]["cost_ratio_multiply_adds"] < 0.05
    draft = load_embedded_draft(embedded, dout)
    assert draft.draft_vocab is not None and draft.draft_vocab.numel() == 512
    assert SpeculativeDecoder(embedded, draft, 3, "greedy", max_new_tokens=12).start(ids).run().tokens == ref
    # without a feature cache (a fresh machine): each step runs the target over its batch. The head's run caches only
    # the held-out split; the draft takes its vocabulary from the head's asset folder
    live, lwork = tmp_path / "eagle3-live", tmp_path / "lwork"
    proc = script("scripts/train_eagle3.py", "--corpus", str(corpus), "--out", str(live), "--work", str(lwork),
                  "--vocab", "512", "--ttt", "2", "--batch-tokens", "256", "--init-from", str(out), "--max-steps", "2",
                  "--live-features")
    assert "computed per batch (--live-features)" in proc.stderr + proc.stdout
    index = json.loads((lwork / "features" / "index.json").read_text())
    held_tokens = sum(len(s) for s in {tuple(s) for s, _ in load_corpus(corpus, "heldout", 384)})
    assert index["rows"] == held_tokens  # the training split was not cached
    assert json.loads((live / "manifest.json").read_text())["training"]["steps"] == 2
    assert load_eagle3(embedded, live).d2t.tolist() == head.d2t.tolist()
    ldraft = tmp_path / "draft-live"
    script("scripts/train_draft.py", "--corpus", str(corpus), "--out", str(ldraft), "--work", str(tmp_path / "ldwork"),
           "--max-steps", "1", "--batch-tokens", "256", "--seq-len", "384", "--vocab", str(out), "--features", "live",
           "--init-from", str(dout))
    manifest = json.loads((ldraft / "manifest.json").read_text())
    assert manifest["vocabulary"]["size"] == 512 and "(from live)" in manifest["training"]["loss"]
    assert load_embedded_draft(embedded, ldraft).draft_vocab.tolist() == head.d2t.tolist()


def test_live_features_match_the_cache(corpus, tmp_path, embedded):
    """LiveFeatures (one batch, computed when it comes) holds what the FeatureStore caches for the same sequences."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import numpy as np
    from train_common import load_corpus
    from train_eagle3 import FeatureStore, LiveFeatures, extract

    cfg = embedded.model.config
    h, layers = cfg.hidden_size, (2, cfg.num_hidden_layers // 2, cfg.num_hidden_layers - 3)
    widths = {"low": (3 * h, "float16"), "last": (h, "float16"), "argmax": (1, "int32")}
    train = load_corpus(corpus, "train", 384)
    store = FeatureStore(tmp_path / "features", widths)
    extract(embedded, store, layers, train, lambda *_: None)
    seqs = [s for s, _ in train[:3]]
    live = LiveFeatures(embedded, layers, widths).fill(seqs)
    assert set(live.rows) == {FeatureStore.key(s) for s in seqs}  # this batch only
    for s in seqs:
        for name, (w, dt) in widths.items():
            cached, now = np.asarray(store.get(s, name)).reshape(len(s), -1), live.get(s, name).reshape(len(s), -1)
            assert now.dtype == np.dtype(dt) and now.shape == cached.shape == (len(s), w)
            if name == "argmax":
                assert (now == cached).mean() > 0.97  # batching changes float rounding, rarely a near tie
            else:
                np.testing.assert_allclose(now.astype(np.float32), cached.astype(np.float32), atol=0.05, rtol=0.02)
    assert not live.fill(seqs[:1]).has(seqs[1])  # each fill holds only its batch


def test_batched_corpus_answers_equal_one_prompt_greedy(tiny_lm):
    """make_corpus's batched greedy (left padding, only the last position's logits at prefill, rows leaving at EOS)
    writes the answers plain greedy decoding gives each prompt alone."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_corpus import answer_all

    prompts = [[5, 9, 11], [7, 3, 20, 21, 22, 30, 8], [12], [40, 41, 42, 43], [6, 6, 6, 6, 6]]
    got = answer_all(tiny_lm.model, prompts, 10, 3, {2}, 0)
    for p, (answer, ended) in zip(prompts, got):
        ref = greedy_decoder(tiny_lm, 10).start(p).run().tokens
        assert answer == ref and ended == (ref[-1] == 2), (p, answer, ref)


def test_self_instruct_trial_accounts_for_every_answer(corpus, capsys):
    """scripts/self_instruct_trial.py on the embedded model: under each setting every answer to a seed request is
    kept or dropped for a reason, and the kept ones are printed."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from self_instruct_trial import main

    results = main(["--corpus", str(corpus), "--n", "4", "--max-new-tokens", "12", "--batch", "2",
                    "--settings", "0:0,0.8:0.05"])
    assert list(results) == ["greedy", "temperature 0.8, min-p 0.05"]
    assert all(sum(fate.values()) == 4 and fate["over the share"] == 0 for fate in results.values())
    out = capsys.readouterr().out
    assert " distinct seed requests of 4; " in out
    assert out.count(" kept (") == 2


def test_tree_calibration_mixed_splits_on_the_embedded_model(corpus, tmp_path, capsys):
    """scripts/tree_calibration.py --mixed: the four topic x wording splits drawn afresh, the shipped EAGLE-3 head's
    trees recorded and replayed on each, and the draft's chain tau per split."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from tree_calibration import MIXED, TOTALS, main

    results = main(["--corpus", str(corpus), "--mixed", "--prompts", "2", "--max-new-tokens", "6", "--draft",
                    "--cache", str(tmp_path / "trees.pt")])
    names = [m[0] for m in MIXED]
    assert list(results) == [("raw", n) for n in names]
    for table in results.values():
        assert len(table) == len(TOTALS) * 3
        assert all(1.0 <= tau <= 1 + d for (_, d), tau in table.items())
    out = capsys.readouterr().out
    assert all(f"draft {n}" in out for n in names) and "recorded topics-held/wording-held: 2 prompts" in out
    assert (tmp_path / "trees.pt").exists()


def test_widen_vocab_keeps_the_assets_exact(tmp_path, embedded):
    """scripts/widen_vocab.py (the untrained wider-vocabulary experiment): the shipped tokens come first, the added
    ones are new and unique, the loaders accept the folders, and greedy decoding with them stays exact."""
    from safetensors.torch import load_file

    from decoding_core.draft import DRAFT_DIR
    from decoding_core.eagle3_head import EAGLE3_DIR, load_eagle3

    script("scripts/widen_vocab.py", "draft", "--size", "20000", "--out", str(tmp_path / "draft"))
    script("scripts/widen_vocab.py", "eagle3", "--size", "20000", "--out", str(tmp_path / "eagle3"))
    shipped = load_file(str(DRAFT_DIR / "vocab.safetensors"))["d2t"].tolist()
    wide = load_file(str(tmp_path / "draft" / "vocab.safetensors"))["d2t"].tolist()
    assert wide[: len(shipped)] == shipped and len(wide) == len(set(wide)) == 20000
    head = load_eagle3(embedded, tmp_path / "eagle3")
    shipped3 = load_file(str(EAGLE3_DIR / "model.safetensors"))["d2t"].tolist()
    assert head.d2t.tolist()[: len(shipped3)] == shipped3 and head.lm_head.weight.shape[0] == 20000
    draft = load_embedded_draft(embedded, tmp_path / "draft")
    assert draft.draft_head.weight.shape[0] == 20000
    ids = embedded.encode("Name a fruit.", chat=True)
    ref = greedy_decoder(embedded, 12).start(ids).run().tokens
    assert SpeculativeDecoder(embedded, draft, 3, "greedy", max_new_tokens=12).start(ids).run().tokens == ref
    assert EagleDecoder(embedded, head, "dynamic", 4, 3, 12, max_new_tokens=12).start(ids).run().tokens == ref
    assert json.loads((tmp_path / "eagle3" / "manifest.json").read_text())["widened"]["untrained"] is True
    # a size that would not widen is refused before anything is written
    bad = subprocess.run([sys.executable, "scripts/widen_vocab.py", "draft", "--size", "100", "--out",
                          str(tmp_path / "bad")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "--size must be above" in bad.stderr and not (tmp_path / "bad").exists()


def test_copy_sweep_replays_the_mixed_draft(corpus, embedded, capsys):
    """scripts/copy_sweep.py: the held-out replay of the shipped draft mixed with a copy of the context, one line per
    weight; its tau at N = 4 agrees with the decoder run for real with the same weight on the same instructions."""
    from copy_sweep import main

    tables = main(["--corpus", str(corpus), "--prompts", "2", "--max-new-tokens", "12", "--copies", "0,0.5",
                   "--max-n", "4"])
    assert list(tables) == [0.0, 0.5]
    draft = load_embedded_draft(embedded)
    prompts = [embedded.encode(r["instruction"], chat=True) for r in corpus_rows(corpus, "heldout")[:2]]
    for w, table in tables.items():
        assert list(table) == [1, 2, 3, 4] and all(1.0 <= tau <= n + 1 for n, tau in table.items())
        acc = steps = 0
        for ids in prompts:
            m = SpeculativeDecoder(embedded, draft, 4, "greedy", max_new_tokens=12, copy=w).start(ids).run().metrics
            acc, steps = acc + m["accepted"], steps + m["verify_steps"]
        assert table[4] == pytest.approx((acc + steps) / steps, abs=0.15)
    out = capsys.readouterr().out
    assert "copy weight 0 (matches of 2+ tokens): N=1:" in out and "copy weight 0.5 (matches of 2+ tokens): N=1:" in out


def test_context_bias_probe_keeps_greedy_and_changes_only_the_tree(corpus, embedded):
    """scripts/context_bias_probe.py: a bonus on the head's logits for context tokens changes the trees it drafts, not
    the text (greedy verification): every output equals plain greedy's at every bonus, and bonus 0 is the shipped
    decoder's tau."""
    from context_bias_probe import main

    from decoding_core.eagle3_head import load_eagle3

    got = main(["--corpus", str(corpus), "--bias", "0,3", "--first", "0", "--count", "2", "--max-new-tokens", "12"])
    assert list(got) == [0.0, 3.0] and all(r["same"] and r["tau"] >= 1.0 for r in got.values())
    lm = embedded
    head = load_eagle3(lm)
    acc = steps = 0
    for r in corpus_rows(corpus, "heldout")[:2]:
        m = EagleDecoder(lm, head, "dynamic", 8, 5, 32, max_new_tokens=12).start(
            lm.encode(r["instruction"], chat=True)).run().metrics
        acc, steps = acc + m["accepted"], steps + m["verify_steps"]
    assert got[0.0]["tau"] == round((acc + steps) / steps, 4)


def test_lookup_speed_and_runner_up_sampling_scripts(corpus, capsys):
    """scripts/lookup_speed.py times EAGLE-3 with and without the lookup branch at the sizes sizing chooses (every
    output equal to plain greedy); scripts/runner_up_sampling.py counts the runner-ups each rule takes."""
    from lookup_speed import main as speed
    from runner_up_sampling import main as runner_ups

    got = speed(["--corpus", str(corpus), "--prompts", "1", "--max-new-tokens", "10", "--rounds", "1"])
    assert got["same"] and len(got["runs"]) == 4
    assert all(r["tokens_per_s"] > 0 and r["tau"] >= 1.0 for r in got["runs"].values())
    assert got["runs"]["plain greedy"]["speedup"] == 1.0
    assert "device-aware size:" in capsys.readouterr().out
    rules = runner_ups(["--corpus", str(corpus), "--prompts", "1", "--seeds", "2", "--max-new-tokens", "12"])
    assert len(rules) == 3 and rules["no runner-ups"]["runner_ups_taken"] == 0
    assert all(r["tau"] >= 1.0 and r["steps"] > 0 for r in rules.values())


def test_branch_speed_script_times_both_gates_with_the_page_defaults(corpus):
    """scripts/branch_speed.py: the speculative default (copy weight, runner-up leaves, the branch) and EAGLE-3 with
    the branch, copying after 1 and after 2 matching tokens; every output equal to plain greedy; the speculative
    passes hold more than a chain of one could (the root and the draft: 2 tokens), the runner-up beside it."""
    from branch_speed import main

    from decoding_core import speculative

    got = main(["--corpus", str(corpus), "--skip", "0", "--prompts", "1", "--max-new-tokens", "10", "--rounds", "1",
                "--ns", "1", "--eagle", "4x2"])
    assert got["same"] and len(got["runs"]) == 5 and speculative.LOOKUP_MIN_NGRAM == 2  # the gate put back
    assert all(r["tokens_per_s"] > 0 and r["tau"] >= 1.0 for r in got["runs"].values())
    for m in (1, 2):
        assert got["runs"][f"speculative default N = 1, branch after {m}"]["verify_tokens"] > 2


def test_datastore_probe_and_the_corpus_branch_in_eval_tau(corpus, embedded, monkeypatch):
    """scripts/datastore_probe.py replays the reference tree with the corpus datastore's branch beside or instead of
    the lookup branch; scripts/eval_tau.py --corpus-branch measures the lookup branch falling back to it (a replay
    table over every size and a real run at the reference tree; nothing written without --write)."""
    from datastore_probe import main as probe
    from eval_tau import main as evaluate

    got = probe(["--corpus", str(corpus), "--first", "0", "--count", "2", "--max-new-tokens", "12", "--min-count", "1"])
    assert got["instructions"] == "0:2"
    taus = {k: v for k, v in got.items() if k.endswith(("32/5", "6/2"))}
    assert len(taus) == 10 and all(v >= 1.0 for v in taus.values())
    assert 0.0 <= got["store branch found (min count 1)"] <= 1.0
    argv = ["--corpus", str(corpus), "--prompts", "1", "--max-new-tokens", "10", "--only", "eagle3-lookup", "--lookup", "8",
            "--corpus-branch"]
    monkeypatch.setattr(sys, "argv", [str(ROOT / "scripts" / "eval_tau.py"), *argv])  # the command each figure records
    results = evaluate(argv)["eagle3"]
    fell_back, table = results["heldout_tau_lookup_corpus"], results["tau_by_size_lookup_corpus"]
    assert fell_back["corpus"] and fell_back["tau"] >= 1.0 and 0 < fell_back["tokens"] <= 10
    assert len(table["rows"]) == 66 and all(row[2] >= 1.0 for row in table["rows"])
