"""The EAGLE-3 head on a tiny target: training-time test equals decode-time drafting; save/load; vocabularies."""
import json

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from decoding_core.eagle3_head import build_eagle3, default_feature_layers, load_eagle3, save_eagle3
from decoding_core.models import LoadedModel, ModelLoadError
from decoding_core.trees import additive_mask


def tiny_target(vocab=40, layers=6):
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=48, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, eos_token_id=1,
                      tie_word_embeddings=True)
    cfg._attn_implementation = "sdpa"
    return LlamaForCausalLM(cfg).eval().requires_grad_(False)


def head_for(model, v_d=16):
    torch.manual_seed(1)
    d2t = torch.randperm(model.config.vocab_size)[:v_d].sort().values
    head = build_eagle3(model.config, d2t).eval()
    with torch.no_grad():  # o_proj starts at zero in training; random here so attention matters
        for p in head.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return head


def test_feature_layers_follow_eagle3():
    assert default_feature_layers(30) == (2, 15, 27)
    assert default_feature_layers(6) == (2, 3, 3)
    assert default_feature_layers(2) == (2, 1, 0)


def test_unrolled_training_equals_decode_time_chain():
    """Step k of training-time test at index j = the head drafting a chain of k + 1 nodes after the true
    prefix 0..j with a KV cache (its ancestors' keys, its own predicted features)."""
    from transformers import DynamicCache

    target = tiny_target()
    head = head_for(target)
    L, K = 9, 3
    ids = torch.randint(2, 40, (1, L + K + 1))
    with torch.no_grad():
        hs = target.model(input_ids=ids, output_hidden_states=True).hidden_states
        g = head.target_features(hs)
        emb = target.get_input_embeddings()
        steps = [emb(ids[:, k + 1 : k + 1 + L]) for k in range(K)]
        outs = head.unrolled(g[:, :L], steps)
        for j in (0, 4, L - 1):
            cache = DynamicCache()
            pos = torch.arange(j + 1)[None]
            out = head(g[:, : j + 1], emb(ids[:, 1 : j + 2]), pos)  # the true prefix pairs, causal
            cache = DynamicCache()
            head(g[:, : j + 1], emb(ids[:, 1 : j + 2]), pos, None, cache)
            torch.testing.assert_close(out[:, j], outs[0][:, j], rtol=1e-4, atol=1e-5)
            feat = out[:, j : j + 1]
            for k in range(1, K):
                n_cached = cache.get_seq_length()
                allowed = torch.ones(1, n_cached + 1, dtype=torch.bool)
                mask = additive_mask(allowed, feat.dtype)[None, None]
                tok = emb(ids[:, j + k + 1 : j + k + 2])
                feat = head(feat, tok, torch.tensor([[j + k]]), mask, cache)
                torch.testing.assert_close(feat[:, 0], outs[k][:, j], rtol=1e-4, atol=1e-5)


