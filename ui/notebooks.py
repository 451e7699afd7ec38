"""Which Jupyter notebook (notebooks/, written by scripts/make_notebooks.py) goes with which page: the same steps
driven from Python. Keyed by the page titles given to ``ui.lab.open_page``. No streamlit."""
from __future__ import annotations

NOTEBOOKS = {
    "Sampling": "notebooks/01-sampling-and-gumbel-max.ipynb",
    "Beam search": "notebooks/02-beam-search-with-pruning.ipynb",
    "Speculative decoding": "notebooks/03-speculative-decoding.ipynb",
    "EAGLE": "notebooks/04-eagle-trees.ipynb",
}


def notebook_note(page: str) -> str | None:
    """A one-line markdown pointer to the page's notebook (None for a page without one)."""
    path = NOTEBOOKS.get(page)
    if path is None:
        return None
    return f"Notebook: `{path}` (the same steps in Jupyter)"
