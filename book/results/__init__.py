"""The book's committed results, shipped with the package.

Chapter 8 reads the experiments that ``python -m book.experiments`` wrote
(``benchmark_<task>``: the three-task benchmark of ``--suite``; and
``benchmark_<task>_rerun``, the whole benchmark again under other CPU kernels,
which set the chapter's margins; and ``benchmark_<task>_every_rate``, the same
sweep with every learning rate's models tested, which gives the rates the
chapter checks its statements at), chapter 9
the weights of the benchmark's RoPE models trained to the cap
(``annealed_local_sum_rope``, written by :func:`state_to_json`, and
``annealed_local_sum_rope_rerun``, the same training under other CPU
kernels, which sets that chapter's margins; the same pair for ``recall`` and
``copy``, ``annealed_<task>_rope`` and ``annealed_<task>_rope_rerun``, and
``stretch_<task>_rope``, the scores of both under the scaling rules, written by
``book.annealed.run_stretch``), and chapter 11 the ``torch.compile`` timing that ``benchmarks/rope_speed.py``
wrote. They live in this package (``book/results/*.json``), so a chapter
run from any folder, or opened alone in Colab with the book installed from
a wheel, finds them through :func:`load`. A file that is missing is never
recomputed behind the reader's back: :func:`load` raises and names the
command that makes it (minutes of training, or a C++ compiler).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["COMMANDS", "names", "load", "state_to_json", "state_from_json"]

_EXPERIMENT = "python -m book.experiments"

#: name -> the command, run from the repository root, that writes ``book/results/<name>.json``.
COMMANDS: dict[str, str] = {
    "local_sum": f"{_EXPERIMENT} --output book/results/local_sum.json",
    "local_sum_full": f"{_EXPERIMENT} --stop-loss none --output book/results/local_sum_full.json",
    "fibonacci": (
        f"{_EXPERIMENT} --task fibonacci --schemes none sinusoidal learned rope alibi "
        "--seeds 0 1 2 --steps 300 --lr 0.005 --stop-loss none --output book/results/fibonacci.json"
    ),
    "copy": (
        f"{_EXPERIMENT} --task copy --schemes none sinusoidal learned rope alibi --seeds 0 1 2 "
        "--train-len 8 --test-len 16 --steps 1500 --lr 0.005 --stop-loss none "
        "--output book/results/copy.json"
    ),
    "rope_compile": ("python benchmarks/rope_speed.py --lengths 2048 --compile book/results/rope_compile.json"),
    # the three-task benchmark (book.benchmark); `--suite` alone writes all three
    "benchmark_local_sum": f"{_EXPERIMENT} --suite --task local_sum",
    "benchmark_recall": f"{_EXPERIMENT} --suite --task recall",
    "benchmark_copy": f"{_EXPERIMENT} --suite --task copy",
    # the whole benchmark, sweep included, again under the kernels without AVX
    # (run as ATEN_CPU_CAPABILITY=default ...; the file records the capability): chapter 8's margins
    "benchmark_local_sum_rerun": f"{_EXPERIMENT} --suite --task local_sum --rerun",
    "benchmark_recall_rerun": f"{_EXPERIMENT} --suite --task recall --rerun",
    "benchmark_copy_rerun": f"{_EXPERIMENT} --suite --task copy --rerun",
    # the same sweep with every rate's models tested, not only the chosen rate's: chapter 8's admitted rates
    "benchmark_local_sum_every_rate": f"{_EXPERIMENT} --suite --task local_sum --every-rate",
    "benchmark_recall_every_rate": f"{_EXPERIMENT} --suite --task recall --every-rate",
    "benchmark_copy_every_rate": f"{_EXPERIMENT} --suite --task copy --every-rate",
    # chapter 9's RoPE models: the benchmark's local_sum RoPE, trained to the cap (book.annealed.run_annealed)
    "annealed_local_sum_rope": f"{_EXPERIMENT} --suite --task local_sum --anneal rope",
    # the same again under the kernels without AVX (ATEN_CPU_CAPABILITY=default ...): chapter 9's margins
    "annealed_local_sum_rope_rerun": f"{_EXPERIMENT} --suite --task local_sum --anneal rope --rerun",
    # the same for the benchmark's two other tasks, and their reruns (ATEN_CPU_CAPABILITY=default ...)
    "annealed_recall_rope": f"{_EXPERIMENT} --suite --task recall --anneal rope",
    "annealed_recall_rope_rerun": f"{_EXPERIMENT} --suite --task recall --anneal rope --rerun",
    "annealed_copy_rope": f"{_EXPERIMENT} --suite --task copy --anneal rope",
    "annealed_copy_rope_rerun": f"{_EXPERIMENT} --suite --task copy --anneal rope --rerun",
    # their scores under chapter 9's scaling rules, both runs (book.annealed.run_stretch)
    "stretch_recall_rope": f"{_EXPERIMENT} --suite --task recall --stretch rope",
    "stretch_copy_rope": f"{_EXPERIMENT} --suite --task copy --stretch rope",
    "finetune_local_sum_rope": f"{_EXPERIMENT} --suite --task local_sum --fine-tune rope",
}


def names() -> list[str]:
    """The names of the results this installation ships, sorted (``"local_sum"``, ...)."""
    return sorted(f.name[:-5] for f in resources.files(__name__).iterdir() if f.name.endswith(".json"))


def load(name: str) -> dict[str, Any]:
    """The committed result ``name`` (``book/results/<name>.json``), parsed.

    Read with ``importlib.resources``, so it works the same from the
    repository, an installed wheel or a zip.

    Args:
        name: a result's name without ``.json``, one of :data:`COMMANDS`
            (``"local_sum"``, ``"local_sum_full"``, ``"fibonacci"``,
            ``"copy"``, ``"rope_compile"``, ``"benchmark_local_sum"``,
            ``"benchmark_recall"``, ``"benchmark_copy"``).

    Raises:
        TypeError: if ``name`` is not a string.
        ValueError: if ``name`` is not a result the book knows.
        FileNotFoundError: if the file is not installed; the message gives
            the command that writes it.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    if name not in COMMANDS:
        raise ValueError(f"name must be one of {sorted(COMMANDS)}, not {name!r}")
    file = resources.files(__name__) / f"{name}.json"
    if not file.is_file():
        raise FileNotFoundError(
            f"the book's result {name!r} is not installed (book/results/{name}.json). "
            f"Make it from the repository root with:\n    {COMMANDS[name]}"
        )
    return json.loads(file.read_text(encoding="utf-8"))