def test_lean_decoding_path_equals_module_path():
    """Without gradients the head runs fused q/k/v, a RoPE table, F.rms_norm and grouped SDPA: the same
    outputs as its modules (the path training takes), with a cache and a tree mask; the fused matrix
    follows an in-place change of the weights."""
    from transformers import DynamicCache

    target = tiny_target()
    head = head_for(target)
    g = torch.randn(1, 7, 32)
    emb = torch.randn(1, 7, 32)
    allowed = torch.ones(3, 7, dtype=torch.bool)
    allowed[1, 5] = allowed[2, 4] = False                    # two siblings and a child, as in a tree
    mask = additive_mask(allowed, g.dtype)[None, None]
    pos = torch.tensor([[4, 5, 5]])

    def run(grad: bool):
        cache = DynamicCache()
        with torch.set_grad_enabled(grad):
            first = head(g[:, :4], emb[:, :4], torch.arange(4)[None], None, cache)
            level = head(g[:, 4:], emb[:, 4:], pos, mask, cache)
        return first.detach(), level.detach()

    for lean, module in zip(run(False), run(True)):
        assert not torch.equal(lean, torch.zeros_like(lean))
        torch.testing.assert_close(lean, module, rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        head.k_proj.weight.mul_(1.5)                             # training changes weights in place
    for lean, module in zip(run(False), run(True)):
        torch.testing.assert_close(lean, module, rtol=1e-5, atol=1e-6)


def test_save_load_roundtrip_and_errors(tmp_path):
    target = tiny_target()
    lm = LoadedModel(None, target, "tiny", torch.device("cpu"), torch.float32, 0.0)
    head = head_for(target)
    digest = save_eagle3(head, tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"sha256": {"model.safetensors": digest}}))
    loaded = load_eagle3(lm, tmp_path)
    assert torch.equal(loaded.d2t, head.d2t)
    from decoding_core.layout import draft_layout, draft_weights, module_weights
    assert module_weights(loaded) == draft_weights()  # int8 for decoding where the kernel runs
    draft_layout(loaded, "float32")  # the stored weights themselves, compared below
    x = torch.randn(1, 3, 32)
    with torch.no_grad():
        torch.testing.assert_close(loaded.draft_logits(x), head.draft_logits(x), rtol=1e-4, atol=1e-4)
    # a flipped byte: the manifest's sha256 refuses it
    data = bytearray((tmp_path / "model.safetensors").read_bytes())
    data[-5] ^= 0xFF
    (tmp_path / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ModelLoadError, match="sha256"):
        load_eagle3(lm, tmp_path)
    # a head for another target size
    (tmp_path / "manifest.json").unlink()
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 64, "num_hidden_layers": 6}))
    with pytest.raises(ModelLoadError, match="another target"):
        load_eagle3(lm, tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="JSON"):
        load_eagle3(lm, tmp_path)
    with pytest.raises(ModelLoadError, match="No EAGLE-3 head"):
        load_eagle3(lm, tmp_path / "missing")


@pytest.fixture(scope="module")
def tiny():
    from tests.conftest import make_tiny_lm

    return make_tiny_lm(seed=0)


@pytest.fixture(scope="module")
def trained_head(tiny):
    """A tiny EAGLE-3 head over a 30-token draft vocabulary, trained here for a few seconds with
    training-time test on the tiny target's own greedy continuations."""
    from collections import Counter

    from decoding_core.decoders import greedy_decoder

    torch.manual_seed(3)
    model = tiny.model
    seqs = [[1, s] + greedy_decoder(tiny, 24, stop_at_eos=False).start([1, s]).run().tokens for s in range(3, 43)]
    counts = Counter(t for s in seqs for t in s[2:])
    d2t = torch.tensor(sorted(t for t, _ in counts.most_common(30)))
    head = build_eagle3(model.config, d2t)
    ids = torch.tensor(seqs)
    with torch.no_grad():
        out = model.model(input_ids=ids, output_hidden_states=True)
        soft = torch.softmax(model.lm_head(out.last_hidden_state)[..., d2t], -1)
    emb = model.get_input_embeddings()
    opt = torch.optim.AdamW(head.parameters(), lr=3e-3)
    L = ids.shape[1] - 4
    for _ in range(120):
        outs = head.unrolled(head.target_features(out.hidden_states)[:, :L], [emb(ids[:, k + 1 : k + 1 + L]) for k in range(3)])
        loss = sum(-(soft[:, k + 1 : k + 1 + L] * torch.log_softmax(head.draft_logits(o), -1)).sum(-1).mean() * 0.8 ** k
                   for k, o in enumerate(outs))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return head.eval().requires_grad_(False)


