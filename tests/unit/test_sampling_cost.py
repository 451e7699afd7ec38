"""The cost-of-sampling methods: each exact in both regimes (chi-square, fixed seeds); Vose's table by hand."""
import numpy as np
import pytest
import torch

from decoding_core.sampling_cost import METHODS, build_alias, draw_new_distributions, draw_one_distribution
from decoding_core.stats import chi_square
from decoding_core.studies.sampling_cost import CostRow, SamplingCost, draw_vs_forward, sampling_cost

LOGITS = torch.randn(60, generator=torch.Generator().manual_seed(7)) * 2


def test_vose_alias_table_by_hand():
    prob, alias = build_alias(np.array([0.5, 0.25, 0.125, 0.125]))
    mass = np.zeros(4)  # every column carries 1/k: keep i with prob[i], else give alias[i]
    for i in range(4):
        mass[i] += prob[i] / 4
        mass[alias[i]] += (1 - prob[i]) / 4
    assert mass == pytest.approx([0.5, 0.25, 0.125, 0.125])


@pytest.mark.parametrize("method", METHODS)
def test_every_method_is_exact_in_both_regimes(method):
    p = torch.softmax(LOGITS.double(), -1).numpy()
    g = torch.Generator().manual_seed(0)
    one = draw_one_distribution(method, LOGITS, 12000, g).numpy()
    new = torch.cat([draw_new_distributions(method, LOGITS.expand(400, -1), g) for _ in range(30)]).numpy()
    for ids in (one, new):
        assert ids.min() >= 0 and ids.max() < 60
        assert chi_square(np.bincount(ids, minlength=60), p)[2] > 1e-3


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="method"):
        draw_one_distribution("dice", LOGITS, 3, torch.Generator())


def test_study_skips_over_budget_points_and_names_crossovers():
    rec = sampling_cost(torch.randn(5000, generator=torch.Generator().manual_seed(1)), ks=(50, 5000),
                        ns=(1, 1000, 100000), budget_s=0.5, check=False)  # generous: CI may be loaded
    measured = {(r.method, r.regime, r.k, r.n, r.batch) for r in rec.rows if r.seconds is not None}
    assert ("alias", "one", 5000, 100000, 1) in measured  # O(k + n): cheap
    skipped = [r for r in rec.rows if r.seconds is None]
    assert skipped and all(r.note.startswith("skipped: predicted") for r in skipped)
    assert any(r.method == "gumbel-max" and r.n == 100000 for r in skipped)  # O(nk) = 5e8 numbers
    assert any("fastest is" in c for c in rec.crossovers)
    # the charts have no dot for a skipped point: the caption under each names them
    from viz.sampling_cost import skipped_note

    note = skipped_note(rec, "one", k=5000)
    assert note.startswith("Not measured") and "Gumbel-max n = 100,000" in note
    assert skipped_note(rec, "one", k=5000, n=1) is None  # nothing skipped at one draw
    # the CSV's numbers: 4 significant digits, per draw as well, the regime in words beside its code
    from viz.sampling_cost import cost_rows

    rows = cost_rows(rec, words=True)
    for row, r in zip(rows, rec.rows):
        if r.seconds is None:
            assert row["seconds"] is None and row["µs per draw"] is None and row["note"]
        else:
            assert row["seconds"] == pytest.approx(r.seconds, rel=1e-3) and len(repr(row["seconds"])) <= 10
            assert row["µs per draw"] == pytest.approx(1e6 * r.seconds / r.n, rel=1e-3)
    assert {row["regime in words"] for row in rows} >= {"n draws from one distribution"}
    assert "regime in words" not in cost_rows(rec)[0]  # the page's table: words in the session's language only
    # every method's curve has its own marker; Gumbel-max's cross sits inside exp-race's larger ring, so where
    # their times agree both still read (the two colours read alike to a red-green colour-blind student)
    from viz.sampling_cost import cost_vs_n_figure

    markers = {tr.name.split()[0]: tr.marker for tr in cost_vs_n_figure(rec, 5000).data if tr.mode == "lines+markers"}
    assert len({m.symbol for m in markers.values()}) == len(markers) >= 5
    gumbel, race = (next(m for name, m in markers.items() if name.startswith(w)) for w in ("Gumbel", "exp"))
    assert race.symbol.endswith("-open") and race.size > gumbel.size + 5


def test_methods_that_share_their_uniforms_draw_the_same_tokens():
    """What the page's exactness caption says (cost.exact): under one seed, linear scan, binary search and
    torch.multinomial invert the same CDF with the same uniforms in the first regime (so they share one p-value),
    linear scan and binary search in the second too, and Gumbel-max and the exponential race are one rule in both."""
    logits = 3 * torch.randn(2000, generator=torch.Generator().manual_seed(3))

    def one(m):
        return draw_one_distribution(m, logits, 3000, torch.Generator().manual_seed(0))

    def new(m):
        return draw_new_distributions(m, logits.expand(64, -1), torch.Generator().manual_seed(0))

    assert torch.equal(one("linear-scan"), one("binary-search")) and torch.equal(one("binary-search"), one("multinomial"))
    assert torch.equal(one("gumbel-max"), one("exp-race")) and not torch.equal(one("alias"), one("multinomial"))
    assert torch.equal(new("linear-scan"), new("binary-search")) and torch.equal(new("gumbel-max"), new("exp-race"))


def test_a_draw_beside_a_forward_reads_one_row_a_call_at_the_vocabulary():
    """The page's "beside the model" line: per-draw time of the fastest and slowest method in the decoding regime (one
    row a call, k = the vocabulary), against the study's fastest probe forward; None without rows or probes."""
    rows = (CostRow("gumbel-max", "new", 100, 64, 1, 0.0064), CostRow("alias", "new", 100, 64, 1, 0.64),
            CostRow("linear-scan", "new", 100, 64, 8, 0.0001),   # batched: not a decoding step's draw
            CostRow("exp-race", "new", 10, 64, 1, 0.00001),      # another k
            CostRow("binary-search", "new", 100, 64, 1, None),   # skipped
            CostRow("multinomial", "one", 100, 1, 1, 0.000001))  # the other regime
    fast, slow, forward = draw_vs_forward(SamplingCost(rows, (), {}, (), probes=(0.05, 0.04, 0.06)), 100)
    assert (fast.method, slow.method, forward) == ("gumbel-max", "alias", 0.04)
    assert fast.seconds / fast.n == pytest.approx(1e-4)
    assert draw_vs_forward(SamplingCost(rows, (), {}, ()), 100) is None
    assert draw_vs_forward(SamplingCost(rows, (), {}, (), probes=(0.05,)), 7) is None
    assert draw_vs_forward(SamplingCost(rows, (), {}, (), stopped=True, probes=(0.05,)), 100) is None
