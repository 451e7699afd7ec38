"""The corpus datastore (retrieval drafting for the EAGLE lookup branch): exact counts, its branch, its errors, and the
decoder with it on a tiny model (greedy exact, sampling lossless)."""
import copy
import gzip
import json
from types import SimpleNamespace

import pytest
import torch

from decoding_core.datastore import Datastore, load_datastore
from decoding_core.decoders import greedy_decoder
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle_head import EagleHead
from decoding_core.models import ModelLoadError
from decoding_core.settings import Eagle
from decoding_core.spec import parse_strategy
from decoding_core.speculative import lookup_branch
from decoding_core.stats import chi_square
from decoding_core.strategies import describe
from tests.conftest import make_tiny_lm


def test_counts_ties_and_min_count():
    # after (1, 2): 3, 4, 3, 4 (a tie: the smaller id wins); after 5: 1 once; after (2, 4): 1 once
    store = Datastore([[1, 2, 3, 1, 2, 4, 1, 2, 3], [5, 1, 2, 4]], min_count=1)
    assert store.tokens == 13
    assert store.next_token([1, 2]) == 3
    assert store.next_token([9, 9, 5]) == 1           # no 4-, 3- or 2-gram with 9: backs off to the last token
    assert store.next_token([7]) is None              # never seen
    assert store.branch([1, 2], 4) == [3, 1, 2, 4]    # (1,2)->3, (1,2,3)->1, (1,2,3,1)->2, (2,3,1,2)->4
    strict = Datastore([[1, 2, 3, 1, 2, 4, 1, 2, 3], [5, 1, 2, 4]], min_count=3)
    assert strict.next_token([5]) is None             # seen once
    assert strict.next_token([1, 2]) == 3             # seen 4 times
    assert strict.next_token([2, 3]) is None          # followed once (once more by an answer's end): (3) alike
    assert strict.next_token([9, 2]) == 3             # the 1-gram (2): seen 4 times, 3 twice and 4 twice
    assert strict.entries == sum(len(k) for k, _ in strict.tables.values())


def test_a_share_gate_drops_guesses_that_follow_seldom():
    """min_share: a suffix whose most frequent follower came less than that share of the time is left out (the branch
    backs off to a shorter suffix, or stops)."""
    seqs = [[1, 2, 3, 1, 2, 4, 1, 2, 3], [5, 1, 2, 4], [6, 1, 2, 3]]  # after (1, 2): 3 three times, 4 twice
    assert Datastore(seqs, min_count=1, min_share=0.6).next_token([1, 2]) == 3       # 3/5 >= 0.6
    gated = Datastore(seqs, min_count=1, min_share=0.7)
    assert gated.next_token([1, 2]) is None                                           # 3/5 < 0.7, and (2) alike
    assert gated.next_token([6, 1]) == 2 and gated.branch([6, 1], 3) == [2, 3, 1]    # each guess followed once: 100%
    assert gated.entries < Datastore(seqs, min_count=1).entries


def test_answers_do_not_run_into_each_other_and_specials_stop_a_branch():
    store = Datastore([[7, 8], [9, 10]], min_count=1)
    assert store.next_token([8]) is None              # 8 ended an answer: 9 did not follow it
    assert store.branch([7], 5) == [8]
    assert store.branch([7], 5, never=frozenset({8})) == []
    assert Datastore([], min_count=1).branch([1, 2], 3) == []


def test_four_grams_whose_first_id_fills_the_top_bit_are_found():
    """A 4-gram key is four 16-bit ids; an id >= 32,768 first sets the key's top bit (unsigned keys, not a wrap)."""
    store = Datastore([[40000, 1, 2, 3, 9], [5, 1, 2, 3, 7], [6, 1, 2, 3, 7]], min_count=1)
    assert store.next_token([40000, 1, 2, 3]) == 9 and store.next_token([1, 2, 3]) == 7
    assert store.next_token([65535 - 1, 40000, 1, 2]) == 3


def test_ids_beyond_16_bits_are_refused():
    with pytest.raises(ValueError, match="16 bits"):
        Datastore([[1, 70000]])


def test_settings_and_links():
    with pytest.raises(ValueError, match="lookup branch"):
        Eagle(corpus=True)                            # the corpus is the lookup branch's fallback
    s = parse_strategy("eagle:lookup=8,corpus=true")
    assert s == Eagle(lookup=8, corpus=True)
    assert "corpus" in str(describe(s)) and "corpus" not in str(describe(Eagle(lookup=8)))


def _corpus(folder, instruction, prompt_ids, answers):
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"target": "tiny"}))
    with gzip.open(folder / "train-00000.jsonl.gz", "wt") as f:
        for a in answers:
            f.write(json.dumps({"instruction": instruction, "prompt_ids": prompt_ids, "answer_ids": a}) + "\n")


