"""The teaching notebooks (notebooks/*.ipynb): each one executes top to bottom on the embedded model without an
error (its own asserts included: greedy speculative / EAGLE equal plain greedy, ...), draws figures, and is
committed with its outputs stripped."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

nbformat = pytest.importorskip("nbformat")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT_S = 300  # one cell; the whole notebook runs in well under 90 s on a 2-core CPU
ALL = ("01-sampling-and-gumbel-max.ipynb", "02-beam-search-with-pruning.ipynb", "03-speculative-decoding.ipynb",
       "04-eagle-trees.ipynb")


def read(path):
    return nbformat.read(path, as_version=4)


def test_every_topic_has_its_notebook():
    assert [p.name for p in NOTEBOOKS] == list(ALL)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = read(path)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")  # a title first
    for cell in code:
        assert cell.outputs == [], f"{path.name} cell {cell.get('id')} has outputs: strip them"
        assert cell.execution_count is None, f"{path.name} cell {cell.get('id')} has an execution count"
    assert "widgets" not in nb.metadata and nb.metadata.kernelspec.name == "python3"


def test_generator_matches_the_committed_notebooks():
    """scripts/make_notebooks.py writes the notebooks: the committed ones are what it writes (edit it, rerun it)."""
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_notebooks.py"), "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_first_cell_finds_the_repo_from_the_notebooks_folder(tmp_path):
    """`jupyter lab notebooks/` starts the kernel in notebooks/: the first cell puts the repo root on sys.path.
    Run its path-finding lines (not the model load) from there, with nothing on PYTHONPATH."""
    first = next(c for c in read(NOTEBOOKS[0]).cells if c.cell_type == "code").source
    lines = first.split("\n\nimport pandas")[0]  # up to the imports that need the repo
    script = lines + "\nimport decoding_core, viz.beam, ui.texts\nprint(ROOT)\n"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for cwd in (ROOT / "notebooks", ROOT):
        out = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == str(ROOT)
    out = subprocess.run([sys.executable, "-c", lines], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0 and "Start Jupyter inside the Decoding Lab checkout" in out.stderr


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path):
    from nbclient import NotebookClient

    nb = read(path)
    client = NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT_S, allow_errors=False,
                            resources={"metadata": {"path": str(ROOT)}})  # cwd = the repo root
    t0 = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell (its traceback in the message)
    wall = time.perf_counter() - t0
    print(f"{path.name}: {wall:.1f} s")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = [o for o in outputs if o.output_type in ("display_data", "execute_result")]
    assert any("application/vnd.plotly.v1+json" in o.data or "text/html" in o.data for o in shown), \
        f"{path.name} drew no figure"
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code")  # every code cell ran
