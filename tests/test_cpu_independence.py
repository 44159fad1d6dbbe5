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


def _env(capability: str) -> dict[str, str]:
    return {**os.environ, "ATEN_CPU_CAPABILITY": capability}


@pytest.mark.parametrize("capability", other_capabilities())
def test_pytorch_obeys_the_kernel_setting(capability):
    """Without this, the passes below would prove nothing."""
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run([sys.executable, "-c", code], env=_env(capability),
                         capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip().lower() == capability.lower()


@pytest.mark.slow
def test_notebooks_give_their_stored_outputs_with_other_cpu_kernels():
    """nbval over every notebook, once per other kernel set, the passes side by side
    (each kernel uses one thread, so two passes fit two cores)."""
    passes = {
        cap: subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short",
             "notebooks", "guide"],
            cwd=ROOT, env=_env(cap), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for cap in other_capabilities()
    }
    failed = []
    for cap, proc in passes.items():
        out, _ = proc.communicate(timeout=3600)
        summary = out.strip().splitlines()[-1] if out.strip() else "(no output)"
        print(f"ATEN_CPU_CAPABILITY={cap}: {summary}")
        if proc.returncode != 0:
            failed.append(f"--- ATEN_CPU_CAPABILITY={cap} ---\n" + "\n".join(out.splitlines()[-120:]))
    assert not failed, "stored outputs differ with other CPU kernels:\n" + "\n".join(failed)
