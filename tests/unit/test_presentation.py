"""Presentation mode's chart titles and tables (ui/lab.py): titles wrapped to fit at the projector's type size,
HTML table cells as the rows rounded them."""
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.lab import TITLE_COLS, TITLE_LINE_PX, _columns, _present_cell, _wrap_titles, wrap_text


def test_wrap_text_breaks_at_spaces_and_between_chinese_characters():
    lines = wrap_text("n draws from one distribution (k = 49,152); dotted: the cost model through the last point", 46)
    assert lines == ["n draws from one distribution (k = 49,152);", "dotted: the cost model through the last point"]
    zh = wrap_text("每一步的草稿树：根 + 5 个草稿 token，深度 2，按草稿头的累积概率排序", 30)
    assert "".join(zh).replace(" ", "") == "每一步的草稿树：根+5个草稿token，深度2，按草稿头的累积概率排序"
    for line in zh:  # a Chinese character is two columns wide
        assert sum(map(_columns, line)) <= 30
    assert wrap_text("τ（平均接受长度）", 16) == ["τ（平均接受长度）"]  # not "）" alone on a line
    assert wrap_text("aaaa bbb.", 8) == ["aaaa", "bbb."]  # a mark that is not alone goes with its word
    assert wrap_text("distinct-2（不同二元组比例）", 16) == ["distinct-2（不同", "二元组比例）"]
    assert wrap_text("接受长度（平均）", 9) == ["接受长度", "（平均）"]  # not "接受长度（" / "平均）"
    assert wrap_text("short", 46) == ["short"]
    assert wrap_text("a" * 60, 46) == ["a" * 60]  # a word longer than a line stays whole


def test_long_titles_wrap_and_the_top_margin_grows_by_the_added_lines():
    fig = go.Figure(go.Bar(x=[1], y=[1]))
    long = "The reply's first token, after \u201c...Write a short poem about the sea.\u201d"
    fig.update_layout(title=dict(text=long, y=0.985, yref="container", yanchor="top"), height=340,
                      margin=dict(t=70))
    _wrap_titles(fig)
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) == 2 and all(len(x) <= TITLE_COLS for x in lines)
    assert fig.layout.margin.t > 70 and fig.layout.height > 340 and fig.layout.title.y < 0.985
    sub = make_subplots(rows=1, cols=2, subplot_titles=("Cost of one target forward over T tokens (measured here)",
                                                        "Expected tokens/s by draft size (tau \u00f7 step cost)"))
    _wrap_titles(sub)
    assert all("<br>" in a.text for a in sub.layout.annotations)
    mask = make_subplots(rows=1, cols=2, subplot_titles=("Tree attention mask<br>(what EAGLE uses)",
                                                         "Plain causal mask of the same tokens<br>(wrong here)"))
    mask.update_layout(margin=dict(t=90))
    _wrap_titles(mask)  # the builder's own break stays, and the margin it made room for is not grown for it again:
    assert mask.layout.annotations[0].text == "Tree attention mask<br>(what EAGLE uses)"
    assert mask.layout.annotations[1].text.count("<br>") == 2
    assert mask.layout.margin.t == 90 + TITLE_LINE_PX + 26  # one line added (the right title's), not two
    assert wrap_text("Plain causal mask of the same tokens<br>(wrong here)", 27) == [
        "Plain causal mask of the", "same tokens", "(wrong here)"]
    odd = go.Figure(layout=dict(title_text="Title<br>", margin=dict(t=50), height=300))
    _wrap_titles(odd)  # an empty line counted as a line the builder made room for: the margin never shrinks
    assert odd.layout.margin.t == 50 and odd.layout.height == 300
    short = go.Figure(layout=dict(title_text="Short", margin=dict(t=50)))
    _wrap_titles(short)
    assert short.layout.title.text == "Short" and short.layout.margin.t == 50


def test_presentation_table_cells_read_as_the_rows_rounded_them():
    assert _present_cell(1.53) == "1.53" and _present_cell(29.93) == "29.93"
    assert _present_cell(None) == "–" and _present_cell(True) == "✓" and _present_cell(False) == "✗"
    assert _present_cell(4) == 4 and _present_cell("yes") == "yes"


def test_compare_metric_titles_put_their_chinese_glosses_on_a_second_line(monkeypatch):
    """Side by side at 1280 px the Chinese titles "distinct-2（不同二元组比例）" and "τ（平均接受长度）" touched."""
    from types import SimpleNamespace

    import viz.compare as vc
    from ui.i18n import t

    monkeypatch.setattr(vc, "t", lambda id_, **kw: t(id_, "zh", **kw))
    run = SimpleNamespace(tokens_per_s=3.5, logprob=-17.8, distinct_2=1.0, tau=2.14)
    fig = vc.metrics_figure([run, run], ["1", "2"])
    titles = [a.text for a in fig.layout.annotations if a.yanchor == "bottom"]
    assert "distinct-2<br>（不同二元组比例）" in titles and "τ<br>（平均接受长度）" in titles
    assert "<br>" not in fig.data[-1].hovertemplate.split("%{x}<br>")[1]  # τ's hover keeps the title on one line


def test_trees_scaled_for_a_projector_stay_within_the_sizes_the_page_style_draws():
    """Presentation mode draws the Beam and EAGLE trees' type TREE_SCALE larger (``scaled_dot``); Streamlit draws
    graphviz text at 9.6 px unless GRAPH_TEXT_CSS names the size, so every scaled size of the trees' DOT must be there."""
    import re
    from pathlib import Path

    from ui.lab import GRAPH_TEXT_CSS, TREE_SCALE, scaled_dot

    root = Path(__file__).resolve().parents[2]
    source = (root / "viz" / "beam.py").read_text() + (root / "viz" / "eagle.py").read_text()
    sizes = {int(n) for n in re.findall(r'(?:fontsize=|POINT-SIZE=\\?")(\d+)', source)}
    assert {10, 11, 12, 14, 16} <= sizes
    dot = " ".join(f'a [fontsize={n}] <FONT POINT-SIZE="{n}">' for n in sorted(sizes))
    scaled = {int(n) for n in re.findall(r'(?:fontsize=|POINT-SIZE=")(\d+)', scaled_dot(dot))}
    assert scaled == {round(n * TREE_SCALE) for n in sizes} and max(scaled) > max(sizes)
    for n in scaled:
        assert f'svg text[font-size="{n}.00"] {{ font-size: {n}px; }}' in GRAPH_TEXT_CSS