@pytest.mark.parametrize("tree,k,depth,total", [("static", 4, 5, 26), ("dynamic", 4, 3, 12), ("dynamic", 8, 5, 40)])
def test_eagle3_greedy_equals_target_greedy(tiny, trained_head, tree, k, depth, total):
    from decoding_core.decoders import greedy_decoder
    from decoding_core.eagle import EagleDecoder

    accepted = 0
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23], [3]):
        ref = greedy_decoder(tiny, 24, stop_at_eos=False).start(prompt).run().tokens
        dec = EagleDecoder(tiny, trained_head, tree, k, depth, total, max_new_tokens=24, stop_at_eos=False).start(prompt)
        out = dec.run()
        assert out.tokens == ref
        assert set(t for s in dec.history if s.kind == "tree" for t in s.tokens[1:]) <= set(trained_head.d2t.tolist())
        accepted += out.metrics["accepted"]
        depth_rates = out.metrics["acceptance_by_depth"]
        assert all(a >= b for a, b in zip(depth_rates, depth_rates[1:]))  # reaching depth d+1 implies depth d
    assert accepted > 0  # the trained head drafts tokens the target accepts


@pytest.mark.parametrize("k,depth,total", [(8, 2, 6), (4, 3, 5), (8, 5, 12), (4, 4, 40)])
def test_pruned_tree_growth_drafts_the_same_trees_with_fewer_head_rows(tiny, trained_head, k, depth, total):
    """Nodes that cannot have a kept child are not expanded: every step's tree is what full growth gives."""
    from decoding_core.eagle import EagleDecoder

    def run(prune, prompt):
        dec = EagleDecoder(tiny, trained_head, "dynamic", k, depth, total, max_new_tokens=24, stop_at_eos=False)
        dec.prune = prune
        rows = []
        head = dec._head
        dec._head = lambda feats, tokens, *a: rows.append(len(tokens)) or head(feats, tokens, *a)
        dec.start(prompt).run()
        return [s for s in dec.history if s.kind == "tree"], sum(rows)

    saved = 0
    for prompt in ([1, 5, 9], [1, 22, 23, 24, 22, 23], [3]):
        (pruned, rows_p), (full, rows_f) = run(True, prompt), run(False, prompt)
        assert len(pruned) == len(full)
        for a, b in zip(pruned, full):
            assert (a.tokens, a.parents, a.accepted_path) == (b.tokens, b.parents, b.accepted_path)
            assert a.scores == pytest.approx(b.scores, abs=1e-5)
        assert rows_p <= rows_f
        saved += rows_f - rows_p
    if total - 2 < k:  # fewer places than the level has nodes: some expansions must have been skipped
        assert saved > 0


def test_feature_layers_counted_from_the_end_fuse_the_kept_rows(tiny, trained_head):
    """A head whose feature layers are given from the end (-1) decodes as the same layers counted from the start."""
    from decoding_core.eagle import EagleDecoder

    n = tiny.model.config.num_hidden_layers + 1  # hidden states: the embeddings and each layer's output
    layers = trained_head.feature_layers
    runs = []
    try:
        for given in (layers, tuple(i - n for i in layers)):
            trained_head.feature_layers = given
            dec = EagleDecoder(tiny, trained_head, "dynamic", 4, 3, 12, max_new_tokens=16, stop_at_eos=False)
            dec.start([1, 5, 9]).run()
            runs.append(dec)
    finally:
        trained_head.feature_layers = layers
    assert runs[0].tokens == runs[1].tokens
    for dec in runs:  # one true feature per committed position but the last: the kept rows only
        assert dec.features.shape[0] == len(dec.context) - 1
    assert torch.allclose(runs[0].features, runs[1].features)
    assert runs[0].metrics()["accepted"] == runs[1].metrics()["accepted"] > 0


def test_eagle3_top_k_cannot_exceed_the_draft_vocabulary(tiny, trained_head):
    from decoding_core.eagle import EagleDecoder

    with pytest.raises(ValueError, match="tree top-k"):
        EagleDecoder(tiny, trained_head, "dynamic", 31, 3, 12)


