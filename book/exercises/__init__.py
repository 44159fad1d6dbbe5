"""Self-checks for the exercises: a specific hint on a wrong answer, a
confirmation on a right one.

Each check prints its verdict for the student and returns ``True`` or
``False``, so that a teacher's grading script can use it too. The rule
every check follows: it never raises on a student's answer (a string,
``None``, NaN, the wrong shape get a hint), it accepts every equivalent
form of a right answer (an int or a whole float, a list or a tensor, an
angle up to whole turns), and it names the known mistake a wrong answer
matches (``diagnose`` in ``book.exercises._feedback``). It raises only when
the call itself is wrong (the teacher's settings, not the answer).

One module per chapter holds that chapter's checks; all are importable
from here, as ``exercises.check_...``.
"""

from __future__ import annotations

from .ch01_order_blind import check_permutation_matrix
from .ch02_sinusoidal import check_base_choice, check_counter_jumps, check_wavelength
from .ch03_rotation import (
    check_attend_back_matrix,
    check_closest_shift,
    check_log_decay_drop,
    check_rotation_block,
    check_sine_only_residual,
)
from .ch04_fingerprints import check_closest_position, check_distinct_similarities, check_float_position_limit
from .ch05_learned import check_learned_vs_sinusoidal, check_position_table_size
from .ch06_rope import check_rope_angle
from .ch07_relative import check_alibi_slopes, check_read_positions, check_t5_buckets
from .ch08_extrapolation import check_alibi_neutral_weight, check_first_untrained_row, check_rope_stretch
from .ch09_long_context import check_dynamic_ntk, check_turned_pairs, check_yarn_pairs
from .ch10_todays_models import check_axial_patch, check_mrope_patch, check_prope_pairs, check_two_bases
from .ch11_numerics import check_cache_rounding_error, check_float_gaps, check_rope_traffic

__all__ = [  # in chapter order, the order of the reference page
    "check_permutation_matrix",
    "check_wavelength",
    "check_counter_jumps",
    "check_base_choice",
    "check_rotation_block",
    "check_closest_shift",
    "check_sine_only_residual",
    "check_attend_back_matrix",
    "check_log_decay_drop",
    "check_closest_position",
    "check_distinct_similarities",
    "check_float_position_limit",
    "check_position_table_size",
    "check_learned_vs_sinusoidal",
    "check_rope_angle",
    "check_alibi_slopes",
    "check_t5_buckets",
    "check_read_positions",
    "check_alibi_neutral_weight",
    "check_first_untrained_row",
    "check_rope_stretch",
    "check_yarn_pairs",
    "check_dynamic_ntk",
    "check_turned_pairs",
    "check_two_bases",
    "check_prope_pairs",
    "check_mrope_patch",
    "check_axial_patch",
    "check_float_gaps",
    "check_cache_rounding_error",
    "check_rope_traffic",
]
