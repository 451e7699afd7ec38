"""AppTest's entry: the same main() as app.py, from a folder without a pages/ directory beside it.

Streamlit >= 1.56's AppTest re-derives "legacy multipage mode" on every run when a pages/ folder sits
beside the main script and then reruns the page script alone (the sidebar vanishes); the real server
does not. Starting from here avoids that while running exactly the app's code.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ui.app import main  # noqa: E402

main()
