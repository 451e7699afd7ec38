"""Downloads: figures as PNG / SVG (kaleido in the installed Chromium), trees as SVG (graphviz), tables as CSV,
checked on their real bytes; and the step-throughs' rows for the CSV, from real decoders on a tiny model."""
import csv
import io
import shutil
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from decoding_core.beam import BeamSearchDecoder
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle_head import EagleHead
from decoding_core.settings import BeamSettings, Sample, SamplingSettings
from decoding_core.speculative import SpeculativeDecoder
from decoding_core.strategies import build_decoder
from tests.conftest import ROOT, make_tiny_lm
from ui.i18n import t
from viz import beam, eagle, speculative
from viz.export import ExportError, dot_svg, figure_bytes, figure_problem, rows_csv, svg_problem
from viz.sampling import distribution_figure, step_rows

SVG = "{http://www.w3.org/2000/svg}svg"


def parse_csv(data: bytes) -> list[dict]:
    assert data.startswith(b"\xef\xbb\xbf")  # the BOM: Excel reads the file as UTF-8, not its code page
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


def texts(svg: bytes) -> str:
    """All the text an SVG shows (its <text> and <tspan> elements), after checking it parses with an <svg> root."""
    root = ET.fromstring(svg)
    assert root.tag == SVG
    return " ".join(t for el in root.iter() if el.tag.endswith(("}text", "}tspan")) for t in el.itertext())


@pytest.fixture(scope="module")
def figure():
    return distribution_figure(["Paris", " Lyon", "\u21b5"], [0.6, 0.3, 0.1], [0.7, 0.3, 0.0],
                               title="After “…capital of France”")


