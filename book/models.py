"""A tiny decoder-only Transformer whose position scheme is one argument.

``TinyTransformer`` is the model that chapters 5 and 8 train on the CPU. It
reuses ``book.encodings`` for every scheme (there is no second copy of any
encoding here) and ``torch.nn.functional.scaled_dot_product_attention`` for
speed; with ``return_attention=True`` it runs ``book.attention.attention``
instead, which also returns the weights (the tests check the two agree).

Where each scheme enters:

* ``"none"`` (NoPE): nowhere; only the causal mask breaks the symmetry.
* ``"sinusoidal"``: ``sinusoidal_at(positions, d)`` added to the input.
* ``"learned"``: a ``LearnedPositionalEmbedding(max_len, d)`` added to the input.
* ``"rope"``: ``apply_rope`` on each head's queries and keys, in every layer.
* ``"alibi"``: ``-m_h (i - j)`` added to each head's scores, in every layer.
* ``"t5"``: a learned bias ``b[h, bucket(j - i)]`` added to each head's scores,
  one table shared by every layer, as in T5 (buckets from
  ``t5_relative_bucket``, unidirectional in a decoder; ``t5_buckets`` and
  ``t5_max_distance`` set the bucketing, 32 and 128 by default as in T5).
* ``"rope_nope"``: ``apply_rope`` in some layers and no position at all in the
  others, in the layer pattern of Llama 4 (iRoPE) and SmolLM3 taken at
  interval 2 (``rope_layers``), with full attention in every layer: Llama 4
  also chunks the attention of its RoPE layers and scales the queries of its
  NoPE layers (``attn_temperature_tuning``), which this model does not.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal, NamedTuple, Sequence, get_args

import torch
from torch import nn
from torch.nn import functional as F

from ._validate import check_choice, check_positive_int, check_positive_real
from .attention import attention, causal_mask
from .encodings import (
    LearnedPositionalEmbedding,
    alibi_bias,
    apply_rope_cached,
    rope_cos_sin,
    sinusoidal_at,
    t5_relative_bucket,
)
from .tasks import Batch

__all__ = [
    "SCHEMES",
    "STOP_WINDOW",
    "TinyTransformer",
    "train",
    "stop_rule_met",
    "window_mean",
    "lr_schedule",
    "accuracy_by_position",
    "rope_layers",
    "NOPE_INTERVAL",
    "LayerPositions",
    "layer_positions",
]

Scheme = Literal["none", "sinusoidal", "learned", "rope", "alibi", "t5", "rope_nope"]
#: Every position scheme the model accepts (the values of ``Scheme``).
SCHEMES: tuple[Scheme, ...] = get_args(Scheme)
#: Steps over which ``stop_rule_met`` averages the training loss by default.
STOP_WINDOW = 30
#: T5's bucketing (Raffel et al., 2020; transformers' T5Config defaults).
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128
#: ``"rope_nope"``: every ``NOPE_INTERVAL``-th layer has no position encoding.
NOPE_INTERVAL = 2
#: How many input-length constants (RoPE's cos/sin, ALiBi's bias, ...) a model keeps at most,
#: and how many bytes they may hold together (ALiBi's bias and the masks grow with n^2).
_MAX_CONSTANTS = 256
_MAX_CONSTANT_BYTES = 64 * 2**20


def _nbytes(value: Any) -> int:
    """The bytes of a tensor, or of the tensors of a tuple (RoPE's cos and sin)."""
    parts = value if isinstance(value, tuple) else (value,)
    return sum(t.numel() * t.element_size() for t in parts if isinstance(t, torch.Tensor))


def rope_layers(n_layers: int, interval: int = NOPE_INTERVAL) -> list[int]:
    """Which layers of a ``"rope_nope"`` model rotate queries and keys: 1 = RoPE, 0 = none.

    ``[int((i + 1) % interval != 0) for i in range(n_layers)]``: every
    ``interval``-th layer (the 2nd, 4th, ... for ``interval = 2``) has no
    position encoding. This is the rule of transformers' ``Llama4TextConfig``
    (``no_rope_layers``, from ``no_rope_layer_interval``, 4 by default; Llama 4's
    "iRoPE") and ``SmolLM3Config`` (``no_rope_layer_interval``, 4 by default).
    The book uses ``interval = 2`` (half the layers without position, where
    those models have a quarter): with interval 4, a 2-layer model would
    keep RoPE in both layers; with 2, layer 0 has RoPE and layer 1 none.

    Raises:
        TypeError / ValueError: if ``n_layers`` or ``interval`` is not an
            integer >= 1.
    """
    n_layers = check_positive_int("n_layers", n_layers)
    interval = check_positive_int("interval", interval)
    return [int((i + 1) % interval != 0) for i in range(n_layers)]


class LayerPositions(NamedTuple):
    """How one layer of a released model's config places positions (``layer_positions``).

    Fields, in order: ``kind``, the layer's entry of ``layer_types``
    (``"full_attention"`` when the config has none); ``rope``, whether the
    layer rotates queries and keys (False for a layer without position,
    NoPE); ``base``, RoPE's base ``rope_theta`` of the layer's kind;
    ``fraction``, the share of the ``head_dim / 2`` pairs that turn (p-RoPE's
    ``partial_rotary_factor``, else 1); ``head_dim``, the rotated head width
    (``qk_rope_head_dim`` for DeepSeek's MLA); ``span``, the longest reach of
    its offsets (its sliding window, chunk or training length);
    ``rope_type``, the rope type of its kind (``"default"``,
    ``"proportional"``, ``"yarn"``, ...).
    """

    kind: str
    rope: bool
    base: float
    fraction: float
    head_dim: int
    span: int
    rope_type: str


def layer_positions(config: Any) -> list[LayerPositions]:
    """Read, layer by layer, how a transformers config places positions.

    Duck-typed on a transformers ``PreTrainedConfig`` (transformers 5.24.0;
    nothing is imported or downloaded), with these rules, each read in that
    version's code:

    * kind: ``config.layer_types[i]``, or ``"full_attention"`` without it.
    * rope: ``no_rope_layers[i] == 1`` where the config has ``no_rope_layers``
      (``Llama4TextConfig``, ``SmolLM3Config``); for ``model_type ==
      "cohere2"``, only the ``"sliding_attention"`` layers
      (``Cohere2Attention.forward`` calls ``apply_rotary_pos_emb`` only ``if
      self.sliding_window is not None``); otherwise every layer.
    * base, rope type, fraction: ``rope_parameters`` (the dict of the layer's
      kind where there is one per kind); fraction is
      ``partial_rotary_factor`` for the rope type ``"proportional"`` (p-RoPE),
      else 1.
    * head width: ``qk_rope_head_dim`` where it exists (MLA's rotated part),
      else the layer's ``per_layer_config[i].head_dim`` (Gemma 4's differ by
      kind), else ``head_dim``, else ``hidden_size // num_attention_heads``.
    * span: ``sliding_window`` for a ``"sliding_attention"`` layer (for
      ModernBERT, which sets it to half of ``local_attention``, the offsets on
      one side), ``attention_chunk_size`` for ``"chunked_attention"``
      (Llama 4), else the training length: the rope parameters'
      ``original_max_position_embeddings`` where a scaling rule gives it (the
      length before stretching), else ``max_position_embeddings``.

    The scaling rule itself (``rope_type`` other than ``"default"`` and
    ``"proportional"``) is reported, not applied: ``base`` is the unscaled base.

    Raises:
        TypeError: if ``config`` has no ``rope_parameters`` dict or no
            ``num_hidden_layers``.
        ValueError: if ``layer_types`` or ``no_rope_layers`` do not have one
            entry per layer, or a kind has no rope parameters.
    """
    params = getattr(config, "rope_parameters", None)
    n = getattr(config, "num_hidden_layers", None)
    if not isinstance(params, dict) or isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            "config must be a transformers config with a rope_parameters dict and num_hidden_layers, "
            f"got {type(config).__name__}"
        )
    kinds = list(getattr(config, "layer_types", None) or ["full_attention"] * n)
    no_rope = getattr(config, "no_rope_layers", None)
    for name, seq in (("layer_types", kinds), ("no_rope_layers", no_rope)):
        if seq is not None and len(seq) != n:
            raise ValueError(f"config.{name} must have one entry per layer ({n}), got {len(seq)}")
    per_kind = all(isinstance(v, dict) for v in params.values())
    per_layer = getattr(config, "per_layer_config", None)
    out = []
    for i, kind in enumerate(kinds):
        p = params.get(kind) if per_kind else params
        if not isinstance(p, dict):
            raise ValueError(f"config.rope_parameters has no entry for the layer kind {kind!r}")
        if no_rope is not None:
            rope = bool(no_rope[i])
        elif getattr(config, "model_type", None) == "cohere2":
            rope = kind == "sliding_attention"
        else:
            rope = True
        rope_type = str(p.get("rope_type", "default"))
        fraction = float(p.get("partial_rotary_factor", 1.0)) if rope_type == "proportional" else 1.0
        head = getattr(config, "qk_rope_head_dim", None)
        if head is None and per_layer is not None:
            head = getattr(per_layer[i], "head_dim", None)
        if head is None:
            head = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        if kind == "sliding_attention":
            span = config.sliding_window
        elif kind == "chunked_attention":
            span = config.attention_chunk_size
        else:
            span = p.get("original_max_position_embeddings") or config.max_position_embeddings
        out.append(LayerPositions(kind, rope, float(p["rope_theta"]), fraction, int(head), int(span), rope_type))
    return out


