"""Whether a figure's typed quantity agrees with a piece of evidence's (:func:`compare`) and,
when it does not, why (:class:`Verdict`): value, unit, conversion, kind, noun or modifier. Split
from :mod:`ledger.quantities` (which re-exports these names) to keep one concept a module."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

from .figures import quantize
from .quantity_phrases import _ANAPHORIC
from .quantity_units import Kind, Quantity, noun_class, sibling_units

__all__ = [
    "Verdict",
    "compare",
]


class Verdict(str, Enum):
    """How a figure stands against one piece of evidence."""

    match = "match"
    unit = "unit"  # same number under another unit (GB vs GiB, Gb/s vs GB/s, bytes vs tokens)
    converted = "converted"  # the evidence converted to a sibling unit, written in the wrong one
    points = "points"  # percent against percentage points
    hundredfold = "hundredfold"  # "480% faster" for 4.8 times: a multiplier as a whole change
    kind = "kind"  # same number, different kind of quantity
    noun = "noun"  # a count of another class of thing
    modifier = "modifier"  # a count of the same thing, differently qualified
    #: a count of another thing, neither known to the class table ("16 heads" against 16
    #: datasets): probably a count moved onto another noun, but a synonym cannot be ruled out
    other_noun = "other_noun"
    value = "value"  # different number


def _eq(candidate: Decimal, value: Decimal, decimals: int) -> bool:
    """The candidate rounds half-up to the figure; or, for a figure printed with decimals, the
    candidate lies exactly halfway between the figure and its next value up: a printed 0.0855
    is itself rounded (1 / 11.7 = 0.08547), so "0.085" and "0.086" both agree with it."""
    return quantize(candidate, decimals) == value or _midpoint(candidate, value, decimals)


def _midpoint(candidate: Decimal, value: Decimal, decimals: int) -> bool:
    """The candidate is exactly halfway above the figure, which has decimals (see _eq)."""
    return 0 < decimals < len(_HALF_QUANTA) and candidate - value == _HALF_QUANTA[decimals]


#: Half of one unit in the last place, for each number of decimals.
_HALF_QUANTA = tuple(Decimal(5).scaleb(-d - 1) for d in range(16))


def _close(converted: Decimal, value: Decimal, decimals: int) -> bool:
    """A converted ratio agrees when it rounds to the figure *and* lies within 1% of it: a
    conversion at whole-number precision must not turn a coincidence into a trace (84% lower
    is 6.25 times, not "6 times")."""
    return _eq(converted, value, decimals) and abs(converted - value) <= abs(value) / 100


def _percent_as_multiplier(p: Decimal, direction: str | None) -> list[Decimal]:
    if direction == "increase":
        return [1 + p / 100]
    if direction == "decrease" and p < 100:
        return [1 / (1 - p / 100)]
    return []


#: Noun classes of people: a count of people traces only to a count (of people), never to a bare
#: number that happens to share its value.
_PEOPLE = frozenset({"person", "author"})
#: Counts that never trace to a bare number: people, and repetitions ("ran each test 4 times"
#: is no "4-bit" or "4 of 5"; a source that counts runs says "4 runs" or "four times").
_NEVER_BARE = _PEOPLE | {"repetition"}


#: ``Verdict.value``, bound once: a member named ``value`` is looked up through the enum's
#: ``value`` property on every access, and compare returns it for most pairs it sees.
_DIFFERENT = Verdict.value
#: Kinds that a bare number never stands for.
_SIGNED_KINDS = (Kind.percent, Kind.points, Kind.money)


def compare(fig: Quantity, value: Decimal, ev_value: Decimal, ev: Quantity | None,
            ev_percent: bool, *, quantized: Decimal | None = None) -> Verdict:
    """The verdict of one value of a figure against one evidence value.

    ``quantized`` is ``ev_value`` rounded to the figure's decimals (:func:`quantize`), when the
    caller has it: tracing compares every figure with every piece of evidence and rounds each
    piece once per precision instead of once per comparison."""
    d = fig.decimals
    if ev is None:  # evidence of unknown kind (a reported metric, a computation value)
        return _against_untyped(fig, value, ev_value, ev_percent, quantized)
    same = _same(ev_value, value, d, quantized)
    # kinds are compared by identity, not as sets: compare runs for every figure against every
    # piece of evidence, and hashing enum members is most of its cost
    fk, ek = fig.kind, ev.kind
    if not same and fig.unit is None and ev.unit is None and not (
            fk is Kind.percent or fk is Kind.points or fk is Kind.multiplier
            or ek is Kind.percent or ek is Kind.multiplier):
        # (every verdict below but a conversion's needs the same number; a conversion needs
        # a percent, points, a multiplier, a unit or a count of tokens against bytes)
        return _DIFFERENT
    if fk is Kind.percent and ek is Kind.percent:
        return Verdict.match if same else _DIFFERENT
    if fk is Kind.points and ek is Kind.points:
        return Verdict.match if same else _DIFFERENT
    if (fk is Kind.percent and ek is Kind.points) or (fk is Kind.points and ek is Kind.percent):
        return Verdict.points if same else _DIFFERENT
    if fig.kind is Kind.points and ev.kind is Kind.multiplier:
        # "cut the wait by 97.6 percentage points" for a 41x cut: the change as a percent,
        # written as points (a wait is no percentage); either direction, within 1%
        changes = [p for way in ("increase", "decrease") for p in _multiplier_as_percent(
            ev_value, fig.direction or way)]
        return Verdict.points if any(_close(c, value, d) for c in changes) else _DIFFERENT
    if fig.kind is Kind.percent and ev.kind is Kind.multiplier:
        ok = any(_close(ev_to, value, d)
                 for ev_to in _multiplier_as_percent(ev_value, fig.direction))
        if ok:
            return Verdict.match
        if fig.direction is not None and _eq(ev_value * 100, value, d):
            # "480% faster" for 4.8 times: the multiplier written as a change in percent
            # without taking the whole away (4.8 times is 380% faster)
            return Verdict.hundredfold
        return Verdict.kind if same or _eq(ev_value * 100, value, d) else _DIFFERENT
    if fig.kind is Kind.multiplier and ev.kind is Kind.percent:
        ok = any(_close(m, value, d) for m in _percent_as_multiplier(ev_value, ev.direction))
        return Verdict.match if ok else (Verdict.kind if same else _DIFFERENT)
    if fig.kind is Kind.percent and ev.kind is Kind.number and ev_value <= 1:
        return Verdict.match if _eq(ev_value * 100, value, d) else _DIFFERENT
    if fk is Kind.money and ek is Kind.money and fig.noun and ev.noun and fig.noun != ev.noun:
        return Verdict.unit if same else _DIFFERENT  # "€1,667" for $1,667: another currency
    if (tokens := _tokens_against_bytes(fig, value, ev, ev_value)) is not None:
        return tokens
    if fig.unit is not None and ev.unit is not None:
        return _units(fig, value, ev_value, ev)
    if fig.kind is Kind.count and ev.kind is Kind.count:
        return _counts(fig, ev) if same else _DIFFERENT
    if fk is Kind.multiplier and ek is Kind.multiplier and fig.of_time and ev_value > 1:
        # "takes half as long" after a 2x speed-up: the time left is the reciprocal
        return Verdict.match if same or _close(1 / ev_value, value, d) else _DIFFERENT
    if fig.kind is ev.kind:
        return Verdict.match if same else _DIFFERENT
    if fig.kind is Kind.multiplier and ev.kind is Kind.number:
        return Verdict.kind if same else _DIFFERENT  # "eightfold" is not "parallelism of 8"
    if fig.kind is Kind.count and fig.noun_class in _NEVER_BARE and ev.kind is Kind.number:
        return Verdict.noun if same else _DIFFERENT  # "16 maintainers" is no bare 16
    if fig.kind is Kind.count and ev.kind is Kind.number and ev.named and same:
        return _against_named(fig, ev.named)
    if (fk is Kind.number or ek is Kind.number) and not (
            fk in _SIGNED_KINDS or ek in _SIGNED_KINDS):
        return Verdict.match if same else _DIFFERENT  # an untyped side: the value decides
    if fig.kind is Kind.year and ev.kind is Kind.number:
        return Verdict.match if same else _DIFFERENT
    return Verdict.kind if same else _DIFFERENT


def _multiplier_as_percent(m: Decimal, direction: str | None) -> list[Decimal]:
    if direction == "increase":
        return [(m - 1) * 100]
    if direction == "decrease" and m > 1:
        return [(1 - 1 / m) * 100]
    return []


def _against_untyped(fig: Quantity, value: Decimal, ev_value: Decimal, ev_percent: bool,
                     quantized: Decimal | None) -> Verdict:
    d = fig.decimals
    if fig.kind in (Kind.percent, Kind.points):
        # the evidence's own value first, then what it means as a percent
        others = [] if ev_percent else [ev_value * 100]
        if not ev_percent and fig.direction == "increase" and ev_value > 1:
            # "480% faster" against a bare 4.8: a multiplier, so 380% faster, not 480%
            others = [(ev_value - 1) * 100]
        same = _same(ev_value, value, d, quantized)
        return Verdict.match if same or any(_eq(c, value, d) for c in others) else _DIFFERENT
    if ev_percent:  # a percent metric is never a plain count or multiplier
        return Verdict.match if _eq(ev_value / 100, value, d) and fig.kind is Kind.number \
            else _DIFFERENT
    return Verdict.match if _same(ev_value, value, d, quantized) else _DIFFERENT


def _same(ev_value: Decimal, value: Decimal, decimals: int, quantized: Decimal | None) -> bool:
    """``_eq(ev_value, value, decimals)``, from ``quantized`` (the evidence value already
    rounded to ``decimals`` places) when the caller has it."""
    if quantized is None:
        return _eq(ev_value, value, decimals)
    # a midpoint rounds up, so only a value rounded above the figure can be one
    return quantized == value or (quantized > value and _midpoint(ev_value, value, decimals))


def _tokens_against_bytes(fig: Quantity, value: Decimal, ev: Quantity, ev_value: Decimal
                          ) -> Verdict | None:
    """A count of tokens against a size in bytes, either way round: the same printed number
    ("512 KB" for 512 tokens) or the same number once the size is in bytes ("1 MB" for a
    million tokens, "4 million bytes" for 4 million tokens) is a changed unit; otherwise None
    (the other rules decide)."""
    for a, av, b, bv in ((fig, value, ev, ev_value), (ev, ev_value, fig, value)):
        if (a.unit is not None and a.unit.dimension == "bytes" and a.unit.factor is not None
                and b.kind is Kind.count and b.noun_class == "token" and bv != 0):
            in_bytes = abs(av * a.unit.factor - bv) <= abs(bv) / 1000
            return Verdict.unit if in_bytes or _eq(ev_value, value, fig.decimals) else None
    return None


def _significant(value: Decimal, decimals: int) -> int:
    digits = value.copy_abs().quantize(Decimal(1).scaleb(-decimals)).as_tuple().digits
    return len("".join(map(str, digits)).lstrip("0"))


#: Electrical dimensions an editor confuses by the unit alone: power, energy, current, voltage.
_ELECTRIC = frozenset({"W", "Wh", "A", "V"})


def _units(fig: Quantity, value: Decimal, ev_value: Decimal, ev: Quantity) -> Verdict:
    assert fig.unit is not None and ev.unit is not None
    d = fig.decimals
    if fig.unit.dimension != ev.unit.dimension:
        if {fig.unit.dimension, ev.unit.dimension} <= {"bytes", "bytes/s"}:
            return Verdict.kind  # a size is never a rate
        if "/" in fig.unit.dimension and "/" in ev.unit.dimension and _eq(ev_value, value, d):
            return Verdict.unit  # "300 tokens/s" for 300 GB/s: a rate in another unit
        if {fig.unit.dimension, ev.unit.dimension} <= _ELECTRIC and _eq(ev_value, value, d):
            return Verdict.unit  # "100 kWh" for 100 kW, "20,833 watts" for 20,833 amps
        return Verdict.kind if _eq(ev_value, value, d) else Verdict.value
    same = fig.unit.symbol == ev.unit.symbol or (  # "seconds" and "s" are one unit
        fig.unit.factor is not None and fig.unit.factor == ev.unit.factor)
    if same and _eq(ev_value, value, d):
        return Verdict.match
    if not same and fig.unit.factor is not None and ev.unit.factor is not None:
        converted = ev_value * ev.unit.factor / fig.unit.factor
        if _close(converted, value, d):  # 256 KB is 2.048 Mb: "2 Mb" is no conversion of it
            return Verdict.match
    if not same and _eq(ev_value, value, d):
        return Verdict.unit
    if ev.unit.factor is not None and any(
            ev_value * ev.unit.factor / s.factor == value  # "20 s" for 20,000 us (20 ms)
            or (_significant(value, d) >= 3 and _eq(ev_value * ev.unit.factor / s.factor,
                                                      value, d))
            for s in sibling_units(fig.unit) if s.factor is not None):
        return Verdict.converted  # "4.88 GB" for 5.24 GB: converted to GiB, written GB
    return Verdict.value


def _counts(fig: Quantity, ev: Quantity) -> Verdict:
    if fig.noun == ev.noun or fig.noun is None or ev.noun is None or (
            fig.noun in _ANAPHORIC or ev.noun in _ANAPHORIC):
        return _modifiers(fig, ev)
    a, b = fig.noun_class, ev.noun_class
    if a is not None and a == b:
        return Verdict.match
    if a is not None and b is not None:
        return Verdict.noun
    if fig.noun in ev.modifiers or ev.noun in fig.modifiers:
        return Verdict.match  # "500 clients" and "500 client nodes"
    if a is None and b is None:  # two nouns the table does not know: unsure, unless one
        # is the other's stem ("sub-scenarios" and "scenarios")
        return Verdict.match if _same_stem(fig.noun, ev.noun) else Verdict.other_noun
    return Verdict.noun


#: Settings whose value is a count of GPUs or nodes: "tensor parallelism of 8" is 8 GPUs.
_HARDWARE_SETTINGS = frozenset({"parallelism", "degree", "way", "tp", "pp", "ep", "dp",
                                "world", "rank"})


def _against_named(fig: Quantity, named: tuple[str, ...]) -> Verdict:
    """A count of hardware against the bare value of a named setting ("64 GPUs" against
    "batch size 64"): a size, a batch or a rank is counted in tokens, requests or dimensions,
    never in GPUs or nodes, so the count has probably moved onto the hardware (unsure: the
    checker reads the setting by its name). The same thing when the name holds the count's
    noun or its class, or the setting is a parallel degree (GPUs). Any other count may be the
    setting's unit ("512 tokens" for a block size of 512): the value decides."""
    if fig.noun_class not in ("gpu", "node") or named[-1] in _HARDWARE_SETTINGS:
        return Verdict.match
    if fig.noun in named or any(noun_class(w) == fig.noun_class for w in named):
        return Verdict.match
    return Verdict.other_noun


def _same_stem(a: str, b: str) -> bool:
    """One noun ends with the other ("sub-scenario", "scenario"; "microbatch", "batch")."""
    a, b = a.lower(), b.lower()
    return a.endswith(b) or b.endswith(a)


def _modifiers(fig: Quantity, ev: Quantity) -> Verdict:
    if fig.modifiers and ev.modifiers and not _words(fig.modifiers) & _words(ev.modifiers):
        return Verdict.modifier
    return Verdict.match


def _words(modifiers: tuple[str, ...]) -> set[str]:
    """The words of the modifiers, a hyphenated one split: "GenAI-capable smartphones" and
    "GenAI capable smartphones" qualify the count alike."""
    return {w for m in modifiers for w in m.split("-") if w}
