"""Tree pictures: the compact EAGLE tree and the beam window keep what a student must see, and nothing else."""
import re
from types import SimpleNamespace

from viz.beam import search_graph, to_dot
from viz.eagle import _descendants, tree_dot


def eagle_step():
    #        0
    #      /   \
    #     1     2        accepted path 0 -> 1 -> 3
    #    / \    |
    #   3   4   5
    #   |       |
    #   6       7
    parents = (-1, 0, 0, 1, 1, 2, 3, 5)
    return SimpleNamespace(texts=tuple(f"t{i}" for i in range(8)), scores=(0.0,) + (-0.5,) * 7,
                           parents=parents, accepted_path=(0, 1, 3))


def nodes(dot):
    return set(map(int, re.findall(r"^\s+n(\d+) \[label", dot, re.M)))


def test_descendant_counts():
    assert _descendants(eagle_step().parents) == [7, 3, 2, 1, 0, 1, 0, 0]


def test_compact_eagle_tree_keeps_the_path_and_its_alternatives():
    step = eagle_step()
    full, compact = tree_dot(step, compact=False), tree_dot(step)
    assert nodes(full) == set(range(8))
    assert nodes(compact) == {0, 1, 2, 3, 4, 6}          # path, children of path nodes
    assert "+2 below" in compact                          # node 2 hides 5 and 7
    assert 'fontsize=16' in compact and "q 61%" in compact  # exp(-0.5) as a percentage
    assert "n2 -> n5" not in compact


def test_copied_nodes_are_labelled_and_blue():
    from viz.eagle import step_rows

    step = eagle_step()
    step.lookup_nodes, step.kind, step.index, step.next_text = (6,), "tree", 1, "t8"
    full = tree_dot(step, compact=False)
    node6 = next(line for line in full.splitlines() if line.strip().startswith("n6 ["))
    assert "copied" in node6 and "q " not in node6 and '#1864ab' in node6
    assert "copied" not in tree_dot(eagle_step(), compact=False)
    rows = {r["node"]: r for r in step_rows([step]) if "node" in r}
    assert rows[6]["source"] == "lookup" and rows[6]["draft q"] is None
    assert rows[1]["source"] == "head" and rows[1]["draft q"] > 0


class Cand(SimpleNamespace):
    pass


def beam_steps(n_steps=6):
    """A two-beam search: at step s each of the two running hypotheses gets one kept child."""
    steps, node, running = [], 1, [0, 0]
    for s in range(n_steps):
        cands, new = [], []
        for b, parent in enumerate(sorted(set(running)) if s == 0 else running):
            for k in range(2 if s == 0 else 1):
                cands.append(Cand(node=node, parent=parent, token_text=f"s{s}b{b}k{k}", score=-s - 0.1 * k,
                                  token_logp=-0.1, status="kept", rules=(), rank=k))
                new.append(node)
                node += 1
        running = new
        steps.append(SimpleNamespace(kind="beam", candidates=cands,
                                     frontier=[SimpleNamespace(node=n) for n in new]))
    return steps


def test_beam_window_draws_only_the_last_steps_from_named_roots():
    steps = beam_steps(6)
    whole = search_graph(steps, "prompt")
    last = search_graph(steps, "prompt", window=2)
    assert 0 in whole and 0 not in last
    assert len(whole) == 1 + 2 * 6 and len(last) == 2 + 2 * 2   # two cut roots + two steps of two beams
    roots = [n for n, d in last.nodes(data=True) if d.get("cut")]
    assert len(roots) == 2 and all(last.nodes[r]["label"].startswith("…") for r in roots)
    assert "s3b0k0" in last.nodes[roots[0]]["label"] or "s3b0k0" in last.nodes[roots[1]]["label"]
    dot = to_dot(last)
    assert "prompt" not in dot and dot.count("->") == 4
    assert search_graph(steps, "prompt", window=10).number_of_nodes() == whole.number_of_nodes()