def test_load_checks_the_tokenizer_and_reports_a_damaged_corpus(tmp_path):
    target = SimpleNamespace(name="some model", encode=lambda text, chat=True: [1, 2, 3])
    _corpus(tmp_path / "same", "hi", [1, 2, 3], [[4, 5, 6], [4, 5, 7]])
    assert load_datastore(target, tmp_path / "same").branch([4], 2) == [5, 6]
    _corpus(tmp_path / "other", "hi", [1, 2, 4], [[4, 5, 6]])
    with pytest.raises(ModelLoadError, match="another tokenizer"):
        load_datastore(target, tmp_path / "other")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{}")
    (broken / "train-00000.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(ModelLoadError, match="cannot be read"):
        load_datastore(target, broken)
    with pytest.raises(ModelLoadError, match="cannot be read"):
        load_datastore(target, tmp_path / "missing")
    keyless = tmp_path / "keyless"
    keyless.mkdir()
    (keyless / "manifest.json").write_text("{}")
    with gzip.open(keyless / "train-00000.jsonl.gz", "wt") as f:
        f.write(json.dumps({"answer_ids": [1, 2]}) + "\n")
    with pytest.raises(ModelLoadError, match="cannot be read"):
        load_datastore(target, keyless)


@pytest.fixture(scope="module")
def target():
    return make_tiny_lm(seed=0)


@pytest.fixture(scope="module")
def untrained(target):
    torch.manual_seed(5)
    return EagleHead(target.model.config).eval().requires_grad_(False)


def _store_of(target, prompts, n=30):
    """A datastore of the tiny target's own greedy answers (a corpus it would write)."""
    return Datastore([greedy_decoder(target, n, stop_at_eos=False).start(p).run().tokens for p in prompts], min_count=1)


@pytest.mark.parametrize("tree", ["static", "dynamic"])
def test_corpus_branch_keeps_greedy_exact(target, untrained, tree):
    """Where prompt lookup finds nothing, the branch is the datastore's: its nodes (rank -2, ``corpus_nodes``) follow
    the datastore's branch after the step's context, the output stays the target's greedy output, and a datastore of
    the target's own answers gets nodes accepted that the untrained head did not draft."""
    prompt = [1, 7, 11]
    store = _store_of(target, [prompt, [1, 7, 12], [2, 7, 11]])
    ref = greedy_decoder(target, 24, stop_at_eos=False).start(prompt).run().tokens
    dec = EagleDecoder(target, untrained, tree, 4, 3, 12, max_new_tokens=24, stop_at_eos=False, lookup=6,
                       datastore=store).start(prompt)
    out = dec.run()
    assert out.tokens == ref and out.metrics["sizes"]["corpus"] is True
    done, from_corpus, accepted = 0, 0, 0
    for s in dec.history:
        context = prompt + ref[:done]
        if s.corpus_nodes:
            assert lookup_branch(context, 6) == []      # the corpus only where the text had nothing to copy
            branch = store.branch(context, 6)
            for node in s.corpus_nodes:
                path, i = [], node
                while i > 0:
                    path.append(s.tokens[i])
                    i = s.parents[i]
                assert path[::-1] == branch[: len(path)]
            assert set(s.corpus_nodes) <= set(s.lookup_nodes)
        from_corpus += len(s.corpus_nodes)
        accepted += len(set(s.corpus_nodes) & set(s.accepted_path))
        done += len(s.emitted)
    assert from_corpus > 0 and accepted > 0
    plain = EagleDecoder(target, untrained, tree, 4, 3, 12, max_new_tokens=24, stop_at_eos=False,
                         lookup=6).start(prompt)
    assert plain.run().tokens == ref and plain.accepted < dec.accepted


def test_corpus_branch_keeps_sampling_lossless(target, untrained):
    """Tree sampling with the corpus branch under the root (its first token is the datastore's guess, a point-mass
    candidate the head did not draft): the first token of a tree step is distributed as the target's p (chi-square,
    p-value > 0.001)."""
    from decoding_core.processors import SamplingSettings

    prompt = [1, 7, 11]
    dec = EagleDecoder(target, untrained, "dynamic", 2, 2, 6, SamplingSettings(), sample=True, max_new_tokens=8,
                       stop_at_eos=False, lookup=4).start(prompt)
    dec.step()                                           # the prefill; then one tree step per trial
    with torch.inference_mode():
        p = torch.softmax(target.model(torch.tensor([dec.context])).logits[0, -1].float(), -1)
    guess = int(p.argsort(descending=True)[1])           # a likely token the untrained head hardly drafts
    dec.datastore = Datastore([[dec.context[-1], guess, guess]], min_count=1)
    counts, rooted = torch.zeros_like(p), 0
    for seed in range(600):
        trial = copy.deepcopy(dec, memo={id(target): target, id(untrained): untrained, id(dec.datastore): dec.datastore})
        trial.generator.manual_seed(seed)
        s = trial.step()
        counts[s.emitted[0]] += 1
        rooted += any(s.parents[i] == 0 for i in s.corpus_nodes)
    assert rooted > 0
    _, _, pval = chi_square(counts.numpy(), p.numpy())
    assert pval > 0.001