class _Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x, rope, bias, mask, causal, keep, rope_factor=1.0, head_mask=None):
        """One block. ``rope``: RoPE's ``(cos, sin)`` for this layer, or None (no
        rotation); ``bias``: the position bias added to the scores, or None;
        ``mask``: what ``scaled_dot_product_attention`` adds to them (``bias``
        plus the causal mask), or None to let it mask causally by itself."""
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        if rope is not None:  # one call rotates both (half the overhead of two)
            qk = apply_rope_cached(torch.stack((q, k)), *rope)
            if rope_factor != 1.0:  # x * 1.0 == x exactly: skipping it changes no bit, forward or backward
                qk = qk * rope_factor
            q, k = qk
        if keep is not None:
            out, weights = attention(q, k, v, bias=bias, causal=causal)
            keep.append(weights.detach())
        elif mask is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        if head_mask is not None:  # (n_heads,): 0 silences a head's output
            out = out * head_mask.to(out.dtype)[:, None, None]
        x = x + self.proj(out.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """A pre-LayerNorm Transformer (decoder-only by default) for toy tasks.

    Equations: token embedding ``E[x]`` (plus the position vector for the
    additive schemes), then ``n_layers`` blocks of
    ``x <- x + MHA(LN(x))`` and ``x <- x + MLP(LN(x))`` (pre-LN, Xiong et al.,
    2020; MLP width ``4 d``, GELU), a final LayerNorm and a linear read-out.
    Multi-head attention is Vaswani et al. (2017, eq. 1 and section 3.2.2).

    Args:
        vocab_size: number of token ids (>= 1).
        position: ``"none"``, ``"sinusoidal"``, ``"learned"``, ``"rope"``,
            ``"alibi"``, ``"t5"`` or ``"rope_nope"`` (where each enters: see
            the module docstring; ``"rope_nope"`` uses RoPE in the layers
            ``rope_layers(n_layers)`` marks with 1).
        d_model: width ``d`` (divisible by ``n_heads``; RoPE also needs an even
            head width ``d / n_heads``).
        n_heads: attention heads per layer.
        n_layers: number of blocks.
        max_len: rows of the learned position table (``position="learned"``
            only). Policy past it: ``forward`` raises the table's ``ValueError``
            for positions ``>= max_len``. To test such a model on longer inputs,
            build it with a larger ``max_len``; rows never seen in training keep
            the direction of their random start, shrunk slightly by weight decay,
            which is what a real model has there.
        causal: decoder (True, the default) or encoder (False; ALiBi then uses
            the symmetric bias ``-m_h |i - j|``).
        seed: seed of the initial weights (a local generator; the global one
            is left alone).
        t5_buckets: T5's number of buckets (``position="t5"``; >= 2, even
            for an encoder).
        t5_max_distance: the distance from which T5's buckets stop growing
            (>= 1); distances at or past it share the last bucket
            (``book.encodings.t5_relative_bucket``).
    """

    def __init__(
        self,
        vocab_size: int,
        *,
        position: Scheme = "rope",
        d_model: int = 64,
        n_heads: int = 4,
        n_layers: int = 2,
        max_len: int = 64,
        causal: bool = True,
        seed: int = 0,
        t5_buckets: int = T5_BUCKETS,
        t5_max_distance: int = T5_MAX_DISTANCE,
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int("vocab_size", vocab_size)
        self.position = check_choice("position", position, SCHEMES)
        self.d_model = check_positive_int("d_model", d_model)
        self.n_heads = check_positive_int("n_heads", n_heads)
        self.n_layers = check_positive_int("n_layers", n_layers)
        self.max_len = check_positive_int("max_len", max_len)
        if d_model % n_heads:
            raise ValueError(f"d_model must be divisible by n_heads, got {d_model} and {n_heads}")
        self.t5_buckets = check_positive_int("t5_buckets", t5_buckets)
        self.t5_max_distance = check_positive_int("t5_max_distance", t5_max_distance)
        if t5_buckets < 2:
            raise ValueError(f"t5_buckets must be at least 2, got {t5_buckets}")
        if not causal and t5_buckets % 2:
            raise ValueError(f"t5_buckets must be even in an encoder (half per direction), got {t5_buckets}")
        exact = t5_buckets // 2 if causal else t5_buckets // 4  # t5_relative_bucket's exact range
        if t5_max_distance <= exact:
            raise ValueError(f"t5_max_distance must exceed the exact buckets' range {exact}, got {t5_max_distance}")
        if position in ("rope", "rope_nope") and (d_model // n_heads) % 2:
            raise ValueError(
                f"RoPE rotates pairs, so the head width d_model / n_heads must be even, got {d_model // n_heads}"
            )
        self.causal = bool(causal)
        fork = torch.random.fork_rng()
        with fork:
            torch.manual_seed(seed)
            self.embed = nn.Embedding(vocab_size, d_model)
            self.pos = LearnedPositionalEmbedding(max_len, d_model) if position == "learned" else None
            # T5 draws this table from N(0, 1/d) (transformers' T5PreTrainedModel._init_weights).
            self.rel_bias = nn.Parameter(torch.randn(n_heads, t5_buckets) * d_model**-0.5) if position == "t5" else None
            self.blocks = nn.ModuleList(_Block(d_model, n_heads) for _ in range(n_layers))
            self.ln_f = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab_size)
        #: Per layer, 1 where queries and keys are rotated (RoPE), 0 where not.
        self.rope_layers = (
            [1] * n_layers
            if position == "rope"
            else rope_layers(n_layers)
            if position == "rope_nope"
            else [0] * n_layers
        )
        self.rope_freqs: torch.Tensor | None = None
        self.rope_factor = 1.0
        self._constants: dict[tuple, Any] = {}  # TinyTransformer._constant
        #: ``(n_layers, n_heads)`` factors on each head's output, or None (all 1).
        #: A 0 silences a head (the ``head_mask`` argument of transformers 4's
        #: models did the same); see ``book.mechanism``.
        self.head_mask: torch.Tensor | None = None

    def set_rope_scaling(
        self,
        freqs: torch.Tensor | None = None,
        attention_factor: float = 1.0,
        *,
        rule: str | None = None,
        scale: float | None = None,
        original_max_len: int | None = None,
    ) -> None:
        """Rescale RoPE's frequencies in every layer (chapter 9).

        Either name a rule of ``book.scaling.RULES`` (``"PI"``, ``"YaRN"``, ...)
        with its ``scale`` and ``original_max_len``: the model then uses that
        rule's frequencies for its head width (base 10000) and multiplies
        queries and keys by the rule's attention factor after the rotation
        (YaRN's ``sqrt(1/t)``, LongRoPE's ``sqrt(1 + ln s / ln L)``). Or
        pass ``freqs`` (and ``attention_factor``) directly, e.g. from
        ``book.scaling.yarn_frequencies`` with other thresholds. With
        neither, RoPE's own ``10000^(-2i/h)`` is restored. The frequencies are
        fixed, whatever the input length: ``rule="LongRoPE"`` always uses its
        long set (with ``s > 1``), whereas a transformers ``longrope`` model
        uses its short set for inputs within ``original_max_len``.

        Raises:
            ValueError: if the model is not a RoPE model; ``freqs`` does not
                have one frequency per pair of a head; ``rule`` is unknown, is
                given together with ``freqs``/``attention_factor``, or lacks
                ``scale``/``original_max_len`` (or these come without ``rule``).
        """
        from .scaling import RULES

        if self.position not in ("rope", "rope_nope"):
            raise ValueError(
                f"set_rope_scaling needs a model with position='rope' or 'rope_nope', not {self.position!r}"
            )
        head = self.d_model // self.n_heads
        if rule is not None:
            rule = check_choice("rule", rule, tuple(RULES))
            if freqs is not None or attention_factor != 1.0:
                raise ValueError("give either rule or freqs/attention_factor, not both")
            if scale is None or original_max_len is None:
                raise ValueError(f"rule={rule!r} needs scale and original_max_len")
            freqs, attention_factor = RULES[rule](head, scale=scale, original_max_len=original_max_len)
        elif scale is not None or original_max_len is not None:
            raise ValueError("scale and original_max_len are only used with rule=")
        if freqs is not None and (not isinstance(freqs, torch.Tensor) or freqs.shape != (head // 2,)):
            raise ValueError(
                f"freqs must have shape (head width / 2,) = ({head // 2},), got "
                f"{getattr(freqs, 'shape', type(freqs).__name__)}"
            )
        attention_factor = check_positive_real("attention_factor", attention_factor)
        self.rope_freqs = None if freqs is None else freqs.detach().to(torch.float64)
        self._constants.clear()  # free the copies made for the old frequencies (the key tells them apart)
        self.rope_factor = attention_factor

    def position_bias(self, seq_len: int) -> torch.Tensor | None:
        """The bias ``(n_heads, n, n)`` added to the scores of query ``i`` and key ``j``.

        ALiBi: ``-m_h (i - j)``, or ``-m_h |i - j|`` for an encoder. T5: the
        learned ``rel_bias[h, bucket(j - i)]`` (key minus query, as in T5's
        ``compute_bias``; unidirectional buckets for a decoder, so keys after
        the query would share bucket 0, where the causal mask hides them).
        ``None`` for the other schemes.
        """
        if self.position == "alibi":
            return alibi_bias(self.n_heads, seq_len).to(self.head.weight.device)
        if self.position == "t5":
            assert self.rel_bias is not None
            return self.rel_bias[:, self.position_bias_buckets(seq_len)]
        return None

    def position_bias_buckets(self, seq_len: int) -> torch.Tensor:
        """T5's bucket of each (query ``i``, key ``j``) pair, ``(n, n)``:
        ``t5_relative_bucket(j - i)``, unidirectional in a decoder."""
        pos = torch.arange(seq_len)
        return t5_relative_bucket(
            pos[None, :] - pos[:, None],
            bidirectional=not self.causal,
            num_buckets=self.t5_buckets,
            max_distance=self.t5_max_distance,
        )

    def forward(
        self, tokens: torch.Tensor, *, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """Logits ``(batch, n, vocab_size)`` for integer ``tokens`` ``(batch, n)``.

        With ``return_attention=True`` also returns one ``(batch, n_heads, n, n)``
        tensor of attention weights per layer.

        Raises:
            TypeError: if ``tokens`` is not an integer tensor.
            ValueError: for a wrong shape, ids outside ``[0, vocab_size)``, or
                (learned positions) a length over ``max_len``.
        """
        tokens = self._check_tokens(tokens)
        n, device = tokens.shape[1], tokens.device
        x = self.embed(tokens)
        if self.position == "sinusoidal":
            x = x + self._constant(("sinusoidal", n, x.dtype, device), lambda: self._sinusoidal(n, x.dtype, device))
        elif self.position == "learned":
            assert self.pos is not None
            x = x + self.pos(torch.arange(n, device=device))
        bias: torch.Tensor | None = None
        mask: torch.Tensor | None = None
        if self.position == "alibi":
            alibi: torch.Tensor = self._constant(("alibi", n, device), lambda: self.position_bias(n))
            bias = alibi
            mask = self._constant(("alibi_mask", n, device), lambda: self._with_causal(alibi)) if self.causal else alibi
        elif self.position == "t5":
            assert self.rel_bias is not None
            bias = self.rel_bias[:, self._constant(("t5_buckets", n, device), lambda: self._buckets(n, device))]
            # once for every layer (it was once per layer): the same sum, and the layers' gradients
            # still meet in one sum, in the same order
            mask = self._with_causal(bias) if self.causal else bias
        rope = None
        if any(self.rope_layers):
            rope = self._constant(("rope", n, x.dtype, device), lambda: self._rope(n, x.dtype, device))
        keep: list[torch.Tensor] | None = [] if return_attention else None
        for i, block in enumerate(self.blocks):
            heads = None if self.head_mask is None else self.head_mask[i]
            turn = rope if self.rope_layers[i] else None
            x = block(x, turn, bias, mask, self.causal, keep, self.rope_factor, heads)
        logits = self.head(self.ln_f(x))
        if keep is not None:
            return logits, keep
        return logits

    def _constant(self, key: tuple, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` and kept: the tensors of a forward
        pass that depend on the input length alone (and on the model's fixed
        settings, never on its weights), which every step recomputed
        identically. Kept in a plain dict (not the ``state_dict``), emptied
        when it would hold more than ``_MAX_CONSTANTS`` entries or
        ``_MAX_CONSTANT_BYTES`` bytes, and by ``set_rope_scaling``. The key
        also holds the settings the constants are made from (``causal``, T5's
        bucketing, RoPE's frequencies by value), so that assigning one of
        these attributes directly, or changing ``rope_freqs`` in place, is
        never answered from a stale copy. Made outside
        ``torch.inference_mode``, so that a constant first made there can still
        be saved for a backward pass later."""
        key = (*key, self._settings())
        value = self._constants.get(key)
        if value is None:
            with torch.inference_mode(False):
                value = make()
            size = _nbytes(value)
            held = sum(_nbytes(v) for v in self._constants.values())
            if len(self._constants) >= _MAX_CONSTANTS or held + size > _MAX_CONSTANT_BYTES:
                self._constants.clear()
            if size <= _MAX_CONSTANT_BYTES:
                self._constants[key] = value
        return value

    def _settings(self) -> tuple:
        """The public settings the kept constants depend on, besides the input length."""
        freqs = None if self.rope_freqs is None else tuple(self.rope_freqs.tolist())
        return (self.causal, self.t5_buckets, self.t5_max_distance, freqs)

    def _sinusoidal(self, n: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        return sinusoidal_at(torch.arange(n, device=device), self.d_model, dtype=dtype)

    def _causal(self, n: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        return self._constant(("causal", n, dtype, device), lambda: causal_mask(n).to(device=device, dtype=dtype))

    def _with_causal(self, bias: torch.Tensor) -> torch.Tensor:
        """``bias`` plus the causal mask: what ``scaled_dot_product_attention`` adds to the scores."""
        return bias + self._causal(bias.shape[-1], bias.dtype, bias.device)

    def _buckets(self, n: int, device: torch.device) -> torch.Tensor:
        return self.position_bias_buckets(n).to(device)

    def _rope(self, n: int, dtype: torch.dtype, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """RoPE's ``(cos, sin)`` at positions ``0 .. n-1`` for the head width, with the
        model's frequencies: what ``apply_rope`` computes on every call."""
        return rope_cos_sin(
            torch.arange(n, device=device), self.d_model // self.n_heads, dtype=dtype, freqs=self.rope_freqs
        )

    def _check_tokens(self, tokens: torch.Tensor) -> torch.Tensor:
        if not isinstance(tokens, torch.Tensor) or tokens.is_floating_point() or tokens.dtype == torch.bool:
            raise TypeError(f"tokens must be an integer torch.Tensor, got {getattr(tokens, 'dtype', type(tokens))}")
        if tokens.dim() != 2 or tokens.shape[1] == 0:
            raise ValueError(f"tokens must have shape (batch, seq_len) with seq_len >= 1, got {tuple(tokens.shape)}")
        if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size):
            raise ValueError(f"tokens must lie in [0, vocab_size) = [0, {self.vocab_size})")
        return tokens.long()


def train(
    model: nn.Module,
    make_batch: Callable[[torch.Generator], Batch],
    *,
    steps: int,
    lr: float = 3e-3,
    seed: int = 0,
    progress: bool = False,
    callback: Callable[[int, nn.Module], None] | None = None,
    stop_loss: float | None = None,
    stop_window: int = STOP_WINDOW,
) -> list[float]:
    """Train ``model`` with AdamW on fresh batches; return the loss of each step.

    Each step draws ``make_batch(generator)`` from a generator seeded with
    ``seed`` and minimises the cross-entropy on the targets where
    ``loss_mask`` is True. The learning rate is ``lr`` times
    ``lr_schedule(steps, lr)``: a linear warm-up over the first 10% of steps
    times a cosine that falls to 0 at ``steps``. Pass ``progress=True``
    for a ``tqdm`` bar, and ``callback(step, model)`` to look at the model
    before the first step (``step = 0``) and after every step ``1 .. steps``
    (e.g. to keep snapshots of a position table).

    With ``stop_loss`` set, training stops early, after the first step at
    which the mean loss of the last ``stop_window`` steps is below
    ``stop_loss`` (``stop_rule_met``); ``steps`` is then a cap, and the
    learning-rate schedule still spans it. The length of the returned list
    is the number of steps taken. The rule needs ``stop_window`` losses, so
    with ``stop_window > steps`` it never fires and every step is taken.

    Raises:
        ValueError: for ``steps``, ``lr``, ``stop_loss`` or ``stop_window``
            that is not positive.
    """
    steps = check_positive_int("steps", steps)
    stop_loss, stop_window = _check_stop(stop_loss, stop_window)
    factor = lr_schedule(steps, lr)
    generator = torch.Generator().manual_seed(seed)
    opt = _adamw(model.parameters(), lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    loop: Sequence[int] = range(steps)
    if progress:
        from tqdm.auto import tqdm

        loop = tqdm(loop, desc="training", leave=False)
    losses = []
    model.train()
    if callback is not None:
        callback(0, model)
    for step in loop:
        batch = make_batch(generator)
        logits = model(batch.inputs)
        loss = F.cross_entropy(logits[batch.loss_mask], batch.targets[batch.loss_mask])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        schedule.step()
        losses.append(loss.item())
        if callback is not None:
            callback(step + 1, model)
        if stop_rule_met(losses, stop_loss, stop_window):
            break
    model.eval()
    return losses


def stop_rule_met(losses: Sequence[float], stop_loss: float | None, window: int = STOP_WINDOW) -> bool:
    """The early-stopping rule of ``train``: True once at least ``window``
    losses are in and their ``window_mean`` is below ``stop_loss`` (never
    True when ``stop_loss`` is None). A threshold on the training loss, not a
    test that training has converged.

    The mean over a window, not the last loss, so that one lucky batch does
    not stop training.
    """
    if stop_loss is None or len(losses) < window:
        return False
    return window_mean(losses, window) < stop_loss


def window_mean(losses: Sequence[float], window: int = STOP_WINDOW) -> float:
    """The mean of the last ``window`` losses (of all of them if fewer): what
    ``stop_rule_met`` compares with ``stop_loss``.

    Raises:
        ValueError: if ``losses`` is empty.
    """
    window = check_positive_int("window", window)
    if len(losses) == 0:
        raise ValueError("losses must hold at least one loss")
    tail = losses[-window:]
    return sum(tail) / len(tail)


def _adamw(parameters: Any, lr: float) -> torch.optim.AdamW:
    """The optimizer of every trainer here: AdamW, weight decay 0.01."""
    return torch.optim.AdamW(parameters, lr=lr, weight_decay=0.01, fused=True)


def _check_stop(stop_loss: Any, stop_window: Any) -> tuple[float | None, int]:
    """Validated ``(stop_loss, stop_window)`` for the trainers."""
    window = check_positive_int("stop_window", stop_window)
    return (None if stop_loss is None else check_positive_real("stop_loss", stop_loss)), window


def lr_schedule(steps: int, lr: float) -> Callable[[int], float]:
    """The learning-rate factor of step ``s`` (for ``LambdaLR``): a linear
    warm-up over the first 10% of ``steps`` times a cosine that falls from 1
    at step 0 to 0 at ``steps``. The two overlap, so the factor peaks at the
    end of the warm-up below 1 (0.976 for a 10% warm-up).

    Raises:
        ValueError: if ``steps`` is not a positive integer or ``lr`` is not a
            positive finite number (checked here, once, for every trainer).
    """
    steps = check_positive_int("steps", steps)
    lr = check_positive_real("lr", lr)
    warm = max(1, steps // 10)
    return lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(1.0, s / steps)))


@torch.no_grad()
def accuracy_by_position(model: nn.Module, batch: Batch) -> torch.Tensor:
    """Fraction of correct greedy next-token predictions at each target index.

    Returns a float64 tensor of shape ``(seq_len,)``, NaN where ``loss_mask``
    is False in every sequence.
    """
    model.eval()
    correct = (model(batch.inputs).argmax(-1) == batch.targets) & batch.loss_mask
    counted = batch.loss_mask.sum(0).to(torch.float64)
    acc = correct.sum(0).to(torch.float64) / counted
    return torch.where(counted > 0, acc, torch.nan)