def test_figure_as_png_is_a_real_png_at_the_export_size(figure):
    png = figure_bytes(figure, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert (width, height) == (2 * 1280, 2 * 340)      # 1280 px wide at scale 2; the figure's own height


def test_figure_as_svg_parses_and_shows_its_labels(figure):
    svg = figure_bytes(figure, "svg")
    shown = texts(svg)
    assert "After “…capital of France”" in shown and "Paris" in shown and "probability" in shown
    assert 'width="1280"' in svg[:400].decode()


def test_exported_axes_keep_their_tick_labels_and_titles_inside_the_image():
    """kaleido does not grow the page's 10 px margins as the browser does: the export turns automargin on, so
    Compare's first y axis shows "1.2", not "2", and its x-axis title sits below the tick labels, not over them."""
    import re

    import streamlit  # noqa: F401  (as on the server: importing it makes its plotly template, without automargin,
    # the default of every figure built afterwards)

    from viz.compare import metrics_figure

    runs = [SimpleNamespace(tokens_per_s=v, logprob=-17.8, distinct_2=1.0, tau=tau)
            for v, tau in ((1.2, None), (0.92, 1.8), (1.07, 2.1))]
    svg = figure_bytes(metrics_figure(runs, ["1", "2", "3"], ["greedy", "speculative", "EAGLE"]), "svg").decode()
    assert "speculative" in texts(svg.encode())  # the file says which bar is which without the page's table
    ticks = re.findall(r'class="ytick"><text text-anchor="end" x="([\d.]+)"[^>]*font-size: (\d+)px[^>]*>([^<]+)<', svg)
    assert len(ticks) >= 3
    lefts = [float(x) - 0.55 * int(size) * len(label) for x, size, label in ticks]  # a digit is ~0.55 em wide
    assert min(lefts) >= 0, ticks
    x_tick_y = [float(a) + float(b) for a, b in re.findall(
        r'class="xtick"><text[^>]* y="([\d.]+)"[^>]*transform="translate\([\d.]+,([\d.]+)\)', svg)]
    title_y = [float(y) + float(dy or 0) for dy, y in re.findall(  # the title's group may shift it up
        r'<g class="g-xtitle"(?: transform="translate\([-\d.]+,([-\d.]+)\)")?><text class="xtitle"[^>]* y="([\d.]+)"', svg)]
    assert x_tick_y and title_y and min(title_y) >= max(x_tick_y) + 10, (x_tick_y, title_y)
    assert max(title_y) <= 410, title_y  # inside the figure (410 px with the legend of names under it)


def test_a_chinese_figure_falls_back_to_the_cjk_font(monkeypatch):
    """The Chinese pages' figures: their text is in the SVG with a font stack that ends in Noto Sans CJK SC (so
    Chromium draws it with the CJK font rather than tofu boxes), and the page's own figure is left as it was."""
    from ui import i18n

    monkeypatch.setattr(i18n, "lang", lambda: "zh")
    fig = distribution_figure(["巴黎", " Lyon"], [0.6, 0.4], [0.6, 0.4], title="“…法国的首都”之后")
    svg = figure_bytes(fig, "svg").decode()
    assert "“…法国的首都”之后" in texts(svg.encode()) and "概率" in texts(svg.encode()) and "巴黎" in svg
    assert "Noto Sans CJK SC" in svg
    assert fig.layout.font.family is None


def test_figure_export_without_a_browser_says_what_is_missing(figure, monkeypatch):
    """BROWSER_PATH at nothing: a readable error that names Chromium, and no browser is downloaded instead."""
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    assert "Chromium" in figure_problem()
    with pytest.raises(ExportError, match="Chromium"):
        figure_bytes(figure, "png")
    with pytest.raises(ValueError, match="png, svg"):
        figure_bytes(figure, "jpeg")


def test_the_app_never_downloads_a_browser():
    code = [p for d in ("ui", "viz", "pages", "decoding_core") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    assert not [str(p) for p in code if "get_chrome" in Path(p).read_text()]


def test_tree_as_svg_shows_the_node_labels():
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot is not installed (apt-get install graphviz): the SVG of a tree needs it")
    step = SimpleNamespace(texts=("root", " the", " a", " sea"), scores=(0.0, -0.2, -1.5, -0.4),
                           parents=(-1, 0, 0, 1), accepted_path=(0, 1, 3))
    svg = dot_svg(eagle.tree_dot(step, compact=False))
    shown = texts(svg)
    assert " sea" in shown and "root" in shown and "#3 q 67%" in shown  # exp(-0.4), the cumulative draft score
    with pytest.raises(ExportError, match="dot failed"):
        dot_svg("digraph { a -> }")


def test_tree_svg_without_graphviz_says_so(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert "graphviz" in svg_problem()
    with pytest.raises(ExportError, match="graphviz"):
        dot_svg("digraph { a -> b }")


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed")
def test_a_downloaded_tree_carries_its_key():
    """The tree's caption (what bold, dashed, ✂ mean) under the downloaded tree: quotes and markdown survive."""
    from viz.export import dot_with_key

    key = 'Bold blue = the **frontier**; grey dashed = pruned (✂ with the rule); "dotted" = fell off. ' * 3
    dot = dot_with_key('digraph beam { rankdir=LR;\n  first -> second;\n}', key)
    svg = dot_svg(dot)
    shown = texts(svg)
    assert "frontier" in shown and "**" not in shown and "✂ with the rule" in shown and '"dotted"' in shown
    assert b"<title>first</title>" in svg and b"<title>second</title>" in svg  # the graph itself is still drawn
    zh = dot_with_key("digraph g { a; }", "每个节点：它的 token、它在树中的编号，以及草稿头的累积置信度。" * 4, width=40)
    lines = zh.split('label="')[1].split('", labelloc')[0].split("\\l")[:-1]
    assert len(lines) > 3 and all(not line.startswith(("。", "，", "、")) for line in lines)  # CJK: 2 columns each


def test_csv_reads_back_as_the_same_rows():
    rows = [{"step": 1, "token": "\u21b5", "p": 0.25, "note": 'a "quoted", comma'},
            {"step": 2, "token": "\u27e8F0 9F\u27e9", "p": 1e-06, "extra": "only here"},
            {"step": 3, "token": "two\nlines", "p": None}]
    back = parse_csv(rows_csv(rows))
    assert list(back[0]) == ["step", "token", "p", "note", "extra"]
    assert back == [{k: "" if row.get(k) is None else str(row[k]) for k in back[0]} for row in rows]
    assert rows_csv([]) == b"\xef\xbb\xbf\n"


@pytest.fixture(scope="module")
def lm():
    return make_tiny_lm(seed=0)


def stepped(dec):
    """A started decoder stepped to the end (its ``history`` is what a step-through shows)."""
    while not dec.done:
        dec.step()
    return dec


def round_trip(rows):
    """Rows as the CSV download writes them, read back: the same cells."""
    back = parse_csv(rows_csv(rows))
    assert len(back) == len(rows)
    for row, got in zip(rows, back):
        assert {k: got[k] for k in row} == {k: "" if v is None else str(v) for k, v in row.items()}
    return back


def test_sampling_steps(lm):
    dec = build_decoder(lm, Sample(SamplingSettings(temperature=0.8), "gumbel")).start([1, 5])
    for _ in range(4):
        dec.step()
    back = round_trip(step_rows(dec.history))
    assert [r["step"] for r in back] == ["1", "2", "3", "4"]
    assert [int(r["token id"]) for r in back] == dec.tokens[:4]


def test_beam_steps_list_every_candidate(lm):
    dec = stepped(BeamSearchDecoder(lm, BeamSettings(num_beams=3, rp=0.5), 4).start([1, 5]))
    rows = beam.step_rows(dec.history)
    assert len(rows) == sum(len(beam.candidate_rows(s)) for s in dec.history)
    back = round_trip(rows)
    assert {r["status"] for r in back} >= {"kept"}
    assert {int(r["step"]) for r in back} == {s.index + 1 for s in dec.history}


def test_speculative_steps_end_with_the_target_token(lm):
    dec = stepped(SpeculativeDecoder(lm, make_tiny_lm(seed=5, layers=1), 3, "sample", max_new_tokens=8, seed=1,
                                     stop_at_eos=False).start([1, 5]))
    back = round_trip(speculative.step_rows(dec.history, "sample"))
    assert len(back) == sum(len(s.drafts) + 1 for s in dec.history)
    last = [r for r in back if r["step"] == "1"][-1]
    assert last["target token"] == dec.history[0].next_text  # the CSV keeps the English values in any language
    assert last["result"] == t(speculative.SOURCE[dec.history[0].next_source], "en") in ("correction", "bonus token")


def test_eagle_steps_list_every_drafted_node(lm):
    dec = stepped(EagleDecoder(lm, EagleHead(lm.model.config).eval().requires_grad_(False), "dynamic", 3, 2, 8,
                               max_new_tokens=8, stop_at_eos=False).start([1, 5]))
    back = round_trip(eagle.step_rows(dec.history))
    assert len(back) == sum(s.n_drafted + 1 for s in dec.history)
    assert back[0]["result"] == "the target's first token"
    assert list(back[0]) == ["step", "node", "parent", "depth", "token", "source", "draft q", "result"]  # row 1 too
    assert sum(r["result"] == "accepted" for r in back) == sum(s.n_accepted for s in dec.history)
