"""ui/notebooks.py: every page with a notebook points at a committed notebook, by the page's own id."""
import re

import pytest

from tests.conftest import ROOT
from ui.notebooks import NOTEBOOKS, notebook_note


def test_every_notebook_is_linked_and_exists():
    assert sorted(NOTEBOOKS.values()) == sorted(f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb"))
    for path in NOTEBOOKS.values():
        assert (ROOT / path).is_file(), path


def test_keys_are_the_pages_ids():
    ids = set()
    for page in (ROOT / "pages").glob("*.py"):
        found = re.findall(r'open_page\("([^"]+)"', page.read_text())
        assert found in ([], [page.stem]), (page.name, found)  # open_page names the page's own file
        ids |= set(found)
    assert set(NOTEBOOKS) <= ids, set(NOTEBOOKS) - ids


@pytest.mark.parametrize("page, path", [("sampling", "notebooks/01-sampling-and-gumbel-max.ipynb"),
                                        ("beam", "notebooks/02-beam-search-with-pruning.ipynb"),
                                        ("speculative", "notebooks/03-speculative-decoding.ipynb"),
                                        ("eagle", "notebooks/04-eagle-trees.ipynb")])
def test_note_names_the_notebook_on_one_line(page, path):
    note = notebook_note(page)
    assert note == f"Notebook: `{path}` (the same steps in Jupyter)"
    assert "\n" not in note


def test_note_follows_the_language(monkeypatch):
    from ui import i18n

    monkeypatch.setattr(i18n, "lang", lambda: "zh")
    assert notebook_note("beam") == "笔记本：`notebooks/02-beam-search-with-pruning.ipynb`（在 Jupyter 中走同样的步骤）"


@pytest.mark.parametrize("page", ["compare", "sampling_cost", "home", "", "Sampling"])
def test_pages_without_a_notebook_get_none(page):
    assert notebook_note(page) is None
