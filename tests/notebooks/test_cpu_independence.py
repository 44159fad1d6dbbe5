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
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":")[1].split()}


def other_capabilities() -> list[str]:
    """The kernel sets to try besides the native one."""
    return ["default", "avx2"] if "avx512f" in _cpu_flags() else ["default"]


def rendering_pass() -> str:
    """The one pass that renders the live twins' images: ``avx2`` on an AVX-512
    machine (the lighter of the two passes), else ``default`` (the only one)."""
    return other_capabilities()[-1]


def _env(capability: str) -> dict[str, str]:
    # Live twins draw every state in every pass, so a state that fails raises
    # everywhere; rendering the drawings is most of their time and does not
    # touch PyTorch, so one pass renders them (BOOK_LIVE_TWIN_IMAGES=1) and the
    # others, this session's own nbval kernels included (conftest.py), skip
    # it. nbval masks a twin's images in every pass (book.plots.live_html).
    render = "1" if capability == rendering_pass() else "0"
    return {**os.environ, "ATEN_CPU_CAPABILITY": capability, "BOOK_LIVE_TWIN_IMAGES": render}


@pytest.mark.parametrize("capability", other_capabilities())
def test_pytorch_obeys_the_kernel_setting(capability):
    """Without this, the passes below would prove nothing."""
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run([sys.executable, "-c", code], env=_env(capability),
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip().lower() == capability.lower()


def start_passes() -> dict[str, tuple[subprocess.Popen, Path]]:
    """Start nbval over every notebook, once per other kernel set, in the background.

    ``conftest.py`` calls this as soon as collection is done, so the passes run
    beside the rest of the test session (each kernel uses one thread) instead
    of after it; the test below waits for them. Output goes to files, not pipes,
    so a long report cannot block a pass.
    """
    passes = {}
    for cap in other_capabilities():
        log = Path(tempfile.mkstemp(prefix=f"nbval-{cap}-", suffix=".log")[1])
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short",
                 "--durations=25", "notebooks", "guide"],
                cwd=ROOT, env=_env(cap), stdout=out, stderr=subprocess.STDOUT, text=True,
                start_new_session=True)   # its own process group: stopped with its kernels
        passes[cap] = (proc, log)
    return passes


@pytest.mark.slow
def test_notebooks_give_their_stored_outputs_with_other_cpu_kernels(cpu_passes):
    """nbval over every notebook, once per other kernel set (started in the
    background when the session began; this test runs last and waits)."""
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


def test_exactly_one_other_cpu_pass_renders_the_live_twins():
    """The session's own nbval kernels skip rendering while these passes run
    (conftest.py), so one of them must render (book.plots.live_html)."""
    rendering = [cap for cap in other_capabilities() if _env(cap)["BOOK_LIVE_TWIN_IMAGES"] == "1"]
    assert rendering == [rendering_pass()]


def test_session_kernels_skip_rendering_only_while_the_passes_run(monkeypatch):
    """conftest's plugin: BOOK_LIVE_TWIN_IMAGES=0 for a notebook item while
    the passes run; the environment as it was for any other item, and for a
    notebook when no pass runs (then this session renders the twins)."""
    import conftest

    plugin = conftest._TwinRendering()

    class Item:
        def __init__(self, name):
            self.path = Path(name)

    monkeypatch.setattr(conftest, "_cpu_passes", {"default": None})
    monkeypatch.delenv("BOOK_LIVE_TWIN_IMAGES", raising=False)
    monkeypatch.setattr(conftest, "_ORIGINAL_ENV", {})
    plugin.pytest_runtest_setup(Item("notebooks/01_order_blind.ipynb"))
    assert os.environ["BOOK_LIVE_TWIN_IMAGES"] == "0"
    plugin.pytest_runtest_setup(Item("tests/test_live.py"))
    assert "BOOK_LIVE_TWIN_IMAGES" not in os.environ
    monkeypatch.setattr(conftest, "_cpu_passes", {})
    plugin.pytest_runtest_setup(Item("notebooks/01_order_blind.ipynb"))
    assert "BOOK_LIVE_TWIN_IMAGES" not in os.environ
