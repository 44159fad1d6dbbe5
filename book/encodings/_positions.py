"""Private checks of position arguments shared by the encodings."""

from __future__ import annotations

import torch

from .._validate import check_position_tensor


def _check_positions(name: str, positions: object, *, allow_float: bool) -> torch.Tensor:
    """``check_position_tensor``, plus: every position must be finite.

    A NaN or infinite position would otherwise flow silently into NaN angles
    and NaN outputs. Only floating tensors can hold one, and they are checked
    before the dtype rule, so a NaN passed where integers are required also
    raises this ``ValueError`` (finite floats there still raise ``TypeError``).
    """
    positions = check_position_tensor(name, positions, allow_float=True)
    if positions.is_floating_point():
        finite = torch.isfinite(positions)
        if not bool(finite.all()):
            bad = float(positions[~finite].flatten()[0])
            raise ValueError(f"{name} must be finite (no NaN or infinity), got {bad}")
        if not allow_float:
            check_position_tensor(name, positions, allow_float=False)
    return positions


def _check_positions_fit(positions: torch.Tensor, x: torch.Tensor) -> None:
    lead = tuple(x.shape[:-1])
    if positions.dim() == 0 or positions.shape[-1] != lead[-1]:
        raise ValueError(
            f"positions must end in the sequence length {lead[-1]} of x, got shape {tuple(positions.shape)}"
        )
    _check_broadcasts("positions", positions, lead)


def _check_broadcasts(name: str, t: torch.Tensor, lead: tuple[int, ...]) -> None:
    """``ValueError`` naming ``name`` unless ``t`` broadcasts to ``lead`` (``x.shape[:-1]``)."""
    try:
        fits = torch.broadcast_shapes(t.shape, lead) == lead
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(f"{name} of shape {tuple(t.shape)} must broadcast to x.shape[:-1] = {lead}")
