"""Decoding Lab: see and tune how a real language model decodes, one step at a time.

`streamlit run app.py`. The app itself lives in ui/app.py (navigation and sidebar) and pages/ (one
render() per page), so the tests can start the very same app from tests/app/entry.py.
"""
from ui.app import main

main()
