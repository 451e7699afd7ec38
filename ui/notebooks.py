"""Which Jupyter notebook (notebooks/, written by scripts/make_notebooks.py) goes with which page: the same steps
driven from Python. Keyed by the page ids given to ``ui.lab.open_page`` (pages/<id>.py). No streamlit."""
from __future__ import annotations

from ui.i18n import t

NOTEBOOKS = {
    "sampling": "notebooks/01-sampling-and-gumbel-max.ipynb",
    "beam": "notebooks/02-beam-search-with-pruning.ipynb",
    "speculative": "notebooks/03-speculative-decoding.ipynb",
    "eagle": "notebooks/04-eagle-trees.ipynb",
}


def notebook_note(page: str) -> str | None:
    """A one-line markdown pointer to the page's notebook (None for a page without one)."""
    path = NOTEBOOKS.get(page)
    if path is None:
        return None
    return t("page.notebook", path=path)
