"""The suite runs torch with one CPU thread per process (``tests/conftest.py``)."""

from __future__ import annotations

import os
import subprocess
import sys

import torch


def test_the_test_process_and_its_children_use_one_thread():
    assert os.environ["OMP_NUM_THREADS"] == "1"
    assert torch.get_num_threads() == 1
    child = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == "1"