def test_sweep_explanation_names_the_larger_gap_from_the_measurements():
    from decoding_core.studies.speculative import Sweep, SweepRow
    from viz.speculative import sweep_explanation

    # plain decoding 20 tok/s = 50 ms/token. N = 4: the verify pass costs 90 ms (1.8 tokens), draft 20 ms.
    slow_verify = SweepRow(4, 2.0, 0.25, 0.9, 0.1, 2.1, 1.5, 110.0, 130.0, 20.0, 1.0)
    text = sweep_explanation(Sweep((slow_verify,), 0.4, 0.1, 20.0))
    assert "50 ms" in text and "mostly the verify pass (1.80× one plain token" in text
    assert "a step cost 2.22 plain tokens on average (τ 2.00 ÷ the measured 0.90×)" in text  # they divide
    # the theory's step cost is its curve's (the sweep's mean c), whatever one row's own c
    own_c = SweepRow(4, 2.0, 0.25, 0.9, 0.3, 2.1, 1.5, 110.0, 130.0, 20.0, 1.0)
    assert "where the theory charges 1.40" in sweep_explanation(Sweep((own_c,), 0.4, 0.1, 20.0))
    # the same costs as the theory (1.4 tokens per step), but tau far below alpha's prediction
    low_tau = SweepRow(4, 1.2, 0.05, 0.86, 0.1, 2.1, 1.5, 70.0, 80.0, 20.0, 1.0)
    text = sweep_explanation(Sweep((low_tau,), 0.4, 0.1, 20.0))
    assert "acceptance: τ reached 1.20 where α predicts 2.10 (later drafts are accepted less often" in text
    # tau ABOVE alpha's prediction: said the other way round
    high_tau = SweepRow(3, 2.0, 0.6, 1.98, 0.1, 1.2, 1.0, 50.0, 60.0, 13.0, 1.0)
    assert "accepted more often than α" in sweep_explanation(Sweep((high_tau,), 0.4, 0.1, 20.0))
    # a step cheaper than the theory charges because the verify pass cost less than a plain token (the walkthrough's
    # case: draft 13 ms = 0.26 plain tokens = N c, verify 0.80x): the verify pass is named, not the draft
    cheap_verify = SweepRow(3, 1.2, 0.1, 1.13, 0.0867, 1.2, 0.9, 53.0, 60.0, 13.0, 1.0)
    text = sweep_explanation(Sweep((cheap_verify,), 0.4, 0.0867, 20.0))
    assert "mostly the verify pass (0.80× one plain token" in text and "mostly the draft" not in text
    # slow steps outside the median: the third cause
    tail = SweepRow(2, 1.5, 0.25, 0.6, 0.1, 1.5, 1.2, 60.0, 200.0, 10.0, 1.0)
    assert "mostly time outside a typical step" in sweep_explanation(Sweep((tail,), 0.4, 0.1, 20.0))


def test_the_pruning_chart_labels_each_spot_once():
    """Settings that land on one point of the tradeoff chart print one label there ("rp 0.6 (+2)"), not three over
    each other; each point's hover names all of them; the paper's row gets no label of its own."""
    from viz.beam import pruning_tradeoff_figure, spot_labels

    def row(label, x, y, paper=False, **settings):
        full = {"rp": None, "ap": None, "rpl": None, "mc": None, **settings}
        return SimpleNamespace(label=label, best_unchanged=x, expansions_saved=y, paper=paper, settings=full)

    rows = (row("rp 0.6", 1.0, 0.0, rp=0.6), row("rp 0.3", 1.0, 0.0, rp=0.3), row("ap 5", 1.0, 0.0, ap=5.0),
            row("rp 0.1", 0.8, 0.4, rp=0.1), row("paper", 1.0, 0.0, paper=True, rp=0.6, ap=2.5))
    texts, hovers = spot_labels(rows)
    assert [texts[id(r)] for r in rows[:4]] == ["rp 0.6 (+2)", "", "", "rp 0.1"]
    assert hovers[id(rows[1])] == "rp 0.6<br>rp 0.3<br>ap 5" and hovers[id(rows[3])] == "rp 0.1"
    assert id(rows[4]) not in texts
    fig = pruning_tradeoff_figure(SimpleNamespace(rows=rows, recommendation=None))
    shown = [x for tr in fig.data if tr.text is not None for x in tr.text if x]
    assert sorted(x.strip() for x in shown) == ["rp 0.1", "rp 0.6 (+2)"]
    # the label on the paper's star sits left of it (padded clear of the marker), the others above their points
    ringed = [(x, p) for tr in fig.data if tr.text is not None
              for x, p in zip(tr.text, tr.textposition if isinstance(tr.textposition, tuple) else [tr.textposition] * 9) if x]
    assert sorted(ringed) == [("rp 0.1", "top center"), ("rp 0.6 (+2)\u2003\u2003", "middle left")]
    # near, not equal: points a few percent apart in y at one x share a label too (the highest names them), a point
    # further up keeps its own; the chain runs down from the highest (y span 0.6: within 0.048 of the one above)
    near = (row("rp 0.3", 0.75, 0.36, rp=0.3), row("all", 0.75, 0.15, rp=0.1, ap=5.0), row("rp 0.1", 0.75, 0.10, rp=0.1),
            row("ap 5", 0.75, 0.07, ap=5.0), row("rpl 0.1", 0.75, 0.06, rpl=0.1), row("mc 2", 0.75, 0.02, mc=2),
            row("rp 0.6", 1.0, 0.6, rp=0.6))
    texts, hovers = spot_labels(near)
    assert [texts[id(r)] for r in near] == ["rp 0.3", "all four, looser", "rp 0.1 (+3)", "", "", "", "rp 0.6"]
    assert hovers[id(near[5])] == "rp 0.1<br>ap 5<br>rpl 0.1<br>mc 2"
