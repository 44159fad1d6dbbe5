"""Train several seeds of one ``TinyTransformer`` at once, as one batched ensemble.

The weights of ``E`` models are stacked along a new first axis, every linear
layer becomes one batched matrix product over the ``E`` members
(``torch.baddbmm``), attention runs over the ``E * batch`` sequences in one
call, and one backward pass and one AdamW step update all members. This is the
"model ensembling" pattern of ``torch.func.stack_module_state``, with the
batched products written out (``vmap`` over this model was slower).

A job of ``experiments.run`` trains every seed of one scheme in one process
this way. A member that meets the stopping rule (``stop_loss``) leaves the
ensemble, so no work is spent on it.

The members share nothing. The loss is the sum of the members' own losses, so
each member receives exactly the gradient it would receive alone, and AdamW
updates every weight element by element. Training the stack is therefore the
same computation as training each model with ``book.models.train`` on its own
data stream; only the order of float additions inside the batched products
can differ, so results agree to rounding (a test checks it). ``TinyTransformer`` stays the readable reference: ``Ensemble.forward``
mirrors its ``forward`` line for line.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch
from torch import nn
from torch.nn import functional as F

from ._validate import check_positive_int
from .attention import causal_mask
from .encodings import apply_rope, sinusoidal_at
from .models import STOP_WINDOW, TinyTransformer, _adamw, _check_stop, lr_schedule, stop_rule_met
from .tasks import Batch

__all__ = ["Ensemble", "train_together"]


class Ensemble(nn.Module):
    """The weights of ``E`` same-shaped ``TinyTransformer`` models, stacked.

    Each parameter of the members becomes one parameter with a leading axis of
    size ``E`` (member ``e`` at index ``e``), under the same name with dots
    replaced by ``__``. ``forward`` runs all members at once; ``write_back``
    copies the (trained) weights into the member models.

    Args:
        members: at least one ``TinyTransformer``, all built with the same
            ``vocab_size``, ``position``, sizes and ``causal`` (only their
            seeds may differ), and without RoPE scaling.

    Raises:
        TypeError: if a member is not a ``TinyTransformer``.
        ValueError: if there are no members, or they differ in shape or scheme.
    """

    def __init__(self, members: Sequence[TinyTransformer]) -> None:
        super().__init__()
        members = list(members)
        if not members:
            raise ValueError("members must hold at least one TinyTransformer")
        for m in members:
            if not isinstance(m, TinyTransformer):
                raise TypeError(f"members must be TinyTransformer models, got {type(m).__name__}")
        first = members[0]
        shape = lambda m: (  # noqa: E731
            (m.vocab_size, m.position, m.d_model, m.n_heads, m.n_layers, m.max_len, m.causal)
            + (m.t5_buckets, m.t5_max_distance)
        )
        if any(shape(m) != shape(first) for m in members):
            raise ValueError(
                "members must share vocab_size, position, d_model, n_heads, n_layers, max_len "
                "and causal (only their seeds may differ)"
            )
        if any(m.rope_freqs is not None or m.rope_factor != 1.0 or m.head_mask is not None for m in members):
            raise ValueError(
                "members must not have RoPE scaling or a head mask set (they are for testing, not training)"
            )
        self.members = members
        self.template = first
        self.names = [name for name, _ in first.named_parameters()]
        for name in self.names:
            stacked = torch.stack([dict(m.named_parameters())[name].detach() for m in members])
            self.register_parameter(name.replace(".", "__"), nn.Parameter(stacked.clone()))

    def w(self, name: str) -> torch.Tensor:
        """The stacked parameter of the members' ``name`` (shape ``(E, ...)``)."""
        return getattr(self, name.replace(".", "__"))

    def _linear(self, x: torch.Tensor, name: str) -> torch.Tensor:
        """``x @ W_e^T + b_e`` for every member ``e``; ``x`` is ``(E, ..., in)``."""
        weight, bias = self.w(f"{name}.weight"), self.w(f"{name}.bias")
        flat = x.reshape(x.shape[0], -1, x.shape[-1])
        return torch.baddbmm(bias[:, None, :], flat, weight.transpose(1, 2)).view(*x.shape[:-1], -1)

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        """LayerNorm with each member's own scale and shift."""
        scale, shift = self.w(f"{name}.weight"), self.w(f"{name}.bias")
        extra = (1,) * (x.dim() - 2)
        y = F.layer_norm(x, x.shape[-1:])
        return y * scale.view(-1, *extra, x.shape[-1]) + shift.view(-1, *extra, x.shape[-1])

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits ``(E, batch, n, vocab_size)`` for tokens ``(E, batch, n)``
        (member ``e`` reads ``tokens[e]``), as each member's own ``forward``.

        Raises:
            TypeError / ValueError: as ``TinyTransformer.forward``, for each
                member's tokens, or if the first axis is not ``E``.
        """
        if not isinstance(tokens, torch.Tensor):
            raise TypeError(f"tokens must be an integer torch.Tensor, got {type(tokens).__name__}")
        if tokens.dim() != 3 or tokens.shape[0] != len(self.members):
            raise ValueError(
                f"tokens must have shape (E, batch, seq_len) with E = {len(self.members)}, "
                f"got {tuple(getattr(tokens, 'shape', ()))}"
            )
        m = self.template
        for t in tokens:
            m._check_tokens(t)
        n_members, b, n = tokens.shape
        positions = torch.arange(n)
        x = self.w("embed.weight")[torch.arange(n_members)[:, None, None], tokens]
        if m.position == "sinusoidal":
            x = x + sinusoidal_at(positions, m.d_model, dtype=x.dtype)
        elif m.position == "learned":
            x = x + self.w("pos.weight")[:, None, :n]
        bias = self._position_bias(n)
        for i in range(m.n_layers):
            x = self._block(x, f"blocks.{i}", positions, bias, bool(m.rope_layers[i]))
        return self._linear(self._norm(x, "ln_f"), "head")

    def _position_bias(self, n: int) -> torch.Tensor | None:
        """``(H, n, n)`` for ALiBi (the same for every member), ``(E, 1, H, n, n)``
        for T5 (each member's own table), ``None`` otherwise; causal mask included."""
        m = self.template
        bias: torch.Tensor | None
        if m.position == "alibi":
            bias = m.position_bias(n)
        elif m.position == "t5":
            buckets = m.position_bias_buckets(n)
            bias = self.w("rel_bias")[:, :, buckets][:, None]
        else:
            return None
        assert bias is not None
        return bias + causal_mask(n).to(bias.dtype) if m.causal else bias

    def _block(
        self, x: torch.Tensor, name: str, positions: torch.Tensor, bias: torch.Tensor | None, rotate: bool
    ) -> torch.Tensor:
        """One pre-LN block for every member (``TinyTransformer``'s ``_Block.forward``)."""
        m = self.template
        e, b, n, d = x.shape
        h = m.n_heads
        q, k, v = (
            self._linear(self._norm(x, f"{name}.ln1"), f"{name}.qkv")
            .view(e, b, n, 3, h, d // h)
            .permute(3, 0, 1, 4, 2, 5)
        )
        if rotate:  # RoPE in this layer (every layer for "rope", some for "rope_nope")
            q, k = apply_rope(torch.stack((q, k)), positions)
        q, k, v = (t.reshape(e * b, h, n, d // h) for t in (q, k, v))
        if bias is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=m.causal)
        else:
            mask = bias.expand(e, b, h, n, n).reshape(e * b, h, n, n) if bias.dim() == 5 else bias
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self._linear(out.view(e, b, h, n, d // h).transpose(2, 3).reshape(e, b, n, d), f"{name}.proj")
        mlp = F.gelu(self._linear(self._norm(x, f"{name}.ln2"), f"{name}.mlp.0"))
        return x + self._linear(mlp, f"{name}.mlp.2")

    @torch.no_grad()
    def write_back(self) -> list[TinyTransformer]:
        """Copy each member's stacked weights into its model; return the models."""
        for e, member in enumerate(self.members):
            for name, p in member.named_parameters():
                p.copy_(self.w(name)[e])
        return self.members


def train_together(
    members: Sequence[TinyTransformer],
    make_batch: Callable[[torch.Generator], Batch],
    *,
    steps: int,
    lr: float = 3e-3,
    seeds: Sequence[int],
    stop_loss: float | None = None,
    stop_window: int = STOP_WINDOW,
) -> list[list[float]]:
    """Train ``members`` as one ensemble; the same as ``book.models.train`` on each.

    Member ``e`` draws its batches from a generator seeded with ``seeds[e]``,
    as ``models.train(members[e], make_batch, seed=seeds[e])`` would, with the
    same AdamW settings and learning-rate schedule. Every batch of one step
    must have the same shape (true of ``local_sum`` and ``fibonacci_mod`` at a
    fixed length; not of the copy task, whose length is drawn per batch).
    The trained weights are written back into ``members``.

    With ``stop_loss`` set, each member stops by ``models.train``'s rule
    (``models.stop_rule_met``) on its own losses. A member that stops leaves the
    ensemble: the rest go on as a smaller ensemble, with their weights and
    AdamW state carried over, so the work per step shrinks with the members
    still training.

    Returns:
        One list of per-step losses per member, as ``models.train`` returns
        (with early stopping, the lists may differ in length).

    Raises:
        ValueError: for ``steps``, ``lr``, ``stop_loss`` or ``stop_window`` as
            ``models.train``, a ``seeds`` list whose length is not the number
            of members, or batches whose shapes differ between members.
    """
    steps = check_positive_int("steps", steps)
    stop_loss, stop_window = _check_stop(stop_loss, stop_window)
    factor = lr_schedule(steps, lr)
    ensemble = Ensemble(members)
    if len(seeds) != len(ensemble.members):
        raise ValueError(f"seeds must give one seed per member ({len(ensemble.members)}), got {len(seeds)}")
    generators = [torch.Generator().manual_seed(int(s)) for s in seeds]
    active = list(range(len(ensemble.members)))  # indices (into members) of those still training
    opt = _adamw(ensemble.parameters(), lr)  # models.train's, over the stacked weights
    losses: list[list[float]] = [[] for _ in ensemble.members]
    for step in range(steps):
        for group in opt.param_groups:  # what LambdaLR(opt, factor) sets in models.train
            group["lr"] = lr * factor(step)
        batches = [make_batch(generators[e]) for e in active]
        if len({bt.inputs.shape for bt in batches}) != 1:
            raise ValueError("every member's batch must have the same shape (train the copy task separately)")
        inputs, targets, mask = (torch.stack(t) for t in zip(*batches))
        logits = ensemble(inputs)
        ce = F.cross_entropy(logits.flatten(0, -2), targets.flatten(), reduction="none").view(targets.shape)
        per_member = (ce * mask).sum((1, 2)) / mask.sum((1, 2))
        opt.zero_grad(set_to_none=True)
        per_member.sum().backward()
        opt.step()
        for e, value in zip(active, per_member.tolist()):
            losses[e].append(value)
        keep = [i for i, e in enumerate(active) if not stop_rule_met(losses[e], stop_loss, stop_window)]
        if len(keep) < len(active):
            ensemble.write_back()
            if not keep:
                break
            active = [active[i] for i in keep]
            ensemble, opt = _shrink(ensemble, opt, keep, lr)
    ensemble.write_back()
    for m in members:
        m.eval()
    return losses


def _shrink(
    ensemble: Ensemble, opt: torch.optim.AdamW, keep: Sequence[int], lr: float
) -> tuple[Ensemble, torch.optim.AdamW]:
    """A new ensemble of the members at ``keep`` (weights already written
    back), with the AdamW state of those members carried over."""
    smaller = Ensemble([ensemble.members[i] for i in keep])
    new_opt = _adamw(smaller.parameters(), lr)  # its learning rate is set before every step
    index = torch.tensor(list(keep))
    for name in ensemble.names:
        state = opt.state[ensemble.w(name)]
        new_opt.state[smaller.w(name)] = {k: v.clone() if v.dim() == 0 else v[index].clone() for k, v in state.items()}
    return smaller, new_opt
