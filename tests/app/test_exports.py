"""AppTest: every chart has its PNG and SVG downloads, every tree its DOT and SVG, and the step-throughs put the
steps' CSV beside the run's JSON (the files themselves are checked in tests/unit and tests/browser)."""
import shutil

from tests.app.conftest import open_app


def buttons(at) -> dict:
    """The page's download buttons by their user key (a widget's id is "$$ID-<hash>-<key>")."""
    return {b.proto.id.split("-", 2)[2]: b.proto for b in at.get("download_button")}


def test_every_sampling_chart_has_png_and_svg_and_the_steps_a_csv():
    at = open_app("pages/sampling.py", {"max_new": "3", "draws": "100"})
    at.button(key="sampling_step").click().run()
    assert not at.exception
    found = list(buttons(at))
    charts = at.get("plotly_chart")
    assert len([k for k in found if k.endswith("_png")]) == len([k for k in found if k.endswith("_svg")]) == len(charts)
    assert {"_dl_fig_sampling-next-token_png", "_dl_fig_sampling-step_svg", "_dl_sampling",
            "_csv_sampling-steps"} <= set(found)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[labels.index("Download this run (JSON)") + 1] == "Download the steps (CSV)"


def test_the_beam_tree_downloads_as_dot_and_svg():
    at = open_app("pages/beam.py", {"beam_max_new": "3"})
    at.button(key="beam_step").click().run()
    assert not at.exception
    found = buttons(at)
    assert not found["_dl_tree_beam-tree_dot"].disabled
    assert found["_dl_tree_beam-tree_svg"].disabled == (shutil.which("dot") is None)
    assert "_csv_beam-steps" in found and "_dl_beam" in found


def test_without_a_chromium_the_figure_menu_says_what_is_missing(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")  # kaleido finds no browser (and downloads none)
    at = open_app("pages/sampling.py", {"draws": "100"})
    assert not at.exception
    assert not [k for k in buttons(at) if k.startswith("_dl_fig_")]
    notes = [c.value for c in at.caption if "needs a Chromium" in c.value]
    assert len(notes) == len(at.get("plotly_chart")) and "camera icon" in notes[0]


def test_each_step_through_page_points_to_its_notebook():
    from ui.notebooks import NOTEBOOKS

    for page in ("sampling", "beam"):
        at = open_app(f"pages/{page}.py")
        assert any(NOTEBOOKS[page] in c.value for c in at.caption), page
