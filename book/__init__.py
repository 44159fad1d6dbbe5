"""Companion library of *Positional Encoding, Interactively*.

One module per idea: ``encodings`` (a package, one module per scheme:
sinusoidal, RoPE, ALiBi, T5 buckets, learned), ``scaling`` (RoPE scaling
rules for long contexts), ``attention`` (written-out attention,
permutations), ``demos`` (small seeded models the chapters take apart),
``tasks`` (synthetic data), ``models`` (a tiny Transformer with a choice of
position scheme, and its training loop), ``experiments`` (chapter 8's
experiment and its command line), ``benchmark`` (its three-task suite), ``annealed`` (chapter 9's models,
trained to the step cap), ``results`` (the committed results),
``mechanism`` (attention on offsets, head ablation),
``plots`` (one look for all figures), ``widgets`` (explorers for a running
kernel), ``exercises`` (exercise self-checks), ``numerics`` (RoPE precision and
timing, chapter 11) and ``classroom`` (student
copies for teachers). Chapters derive a thing by hand, then assert it equals the
library version here, which later chapters import.
"""

from __future__ import annotations

__version__ = "0.3.0"
__all__ = ["setup"]


def setup(seed: int = 0, num_threads: int = 1) -> None:
    """Make a notebook deterministic and give its figures the book's look.

    Seeds torch's global generator, fixes the number of CPU threads (results
    of floating-point reductions can depend on it) and applies
    ``book.plots.use_style()``. Every chapter's setup cell calls this.
    """
    import torch

    from .plots import use_style

    torch.manual_seed(seed)
    torch.set_num_threads(num_threads)
    use_style()
