"""EAGLE on a tiny model: greedy equals target greedy, lossless tree sampling, KV compaction, loading."""
import json

import pytest
import torch
from transformers import DynamicCache

from decoding_core.decoders import greedy_decoder
from decoding_core.eagle import DraftTree, EagleDecoder, accept_greedy, accept_sampling
from decoding_core.speculative import lookup_branch
from decoding_core.trees import ancestors
from decoding_core.eagle_head import EagleHead, head_state, load_eagle_checkpoint, save_head
from decoding_core.models import ModelLoadError
from decoding_core.stats import chi_square
from tests.conftest import make_tiny_lm


@pytest.fixture(scope="module")
def target():
    return make_tiny_lm(seed=0)


@pytest.fixture(scope="module")
def head(target):
    """A tiny head trained here for a few seconds on the tiny target's own greedy continuations."""
    torch.manual_seed(3)
    model = target.model
    seqs = []
    for start in range(3, 43):
        seqs.append(greedy_decoder(target, 24, stop_at_eos=False).start([1, start]).run().tokens)
    ids = torch.tensor([[1, 3 + i] + s for i, s in enumerate(seqs)])
    with torch.no_grad():
        feats = model.model(input_ids=ids).last_hidden_state
    head = EagleHead(model.config)
    opt = torch.optim.AdamW(head.parameters(), lr=3e-3)
    pos = torch.arange(ids.shape[1] - 1)[None].expand(ids.shape[0], -1)
    for _ in range(150):
        f_hat = head(feats[:, :-1], model.get_input_embeddings()(ids[:, 1:]), pos)
        loss = torch.nn.functional.smooth_l1_loss(f_hat, feats[:, 1:]) + torch.nn.functional.cross_entropy(
            model.lm_head(f_hat[:, :-1]).flatten(0, 1), ids[:, 2:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return head.eval().requires_grad_(False)


@pytest.mark.parametrize("tree,k,depth,total", [("static", 8, 5, 26), ("dynamic", 4, 3, 12), ("dynamic", 8, 5, 40)])
def test_greedy_equals_target_greedy(target, head, tree, k, depth, total):
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23], [3]):
        ref = greedy_decoder(target, 24, stop_at_eos=False).start(prompt).run().tokens
        dec = EagleDecoder(target, head, tree, k, depth, total, max_new_tokens=24, stop_at_eos=False).start(prompt)
        out = dec.run()
        assert out.tokens == ref
        m = out.metrics
        assert m["target_forwards"] == m["verify_steps"] + 1  # + the prefill that made the first token
        assert m["new_tokens"] == 24


@pytest.mark.parametrize("tree", ["static", "dynamic"])
def test_lookup_branch_keeps_greedy_exact(target, tree):
    """A prompt-lookup branch merged into every tree: the output stays the target's greedy output, the copied nodes
    are the tokens lookup_branch proposes (one path from the root, siblings distinct) and, where the output repeats
    itself, copied nodes the head did not draft are accepted (an untrained head: it drafts little that is right)."""
    torch.manual_seed(5)
    head = EagleHead(target.model.config).eval().requires_grad_(False)
    prompt = [1] + list(range(3, 50)) + [5, 6]          # its last two tokens occurred before: the first tree copies
    ref = greedy_decoder(target, 24, stop_at_eos=False).start(prompt).run().tokens
    dec = EagleDecoder(target, head, tree, 4, 3, 12, max_new_tokens=24, stop_at_eos=False, lookup=6).start(prompt)
    out = dec.run()
    assert out.tokens == ref and out.metrics["sizes"]["lookup"] == 6
    steps = [s for s in dec.history if s.kind == "tree"]
    added = accepted = 0
    for s in steps:
        context = prompt + ref[: sum(len(x.emitted) for x in dec.history[: s.index])]
        proposal = lookup_branch(context, 6)
        for node in s.lookup_nodes:                      # a copied node continues the copied chain
            path = [s.tokens[i] for i in ancestors(list(s.parents), node)[1:]]
            assert path == proposal[: len(path)]
        for parent in set(s.parents):
            kids = [s.tokens[i] for i, p in enumerate(s.parents) if p == parent]
            assert len(kids) == len(set(kids))
        added += len(s.lookup_nodes)
        accepted += len(set(s.lookup_nodes) & set(s.accepted_path))
    assert added > 0 and accepted > 0
    plain = EagleDecoder(target, head, tree, 4, 3, 12, max_new_tokens=24, stop_at_eos=False).start(prompt)
    assert plain.run().tokens == ref and all(not s.lookup_nodes for s in plain.history)
    assert plain.accepted < dec.accepted                 # the copied nodes are what got accepted


