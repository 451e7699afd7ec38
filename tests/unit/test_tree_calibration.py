"""scripts/tree_calibration.py's read-offs on hand-made trees: which nodes count for calibration, the replayed
tau, the per-depth logistic fit, and that a calibrated score keeps every child behind its parent."""
import math
import random
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from tree_calibration import calibrated, fit_logistic, node_table, raw  # noqa: E402

from decoding_core.sizing import trees_tau  # noqa: E402

L = math.log
# root 0; 1 and 2 its children; 3 under 1, 4 under 2
TOKENS = [0, 5, 7, 9, 11]
PARENTS = [-1, 0, 0, 1, 2]
SCORES = [0.0, L(0.6), L(0.3), L(0.6) + L(0.6), L(0.3) + L(0.9)]


def test_node_table_counts_only_nodes_whose_parent_the_target_took():
    rows = [[(TOKENS, PARENTS, SCORES, [5, 9, 4])]]
    got = node_table(rows)
    assert [(d, ok) for d, _, ok in got] == [(1, True), (1, False), (2, True)]  # node 4's parent (7) was not taken
    assert [round(lp, 6) for _, lp, _ in got] == [round(L(0.6), 6), round(L(0.3), 6), round(L(0.6), 6)]


def test_replayed_tau_follows_the_kept_subtree_and_the_walk():
    rows = [[(TOKENS, PARENTS, SCORES, [5, 9, 4, 4])] * 3]
    # 3 tokens keep the best two nodes: 1 (0.6) and 3 (0.36): both accepted, so one step emits 3 tokens;
    # depth 1 only: node 1 accepted, 2 tokens a step: positions 0 and 2 -> 2 steps for 3 tokens; 2 tokens keep node 1
    want = {(3, 2): 3.0, (3, 1): 1.5, (2, 2): 1.5}
    assert trees_tau(rows, list(want), raw) == want
    assert trees_tau(rows, list(want)) == want  # the head's own scores by default
    # a score that ranks node 2's branch first (7, then 11) accepts nothing at 3 tokens, depth 2
    flipped = [0.0, L(0.3), L(0.6), L(0.3) + L(0.6), L(0.6) + L(0.9)]
    assert trees_tau(rows, [(3, 2)], lambda *_: flipped) == {(3, 2): 1.0}


def test_identity_map_gives_the_raw_scores_and_any_map_keeps_children_behind_parents():
    d = [0, 1, 1, 2, 2]
    same = calibrated({1: (1.0, 0.0), 2: (1.0, 0.0)})(TOKENS, PARENTS, SCORES, d)
    assert same == pytest.approx(SCORES, abs=1e-9)
    for a, b in ((2.0, 1.5), (0.5, -1.0), (1.4, 1.1)):
        s = calibrated({1: (a, b), 2: (a, b)})(TOKENS, PARENTS, SCORES, d)
        assert all(s[i] < s[PARENTS[i]] for i in range(1, len(s)))


def test_logistic_fit_recovers_a_known_map():
    rng = random.Random(0)
    table = []
    for depth, (a, b) in ((1, (2.0, 0.5)), (2, (0.7, -0.4))):
        for _ in range(6000):
            p = rng.uniform(0.02, 0.98)
            z = a * math.log(p / (1 - p)) + b
            table.append((depth, math.log(p), rng.random() < 1 / (1 + math.exp(-z))))
    got = fit_logistic(table, 2)
    assert got[1] == pytest.approx((2.0, 0.5), abs=0.15)
    assert got[2] == pytest.approx((0.7, -0.4), abs=0.15)


def _tagged_bank():
    """The wide bank with every list replaced by one item naming its split, so a draw shows where each part came
    from."""
    from corpus_instructions import InstructionBank

    bank = InstructionBank(0, wide=True)
    for split, parts in bank.parts.items():
        for key in parts:
            if key == "subj:pair":
                parts[key] = [(f"{split}-subjA", f"{split}-subjB")]
            elif key.startswith("subj:"):
                parts[key] = [f"{split}-subj"]
            elif key.startswith("kind:"):
                pair = bank.kinds["train"][key[5:]][0] == "pair"
                parts[key] = [f"{split}-wording " + ("{a} {b}" if pair else "{x}")]
            else:
                parts[key] = [f"{split}-{key}"]
    return bank


@pytest.mark.parametrize("subjects,wording", [("train", "train"), ("heldout", "train"), ("train", "heldout"),
                                              ("heldout", "heldout")])
def test_mixed_draws_take_topics_from_one_split_and_wordings_from_the_other(subjects, wording):
    bank = _tagged_bank()
    rng = random.Random(1)
    other = {"train": "heldout", "heldout": "train"}
    kinds = set()
    for _ in range(400):
        kind, text = bank.sample(subjects, rng, phrasings=wording)
        kinds.add(kind)
        text = text.lower()  # a problem's phrasing is capitalised
        assert f"{subjects}-subj" in text and f"{other[subjects]}-subj" not in text, text
        assert f"{wording}-wording" in text and f"{other[wording]}-" not in text.replace(f"{subjects}-subj", ""), text
    # training wordings include the wide bank's extra kinds; held-out ones only the base kinds
    assert len(kinds) >= (30 if wording == "train" else 20)
    assert kinds <= set(bank.kinds[wording])


def test_a_split_with_its_own_wordings_draws_as_before():
    from corpus_instructions import InstructionBank

    bank = InstructionBank(0, wide=True)
    a, b = random.Random(3), random.Random(3)
    for split in ("train", "heldout") * 50:
        assert bank.sample(split, a) == bank.sample(split, b, phrasings=split)


def test_mixed_splits_are_fresh_and_distinct():
    from tree_calibration import MIXED, mixed_splits

    first = mixed_splits(6)
    taken = {t for _, texts in first for t in texts[:3]}
    again = mixed_splits(6, exclude=taken)
    assert [n for n, _ in first] == [m[0] for m in MIXED] == [n for n, _ in again]
    for _, texts in again:
        assert len(texts) == 6 and len(set(texts)) == 6 and not set(texts) & taken
    every = [t for _, texts in first for t in texts]
    assert len(every) == len(set(every))  # no instruction in two splits
