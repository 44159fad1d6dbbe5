"""book.encodings, the package: it re-exports its modules' public names."""

from __future__ import annotations

import importlib

from book import encodings as enc


def test_the_package_re_exports_every_public_name_of_its_modules():
    """``from book import encodings`` gives every scheme module's public API."""
    for name in (
        "sinusoidal",
        "sinusoidal_geometry",
        "learned",
        "rope",
        "rope_variants",
        "rope_2d",
        "alibi",
        "t5",
        "relative",
        "position_ids",
    ):
        module = importlib.import_module(f"book.encodings.{name}")
        missing = set(module.__all__) - set(enc.__all__)
        assert not missing, f"book.encodings does not re-export {sorted(missing)} from {name}"
        for public in module.__all__:
            assert getattr(enc, public) is getattr(module, public)