def state_to_json(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A model's ``state_dict`` as JSON-ready data, exactly: per tensor its
    ``shape`` and its float32 values as little-endian bytes in base64.

    Raises:
        TypeError: if a value is not a float32 tensor.
    """
    import base64

    import torch

    out = {}
    for name, tensor in state.items():
        if not isinstance(tensor, torch.Tensor) or tensor.dtype != torch.float32:
            raise TypeError(f"state[{name!r}] must be a float32 tensor, got {getattr(tensor, 'dtype', type(tensor))}")
        data = tensor.detach().contiguous().cpu().numpy().astype("<f4").tobytes()
        out[name] = {"shape": list(tensor.shape), "float32_base64": base64.b64encode(data).decode("ascii")}
    return out


def state_from_json(data: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``state_dict`` that :func:`state_to_json` wrote, bit for bit.

    Raises:
        ValueError: if an entry's bytes do not fill its shape.
    """
    import base64

    import numpy as np
    import torch

    out = {}
    for name, entry in data.items():
        values = np.frombuffer(base64.b64decode(entry["float32_base64"]), dtype="<f4")
        shape = tuple(entry["shape"])
        if values.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"{name}: {values.size} values do not fill the shape {shape}")
        out[name] = torch.from_numpy(values.astype(np.float32).reshape(shape))
    return out