def test_replayed_tau_table_equals_real_runs(tiny, trained_head):
    """sizing.tree_tau_table (one replay of the largest tree) gives the tau a real run of each size measures."""
    from decoding_core.eagle import EagleDecoder
    from decoding_core.sizing import tree_tau_table

    prompts = [[1, 5, 9], [1, 22, 23, 24, 22, 23]]
    table = tree_tau_table(tiny, trained_head, prompts, 20, 4, (4, 8, 16), (2, 4))
    for (total, depth), tau in table.items():
        acc = steps = 0
        for p in prompts:
            m = EagleDecoder(tiny, trained_head, "dynamic", 4, depth, total, max_new_tokens=20).start(p).run().metrics
            acc, steps = acc + m["accepted"], steps + m["verify_steps"]
        assert tau == pytest.approx((acc + steps) / steps, rel=1e-9), (total, depth)
    assert table[(16, 4)] >= table[(4, 2)]


def test_replayed_table_with_a_lookup_branch_equals_real_runs(tiny, trained_head):
    """With the lookup branch merged into every tree, the replay's tau and mean verify-pass size are what real runs
    with that branch measure (the pass: the kept tree, the copied tokens it did not hold, cut to the token budget)."""
    from decoding_core.eagle import EagleDecoder
    from decoding_core.sizing import size_shares, tree_tau_table

    prompts = [[1, 5, 9, 5, 9, 12], [1, 22, 23, 24, 22, 23]]
    sizes, plain_sizes, shares = {}, {}, {}
    table = tree_tau_table(tiny, trained_head, prompts, 20, 4, (4, 8), (2, 4), lookup=5, verify_tokens=sizes,
                           pass_sizes=shares)
    tree_tau_table(tiny, trained_head, prompts, 20, 4, (4, 8), (2, 4), verify_tokens=plain_sizes)
    copied_somewhere = False
    for (total, depth), tau in table.items():
        acc = steps = fed = 0
        passes = []
        for p in prompts:
            dec = EagleDecoder(tiny, trained_head, "dynamic", 4, depth, total, max_new_tokens=20, lookup=5).start(p)
            m = dec.run().metrics
            acc, steps = acc + m["accepted"], steps + m["verify_steps"]
            passes += [len(s.tokens) for s in dec.history if s.is_verify]
            fed = sum(passes)
            copied_somewhere |= any(s.lookup_nodes for s in dec.history)
        assert tau == pytest.approx((acc + steps) / steps, rel=1e-9), (total, depth)
        assert sizes[(total, depth)] == pytest.approx(fed / steps, rel=1e-9), (total, depth)
        assert shares[(total, depth)] == size_shares(passes), (total, depth)  # every step's pass, as the decoder ran it
    assert copied_somewhere and any(sizes[k] > plain_sizes[k] for k in sizes)  # the branch lengthened some passes
    assert any(len(v) > 1 for v in shares.values())  # the pass's size varies from step to step


def test_the_tree_sizing_reads_the_table_measured_with_the_lookup_branch():
    """A lookup branch: the head manifest's table measured with that branch (rows with the mean pass size), none for
    another branch length or a branch copied after another match length (the reference size rather than a size chosen
    for another pass); the pass's measured size is what the verify pass is costed at."""
    from decoding_core.sizing import choose_tree, interpolate, tree_table_rows

    manifest = {"tau_by_size": {"rows": [[6, 2, 2.0]]},
                "tau_by_size_lookup": {"lookup": 8, "lookup_min_ngram": 2, "rows": [[6, 2, 2.1, 9.5]]}}
    assert tree_table_rows(manifest) == [[6, 2, 2.0]]
    assert tree_table_rows(manifest, 8) == [[6, 2, 2.1, 9.5]]
    old = {**manifest, "tau_by_size_lookup": {"lookup": 8, "rows": [[6, 2, 2.1, 9.5]]}}  # the branch after 1 token
    assert tree_table_rows(old, 8) == [] and tree_table_rows(old) == [[6, 2, 2.0]]
    assert tree_table_rows(manifest, 4) == [] and tree_table_rows({}, 8) == []
    verify = {1: 0.05, 4: 0.06, 8: 0.08, 16: 0.12}
    _, rates = choose_tree({(6, 2): 2.1}, verify, 0.0, tokens_by_size={(6, 2): 9.5})
    assert rates[(6, 2)] == pytest.approx(2.1 / interpolate(verify, 9.5))
    _, rates = choose_tree({(6, 2): 2.1}, verify, 0.0)
    assert rates[(6, 2)] == pytest.approx(2.1 / interpolate(verify, 6))


