"""Speed of RoPE and ALiBi implementations on the CPU (chapter 11).

Every implementation is first checked against ``book``'s reference version,
then timed with ``torch.utils.benchmark`` (median of repeated runs) against
the time to copy a tensor of the same size, the floor for a memory-bound
elementwise operation. Run from the repository root::

    python benchmarks/rope_speed.py              # 1 thread, default sizes
    python benchmarks/rope_speed.py --threads 2 --lengths 1024 4096

It prints one table per length: the median time in microseconds and the
median, over rounds, of the ratio to a copy timed in the same round.
``benchmarks/README.md`` keeps its latest output, with the date and machine.

With ``--compile OUT.json`` it also times a ``torch.compile``d (fused)
rotation with the cos/sin cache, which reads ``x`` and the cache and writes
the result in one pass, next to the eager forms and a copy, and writes the
measurement with the machine it came from to ``OUT.json`` (chapter 11 reads
``book/results/rope_compile.json``): the times, the bytes that
``book.numerics.memory_traffic`` counts for the copy and the eager form, the
bytes of one fused pass (by construction: read ``x`` and the cache, write
the result; inductor does not count bytes on the CPU), and the number of
kernels inductor generated (``torch._inductor.metrics``). Compiling takes
seconds (the time is recorded) and needs a C++ compiler; no download.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import torch
import torch.utils.benchmark as benchmark
from torch.nn import functional as F

from book import attention, encodings, numerics

COPY = "copy (x.clone())"
COPY_INTO = "copy into a buffer (y.copy_(x))"


def rope_variants(x: torch.Tensor) -> dict[str, tuple[str, dict]]:
    """Statements to time for RoPE on ``x`` (batch, heads, n, d), each checked first."""
    n, d = x.shape[-2], x.shape[-1]
    cos, sin = encodings.rope_cos_sin(torch.arange(n), d)
    cis = encodings.rope_cis(torch.arange(n), d)
    reference = encodings.apply_rope(x)
    torch.testing.assert_close(encodings.apply_rope_cached(x, cos, sin), reference)
    torch.testing.assert_close(encodings.apply_rope_complex(x, cis), reference)
    torch.testing.assert_close(
        encodings.apply_rope_cached(x, cos, sin, layout="half"), encodings.apply_rope(x, layout="half")
    )
    y = torch.empty_like(x)
    torch.testing.assert_close(encodings.apply_rope_complex(x, cis, out=y), reference)
    z = x.clone()  # rotated in place over and over: |cis| = 1 keeps its scale
    torch.testing.assert_close(encodings.apply_rope_complex(z, cis, out=z), reference)
    env = {
        "x": x,
        "y": y,
        "z": z,
        "encodings": encodings,
        "cos": cos,
        "sin": sin,
        "cis": cis,
        "xc": x.view(torch.complex64),
    }
    return {
        COPY: ("x.clone()", env),
        COPY_INTO: ("y.copy_(x)", env),
        "apply_rope (reference, angles every call)": ("encodings.apply_rope(x)", env),
        "apply_rope_cached, interleaved": ("encodings.apply_rope_cached(x, cos, sin)", env),
        "apply_rope_cached, rotate_half": ('encodings.apply_rope_cached(x, cos, sin, layout="half")', env),
        "apply_rope_complex (new tensor)": ("encodings.apply_rope_complex(x, cis)", env),
        "apply_rope_complex into a buffer": ("encodings.apply_rope_complex(x, cis, out=y)", env),
        "apply_rope_complex in place (book's fastest)": ("encodings.apply_rope_complex(z, cis, out=z)", env),
        "complex product alone (xc * xc, no RoPE)": ("xc * xc", env),
    }


def time_us(stmt: str, env: dict, min_run_time: float) -> float:
    timer = benchmark.Timer(stmt=stmt, globals=env, num_threads=torch.get_num_threads())
    return timer.blocked_autorange(min_run_time=min_run_time).median * 1e6


def _as_call(stmt: str, env: dict):
    code = compile(stmt, "<rope_speed>", "eval")
    return lambda: eval(code, env)


def rope_table(
    length: int, *, heads: int, head_dim: int, min_run_time: float, rounds: int
) -> list[tuple[str, float, float]]:
    """(name, median time in us, median ratio to its copy) for every variant.

    Timings on a shared VM drift by 20% or more from one second to the next,
    so a ratio of two medians taken seconds apart is noisy. Instead every
    round times the copy and each variant back to back
    (``book.numerics.time_calls``), and the ratio is the median over rounds
    of the same-round ratios (``book.numerics.median_ratio``).
    """
    x = torch.randn(1, heads, length, head_dim, generator=torch.Generator().manual_seed(0))
    variants = rope_variants(x)
    times = numerics.time_calls(
        {name: _as_call(stmt, env) for name, (stmt, env) in variants.items()},
        rounds=rounds,
        min_run_time=min_run_time / rounds,
    )
    rows = []
    for name, ts in times.items():
        floor = COPY_INTO if "buffer" in name or "in place" in name else COPY
        rows.append((name, sorted(ts)[len(ts) // 2] * 1e6, numerics.median_ratio(times, name, floor)))
    return rows


def fused_rotation(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Interleaved RoPE from a cos/sin cache, written for ``torch.compile`` to fuse."""
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


