"""Speculative decoding and EAGLE on the embedded model with the shipped draft and head."""
import json

import pytest
import torch

from decoding_core.decoders import greedy_decoder
from decoding_core.draft import load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.processors import SamplingSettings
from decoding_core.speculative import SpeculativeDecoder
from decoding_core.stats import chi_square
from tests.conftest import PROMPTS
from tests.integration.test_embedded_greedy import run_cli

N = 24


@pytest.fixture(scope="module")
def draft(embedded):
    return load_embedded_draft(embedded)


@pytest.fixture(scope="module", params=["eagle1", "eagle3"])
def head(embedded, request):
    from decoding_core.heads import load_head
    from decoding_core.eagle3_head import EAGLE3_DIR

    if request.param == "eagle3" and not (EAGLE3_DIR / "model.safetensors").exists():
        pytest.skip("the EAGLE-3 head is not shipped in this checkout")
    return load_head(embedded, request.param)


@pytest.fixture(scope="module")
def greedy_refs(embedded):
    return {p: greedy_decoder(embedded, N).start(embedded.encode(p, chat=True)).run().tokens for p in PROMPTS}


@pytest.mark.parametrize("n", [1, 4, 8])
def test_greedy_match_equals_target_greedy(embedded, draft, greedy_refs, n):
    for prompt in PROMPTS:
        ids = embedded.encode(prompt, chat=True)
        out = SpeculativeDecoder(embedded, draft, n, "greedy", max_new_tokens=N).start(ids).run()
        assert out.tokens == greedy_refs[prompt]
        assert out.metrics["accepted"] > 0  # the trained draft does get tokens accepted


def test_draft_mixed_with_a_copy_equals_target_greedy(embedded, draft, greedy_refs):
    """The shipped draft mixed with a copy of the context (weight 0.3, the measured one): the same greedy text, and
    some drafts were the copy's."""
    copied = 0
    for prompt in PROMPTS:
        ids = embedded.encode(prompt, chat=True)
        dec = SpeculativeDecoder(embedded, draft, 4, "greedy", max_new_tokens=N, copy=0.3).start(ids)
        out = dec.run()
        assert out.tokens == greedy_refs[prompt]
        copied += sum(d.copied for step in dec.history for d in step.drafts)
    assert copied > 0


@pytest.mark.parametrize("n", [2, 4])
def test_the_tree_around_the_chain_equals_target_greedy(embedded, draft, greedy_refs, n):
    """The default speculative settings (copy weight 0.3, a lookup branch of 8, runner-up leaves): the same greedy
    text, and some steps took a token from beside the chain."""
    beside = 0
    for prompt in PROMPTS:
        ids = embedded.encode(prompt, chat=True)
        dec = SpeculativeDecoder(embedded, draft, n, "greedy", max_new_tokens=N, copy=0.3, lookup=8,
                                 runner_up=True).start(ids)
        out = dec.run()
        assert out.tokens == greedy_refs[prompt]
        beside += sum(len(step.accepted_branch) for step in dec.history)
    assert beside > 0


def test_prompt_lookup_equals_target_greedy(embedded, greedy_refs):
    ids = embedded.encode(PROMPTS[1], chat=True)
    out = SpeculativeDecoder(embedded, None, 4, "greedy", max_new_tokens=N).start(ids).run()
    assert out.tokens == greedy_refs[PROMPTS[1]]


@pytest.mark.parametrize("tree,lookup,corpus", [("static", 0, False), ("dynamic", 0, False), ("dynamic", 8, False),
                                               ("static", 8, True), ("dynamic", 8, True)])
def test_eagle_greedy_equals_target_greedy(embedded, head, greedy_refs, tree, lookup, corpus):
    """Also with the lookup branch falling back to the corpus datastore built from the shipped corpus: the tokens it
    drafts are the datastore's branch after the step's context, and some are accepted."""
    from decoding_core.datastore import load_datastore

    store = load_datastore(embedded) if corpus else None
    from_corpus = accepted = 0
    for prompt in PROMPTS:
        ids = embedded.encode(prompt, chat=True)
        dec = EagleDecoder(embedded, head, tree, 8, 5, 32, max_new_tokens=N, lookup=lookup, datastore=store).start(ids)
        out = dec.run()
        assert out.tokens == greedy_refs[prompt]
        assert out.metrics["mean_accepted_length"] > 1.0
        assert out.metrics["sizes"]["corpus"] is corpus
        done = 0  # tokens emitted before the step: its tree was drafted after ids + out.tokens[:done]
        for s in dec.history:
            if s.corpus_nodes:
                branch = store.branch(ids + out.tokens[:done], lookup, dec.special_ids)
                leaf = max(s.corpus_nodes)
                path, node = [], leaf
                while node > 0:
                    path.append(s.tokens[node])
                    node = s.parents[node]
                assert path[::-1] == branch[: len(path)]
            from_corpus += len(s.corpus_nodes)
            accepted += len(set(s.corpus_nodes) & set(s.accepted_path))
            done += len(s.emitted)
    if corpus:
        assert from_corpus > 0 and accepted > 0


