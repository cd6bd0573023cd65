"""Typed quantities: what each figure *is*, so that it is matched only to evidence of its kind.

:func:`quantity_of` reads a :class:`~ledger.figures.Figure` in its text and returns a
:class:`Quantity` with

* a **kind**: ``count`` (with its noun), ``multiplier`` (``x``, ``times``, ``-fold``, ``N-fold``,
  ``twofold``), ``percent``, ``points`` (percentage points), ``size`` (B, KB, KiB, ... and bits),
  ``rate`` (GB/s, Gb/s, TiB/min, tokens/s, req/s), ``duration``, ``power``, ``frequency``,
  ``money``, ``date``, ``year`` or a plain ``number``;
* a **unit** from the documented table :data:`UNITS` (symbol, dimension and factor to the base
  unit: bytes, bytes per second, seconds, ...). A units library (pint 0.25.3) was measured and
  not used: importing it and building its registry takes 0.24-0.50 s (median 0.36 s of five
  cold starts), a third of the 1 s budget of one ``ledger verify`` run; it reads ``Gb`` as the
  gilbert (a unit of magnetomotive force) and ``Gbps`` as gigabaud, where the desk means
  gigabits; it has no tokens; and a conversion costs about 100 us. The desk's units fit in one
  table of exact Decimal factors;
* for a count, its **noun** (head lemma and modifiers: ``500 client nodes`` -> ``node`` with
  ``client``) and the noun's class from :data:`NOUN_CLASSES` (``GPUs`` and ``accelerators`` are
  one class; ``engineers`` another);
* for a percent, its **direction** (``480% faster`` is an increase: 5.8 times; ``22% lower`` a
  decrease).

:func:`compare` says whether a figure's quantity agrees with a piece of evidence's: the same
kind with a compatible unit (converted: ``1 TiB`` = ``1024 GiB``), a percent change and a
multiplier that state the same ratio, or a count whose noun class agrees. A number that agrees
only under another unit is a ``unit`` verdict (GB/s vs Gb/s, GiB vs GB, a rate of tokens vs
one of bytes, and a size whose value in bytes is the evidence's count of tokens: ``1 MB`` for
a million tokens); a figure that is the evidence converted to a sibling unit (the other base,
bits for bytes, another SI prefix of the second) but written under another unit is
``converted``: exactly (``20 s`` for 20,000 us, which is 20 ms), or rounded at three or more
significant digits (``4.88 GB`` for 5.24 GB, which is 4.88 GiB). A conversion traces only when
it rounds to the figure within 1% (``2 Mb`` is no conversion of 256 KB, 2.048 Mb); a percent against percentage points is a ``points`` verdict; a
different kind is ``kind``.

The implementation lives in three modules, one concept each, and this module keeps every name
importable from here: :mod:`ledger.quantity_units` (kinds, the units table, noun classes and the
:class:`Quantity` record), :mod:`ledger.quantity_phrases` (reading a figure's quantity from its
prose: :func:`quantity_of`, :func:`typed_figures`) and :mod:`ledger.quantity_compare` (whether
two quantities agree: :func:`compare`, :class:`Verdict`).
"""

from __future__ import annotations

from .quantity_compare import _DIFFERENT as _DIFFERENT
from .quantity_compare import Verdict, compare
from .quantity_phrases import _typed as _typed
from .quantity_phrases import quantity_of, typed_figures, unit_end
from .quantity_units import (
    NOUN_CLASSES,
    UNITS,
    Kind,
    Quantity,
    Unit,
    declared_readings,
    defines_unit,
    lemma,
    metric_quantity,
    noun_class,
    parse_unit,
    sibling_units,
    unit_quantity,
)

__all__ = [
    "NOUN_CLASSES",
    "UNITS",
    "Kind",
    "Quantity",
    "Unit",
    "Verdict",
    "compare",
    "declared_readings",
    "defines_unit",
    "lemma",
    "metric_quantity",
    "noun_class",
    "parse_unit",
    "quantity_of",
    "sibling_units",
    "typed_figures",
    "unit_end",
    "unit_quantity",
]


