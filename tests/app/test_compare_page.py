"""AppTest on the Compare page: strategies that share greedy settings agree with greedy."""
from tests.app.conftest import open_app


def test_compare_runs_and_greedy_family_agrees():
    at = open_app("pages/compare.py")
    at.slider(key="cmp_max_new").set_value(10).run()
    at.multiselect(key="cmp_pick").set_value(["greedy", "sampling", "beam search", "prompt lookup"]).run()
    at.slider(key="cmp_k").set_value(1).run()
    next(b for b in at.button if b.label == "Run all").click().run()
    table = at.dataframe[0].value.set_index("strategy")
    assert table.loc["prompt lookup", "same text as reference"] == "yes"
    assert table.loc["beam search", "same text as reference"] == "yes"  # k = 1
    assert table.loc["greedy", "speed-up"] == "1.00 (reference)"
    assert (table["new tokens"] <= 10).all()
    assert not at.exception