def test_a_pass_whose_size_varies_is_costed_at_its_mean_cost():
    """Where the replay measured the distribution of pass sizes (a row's last column), each size is costed and the
    costs averaged: on a curve that is not a line the cost of the mean size is not the mean cost."""
    from decoding_core.sizing import choose_chain, choose_tree, pass_cost, size_shares

    verify = {1: 0.05, 4: 0.06, 8: 0.062, 16: 0.12}  # flat to 8 tokens, steep after
    shares = size_shares([4, 4, 4, 16])
    assert shares == [[4, 0.75], [16, 0.25]]
    assert pass_cost(verify, shares) == pytest.approx(0.75 * 0.06 + 0.25 * 0.12)  # 0.075
    assert pass_cost(verify, 7.0) == pytest.approx(0.0615)  # the mean size's cost: lower
    _, rates = choose_tree({(6, 2): 2.1}, verify, 0.0, tokens_by_size={(6, 2): shares})
    assert rates[(6, 2)] == pytest.approx(2.1 / 0.075)
    _, rates = choose_chain({2: 1.9}, verify, 0.01, tokens_by_n={2: shares})
    assert rates[2] == pytest.approx(1.9 / (0.02 + 0.075))


def test_auto_sizes_read_the_measured_pass_sizes_from_the_manifest(monkeypatch):
    """auto_tree / auto_chain cost a size's pass over the distribution of sizes the manifest's row carries (its last
    column) where there is one, else at the row's mean size; the choice quotes the mean."""
    from decoding_core import sizing

    verify = {1: 0.05, 4: 0.06, 8: 0.062, 16: 0.12}
    monkeypatch.setattr(sizing, "forward_costs", lambda target: verify)
    monkeypatch.setattr(sizing, "head_level_cost", lambda target, head, n: 0.0)
    monkeypatch.setattr(sizing, "draft_step_cost", lambda target, draft: 0.0)
    shares = [[4, 0.75], [16, 0.25]]
    head = {"tau_by_size": {"top_k": 8, "rows": [[6, 2, 2.0]]},
            "tau_by_size_lookup": {"top_k": 8, "lookup": 8, "lookup_min_ngram": 2, "rows": [[6, 2, 2.1, 7.0, shares]]}}
    monkeypatch.setattr(sizing, "head_manifest", lambda kind: head)
    choice = sizing.auto_tree(None, None, "eagle3", 8, lookup=8)
    assert choice["tokens_per_s"] == pytest.approx(2.1 / 0.075)  # not 2.1 / cost(7.0) = 2.1 / 0.0615
    assert choice["verify_tokens"][(6, 2)] == 7.0
    assert choice["pass_s"][(6, 2)] == pytest.approx(0.075)  # what the page quotes as the pass's mean cost
    head["tau_by_size_lookup"]["rows"] = [[6, 2, 2.1, 7.0]]  # a table written before the shares: the mean size
    assert sizing.auto_tree(None, None, "eagle3", 8, lookup=8)["tokens_per_s"] == pytest.approx(2.1 / 0.0615)
    draft = {"tau_by_size_tree": {"copy": 0.3, "lookup": 8, "lookup_min_ngram": 2, "runner_up": True,
                                  "rows": [[2, 1.9, 7.0, shares]]}}
    monkeypatch.setattr(sizing, "draft_manifest", lambda: draft)
    chain = sizing.auto_chain(None, object(), "embedded", 0.3, 8, True)
    assert chain["n_draft"] == 2 and chain["tokens_per_s"] == pytest.approx(1.9 / 0.075)
    assert chain["verify_tokens"][2] == 7.0 and chain["pass_s"][2] == pytest.approx(0.075)


