"""The app: page config, the shared sidebar and the navigation over pages/ (each a thin render()).

``app.py`` (what ``streamlit run`` starts) and the AppTest entry ``tests/app/entry.py`` both call
``main()``, so the tests drive exactly the navigation users get (see README, "Where things are").
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

import pandas  # noqa: F401 - imported by every session before any chart (see below)
import plotly.graph_objects  # noqa: F401
import streamlit as st

from ui import i18n, params
from ui.controls import keep_settings
from ui.i18n import t
from ui.lab import lab

ROOT = Path(__file__).resolve().parents[1]
PAGES = [  # file in pages/ (its name is the page's URL path and its catalogue id: page.<name>.title), icon
    ("home", ":material/home:"),
    ("sampling", ":material/casino:"),
    ("sampling_cost", ":material/timer:"),
    ("beam", ":material/account_tree:"),
    ("speculative", ":material/bolt:"),
    ("eagle", ":material/park:"),
    ("compare", ":material/compare_arrows:"),
    ("glossary", ":material/menu_book:"),
]


# Heavy imports happen in the statements above, in every session's thread before it draws anything: an
# import statement waits for another thread's import of the same module to finish, whereas plotly looks
# pandas up in sys.modules and could find a half-initialised module while another session imports it.
_nav = threading.local()  # set while main() runs the navigation (each session's script runs in its own thread)


def main() -> None:
    keep_settings()  # first: no widget may be drawn before it (see ui.controls.keep_settings)
    i18n.seed()  # the language first: the navigation's titles and every warning are written in it
    st.set_page_config(page_title=t("app.title"), page_icon=":material/biotech:", layout="wide")
    nav = st.navigation([st.Page(ROOT / "pages" / f"{name}.py", title=t(f"page.{name}.title"), icon=icon,
                                 default=(i == 0)) for i, (name, icon) in enumerate(PAGES)])
    st.session_state["lab"] = lab()
    notices = st.container()  # warnings about ignored link values, shown above the page once it has read them
    _nav.active = True
    try:
        nav.run()
    finally:
        _nav.active = False
        with notices:
            params.show_warnings()


def run_page(render: Callable[[], None]) -> None:
    """What a page file does when Streamlit executes it: ``render()`` when the navigation runs it; the whole
    app when the server runs the file on its own (a deep link such as /beam can start a session with the
    page script itself, since Streamlit sees a pages/ folder), so the sidebar and navigation always exist."""
    if getattr(_nav, "active", False):
        render()
    else:
        main()