def test_rejection_sampling_first_token_matches_target(embedded, draft):
    """Over many seeds, the first token of speculative sampling is distributed as the target's p
    (chi-square over the likely tokens with the rest pooled; bound: p-value > 0.001)."""
    ids = embedded.encode("Give me one word for a colour.", chat=True)
    with torch.inference_mode():
        p = torch.softmax(embedded.model(torch.tensor([ids])).logits[0, -1].float(), -1)
    counts = torch.zeros_like(p)
    seeds = 400
    for seed in range(seeds):
        dec = SpeculativeDecoder(embedded, draft, 1, "sample", settings=SamplingSettings(), max_new_tokens=2,
                                 seed=seed).start(ids)
        counts[dec.step().emitted[0]] += 1
    _, _, pval = chi_square(counts.numpy(), p.numpy())
    assert pval > 0.001


def test_cli_speculative_and_eagle(embedded, greedy_refs):
    for args in (["--strategy", "speculative", "--draft", "embedded", "--n-draft", "4"],
                 ["--strategy", "speculative", "--n-draft", "6", "--stop-below", "0.5", "--lookup", "0",
                  "--no-runner-up"],  # variable length, at most 6 (a chain: nothing drafted beside it)
                 ["--strategy", "speculative", "--n-draft", "4", "--copy", "0.3"],  # the draft mixed with a copy
                 ["--strategy", "speculative", "--n-draft", "3", "--lookup", "0", "--no-runner-up"],  # the chain alone
                 ["--strategy", "speculative", "--draft", "embedded"],  # N auto: sized for this device
                 ["--strategy", "speculative", "--draft", "prompt-lookup"],
                 ["--strategy", "eagle", "--tree", "dynamic", "--total-tokens", "32", "--depth", "5"],
                 ["--strategy", "eagle", "--head", "eagle1", "--tree", "static"],
                 ["--strategy", "eagle", "--lookup", "8"],  # a copied branch in every tree
                 ["--strategy", "eagle", "--lookup", "8", "--corpus-branch"],  # ... from the corpus where none
                 ["--strategy", "eagle"]):  # the default head, tree size auto
        proc = run_cli(*args, "--chat", PROMPTS[0], "--max-new-tokens", str(N), "--device", "cpu")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["tokens"] == greedy_refs[PROMPTS[0]]
        m = out["metrics"]
        assert {"drafted", "accepted", "verify_steps", "acceptance_rate", "mean_accepted_length", "sizes"} <= set(m)
        assert m["acceptance_by_depth"] == sorted(m["acceptance_by_depth"], reverse=True)
        if "--strategy" in args and args[args.index("--strategy") + 1] == "eagle":
            assert m["sizes"]["head"] in ("eagle1", "eagle3") and m["sizes"]["total_tokens"] >= 2
            assert m["sizes"]["lookup"] == (8 if "--lookup" in args else 0)
            if "static" in args:  # the static tree's own shape (25 drafted nodes and the root, 5 deep)
                assert (m["sizes"]["total_tokens"], m["sizes"]["depth"]) == (26, 5)
            elif "--depth" in args:
                assert (m["sizes"]["total_tokens"], m["sizes"]["depth"], m["sizes"]["chosen_by"]) == (32, 5, "given")
        else:
            assert m["sizes"]["n_draft"] >= 1
            if "prompt-lookup" not in args:  # the tree around the chain: on by default, off when asked
                assert m["sizes"].get("lookup", 0) == (0 if "--lookup" in args else 8)
                assert m["sizes"].get("runner_up", False) == ("--no-runner-up" not in args)
        if "--copy" in args:
            assert m["sizes"]["copy"] == 0.3
        if "--stop-below" in args:
            assert m["sizes"]["stop_below"] == 0.5 and m["drafted"] < 6 * m["verify_steps"]
    bad = run_cli("--strategy", "speculative", "--prompt", "x", "--n-draft", "0")
    assert bad.returncode == 2 and "n-draft" in bad.stderr
    bad = run_cli("--strategy", "speculative", "--prompt", "x", "--stop-below", "1.5")
    assert bad.returncode == 2 and "--stop-below: confidence stop" in bad.stderr
    bad = run_cli("--strategy", "speculative", "--prompt", "x", "--copy", "1.5")
    assert bad.returncode == 2 and "--copy: copy weight" in bad.stderr
    bad = run_cli("--strategy", "speculative", "--prompt", "x", "--lookup", "17")
    assert bad.returncode == 2 and "--lookup: lookup branch" in bad.stderr
    bad = run_cli("--strategy", "speculative", "--prompt", "x", "--draft", "/no/such/draft")
    assert bad.returncode == 2
    bad = run_cli("--strategy", "eagle", "--prompt", "x", "--total-tokens", "lots")
    assert bad.returncode == 2 and "integer or auto" in bad.stderr