def test_choose_tree_and_chain_maximise_tokens_per_second():
    from decoding_core.sizing import choose_chain, choose_tree, interpolate

    verify = {1: 0.05, 4: 0.06, 8: 0.08, 16: 0.12, 32: 0.2}
    assert interpolate(verify, 6) == pytest.approx(0.07)
    assert interpolate(verify, 64) == pytest.approx(0.4)
    best, rates = choose_tree({(8, 4): 2.0, (16, 4): 3.0, (32, 6): 2.9}, verify, 0.005)
    assert best == (16, 4) and rates[(16, 4)] == pytest.approx(3.0 / (0.02 + 0.12))  # 21.4 > 2.0 / 0.1
    n, rates = choose_chain({1: 1.5, 3: 2.4, 7: 2.2}, verify, 0.01)
    assert n == 3 and rates[3] == pytest.approx(2.4 / (0.03 + 0.06))
    # a tree around the chain: its verify pass is costed at its measured mean size, else at its largest
    from decoding_core.sizing import chain_verify_tokens

    assert chain_verify_tokens(3) == 4 and chain_verify_tokens(3, 8, True) == 15 and chain_verify_tokens(2, 0, True) == 5
    n, rates = choose_chain({1: 1.7, 2: 1.95}, verify, 0.01, 8, True)
    assert rates[2] == pytest.approx(1.95 / (0.02 + interpolate(verify, 13)))
    n, rates = choose_chain({1: 1.7, 2: 1.95}, verify, 0.01, 8, True, {1: 5.5, 2: 8.0})
    assert n == 1 and rates[2] == pytest.approx(1.95 / (0.02 + 0.08)) and rates[1] == pytest.approx(1.7 / (0.01 + 0.0675))


def test_tree_levels_are_costed_by_the_rows_the_head_runs():
    """A level costed by rows: the first reads ~tau accepted pairs, deeper ones at most min(top_k, total - 2)
    nodes; a small tree then pays for cheap levels, and the choice can move to it."""
    from decoding_core.sizing import choose_tree, tree_draft_cost

    by_rows = {1: 0.001, 2: 0.0015, 4: 0.002, 8: 0.004}
    assert tree_draft_cost(6, 2, 2.0, by_rows) == pytest.approx(0.0015 + 0.002)     # 2 pairs, then 4 nodes
    assert tree_draft_cost(32, 3, 2.6, by_rows) == pytest.approx(0.00175 + 2 * 0.004)  # 2.6 -> 3 rows, then 8
    assert tree_draft_cost(3, 4, 1.0, by_rows) == pytest.approx(0.001 + 3 * 0.001)
    assert tree_draft_cost(6, 2, 2.0, 0.004) == pytest.approx(0.008)  # one cost per level: depth x level
    verify = {1: 0.016, 8: 0.020, 32: 0.037}
    table = {(6, 2): 2.03, (32, 5): 2.40}
    best, rates = choose_tree(table, verify, by_rows)
    assert rates[(6, 2)] == pytest.approx(2.03 / (0.0035 + 0.016 + 0.004 * 5 / 7))
    assert best == (6, 2)


