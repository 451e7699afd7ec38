"""ui/notebooks.py: every page with a notebook points at a committed notebook, by the page's own title."""
import re

import pytest

from tests.conftest import ROOT
from ui.notebooks import NOTEBOOKS, notebook_note


def test_every_notebook_is_linked_and_exists():
    assert sorted(NOTEBOOKS.values()) == sorted(f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb"))
    for path in NOTEBOOKS.values():
        assert (ROOT / path).is_file(), path


def test_keys_are_the_pages_titles():
    titles = set()
    for page in (ROOT / "pages").glob("*.py"):
        titles |= set(re.findall(r'open_page\("([^"]+)"', page.read_text()))
    assert set(NOTEBOOKS) <= titles, set(NOTEBOOKS) - titles


@pytest.mark.parametrize("page, path", [("Sampling", "notebooks/01-sampling-and-gumbel-max.ipynb"),
                                        ("Beam search", "notebooks/02-beam-search-with-pruning.ipynb"),
                                        ("Speculative decoding", "notebooks/03-speculative-decoding.ipynb"),
                                        ("EAGLE", "notebooks/04-eagle-trees.ipynb")])
def test_note_names_the_notebook_on_one_line(page, path):
    note = notebook_note(page)
    assert note == f"Notebook: `{path}` (the same steps in Jupyter)"
    assert "\n" not in note


@pytest.mark.parametrize("page", ["Compare strategies", "Cost of sampling", "Home", "", "sampling"])
def test_pages_without_a_notebook_get_none(page):
    assert notebook_note(page) is None
