"""Figures written together in prose: the two ends of one range ("2.2 to 3.3 times") and the
values of one enumeration ("64KB, 128KB and 2MB").

A range is labelled as a whole (both ends share its words); an enumeration lists options or
settings side by side, never one result joined from two experiments.
"""

from __future__ import annotations

import re

from ..figures import Figure, FigureKind, extract_figures
from ..quantities import parse_unit

__all__ = ["enumerations", "range_spans"]


#: What joins the two ends of one range: "2.2 to 3.3 times", "14x-24x", "from 30 through 40".
_RANGE_JOIN_RE = re.compile(r"\s*(?:to|through|-|–|—)\s*")
#: "between 1.16 and 1.19": a range whose ends "between" and "and" join.
_BETWEEN_RE = re.compile(r"\bbetween\s+(?:about\s+|roughly\s+)?$", re.IGNORECASE)
_BETWEEN_AND_RE = re.compile(r"\s+and\s+")


def range_spans(body: str, figures: list[Figure]) -> dict[int, tuple[int, int]]:
    """Each figure's span for labelling, by its start: a figure that is one end of a range
    written as two figures ("2.2 to 3.3 times", "2.2x to 3.3x") takes the span of the whole
    range, so both ends are described by the same words."""
    spans = {f.start: (f.start, f.end) for f in figures}
    ordered = sorted(figures, key=lambda f: f.start)
    for a, b in zip(ordered, ordered[1:], strict=False):
        unit = parse_unit(body, a.end)
        gap_start = unit[1] if unit is not None else a.end
        if body[gap_start:gap_start + 1] in ("x", "×") and b.text.endswith(("x", "×")):
            gap_start += 1  # "2.2x to 3.3x"
        if gap_start <= b.start and (_RANGE_JOIN_RE.fullmatch(body[gap_start:b.start]) or (
                _BETWEEN_AND_RE.fullmatch(body[gap_start:b.start])
                and _BETWEEN_RE.search(body, max(0, a.start - 12), a.start))):
            joined = (spans[a.start][0], b.end)
            for f in ordered:
                if joined[0] <= f.start < joined[1]:
                    spans[f.start] = joined
    return spans


#: What separates the values of one enumeration: "64KB, 128KB, 256KB and 2MB".
_ENUM_JOIN_RE = re.compile(r"\s*(?:,\s*|,?\s+(?:and|or)\s+)")


def enumerations(text: str, offset: int) -> dict[int, int]:
    """Figure start -> start of the enumeration it is in: values of one quantity (one kind of
    figure) listed with nothing but commas, "and" or "or" between them (after each one's unit),
    but not the ends of a range ("between 1.16 and 1.19"). Values listed so are options or
    settings side by side, never one result joined from two experiments."""
    group: dict[int, int] = {}
    figures = [f for f in extract_figures(text) if f.kind is not FigureKind.date]
    for a, b in zip(figures, figures[1:], strict=False):
        unit = parse_unit(text, a.end)
        gap_start = unit[1] if unit is not None and unit[1] <= b.start else a.end
        suffix = re.match(r"[A-Za-z]+", text[gap_start:b.start])  # "32k, 64k": a suffix
        gap_start += suffix.end() if suffix else 0
        group.setdefault(offset + a.start, offset + a.start)
        # values of one quantity are of one kind: "cut waits by 37% and doubled the rate"
        # lists two results, not two values
        if a.kind is b.kind and _ENUM_JOIN_RE.fullmatch(text[gap_start:b.start]) and not (
                _BETWEEN_RE.search(text, max(0, a.start - 12), a.start)):
            # ("between 1.16 and 1.19" is a range: its two ends, not two values listed)
            group[offset + b.start] = group[offset + a.start]
    return group
