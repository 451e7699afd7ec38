import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def open_app(page: str | None = None, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def app():
    return open_app
