"""Numerics of positional encodings: precision and speed (chapter 11).

Precision: ``rope_cos_error`` measures how wrong RoPE's cosines get when its
angles are formed in a low-precision float, and ``rope_cache_error`` how
wrong they get when a correct cos/sin cache is *stored* in one (what a model
does that builds its cache in float32 and casts it to bfloat16).

Speed: ``time_calls`` is the timing loop of chapter 11 and
``benchmarks/rope_speed.py`` (round-robin rounds, the median of each), and
``median_ratio`` turns its rounds into a same-round ratio; ``memory_traffic``
counts the bytes an eager PyTorch computation reads and writes, operation by
operation, so that a time can be read as passes over memory.

Nothing here imports matplotlib.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Callable, Mapping, Sequence

import torch
import torch.utils._pytree as pytree
import torch.utils.benchmark as benchmark
from torch.utils._python_dispatch import TorchDispatchMode

from ._validate import check_float_dtype, check_positive_int, check_positive_real
from .encodings._positions import _check_positions
from .encodings.rope import _rope_angles, rope_cos_sin
from .encodings.sinusoidal import frequencies

__all__ = ["rope_cos_error", "rope_cache_error", "time_calls", "median_ratio", "memory_traffic"]


def rope_cos_error(
    positions: torch.Tensor | Sequence[int],
    d_model: int,
    *,
    angle_dtype: torch.dtype,
    base: float = 10000.0,
) -> torch.Tensor:
    """How wrong RoPE's cosines get when its angles are formed in low precision.

    Equation: the angles ``m theta_i`` of Su et al. (2021, eq. 34), with
    ``theta_i = base^(-2i/d)`` (``encodings.frequencies``). The position ``m``
    and ``theta_i`` are rounded to ``angle_dtype`` and multiplied in it, and
    the cosine of that angle (taken in float32) is compared with
    ``cos(m theta_i)`` in float64. For ``angle_dtype=torch.float64`` this is
    ``book``'s own path instead: ``encodings.rope_cos_sin`` (float64 angles,
    the result rounded to float32).

    Args:
        positions: integer positions ``m``, shape ``(n,)``.
        d_model: head width ``d``, a positive even integer.
        angle_dtype: a floating dtype, e.g. ``torch.bfloat16``.
        base: RoPE's base.

    Returns:
        float64 tensor ``(n,)``: the largest ``|cos error|`` over the pairs at
        each position (chapter 11); ``inf`` where the angle overflows
        ``angle_dtype`` (float16 rounds positions from 65520 on to inf).

    Raises:
        TypeError: for float positions (they must be integers) or a
            non-floating ``angle_dtype``.
        ValueError: for positions that are not one-dimensional, or NaN or
            infinite (reported before the dtype rule), or a bad ``d_model``
            or ``base``.
    """
    positions = _check_positions("positions", positions, allow_float=False)
    if positions.dim() != 1:
        raise ValueError(f"positions must be one-dimensional, got shape {tuple(positions.shape)}")
    angle_dtype = check_float_dtype("angle_dtype", angle_dtype)
    exact_angles = _rope_angles(positions, d_model, base=base, freqs=None)
    exact = torch.cos(exact_angles)
    if angle_dtype == torch.float64:
        cos, _ = rope_cos_sin(positions, d_model, base=base)
    else:
        theta = frequencies(d_model, base=base)
        cos = torch.cos((positions[:, None].to(angle_dtype) * theta.to(angle_dtype)).float())
    return (cos.double() - exact).abs().amax(1).nan_to_num(nan=math.inf)


def rope_cache_error(
    positions: torch.Tensor | Sequence[int],
    d_model: int,
    *,
    cache_dtype: torch.dtype,
    base: float = 10000.0,
) -> torch.Tensor:
    """How wrong RoPE's cos/sin cache is once *stored* in ``cache_dtype``.

    The cache ``cos(m theta_i)``, ``sin(m theta_i)`` is computed in float32
    from float64 angles (``encodings.rope_cos_sin``) and then rounded to
    ``cache_dtype``, as Hugging Face transformers does: its rotary embedding
    (``LlamaRotaryEmbedding.forward`` in ``models/llama/modeling_llama.py``)
    forms the angles in float32 (``position_ids.float() * inv_freq``) and returns
    ``cos.to(dtype=x.dtype)``, the model's dtype. The rounding error of a
    number in ``[-1, 1]`` is at most half the gap between neighbouring floats
    there: ``2^-9`` for bfloat16 (8 significant bits), ``2^-12`` for float16,
    plus float32's own rounding (at most ``2^-25``). Unlike ``rope_cos_error``, it does not grow with the position.

    Args:
        positions: integer positions ``m``, shape ``(n,)``.
        d_model: head width ``d``, a positive even integer.
        cache_dtype: the floating dtype the cache is stored in.
        base: RoPE's base.

    Returns:
        float64 tensor ``(n,)``: the largest ``|error|`` of the stored cos and
        sin over the pairs at each position.

    Raises:
        TypeError: for float positions or a non-floating ``cache_dtype``.
        ValueError: for positions that are not one-dimensional or not
            finite, or a bad ``d_model`` or ``base``.
    """
    positions = _check_positions("positions", positions, allow_float=False)
    if positions.dim() != 1:
        raise ValueError(f"positions must be one-dimensional, got shape {tuple(positions.shape)}")
    cache_dtype = check_float_dtype("cache_dtype", cache_dtype)
    angles = _rope_angles(positions, d_model, base=base, freqs=None)
    cos, sin = rope_cos_sin(positions, d_model, base=base, dtype=torch.float32)
    err_cos = (cos.to(cache_dtype).double() - torch.cos(angles)).abs()
    err_sin = (sin.to(cache_dtype).double() - torch.sin(angles)).abs()
    return torch.maximum(err_cos, err_sin).amax(1)


def time_calls(
    calls: Mapping[str, Callable[[], Any]],
    *,
    rounds: int = 3,
    min_run_time: float = 0.1,
    num_threads: int | None = None,
) -> dict[str, list[float]]:
    """Time every call in round-robin rounds; the median time per call, per round.

    A shared machine speeds up and slows down from one second to the next, so
    a ratio of two medians taken seconds apart is noisy. Every round therefore
    times each call back to back, in order, with
    ``torch.utils.benchmark.Timer.blocked_autorange`` (its median over blocks
    of runs); ratios between calls are then taken within a round
    (``median_ratio``).

    Args:
        calls: name -> function of no arguments to time.
        rounds: number of rounds (>= 1).
        min_run_time: seconds of timing per call per round (> 0).
        num_threads: torch threads for the timer (default: the current
            ``torch.get_num_threads()``).

    Returns:
        name -> list of ``rounds`` median times in seconds, in round order.

    Raises:
        TypeError / ValueError: for an empty or non-callable ``calls``, or bad
            ``rounds``, ``min_run_time`` or ``num_threads``.
    """
    if not isinstance(calls, Mapping) or not calls:
        raise ValueError("calls must be a non-empty mapping of name -> function")
    for name, fn in calls.items():
        if not callable(fn):
            raise TypeError(f"calls[{name!r}] must be callable, got {type(fn).__name__}")
    rounds = check_positive_int("rounds", rounds)
    min_run_time = check_positive_real("min_run_time", min_run_time)
    threads = torch.get_num_threads() if num_threads is None else check_positive_int("num_threads", num_threads)
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            timer = benchmark.Timer("fn()", globals={"fn": fn}, num_threads=threads)
            times[name].append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return times


def median_ratio(times: Mapping[str, Sequence[float]], name: str, floor: str) -> float:
    """The median over rounds of ``times[name][r] / times[floor][r]`` (same-round ratios).

    ``times`` is what ``time_calls`` returns. Raises ``ValueError`` for an
    unknown name or rounds of different lengths.
    """
    for n in (name, floor):
        if n not in times:
            raise ValueError(f"{n!r} must be one of the timed calls {list(times)}")
    if len(times[name]) != len(times[floor]) or not times[name]:
        raise ValueError(f"{name!r} and {floor!r} must have the same non-zero number of rounds")
    return statistics.median(t / f for t, f in zip(times[name], times[floor]))


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _where(t: torch.Tensor) -> tuple:
    """Which elements of which memory ``t`` covers (two views of the same elements are one read)."""
    return (
        t.untyped_storage().data_ptr(),
        t.storage_offset() * t.element_size(),
        t.element_size(),
        tuple(t.shape),
        t.stride(),
    )


# allocations and metadata: no data is read or written
_NO_TRAFFIC = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}


class _Traffic(TorchDispatchMode):
    """Sum, over the ATen operations run, of the bytes each reads and writes."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Nothing here runs under torch.compile. Without this, PyTorch wraps __torch_dispatch__ in
        # torch._dynamo.disable, and the first count imports torch._dynamo (about 5 s, with sympy).
        return False

    def __init__(self) -> None:
        super().__init__()
        self.read = 0
        self.written = 0
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        if func.is_view or name in _NO_TRAFFIC:
            return out
        given = {a.name: v for a, v in zip(func._schema.arguments, args)}
        given.update(kwargs)
        kinds = {a.name: a for a in func._schema.arguments}
        written = [v for k, v in given.items() if isinstance(v, torch.Tensor) and kinds[k].is_write]
        # an out= argument and copy_'s destination are written, not read
        skip = {k for k, a in kinds.items() if a.is_out} | ({"self"} if name == "copy_" else set())
        read = [
            t
            for k, v in given.items()
            if k not in skip
            for t in (v if isinstance(v, (list, tuple)) else [v])
            if isinstance(t, torch.Tensor)
        ]
        read = list({_where(t): t for t in read}.values())  # x * x reads x once
        if not written:
            written = [o for o in pytree.tree_leaves(out) if isinstance(o, torch.Tensor)]
        self.read += sum(_nbytes(t) for t in read)
        self.written += sum(_nbytes(t) for t in written)
        self.ops.append(name)
        return out


def memory_traffic(fn: Callable[[], Any]) -> dict[str, Any]:
    """Bytes an eager PyTorch computation reads and writes, counted per operation.

    Runs ``fn()`` once under a ``TorchDispatchMode`` (the mechanism of
    ``torch.utils.flop_counter.FlopCounterMode``) and, for every ATen
    operation that is not a view, adds the sizes of its tensor inputs to
    "read" (an input passed twice, as in ``x * x``, once) and of its outputs (or, for an in-place or ``out=`` operation,
    the tensor it writes) to "written". Views (``x[..., 0::2]``,
    ``x.view(torch.complex64)``) move no data and count nothing. This is
    the traffic of the eager program, each operation reading its inputs from
    memory and writing its result back; a fused kernel (``torch.compile``)
    keeps intermediates in registers and moves less. A strided input counts
    the elements it covers, not the cache lines it touches.

    Returns:
        ``{"read": bytes, "written": bytes, "ops": [ATen op names]}``.

    Raises:
        TypeError: if ``fn`` is not callable.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    mode = _Traffic()
    with mode:
        fn()
    return {"read": mode.read, "written": mode.written, "ops": mode.ops}