def test_lookup_branch_keeps_sampling_lossless(target, head, monkeypatch):
    """Tree sampling with the copied branch: the first token of a tree step is distributed as the target's p
    (the copied node is one more point-mass candidate; chi-square, p-value > 0.001)."""
    import copy

    from decoding_core import speculative
    from decoding_core.processors import SamplingSettings

    monkeypatch.setattr(speculative, "LOOKUP_MIN_NGRAM", 1)  # copy after the sampled first token alone: every trial

    prompt = [1] + list(range(3, 50)) + [5, 9]
    dec = EagleDecoder(target, head, "dynamic", 2, 2, 6, SamplingSettings(), sample=True, max_new_tokens=8,
                       stop_at_eos=False, lookup=4).start(prompt)
    dec.step()                                           # the prefill: the first token, then a tree each step
    with torch.inference_mode():
        p = torch.softmax(target.model(torch.tensor([dec.context])).logits[0, -1].float(), -1)
    counts, copied = torch.zeros_like(p), 0
    for seed in range(600):
        trial = copy.deepcopy(dec, memo={id(target): target, id(head): head})
        trial.generator.manual_seed(seed)
        s = trial.step()
        counts[s.emitted[0]] += 1
        copied += any(s.parents[i] == 0 for i in s.lookup_nodes)
    assert copied == 600                                 # the copied token is a root child the head did not draft
    _, _, pval = chi_square(counts.numpy(), p.numpy())
    assert pval > 0.001


def test_tree_records_and_accepts_something(target, head):
    dec = EagleDecoder(target, head, "dynamic", 8, 4, 32, max_new_tokens=40, stop_at_eos=False).start([1, 5, 9])
    dec.run()
    trees = [s for s in dec.history if s.kind == "tree"]
    assert dec.accepted > 0
    for s in trees:
        assert len(s.tokens) <= 32 and s.parents[0] == -1 and s.mask.shape == (len(s.tokens), len(s.tokens))
        assert s.accepted_path[0] == 0
        assert all(s.parents[b] == a for a, b in zip(s.accepted_path, s.accepted_path[1:]))
        scores = s.scores
        assert all(scores[i] <= scores[s.parents[i]] + 1e-6 for i in range(1, len(scores)))


def test_kv_cache_equals_a_fresh_run_after_steps(target, head):
    dec = EagleDecoder(target, head, "dynamic", 8, 4, 32, max_new_tokens=40, stop_at_eos=False).start([1, 5, 9])
    for _ in range(5):
        dec.step()
        ctx = dec.context
        fresh = DynamicCache()
        with torch.inference_mode():
            hidden = target.model.model(input_ids=torch.tensor([ctx[:-1]]), cache=fresh).last_hidden_state[0]
        assert dec.t_cache.get_seq_length() == len(ctx) - 1
        for a, b in zip(dec.t_cache.layers, fresh.layers):
            assert torch.allclose(a.keys, b.keys, atol=1e-5) and torch.allclose(a.values, b.values, atol=1e-5)
        assert torch.allclose(dec.features, hidden, atol=1e-4)
        assert dec.h_cache.get_seq_length() == dec.h_len <= len(ctx) - 1  # fed lazily at the next draft
    assert dec.accepted > 0


def test_accept_greedy_by_hand():
    #   0 -> 1(a) -> 3(c)
    #     -> 2(b) -> 4(d)
    tree = DraftTree([9, 10, 11, 12, 13], [-1, 0, 0, 1, 2], [0, -1, -2, -2, -3], [0, 0, 1, 0, 0])
    assert accept_greedy(tree, [11, 0, 13, 0, 0]) == [0, 2, 4]
    assert accept_greedy(tree, [10, 12, 0, 0, 0]) == [0, 1, 3]
    assert accept_greedy(tree, [5, 0, 0, 0, 0]) == [0]