def cpu_name() -> str:
    """The CPU's model name (Linux /proc/cpuinfo), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def compiled_measurement(length: int, *, heads: int, head_dim: int, min_run_time: float, rounds: int) -> dict:
    """Time eager and compiled (fused) RoPE against a copy.

    Bytes: counted by ``numerics.memory_traffic`` for the copy and the eager
    form; for the fused kernel, one pass by construction (``x`` and the cache
    read, the result written), since inductor's ``num_bytes_accessed`` stays 0
    on the CPU. ``generated_kernels`` is ``torch._inductor.metrics
    .generated_kernel_count`` after compiling: 1 means one fused kernel.
    """
    from torch._inductor import metrics

    x = torch.randn(1, heads, length, head_dim, generator=torch.Generator().manual_seed(0))
    cos, sin = encodings.rope_cos_sin(torch.arange(length), head_dim)
    metrics.reset()
    start = time.perf_counter()
    fused = torch.compile(fused_rotation)
    got = fused(x, cos, sin)
    compile_s = time.perf_counter() - start
    kernels = metrics.generated_kernel_count
    assert torch.equal(got, encodings.apply_rope_cached(x, cos, sin))  # bit for bit, checked first
    calls = {
        "copy": lambda: x.clone(),
        "eager, interleaved cache": lambda: encodings.apply_rope_cached(x, cos, sin),
        "compiled (fused), interleaved cache": lambda: fused(x, cos, sin),
    }
    times = numerics.time_calls(calls, rounds=rounds, min_run_time=min_run_time)
    eager = numerics.memory_traffic(calls["eager, interleaved cache"])
    copy = numerics.memory_traffic(calls["copy"])
    x_bytes = x.numel() * x.element_size()
    cache_bytes = 2 * cos.numel() * cos.element_size()
    return {
        "machine": f"{cpu_name()}, {platform.system()} {platform.machine()}",
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "shape": list(x.shape),
        "rounds": rounds,
        "compile_seconds": round(compile_s, 1),
        "generated_kernels": kernels,
        "median_us": {name: round(sorted(ts)[len(ts) // 2] * 1e6, 1) for name, ts in times.items()},
        "ratio_to_copy": {name: round(numerics.median_ratio(times, name, "copy"), 2) for name in calls},
        "bytes_counted": {
            "copy": copy["read"] + copy["written"],
            "eager, interleaved cache": eager["read"] + eager["written"],
        },
        "bytes_one_pass": {"compiled (fused), interleaved cache": 2 * x_bytes + cache_bytes},
    }


def alibi_rows(length: int, *, heads: int, head_dim: int, min_run_time: float) -> list[tuple[str, float]]:
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, heads, length, head_dim, generator=g) for _ in range(3))
    mask = encodings.alibi_bias(heads, length) + attention.causal_mask(length)
    ours, _ = attention.attention(q, k, v, bias=encodings.alibi_bias(heads, length), causal=True)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=mask), ours, atol=1e-5, rtol=1e-5)
    env = {
        "attention": attention,
        "F": F,
        "q": q,
        "k": k,
        "v": v,
        "mask": mask,
        "bias": encodings.alibi_bias(heads, length),
    }
    return [
        (
            "ALiBi, written-out attention",
            time_us("attention.attention(q, k, v, bias=bias, causal=True)", env, min_run_time),
        ),
        (
            "ALiBi, scaled_dot_product_attention",
            time_us("F.scaled_dot_product_attention(q, k, v, attn_mask=mask)", env, min_run_time),
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1, help="CPU threads for torch (default: 1)")
    p.add_argument("--lengths", type=int, nargs="+", default=[512, 2048, 8192], help="sequence lengths")
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--min-run-time", type=float, default=0.5, help="seconds of timing per statement")
    p.add_argument("--rounds", type=int, default=5, help="rounds of back-to-back timings (default: 5)")
    p.add_argument(
        "--compile",
        metavar="OUT.json",
        type=Path,
        default=None,
        help="also time a torch.compile'd (fused) RoPE at the first length and write it here",
    )
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    print(
        f"{platform.machine()}, {platform.processor() or 'cpu'}, torch {torch.__version__}, "
        f"{args.threads} thread(s); x of shape (1, {args.heads}, n, {args.head_dim}), float32"
    )
    for n in args.lengths:
        rows = rope_table(
            n, heads=args.heads, head_dim=args.head_dim, min_run_time=args.min_run_time, rounds=args.rounds
        )
        print(
            f"\nRoPE, n = {n}  (ratios: to x.clone(), or for 'into a buffer' and 'in place' "
            f"to y.copy_(x); median of {args.rounds} same-round ratios)"
        )
        for name, us, ratio in rows:
            print(f"  {name:<44} {us:10.1f} us  {ratio:6.2f} x copy")
    if args.compile is not None:
        n = args.lengths[0]
        result = compiled_measurement(
            n, heads=args.heads, head_dim=args.head_dim, min_run_time=args.min_run_time, rounds=args.rounds
        )
        args.compile.write_text(json.dumps(result, indent=1) + "\n")
        print(f"\nRoPE, n = {n}, torch.compile (compiled in {result['compile_seconds']} s), written to {args.compile}")
        for name, ratio in result["ratio_to_copy"].items():
            counted = result["bytes_counted"].get(name)
            moved = (
                f"{counted / 2**20:7.1f} MiB moved (counted)"
                if counted is not None
                else f"{result['bytes_one_pass'][name] / 2**20:7.1f} MiB (one pass, by construction)"
            )
            print(f"  {name:<44} {result['median_us'][name]:10.1f} us  {ratio:6.2f} x copy  {moved}")
        print(f"  inductor generated {result['generated_kernels']} kernel(s)")
    n = min(args.lengths)
    print(f"\nALiBi attention, n = {n}")
    for name, us in alibi_rows(n, heads=args.heads, head_dim=args.head_dim, min_run_time=args.min_run_time):
        print(f"  {name:<44} {us:10.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
