"""The stored outputs do not depend on the CPU.

The main test run checks every notebook with nbval on this CPU's own ATen
kernels (AVX-512 or AVX2 on most x86_64 machines). A reader's CPU may pick
other kernels, whose floating-point results differ in the last bits, and a
trained model's accuracy curve differs more. Here nbval runs every notebook
again, in separate processes, with PyTorch told to use other kernel sets
(``ATEN_CPU_CAPABILITY``): ``default`` (no vector extensions) always, and
``avx2`` as well when this CPU has AVX-512 (so that the native pass used
AVX-512). An output that moves with the kernels fails here before it fails
on a reader's machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugins import background_jobs as jobs
from tests.plugins.background_jobs import other_capabilities, pass_env, rendering_pass


@pytest.mark.parametrize("capability", other_capabilities())
def test_pytorch_obeys_the_kernel_setting(capability):
    """Without this, the passes below would prove nothing."""
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=pass_env(capability), capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip().lower() == capability.lower()


@pytest.mark.slow
def test_notebooks_give_their_stored_outputs_with_other_cpu_kernels(cpu_passes):
    """nbval over every notebook, once per other kernel set (started in the
    background when collection ended, by tests/plugins/background_jobs.py;
    this test runs last and waits)."""
    failed = []
    for cap, (proc, log) in cpu_passes.items():
        proc.wait(timeout=3600)
        out = log.read_text()
        summary = out.strip().splitlines()[-1] if out.strip() else "(no output)"
        print(f"ATEN_CPU_CAPABILITY={cap}: {summary}")
        if proc.returncode != 0:
            also = " (this pass also renders the live twins' images)" if cap == rendering_pass() else ""
            failed.append(f"--- ATEN_CPU_CAPABILITY={cap}{also} ---\n" + "\n".join(out.splitlines()[-120:]))
    assert not failed, "stored outputs differ with other CPU kernels:\n" + "\n".join(failed)


@pytest.mark.parametrize(
    "flags, expected",
    [
        ({"sse4_2", "avx2", "avx512f"}, {"default": "0", "avx2": "1"}),
        ({"sse4_2", "avx2"}, {"default": "1"}),
        (set(), {"default": "1"}),
    ],
    ids=["avx512", "avx2", "unknown"],
)
def test_exactly_one_other_cpu_pass_renders_the_live_twins(monkeypatch, tmp_path, flags, expected):
    """The processes ``start_passes`` launches: one per other kernel set, each told
    its kernel set, and ``BOOK_LIVE_TWIN_IMAGES=1`` in exactly one of them (the
    session's own nbval kernels skip rendering while they run, so one must
    render; book.plots.live_html), ``avx2`` when the CPU has AVX-512."""
    launched = []

    class Popen:
        def __init__(self, args, env, **kwargs):
            launched.append(env)

    monkeypatch.setattr(jobs, "_cpu_flags", lambda: flags)
    monkeypatch.setattr(jobs.subprocess, "Popen", Popen)
    monkeypatch.setattr(jobs.tempfile, "tempdir", str(tmp_path))  # the passes' log files
    monkeypatch.setenv("BOOK_LIVE_TWIN_IMAGES", "0")  # this session's value must not leak
    passes = jobs.start_passes()
    assert list(passes) == list(expected)
    assert [env["ATEN_CPU_CAPABILITY"] for env in launched] == list(expected)
    assert {env["ATEN_CPU_CAPABILITY"]: env["BOOK_LIVE_TWIN_IMAGES"] for env in launched} == expected
    assert all(env["PATH"] == os.environ["PATH"] for env in launched)  # the rest of the environment kept


def test_session_kernels_skip_rendering_only_while_the_passes_run(monkeypatch):
    """The plugin's switch: BOOK_LIVE_TWIN_IMAGES=0 for a notebook item while
    the passes run; the environment as it was for any other item, and for a
    notebook when no pass runs (then this session renders the twins)."""

    class Item:
        def __init__(self, name):
            self.path = Path(name)

    monkeypatch.setattr(jobs, "_cpu_passes", {"default": None})
    monkeypatch.delenv("BOOK_LIVE_TWIN_IMAGES", raising=False)
    monkeypatch.setattr(jobs, "_ORIGINAL_ENV", {})
    jobs.pytest_runtest_setup(Item("notebooks/01_order_blind.ipynb"))
    assert os.environ["BOOK_LIVE_TWIN_IMAGES"] == "0"
    jobs.pytest_runtest_setup(Item("tests/unit/test_widgets.py"))
    assert "BOOK_LIVE_TWIN_IMAGES" not in os.environ
    monkeypatch.setattr(jobs, "_cpu_passes", {})
    jobs.pytest_runtest_setup(Item("notebooks/01_order_blind.ipynb"))
    assert "BOOK_LIVE_TWIN_IMAGES" not in os.environ
