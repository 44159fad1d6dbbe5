"""Interactive explorers for running notebooks (Jupyter, Binder, Colab).

Each explorer here only wires controls to a drawing: ``book.plots.draw_<explorer>``
(a pure function of the explorer's state, returning a Figure). A static web
page has no kernel, so the chapter also shows the explorer's live twin,
``book.plots.live_twin`` of the same drawing at a grid of states, which runs
in the page.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Sequence

import matplotlib.pyplot as plt

from ._validate import check_even, check_positive_int
from .demos import TinySelfAttention
from .plots import (
    draw_alibi_explorer,
    draw_fingerprint_explorer,
    draw_layer_pattern_explorer,
    draw_learned_table_explorer,
    draw_order_explorer,
    draw_pe_explorer,
    draw_precision_explorer,
    draw_results_explorer,
    draw_rope_explorer,
    draw_rotation_explorer,
    draw_scaling_explorer,
    draw_sink_cache_explorer,
    draw_t5_bucket_explorer,
    draw_two_bases_explorer,
)

__all__ = [
    "order_explorer",
    "pe_explorer",
    "rotation_explorer",
    "fingerprint_explorer",
    "learned_table_explorer",
    "rope_explorer",
    "alibi_explorer",
    "t5_bucket_explorer",
    "results_explorer",
    "scaling_explorer",
    "two_bases_explorer",
    "layer_pattern_explorer",
    "precision_explorer",
    "sink_cache_explorer",
]


def _explorer(rows: Sequence[Sequence[Any]], draw: Callable[[], plt.Figure | None]):
    """Lay out ``rows`` of controls above an output area that ``draw()`` fills.

    ``draw`` is called once now and again whenever a control's value changes;
    it may print, and returns the figure to show (or None).
    """
    import ipywidgets as w  # imported here: the rest of `book` does not need it
    from IPython.display import display

    out = w.Output()

    def redraw(*_: Any) -> None:
        with out:
            out.clear_output(wait=True)
            fig = draw()
            if fig is not None:
                if fig.get_layout_engine() is None and all(ax.get_subplotspec() is not None for ax in fig.axes):
                    fig.tight_layout()  # keep colorbar and axis labels apart
                display(fig)
                plt.close(fig)

    for row in rows:
        for control in row:
            if hasattr(control, "value"):
                control.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox(list(row)) for row in rows] + [out])


def order_explorer(model: TinySelfAttention, tokens: Sequence[str]):
    """Shuffle ``tokens`` and watch each token's self-attention output (chapter 1).

    Controls: the new order (indices into ``tokens``, e.g. ``2 1 0 3 4``), a
    Shuffle button, and switches for the sinusoidal PE and the causal mask.
    The figure (``book.plots.draw_order_explorer``) shows each token's output
    in the original order (A), in the new order (B, rows brought back to token
    order) and B - A: without PE and without a mask the difference is zero
    up to float32 rounding.

    Returns:
        an ``ipywidgets.VBox`` (display it, or leave it as a cell's last value).
    """
    import ipywidgets as w

    tokens = list(tokens)
    n = len(tokens)
    order = w.Text(value=" ".join(map(str, range(n))), description="order B:")
    shuffle = w.Button(description="Shuffle", icon="random")
    positional = w.Checkbox(value=False, description="add sinusoidal PE")
    causal = w.Checkbox(value=False, description="causal mask")
    rng = random.Random(0)

    def draw() -> plt.Figure | None:
        try:
            idx = [int(s) for s in order.value.replace(",", " ").split()]
            return draw_order_explorer(model, tokens, order=idx, positional=positional.value, causal=causal.value)
        except ValueError as err:
            print(f"Cannot use that order: {err}")
            return None

    def on_shuffle(_: Any) -> None:
        idx = list(range(n))
        rng.shuffle(idx)
        order.value = " ".join(map(str, idx))

    shuffle.on_click(on_shuffle)
    return _explorer([[order, shuffle], [positional, causal]], draw)


def pe_explorer(d_model: int = 64, base: float = 10000.0, max_position: int = 200):
    """Explore the sinusoidal table (chapter 2): ``d_model``, ``base``, the
    position range and one dimension whose sin/cos pair is drawn as curves.
    Drawn by ``book.plots.draw_pe_explorer``."""
    import ipywidgets as w

    d = w.IntSlider(value=d_model, min=8, max=256, step=8, description="d_model")
    b = w.FloatLogSlider(value=base, base=10, min=1, max=6, step=0.25, description="base")
    span = w.IntRangeSlider(value=(0, max_position), min=0, max=2000, step=10, description="positions")
    dim = w.IntSlider(value=0, min=0, max=d_model - 1, description="dimension")

    def draw() -> plt.Figure:
        dim.max = d.value - 1
        return draw_pe_explorer(d_model=d.value, base=b.value, positions=span.value, dim=dim.value)

    return _explorer([[d, b], [span, dim]], draw)


def rotation_explorer(d_model: int = 16, pairs: Sequence[int] = (0, 1, 2, 3), base: float = 10000.0):
    """Pick a position ``p`` and an offset ``k`` and watch ``M_k`` rotate each
    (sin, cos) pair of PE(p) to PE(p + k) (chapter 3). Drawn by
    ``book.plots.draw_rotation_explorer``."""
    import ipywidgets as w

    pos = w.IntSlider(value=0, min=0, max=100, description="position p")
    k = w.IntSlider(value=1, min=-20, max=20, description="offset k")

    def draw() -> plt.Figure:
        return draw_rotation_explorer(pos=pos.value, k=k.value, d_model=d_model, pairs=pairs, base=base)

    return _explorer([[pos, k]], draw)


def fingerprint_explorer(d_model: int = 64, base: float = 10000.0, seq_len: int = 128):
    """Explore the similarity of positions' fingerprints (chapter 4):
    ``PE PE^T`` (or cosine similarity) for a chosen ``d_model``, ``base`` and
    length. Drawn by ``book.plots.draw_fingerprint_explorer``."""
    import ipywidgets as w

    d = w.IntSlider(value=d_model, min=8, max=256, step=8, description="d_model")
    b = w.FloatLogSlider(value=base, base=10, min=1, max=6, step=0.25, description="base")
    n = w.IntSlider(value=seq_len, min=16, max=512, step=16, description="positions")
    cosine = w.Checkbox(value=True, description="cosine similarity")

    def draw() -> plt.Figure:
        return draw_fingerprint_explorer(d_model=d.value, base=b.value, seq_len=n.value, cosine=cosine.value)

    return _explorer([[d, b], [n, cosine]], draw)


def learned_table_explorer(snapshots: Mapping[int, Any]):
    """Step through training and watch a learned position table organise
    (chapter 5). ``snapshots`` maps a training step to the table ``(max_len, d)``
    at that step; the figure (``book.plots.draw_learned_table_explorer``) shows
    the table's cosine similarity and its PCA path."""
    import ipywidgets as w

    steps = sorted(snapshots)
    if not steps:
        raise ValueError("snapshots must hold at least one (step, table) pair")
    step = w.SelectionSlider(options=steps, value=steps[-1], description="step")

    def draw() -> plt.Figure:
        return draw_learned_table_explorer(snapshots, step=step.value)

    return _explorer([[step]], draw)


def rope_explorer(q: Any, k: Any, *, base: float = 10000.0, max_position: int = 64):
    """Rotate a query to position ``m`` and a key to position ``n`` (chapter 6).

    Left: the chosen pair ``i`` of ``q`` and ``k`` on its plane, rotated by
    ``m * theta_i`` and ``n * theta_i``. Right: the full score against
    ``m - n``, with the current offset marked. Moving ``m`` and ``n`` together
    leaves both the angle and the score unchanged. Drawn by
    ``book.plots.draw_rope_explorer``.
    """
    import ipywidgets as w
    import torch

    q, k = torch.as_tensor(q, dtype=torch.float64).flatten(), torch.as_tensor(k, dtype=torch.float64).flatten()
    d = q.numel()
    if d != k.numel() or d < 2 or d % 2:
        raise ValueError(f"q and k must have the same even number of features, got {d} and {k.numel()}")
    m = w.IntSlider(value=5, min=0, max=max_position, description="query m")
    n = w.IntSlider(value=2, min=0, max=max_position, description="key n")
    pair = w.IntSlider(value=0, min=0, max=d // 2 - 1, description="pair i")

    def draw() -> plt.Figure:
        return draw_rope_explorer(q, k, m=m.value, n=n.value, pair=pair.value, base=base, max_position=max_position)

    return _explorer([[m, n, pair]], draw)


def alibi_explorer(n_heads: int = 8, seq_len: int = 32):
    """Pick a number of heads and one head, and see its ALiBi bias and the
    attention it gives when the content is neutral (chapter 7). With all
    scores equal, the weight on a key ``k`` positions back is proportional to
    ``exp(-m_h k)``. Drawn by ``book.plots.draw_alibi_explorer``."""
    import ipywidgets as w

    heads = w.IntSlider(value=n_heads, min=1, max=16, description="heads")
    head = w.IntSlider(value=1, min=1, max=n_heads, description="head")
    length = w.IntSlider(value=seq_len, min=4, max=128, step=4, description="length")

    def draw() -> plt.Figure:
        head.max = heads.value
        return draw_alibi_explorer(n_heads=heads.value, head=min(head.value, heads.value), seq_len=length.value)

    return _explorer([[heads, head, length]], draw)


def t5_bucket_explorer(
    num_buckets: int = 32, max_distance: int = 128, *, bidirectional: bool = True, max_offset: int = 256
):
    """Change T5's number of buckets and its ``max_distance``, switch between
    the encoder's bidirectional buckets and the decoder's, and see the bucket
    of every relative position ``j - i`` (chapter 7): where the exact buckets
    end and where the last bucket starts. Drawn by
    ``book.plots.draw_t5_bucket_explorer``. The arguments are the controls'
    first values: ``num_buckets`` even, 4 .. 128, ``max_distance`` 3 ..
    4096, ``max_offset`` 8 .. 8192 (the ranges of the website's explorer).
    At a small ``max_distance`` the buckets slider stops where
    ``max_distance`` still exceeds the exact range, as
    ``t5_relative_bucket`` requires.

    Raises:
        TypeError, ValueError: for a setting outside those ranges, and as
            ``book.encodings.t5_relative_bucket``.
    """
    import ipywidgets as w

    from .encodings import t5_relative_bucket

    num_buckets = check_positive_int("num_buckets", num_buckets)
    if num_buckets % 2:
        raise ValueError(f"num_buckets must be even (the explorer's slider moves in steps of 2), got {num_buckets}")
    max_distance = check_positive_int("max_distance", max_distance)
    max_offset = check_positive_int("max_offset", max_offset)
    for name, value, lo, hi in (
        ("num_buckets", num_buckets, 4, 128),
        ("max_distance", max_distance, 3, 4096),
        ("max_offset", max_offset, 8, 8192),
    ):
        if not lo <= value <= hi:
            raise ValueError(f"{name} must be between {lo} and {hi} for the explorer's controls, got {value}")
    # The library's own rules (bidirectional a bool, max_distance above the exact range).
    t5_relative_bucket([0], bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    buckets = w.IntSlider(value=num_buckets, min=4, max=128, step=2, description="buckets")
    distance = w.FloatLogSlider(
        value=max_distance, base=2, min=1.58, max=12, step=0.01, description="max distance", readout_format=".0f"
    )
    both = w.Checkbox(value=bidirectional, description="bidirectional (encoder)")
    reach = w.FloatLogSlider(
        value=max_offset, base=2, min=3, max=13, step=0.01, description="offsets up to", readout_format=".0f"
    )

    def draw() -> plt.Figure:
        d, bidi = round(distance.value), both.value
        # The most buckets whose exact range (B / 4, or B / 2 one-way) stays below max_distance.
        buckets.max = min(128, 4 * d - 2 if bidi else 2 * d - 2)
        return draw_t5_bucket_explorer(
            num_buckets=min(buckets.value, buckets.max),
            max_distance=d,
            bidirectional=bidi,
            max_offset=round(reach.value),
        )

    return _explorer([[buckets, distance], [both, reach]], draw)


def results_explorer(results: Mapping[str, dict]):
    """Browse chapter 8's results: pick a task and the schemes to compare,
    and show the seeds as a band or one line each. ``results`` maps a task
    name to the JSON dict of ``book.experiments``; the tasks may hold
    different schemes (a scheme missing from the chosen task is skipped).
    Drawn by ``book.plots.draw_results_explorer``."""
    import ipywidgets as w

    if not results:
        raise ValueError("results must hold at least one task's results")
    task = w.Dropdown(options=list(results), description="task")
    names = list(dict.fromkeys(s for r in results.values() for s in r["runs"]))
    picks = [w.Checkbox(value=True, description=s, indent=False, layout=w.Layout(width="110px")) for s in names]
    style = w.ToggleButtons(options=["band", "lines"], description="seeds")

    def draw() -> plt.Figure | None:
        runs = results[task.value]["runs"]
        chosen = [c.description for c in picks if c.value and c.description in runs]
        if not chosen:
            print(f"Pick at least one scheme of this task: {', '.join(runs)}.")
            return None
        return draw_results_explorer(results, task=task.value, schemes=chosen, seeds=style.value)

    return _explorer([[task, style], picks], draw)


def scaling_explorer(d_model: int = 128):
    """Change the context scale ``s`` and the training length ``L`` and see
    which RoPE pairs turn fully within ``L`` and how PI, NTK-aware and YaRN
    rescale each pair (chapter 9). Drawn by
    ``book.plots.draw_scaling_explorer``."""
    import ipywidgets as w

    d_model = check_even("d_model", d_model)
    if d_model < 4:
        raise ValueError(f"d_model must be at least 4 for NTK-aware scaling, got {d_model}")
    scale = w.FloatLogSlider(value=4.0, base=2, min=0, max=6, step=0.5, description="scale s")
    length = w.SelectionSlider(options=[32, 256, 2048, 8192, 32768], value=2048, description="train L")

    def draw() -> plt.Figure:
        return draw_scaling_explorer(scale=scale.value, original_max_len=length.value, d_model=d_model)

    return _explorer([[scale, length]], draw)


def two_bases_explorer(d_model: int = 256, context: int = 131072):
    """Change the bases of a model's local and global layers and the local
    layers' window, and see how many RoPE pairs turn within the offsets each
    kind of layer sees (chapter 10; the defaults are transformers'
    ``Gemma3TextConfig``'s head width and context). Drawn by
    ``book.plots.draw_two_bases_explorer``."""
    import ipywidgets as w

    d_model = check_even("d_model", d_model)
    local = w.FloatLogSlider(value=1e4, base=10, min=3, max=7, step=0.5, description="local base")
    glob = w.FloatLogSlider(value=1e6, base=10, min=3, max=8, step=0.5, description="global base")
    window = w.SelectionSlider(options=[128, 512, 1024, 4096, 8192], value=4096, description="window")

    def draw() -> plt.Figure:
        return draw_two_bases_explorer(
            d_model=d_model, window=window.value, context=context, local_base=local.value, global_base=glob.value
        )

    return _explorer([[local, glob], [window]], draw)


def layer_pattern_explorer(plans: Mapping[str, Sequence[Any]]):
    """Choose a model and see its layers (RoPE or no position; whole context,
    window or chunk) and which RoPE pairs each kind of layer turns within the
    offsets it sees (chapter 10). ``plans`` maps a model's name to
    ``book.models.layer_positions`` of its config. Drawn by
    ``book.plots.draw_layer_pattern_explorer``.

    Raises:
        ValueError: if ``plans`` is empty.
    """
    import ipywidgets as w

    if not isinstance(plans, Mapping) or len(plans) == 0:
        raise ValueError("plans must map at least one model name to its layer_positions")
    model = w.Dropdown(options=list(plans), value=next(iter(plans)), description="model")

    def draw() -> plt.Figure:
        return draw_layer_pattern_explorer(model=model.value, plans=plans)

    return _explorer([[model]], draw)


def precision_explorer(d_model: int = 128):
    """Form RoPE's angles in bfloat16, float16 or float32 and see how wrong
    the cosines get with position, for a chosen head width, base and longest
    position (chapter 11). Drawn by ``book.plots.draw_precision_explorer``."""
    import ipywidgets as w

    if not 16 <= check_even("d_model", d_model) <= 256:  # the slider's range: no silent clamping
        raise ValueError(f"d_model must be between 16 and 256, got {d_model}")
    dtype = w.ToggleButtons(options=["bfloat16", "float16", "float32"], value="bfloat16", description="angles in")
    d = w.IntSlider(value=d_model, min=16, max=256, step=16, description="head width")
    b = w.FloatLogSlider(value=10000.0, base=10, min=2, max=6, step=0.25, description="base")
    longest = w.SelectionSlider(options=[2**k for k in range(8, 21)], value=2**17, description="up to m")

    def draw() -> plt.Figure:
        return draw_precision_explorer(dtype=dtype.value, d_model=d.value, base=b.value, longest=longest.value)

    return _explorer([[dtype], [d, b, longest]], draw)


def sink_cache_explorer(trained_len: int = 32):
    """Let a StreamingLLM cache (the first tokens as attention sinks, plus a
    recent window) run on, and see which positions its keys and the next
    query get, with and without re-assigning positions inside the cache
    (chapter 12). Drawn by ``book.plots.draw_sink_cache_explorer``."""
    import ipywidgets as w

    trained_len = check_positive_int("trained_len", trained_len)
    length = w.IntSlider(value=64, min=1, max=256, description="tokens seen")
    sinks = w.IntSlider(value=4, min=0, max=8, description="sinks")
    window = w.IntSlider(value=8, min=1, max=24, description="window")
    reassign = w.Checkbox(value=True, description="positions in the cache")

    def draw() -> plt.Figure:
        return draw_sink_cache_explorer(
            length=length.value,
            sinks=sinks.value,
            window=window.value,
            reassign=reassign.value,
            trained_len=trained_len,
        )

    return _explorer([[length, reassign], [sinks, window]], draw)
