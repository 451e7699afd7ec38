import os

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


ENTRY = ROOT / "tests" / "app" / "entry.py"  # the app's main() without a pages/ folder beside it (see entry.py)


def page_path(page: str) -> str:
    """A repo-root page path ("pages/beam.py") as AppTest's switch_page wants it: relative to the entry."""
    return os.path.relpath(ROOT / page, ENTRY.parent)


def open_app(page: str | None = None, query: dict | None = None) -> AppTest:
    """The app in AppTest, on ``page`` (a path from the repo root such as "pages/beam.py")."""
    at = AppTest.from_file(str(ENTRY), default_timeout=300)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page_path(page))
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def app():
    return open_app
