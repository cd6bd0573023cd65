"""Percentage points written as percent: a percent that is the *difference* of two percents.

"30% of requests hit at first and 45% later, a rise of 15%" states 15 percentage points as a
percent (45% is 50% more than 30%). When a body percent traces to nothing and one piece of
evidence states two percents whose difference is that number (at the figure's printed
precision), the figure is a difference in points written as a relative change: a
``percentage-points`` finding that names the two percents, not an ``untraced-figure``.

Only pairs stated in the *same* piece of evidence (one fact, one inference claim, one
computation's results) count: they are two values of one quantity ("30% to 45%"), so their
difference is a meaningful gap; two percents from unrelated facts are not. The gaps are
computed once per evidence index and looked up by bisection, so the cost stays linear in the
body; a piece of evidence with more than :data:`MAX_PER_ITEM` percents adds no gaps.

The other way round, a body figure in percentage points that is such a gap ("12 percentage
points apart" for 62% and 74%) traces to the evidence that states the two percents.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from typing import Generic, TypeVar

from ..figures import quantize

__all__ = ["MAX_PER_ITEM", "Gap", "Gaps"]

T = TypeVar("T")

#: A piece of evidence with more percents than this is a table, not a pair to subtract.
MAX_PER_ITEM = 12


@dataclass(frozen=True)
class Gap(Generic[T]):
    """``high - low`` of two percents stated in one piece of evidence, ``where``."""

    difference: Decimal
    high: Decimal
    low: Decimal
    where: T


class Gaps(Generic[T]):
    """Every difference of two percents stated in one piece of evidence, sorted."""

    def __init__(self, values: Iterable[tuple[Decimal, T]]) -> None:
        by_item: dict[T, set[Decimal]] = defaultdict(set)
        for value, where in values:
            by_item[where].add(value)
        gaps: list[Gap[T]] = []
        for where, found in by_item.items():
            if len(found) > MAX_PER_ITEM:
                continue
            for a, b in combinations(sorted(found), 2):
                if b - a > 0:
                    gaps.append(Gap(b - a, b, a, where))
        self._gaps = sorted(gaps, key=lambda g: g.difference)
        self._keys = [g.difference for g in self._gaps]

    def find(self, value: Decimal, decimals: int) -> Gap[T] | None:
        """A gap that rounds half-up to ``value`` at ``decimals`` places, if any."""
        half = Decimal(1).scaleb(-decimals) / 2
        i = bisect_left(self._keys, value - half)
        while i < len(self._gaps) and self._keys[i] <= value + half:
            if quantize(self._keys[i], decimals) == value:
                return self._gaps[i]
            i += 1
        return None