def test_sizes_whose_gain_is_inside_the_timing_noise_give_way_to_the_smaller():
    """A tau 1% higher at N = 9 than at N = 3 does not pay for six more draft steps unless the costs say so
    clearly: within 2% of the best expected rate the smallest size is chosen (sizing.NOISE)."""
    from decoding_core.sizing import NOISE, choose_chain, choose_tree, smallest_near_best

    assert smallest_near_best({3: 1.0, 9: 1.0 + NOISE / 2}) == 3
    assert smallest_near_best({3: 1.0, 9: 1.0 + 2 * NOISE}) == 9
    verify = {1: 0.05, 4: 0.05, 8: 0.05, 16: 0.05}  # flat costs and a free draft: only tau decides
    n, _ = choose_chain({3: 1.49, 9: 1.51}, verify, 0.0)
    assert n == 3
    n, _ = choose_chain({3: 1.49, 9: 1.80}, verify, 0.0)
    assert n == 9
    best, _ = choose_tree({(6, 2): 1.80, (32, 5): 1.82}, verify, 0.0)
    assert best == (6, 2)


def test_warm_start_into_a_wider_draft_vocabulary():
    """scripts/train_eagle3.py --init-from with another V_d: every weight but the LM head is copied, the
    LM-head rows of the shared tokens come from the trained head, the new tokens keep the rows they had."""
    import sys

    from tests.conftest import ROOT

    sys.path.insert(0, str(ROOT / "scripts"))
    from train_eagle3 import widen_head

    model = tiny_target()
    warm = head_for(model, v_d=8)
    wide_d2t = torch.cat([warm.d2t, torch.tensor([t for t in range(40) if t not in warm.d2t.tolist()][:6])]).sort().values
    head = build_eagle3(model.config, wide_d2t)
    fresh_rows = head.lm_head.weight.detach().clone()
    said = widen_head(head, warm)
    assert "8 -> 14 tokens" in said and "8 shared" in said
    where = {t: i for i, t in enumerate(warm.d2t.tolist())}
    for i, t in enumerate(wide_d2t.tolist()):
        expected = warm.lm_head.weight[where[t]] if t in where else fresh_rows[i]
        assert torch.equal(head.lm_head.weight[i], expected)
    assert head.d2t.tolist() == wide_d2t.tolist()
    theirs = warm.state_dict()
    for name, value in head.state_dict().items():
        if name not in ("lm_head.weight", "d2t"):
            assert torch.equal(value, theirs[name]), name
    same = build_eagle3(model.config, warm.d2t.clone())
    assert widen_head(same, warm) == "same draft vocabulary"
    assert all(torch.equal(v, theirs[k]) for k, v in same.state_dict().items())


def test_the_chain_sizing_reads_the_table_measured_with_the_settings():
    """The draft manifest's held-out table for the settings in use: the tree around the chain (its copy weight,
    lookup branch and runner-up leaves must all match), the copy weight alone, else the draft's own."""
    from decoding_core.sizing import chain_table_rows

    manifest = {"tau_by_size": {"rows": [[1, 1.4]]}, "tau_by_size_copy": {"copy": 0.3, "rows": [[1, 1.5]]},
                "tau_by_size_tree": {"copy": 0.3, "lookup": 8, "lookup_min_ngram": 2, "runner_up": True,
                                     "rows": [[1, 1.7, 5.5]]}}
    assert chain_table_rows(manifest, 0.3, 8, True) == [[1, 1.7, 5.5]]
    ungated = {**manifest, "tau_by_size_tree": {k: v for k, v in manifest["tau_by_size_tree"].items()
                                                if k != "lookup_min_ngram"}}
    assert chain_table_rows(ungated, 0.3, 8, True) == []  # measured before the branch copied after 2 tokens only
    assert chain_table_rows(manifest, 0.3, 4, True) == []     # another tree: no table (the reference N), not a chain's
    assert chain_table_rows(manifest, 0.0, 8, True) == []
    assert chain_table_rows(manifest, 0.3) == [[1, 1.5]]
    assert chain_table_rows(manifest, 0.0) == [[1, 1.4]]
    assert chain_table_rows({}, 0.3, 8, True) == []
