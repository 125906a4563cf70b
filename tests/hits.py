"""Rule hit rates measured by the tests (the share of boards where removing a rule changes the optimum),
printed at the end of the run by conftest.py."""
from __future__ import annotations

RATES: dict[str, tuple[int, int]] = {}
FLOOR = 0.2       # each rule must decide the optimum on at least this share of its boards


def record(rule: str, hits: int, boards: int) -> float:
    RATES[rule] = (hits, boards)
    return hits / boards
