"""Getting a script run's thread ready before it decodes and times something.

Streamlit runs every script run, and every fragment run (the steppers), in a new thread, and two costs
would otherwise land in the first thing that thread times (measured on the 2-core development machine,
a speculative step with N = 4, runner-up leaves and a lookup branch; README, "Timings in the browser"):

- OpenMP, which runs torch's threads and the decoding kernels', keeps a pool of worker threads for each
  thread that starts parallel work, so a new thread's first parallel operation builds one: the draft part of
  the first step in a new thread took 16-17 ms against 7 ms once the pool existed. ``warm()`` builds it with
  one small parallel operation, before anything is timed (once per thread).
- A click makes the browser and the server busy at the moment the script starts (the browser marks the
  page as running, the server answers the click): on two cores a step that starts at once shares them, and
  its parallel parts wait for each other (the draft part of a step read 16-130 ms in the page, the target's
  verify 58-154 ms, against 4-7 ms and ~50 ms in a script). ``settle()`` lets that pass first (``SETTLE_S``,
  on machines with at most ``SMALL_MACHINE_CORES`` cores; then 8-25 ms and 56-60 ms): the click waits a
  tenth of a second more, and the times a step shows are the step's. ``DECODING_LAB_SETTLE_S`` sets the pause
  (seconds; 0: none), on any machine.
"""
from __future__ import annotations

import os
import threading
import time

import torch

SETTLE_S = 0.15
SMALL_MACHINE_CORES = 4
_local = threading.local()


def warm() -> None:
    """Build this thread's OpenMP worker pool now (once per thread; no-op with one thread)."""
    if getattr(_local, "warm", False):
        return
    _local.warm = True
    if torch.get_num_threads() > 1:
        torch.ones(1 << 16).add_(1)  # above ATen's grain size (32,768 elements): runs on every thread


def settle() -> None:
    """Warm this thread and, on a small machine, give the browser and the server a moment after the click."""
    warm()
    pause = settle_seconds()
    if pause > 0:
        time.sleep(pause)


def settle_seconds() -> float:
    """The pause ``settle()`` makes here: ``DECODING_LAB_SETTLE_S`` when set (a bad value: the default), else
    ``SETTLE_S`` on a machine with at most ``SMALL_MACHINE_CORES`` cores and none on a bigger one."""
    raw = os.environ.get("DECODING_LAB_SETTLE_S")
    if raw is not None:
        try:
            return min(max(float(raw), 0.0), 2.0)
        except ValueError:
            pass
    return SETTLE_S if (os.cpu_count() or 1) <= SMALL_MACHINE_CORES else 0.0
