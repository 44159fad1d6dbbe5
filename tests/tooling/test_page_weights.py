"""The page-weight baseline that the browser test's summary prints beside each page."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import PAGE_WEIGHT_BASELINE, weight_change

ROOT = Path(__file__).resolve().parents[2]


def test_baseline_has_a_first_visit_for_pages_of_the_table_of_contents():
    data = json.loads(PAGE_WEIGHT_BASELINE.read_text(encoding="utf-8"))
    assert data["measured"] and data["unit"]
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    assert toc["root"] in data["pages"]
    assert all(isinstance(v, int) and 100_000 < v < 3 * 1024 * 1024 for v in data["pages"].values())


def test_weight_change_prints_baseline_and_change_or_new():
    line = weight_change("intro", 1_100, {"intro": 1_000})
    assert "1,000 B" in line and "+100 B" in line and "+10.0%" in line
    assert "-50 B" in weight_change("intro", 950, {"intro": 1_000})
    assert weight_change("notebooks/12_new", 1_000, {"intro": 1_000}).endswith("new")
