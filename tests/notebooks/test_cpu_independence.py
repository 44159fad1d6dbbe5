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
from tests.plugins.background_jobs import NATIVE, other_capabilities, pass_env, pass_label, rendering_pass


@pytest.mark.parametrize("capability", other_capabilities())
def test_pytorch_obeys_the_kernel_setting(capability):
    """Without this, the passes below would prove nothing."""
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=pass_env(capability), capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip().lower() == capability.lower()


@pytest.mark.slow
def test_notebooks_give_their_stored_outputs_under_every_kernel_set(cpu_passes):
    """nbval over the session's notebooks under the machine's own kernels, and
    over every notebook once per other kernel set (started in the background
    when collection ended, by tests/plugins/background_jobs.py; this test
    runs last and waits)."""
    failed = []
    for cap, (proc, log) in cpu_passes.items():
        proc.wait(timeout=3600)
        out = log.read_text()
        summary = out.strip().splitlines()[-1] if out.strip() else "(no output)"
        print(f"{pass_label(cap)}: {summary}")
        if proc.returncode != 0:
            also = " (this pass also renders the live twins' images)" if cap == rendering_pass() else ""
            failed.append(f"--- {pass_label(cap)}{also} ---\n" + "\n".join(out.splitlines()[-120:]))
    assert not failed, "stored outputs differ:\n" + "\n".join(failed)


@pytest.mark.parametrize(
    "flags, expected",
    [
        ({"sse4_2", "avx2", "avx512f"}, {NATIVE: "0", "default": "0", "avx2": "1"}),
        ({"sse4_2", "avx2"}, {NATIVE: "0", "default": "1"}),
        (set(), {NATIVE: "0", "default": "1"}),
    ],
    ids=["avx512", "avx2", "unknown"],
)
def test_exactly_one_pass_renders_the_live_twins(monkeypatch, tmp_path, flags, expected):
    """The processes ``start_passes`` launches: the native pass over the
    notebooks it is given (with no ``ATEN_CPU_CAPABILITY``, even if the
    session has one), then one per other kernel set over every notebook, each
    told its kernel set, and ``BOOK_LIVE_TWIN_IMAGES=1`` in exactly one of
    them, ``avx2`` when the CPU has AVX-512."""
    launched = []

    class Popen:
        def __init__(self, args, env, **kwargs):
            launched.append((args, env))

    monkeypatch.setattr(jobs, "_cpu_flags", lambda: flags)
    monkeypatch.setattr(jobs.subprocess, "Popen", Popen)
    monkeypatch.setattr(jobs.tempfile, "tempdir", str(tmp_path))  # the passes' log files
    monkeypatch.setenv("BOOK_LIVE_TWIN_IMAGES", "0")  # this session's value must not leak
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")  # nor its kernel set into the native pass
    passes = jobs.start_passes(["/x/notebooks/01_order_blind.ipynb"])
    assert list(passes) == list(expected)
    kernels = [env.get("ATEN_CPU_CAPABILITY", NATIVE) for _, env in launched]
    assert kernels == list(expected)
    assert {k: env["BOOK_LIVE_TWIN_IMAGES"] for k, (_, env) in zip(kernels, launched)} == expected
    assert launched[0][0][-1] == "/x/notebooks/01_order_blind.ipynb"
    assert all(args[-2:] == ["notebooks", "guide"] for args, _ in launched[1:])
    assert all(env["PATH"] == os.environ["PATH"] for _, env in launched)  # the rest of the environment kept
    launched.clear()
    assert NATIVE not in jobs.start_passes()  # no notebooks selected: no native pass


def test_the_session_hands_its_notebooks_to_the_native_pass(monkeypatch):
    """With the pass test selected, the session deselects its notebook items
    (the native pass runs them) and puts the pass test last; without it, the
    notebook items stay."""

    class Item:
        def __init__(self, path, name="t"):
            self.path, self.name, self.fixturenames = Path(path), name, ()

    class Config:
        class option:
            collectonly = False

        class hook:
            deselected: list = []

            @classmethod
            def pytest_deselected(cls, items):
                cls.deselected += items

    monkeypatch.setattr(jobs, "_native_notebooks", [])
    nb = [Item("/r/notebooks/02.ipynb"), Item("/r/notebooks/01.ipynb"), Item("/r/notebooks/01.ipynb")]
    last, unit = Item("/r/tests/notebooks/test_cpu_independence.py", jobs.CPU_PASS_TEST), Item("/r/tests/unit/t.py")
    items = [last, *nb, unit]
    jobs.pytest_collection_modifyitems(None, Config, items)
    assert items == [unit, last] and Config.hook.deselected == nb
    assert jobs._native_notebooks == ["/r/notebooks/01.ipynb", "/r/notebooks/02.ipynb"]
    items = [*nb, unit]
    jobs.pytest_collection_modifyitems(None, Config, items)
    assert items == [*nb, unit]
