"""AppTest drives the EAGLE page on the embedded model and its shipped head."""
from tests.app.conftest import open_app

PAGE = "views/eagle.py"


def test_steps_show_tree_and_mask():
    at = open_app(PAGE)
    at.button(key="eagle_step").click().run()
    assert any("Step 0" in m.value for m in at.markdown)
    at.button(key="eagle_step").click().run()
    assert len(at.get("graphviz_chart")) == 1
    assert len(at.get("plotly_chart")) >= 1
    assert float(next(m.value for m in at.metric if m.label == "Mean accepted length τ")) >= 1.0
    at.selectbox(key="eagle_node").set_value(1).run()
    assert any("attends to the whole prefix" in m.value for m in at.markdown)
    assert not at.exception


def test_static_tree_and_comparison():
    at = open_app(PAGE)
    at.radio(key="tree_kind").set_value("static").run()
    at.button(key="eagle_step").click().run()
    at.button(key="eagle_step").click().run()
    assert len(at.get("graphviz_chart")) == 1
    at.slider(key="cmp_tokens").set_value(12).run()
    next(b for b in at.button if b.label == "Measure").click().run()
    table = at.dataframe[-1].value
    assert table["same text as plain"].all()
    assert len(table) == 3
    assert not at.exception