def test_tree_sampling_is_lossless():
    # the root has three children; the emitted first token must be distributed as p[root]
    tree = DraftTree([0, 1, 2, 3], [-1, 0, 0, 0], [0.0, -0.1, -0.5, -1.0], [0, 0, 1, 2])
    p = torch.tensor([[0.1, 0.4, 0.2, 0.05, 0.25]]).repeat(4, 1)
    g = torch.Generator().manual_seed(0)
    counts = torch.zeros(5)
    for _ in range(10000):
        draws = iter(torch.rand(8, generator=g).tolist())
        path, nxt = accept_sampling(tree, p, draws, g)
        first = tree.tokens[path[1]] if len(path) > 1 else nxt
        counts[first] += 1
    _, _, pval = chi_square(counts.numpy(), p[0].numpy())
    assert pval > 0.001


def test_sampling_decoder_is_reproducible(target, head):
    from decoding_core.processors import SamplingSettings

    run = lambda: EagleDecoder(target, head, "dynamic", 4, 3, 12, SamplingSettings(temperature=1.3), sample=True,  # noqa: E731
                               max_new_tokens=20, seed=7, stop_at_eos=False).start([1, 5]).run().tokens
    assert run() == run()


def test_public_layout_round_trip(tmp_path, target, head):
    save_head(head, tmp_path)
    keys = set(json.loads((tmp_path / "config.json").read_text()))
    assert "hidden_size" in keys
    from safetensors.torch import load_file

    stored = load_file(str(tmp_path / "model.safetensors"))
    assert "fc.weight" in stored and "fc.bias" in stored and any(k.startswith("layers.0.self_attn") for k in stored)
    loaded = load_eagle_checkpoint(target, tmp_path)
    for k, v in head_state(head).items():
        assert torch.equal(head_state(loaded)[k], v)


def test_public_layout_written_by_hand_as_bin(tmp_path, target):
    """A checkpoint in the public EAGLE layout (pytorch_model.bin, fc + layers.0.*) built here."""
    h = target.model.config.hidden_size
    torch.manual_seed(0)
    ref = EagleHead(target.model.config)
    state = {"fc.weight": torch.randn(h, 2 * h), "fc.bias": torch.randn(h)}
    for k, v in ref.layer.state_dict().items():
        if "input_layernorm" not in k:
            state["layers.0." + k] = torch.randn_like(v)
    torch.save(state, tmp_path / "pytorch_model.bin")
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": h, "intermediate_size": 2 * h,
                                                      "num_attention_heads": 4, "num_key_value_heads": 2}))
    loaded = load_eagle_checkpoint(target, tmp_path)
    assert torch.equal(loaded.fc.weight, state["fc.weight"])
    assert torch.equal(loaded.layer.mlp.down_proj.weight, state["layers.0.mlp.down_proj.weight"])


def test_head_for_another_target_is_refused(tmp_path, target):
    big = make_tiny_lm(seed=1, hidden=64)
    save_head(EagleHead(big.model.config), tmp_path)
    with pytest.raises(ModelLoadError, match="hidden size"):
        load_eagle_checkpoint(target, tmp_path)
    with pytest.raises(ModelLoadError, match="No EAGLE head"):
        load_eagle_checkpoint(target, tmp_path / "missing")


@pytest.mark.parametrize("kw,needle", [({"tree": "bush"}, "tree"), ({"top_k": 0}, "top-k"), ({"depth": 0}, "depth"),
                                       ({"total_tokens": 1}, "total"), ({"total_tokens": 999}, "total"),
                                       ({"lookup": -1}, "lookup"), ({"lookup": 17}, "lookup"),
                                       ({"lookup": 2.5}, "lookup")])
def test_bad_settings(target, head, kw, needle):
    with pytest.raises(ValueError, match=needle):
        EagleDecoder(target, head, **kw)
