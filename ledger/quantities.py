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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import Enum
from functools import lru_cache

from .figures import Figure, FigureKind, extract_figures, quantize

__all__ = [
    "NOUN_CLASSES",
    "UNITS",
    "Kind",
    "Quantity",
    "Unit",
    "Verdict",
    "compare",
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


class Kind(Enum):
    count = "count"
    multiplier = "multiplier"
    percent = "percent"
    points = "points"
    size = "size"
    rate = "rate"
    duration = "duration"
    power = "power"
    frequency = "frequency"
    money = "money"
    date = "date"
    year = "year"
    number = "number"


@dataclass(frozen=True)
class Unit:
    """``symbol`` as written in the table; ``dimension`` (``bytes``, ``bytes/s``, ``s``,
    ``tokens/s``...); ``factor`` to the dimension's base unit (None: no exact conversion, such
    as months); ``family`` tells bits from bytes and decimal from binary prefixes."""

    symbol: str
    dimension: str
    factor: Decimal | None
    family: str = ""


_DEC = {"": 0, "K": 3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15}
_BIN = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50}
_TIME = {"ms": Decimal("0.001"), "s": Decimal(1), "sec": Decimal(1), "min": Decimal(60),
         "h": Decimal(3600), "hr": Decimal(3600)}


def _build_units() -> dict[str, Unit]:
    units: dict[str, Unit] = {}
    sizes: dict[str, tuple[Decimal, str]] = {}
    for p, e in _DEC.items():
        if p == "k":
            continue
        sizes[f"{p}B"] = (Decimal(10) ** e, "byte-dec")
        sizes[f"{p}b"] = (Decimal(10) ** e / 8, "bit-dec")
    for p, e in _BIN.items():
        sizes[f"{p}B"] = (Decimal(2) ** e, "byte-bin")
        sizes[f"{p}b"] = (Decimal(2) ** e / 8, "bit-bin")
    del sizes["b"]  # a bare "b" is too often a letter
    for sym, (factor, fam) in sizes.items():
        units[sym] = Unit(sym, "bytes", factor, fam)
        for t, tf in _TIME.items():
            units[f"{sym}/{t}"] = Unit(f"{sym}/{t}", "bytes/s", factor / tf, fam)
    for p, e in _DEC.items():
        if p and p != "k":
            units[f"{p}bps"] = Unit(f"{p}b/s", "bytes/s", Decimal(10) ** e / 8, "bit-dec")
            units[f"{p}Bps"] = Unit(f"{p}B/s", "bytes/s", Decimal(10) ** e, "byte-dec")
    words = {"bytes": "B", "kilobytes": "KB", "megabytes": "MB", "gigabytes": "GB",
             "terabytes": "TB", "petabytes": "PB", "kibibytes": "KiB", "mebibytes": "MiB",
             "gibibytes": "GiB", "tebibytes": "TiB", "gigabits": "Gb", "terabits": "Tb",
             "megabits": "Mb"}
    for word, sym in words.items():
        units[word] = units[sym]
        units[word.rstrip("s")] = units[sym]
    for p in ("K", "M", "G", "T"):  # "an 8Gbit die", "25 Gbit/s"
        for suffix in ("", *(f"/{t}" for t in _TIME)):
            units[f"{p}bit{suffix}"] = units[f"{p}b{suffix}"]
    for word in ("bit", "bits"):  # "1 byte = 8 bits"
        units[word] = Unit("bit", "bytes", Decimal(1) / 8, "bit-dec")
    for name, dim in (("tokens", "tokens/s"), ("tok", "tokens/s"), ("token", "tokens/s"),
                      ("req", "requests/s"), ("requests", "requests/s"),
                      ("request", "requests/s"), ("queries", "requests/s")):
        for t, tf in _TIME.items():
            units[f"{name}/{t}"] = Unit(f"{dim.split('/')[0]}/{t}", dim, 1 / tf)
    for sym in ("QPS", "RPS"):
        units[sym] = Unit("requests/s", "requests/s", Decimal(1))
    durations = {"ns": Decimal("1e-9"), "us": Decimal("1e-6"), "µs": Decimal("1e-6"),
                 "μs": Decimal("1e-6"), "ms": Decimal("1e-3"), "s": Decimal(1),
                 "sec": Decimal(1), "secs": Decimal(1), "second": Decimal(1),
                 "seconds": Decimal(1), "min": Decimal(60), "mins": Decimal(60),
                 "minute": Decimal(60), "minutes": Decimal(60), "h": Decimal(3600),
                 "hr": Decimal(3600), "hrs": Decimal(3600), "hour": Decimal(3600),
                 "hours": Decimal(3600), "day": Decimal(86400), "days": Decimal(86400),
                 "week": Decimal(604800), "weeks": Decimal(604800),
                 "millisecond": Decimal("1e-3"), "milliseconds": Decimal("1e-3"),
                 "microseconds": Decimal("1e-6"), "nanoseconds": Decimal("1e-9")}
    for sym, factor in durations.items():
        units[sym] = Unit(sym, "s", factor)
    for sym in ("month", "months", "year", "years"):
        units[sym] = Unit(sym.rstrip("s"), "calendar", None)
    for sym, power in (("W", 0), ("kW", 3), ("MW", 6)):
        units[sym] = Unit(sym, "W", Decimal(10) ** power)
    for sym, power in (("Hz", 0), ("MHz", 6), ("GHz", 9)):
        units[sym] = Unit(sym, "Hz", Decimal(10) ** power)
    for p, power in (("", 0), ("G", 9), ("T", 12), ("P", 15), ("E", 18)):
        # compute rate: "740 TFLOPs/s", "1.2 PFLOPS", "989 TFLOP/s" are one unit each; the
        # plural "FLOPs" without "/s" is written for the rate as often as for a count
        unit = Unit(f"{p}FLOP/s", "flop/s", Decimal(10) ** power)
        for spelling in ("FLOPS", "FLOPs", "FLOP/s", "FLOPs/s", "FLOPS/s", "flops", "flop/s"):
            if p or spelling in ("FLOPS", "FLOP/s", "FLOPs/s"):  # "3 FLOPs per byte": a count
                units[p + spelling] = unit
    return units


#: Every unit the checker reads, by the spelling written after a number.
UNITS: dict[str, Unit] = _build_units()
_DIMENSION_KIND = {"bytes": Kind.size, "bytes/s": Kind.rate, "tokens/s": Kind.rate,
                   "requests/s": Kind.rate, "s": Kind.duration, "calendar": Kind.duration,
                   "W": Kind.power, "Hz": Kind.frequency, "flop/s": Kind.rate}
_UNIT_ALTERNATION = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_UNIT_RE = re.compile(rf"\+?\s?(?P<u>{_UNIT_ALTERNATION})(?![\w/])"
                      rf"|\s(?:[A-Za-z]+\s+)?(?P<per>[\w]+)\s+(?:per|a|an|each)\s+"
                      rf"(?P<t>second|minute|hour)\b")
_PER = {"second": "s", "minute": "min", "hour": "h"}

#: Noun classes: nouns in one class count the same kind of thing (lemmas, singular).
NOUN_CLASSES: dict[str, frozenset[str]] = {
    "gpu": frozenset({"gpu", "accelerator", "card", "device", "chip", "h100", "h200", "a100",
                      "b200", "gb200", "gb300", "mi300x", "l40", "l40s", "tpu"}),
    "node": frozenset({"node", "server", "machine", "host", "box"}),
    "instance": frozenset({"instance", "replica", "worker", "engine", "pod"}),
    "person": frozenset({"engineer", "employee", "people", "person", "staff", "researcher",
                         "developer", "customer", "user", "maintainer", "member",
                         "committer", "founder", "hire"}),
    "author": frozenset({"author", "co-author", "coauthor", "colleague", "contributor"}),
    "token": frozenset({"token"}),
    "request": frozenset({"request", "query", "completion", "prompt", "call", "context"}),
    "session": frozenset({"session", "conversation", "dialogue", "dialog", "chat"}),
    "turn": frozenset({"turn"}),
    "repetition": frozenset({"time", "trial", "repetition", "run", "rerun", "iteration",
                             "round", "repeat"}),
    "ssd": frozenset({"ssd", "disk", "drive", "nvme"}),
    "nic": frozenset({"nic", "port", "link", "adapter"}),
    "layer": frozenset({"layer"}),
    "block": frozenset({"block", "page", "chunk"}),
    "core": frozenset({"core", "cpu", "vcpu", "thread"}),
}
_CLASS_OF = {lemma: name for name, lemmas in NOUN_CLASSES.items() for lemma in lemmas}
_STOP = frozenset({
    "of", "on", "in", "to", "with", "and", "or", "for", "per", "at", "from", "by", "that",
    "which", "the", "a", "an", "than", "as", "is", "are", "was", "were", "each", "into",
    "over", "across", "under", "using", "while", "when", "where", "but", "not", "its",
    "their", "his", "her", "it", "this", "these", "those", "more", "less", "fewer",
    "lower", "higher", "faster", "slower", "times", "out", "up", "down", "about", "after",
    "before", "between", "behind", "against", "through", "spread", "without", "within",
    # adverbs and conjunctions end a noun phrase too: "the two named here plus ten others"
    "here", "there", "plus", "minus", "also", "only", "then", "now",
})
_WORD_RE = re.compile(r"\s*(?P<w>[A-Za-z][\w'-]*)")
#: Verbs in the third person that look like plural nouns right after a number ("15% to 580
#: gives 667", "the 2x means"): the number counts nothing.
_VERBS_S = frozenset({"gives", "leaves", "means", "takes", "makes", "needs", "yields",
                      "remains", "becomes", "equals", "puts", "sits", "stays", "holds",
                      "reaches", "comes", "goes", "does", "seems", "implies", "suggests",
                      "exceeds", "brings"})
_INCREASE = re.compile(r"\s*(?:faster|higher|more|greater|larger|better|bigger|quicker"
                       r"|improvement|increase|gain|speed-?up|boost|uplift|rise)\b", re.I)
_DECREASE = re.compile(r"\s*(?:lower|less|fewer|smaller|shorter|slower|cheaper|reduction"
                       r"|decrease|cut|drop|saving|savings|decline|fall)\b", re.I)
_BEFORE_INCREASE = re.compile(r"\b(?:rose|rises|rise|increased?|increases|improved?|improves"
                              r"|grew|grows|gains?|boosts?|up)\s+(?:by\s+)?$", re.I)
_BEFORE_DECREASE = re.compile(r"\b(?:fell|falls|fall|dropped|drops|drop|cuts?|reduced?"
                              r"|reduces|declined?|declines|down|shrank|shrinks|lowered"
                              r"|lowers)\s+(?:by\s+)?$", re.I)


@dataclass(frozen=True)
class Quantity:
    """A figure's kind, unit, noun and direction; ``values`` as printed, ``decimals`` their
    precision."""

    kind: Kind
    values: tuple[Decimal, ...] = ()
    decimals: int = 0
    unit: Unit | None = None
    noun: str | None = None
    modifiers: tuple[str, ...] = ()
    direction: str | None = None  # "increase" / "decrease" for a percent change
    spelled: bool = False
    #: the lemmas of the name written before a bare number, its head last ("a batch size of
    #: 64", "rank 32"): what the number is a setting of
    named: tuple[str, ...] = ()
    #: a multiplier below one of a time ("half as long", "0.25x the latency"): what is left
    #: of the time after a speed-up, whose reciprocal it is
    of_time: bool = False

    @property
    def noun_class(self) -> str | None:
        return noun_class(self.noun) if self.noun else None

    def describe(self) -> str:
        """``count of GPUs``, ``rate in GB/s``, ``percent (decrease)``..."""
        if self.kind is Kind.count and self.noun:
            mods = " ".join(self.modifiers)
            return f"count of {(mods + ' ') if mods else ''}{self.noun}s"
        if self.named:
            return f"value of the {' '.join(self.named)}"
        if self.unit is not None:
            return f"{self.kind.value} in {self.unit.symbol}"
        if self.direction:
            return f"{self.kind.value} ({self.direction})"
        return self.kind.value

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.kind.value}
        if self.unit is not None:
            data["unit"] = self.unit.symbol
        if self.noun:
            data["noun"] = self.noun
        if self.direction:
            data["direction"] = self.direction
        return data


@lru_cache(maxsize=8192)
def lemma(word: str) -> str:
    """A crude singular lemma: ``GPUs`` -> ``gpu``, ``queries`` -> ``query``."""
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "is")) and w not in _KEEP_S and len(w) > 2:
        return w[:-1]
    return w


_KEEP_S = frozenset({"status", "corpus", "campus", "bonus", "virus", "bus", "census", "focus",
                     "nexus", "consensus", "this", "its", "was", "has", "is", "us"})


def noun_class(noun: str) -> str | None:
    """The class of a noun lemma (``accelerator`` -> ``gpu``), or None when unknown."""
    key = noun.lower()
    if key in _CLASS_OF:
        return _CLASS_OF[key]
    for prefix in ("h100", "h200", "a100", "b200", "gb200", "gb300", "mi3"):
        if key.startswith(prefix):
            return "gpu"
    return None


def parse_unit(text: str, end: int) -> tuple[Unit, int] | None:
    """The unit written right after a number ending at ``end``, and where it ends."""
    m = _UNIT_RE.match(text, end)
    if m is None:
        return None
    if m.group("u"):
        return UNITS[m.group("u")], m.end()
    per = m.group("per")
    key = f"{per}/{_PER[m.group('t')]}"
    unit = UNITS.get(key) or UNITS.get(f"{_unit_symbol(per)}/{_PER[m.group('t')]}")
    return (unit, m.end()) if unit else None


def _unit_symbol(word: str) -> str:
    unit = UNITS.get(word)
    return unit.symbol if unit else word


def _noun_phrase(text: str, end: int) -> tuple[str | None, tuple[str, ...]]:
    """Head lemma and modifiers of the noun phrase after a count: up to three words, ending at
    the first plural-looking word (or the last word of a known class)."""
    words: list[str] = []
    pos = end + 1 if text[end:end + 1] == "+" else end  # "500+ client nodes"
    for _ in range(3):
        m = _WORD_RE.match(text, pos)
        if m is None or (words and text[pos:m.start("w")].strip()):
            break
        word = m.group("w")
        if word.lower() in _STOP or (not words and word.lower() in _VERBS_S):
            break
        words.append(word)
        pos = m.end()
        low = word.lower()
        plural = low.endswith("s") and not low.endswith(("ss", "is")) and len(low) > 2 \
            and low not in _KEEP_S
        if plural or (noun_class(lemma(word)) and not _next_is_noun(text, pos)):
            break
    if not words:
        return None, ()
    return lemma(words[-1]), tuple(lemma(w) for w in words[:-1])


def _next_is_noun(text: str, pos: int) -> bool:
    m = _WORD_RE.match(text, pos)
    return bool(m and not text[pos:m.start("w")].strip() and m.group("w").lower() not in _STOP
                and (noun_class(lemma(m.group("w"))) or m.group("w").lower().endswith("s")))


def _direction(text: str, fig: Figure) -> str | None:
    after = text[fig.end:fig.end + 40]
    m_up, m_down = _INCREASE.match(after), _DECREASE.match(after)
    if m_up:
        return "increase"
    if m_down:
        return "decrease"
    before = text[max(0, fig.start - 30):fig.start]
    if _BEFORE_DECREASE.search(before):
        return "decrease"
    if _BEFORE_INCREASE.search(before):
        return "increase"
    return None


_FREQ_TIMES_RE = re.compile(r"\s+times\b(?!\s+(?:the|as|more|less|faster|slower|higher|lower"
                            r"|larger|smaller|greater|fewer|better|over|that|what|its|their"
                            r"|apart)\b"
                            # "32 times a 64 KiB page" is a multiple; "3 times a day" repeats
                            r"|\s+an?\s+(?!(?:day|week|month|year|hour|minute|second|night|"
                            r"session|run|shift|quarter)\b))")
_MULT_LEAD_RE = re.compile(r"\b(?:by|up to|about|roughly|nearly|almost|over|some|around)\s+$",
                           re.I)


#: ``16x H200``, ``2x200Gbps``, ``8x TP2 workers``: "N x" before a name or a plural counts items.
_X_COUNT_RE = re.compile(r"\s?(?!(?:faster|slower|times|less|more|lower|higher|gains?|"
                         r"speedups?|improvements?|this|was|has|does|goes|means|gives|puts|"
                         r"sits|stays|holds|is|reflects|comes|looks|seems|remains)\b)"
                         r"(?=[A-Z][A-Za-z]*\d|\d|[A-Za-z]{3,}s\b)")


_DETERMINER_BEFORE_RE = re.compile(r"(?:\b(?:the|this|that|its|their|our|his|her)|'s)\s+$",
                                   re.I)


def _refers_to_result(text: str, fig: Figure) -> bool:
    """"The 30x compares two backends": a result named by a determiner, then a verb. A
    lower-case word ending in s after "the Nx" that counts no known kind of thing is a verb,
    not the thing counted ("the 16x H200 GPUs", "the 8x nodes" stay counts)."""
    m = _WORD_RE.match(text, fig.end)
    if m is None or not m.group("w").islower():
        return False
    if noun_class(lemma(m.group("w"))) is not None:
        return False
    return _DETERMINER_BEFORE_RE.search(text[max(0, fig.start - 12):fig.start]) is not None


def _is_frequency(text: str, fig: Figure) -> bool:
    """``ran three times`` counts repetitions; ``three times the throughput`` is a multiplier."""
    if not fig.text.endswith("times") or fig.decimals:
        return False
    tail = text[fig.end - len(" times"):]
    before = text[max(0, fig.start - 20):fig.start]
    return bool(_FREQ_TIMES_RE.match(tail)) and not _MULT_LEAD_RE.search(before) and not (
        re.match(r"\s*[,.;:]?\s*(?:faster|slower|higher|lower|more|less|larger)\b",
                 text[fig.end:])) and not (_SCALED_BEFORE_RE.search(
                     text[max(0, fig.start - 50):fig.start])
                     and not _WHEN_AFTER_RE.match(text, fig.end))


#: A verb that scales a quantity, then its object: "multiplies throughput 23 times", "boosted
#: decode speed five times" state a multiple, not repetitions ("ran the suite five times").
_SCALED_BEFORE_RE = re.compile(
    r"\b(?:multipl(?:y|ies|ied|ying)|boost(?:s|ed|ing)?|improv(?:e|es|ed|ing)|"
    r"increas(?:e|es|ed|ing)|reduc(?:e|es|ed|ing)|shr(?:ink|inks|ank|unk)|"
    r"(?:speeds?|sped|speeding)\s+up|accelerat(?:e|es|ed|ing))"
    r"\s+(?:(?!(?:the\s+)?(?:run|test|benchmark|suite|experiment)s?\b)[\w-]+\s+){1,3}$",
    re.I)
#: ... unless a time follows, which makes it repetitions again ("raised prices three times
#: this year", "increased it 3 times before it failed").
_WHEN_AFTER_RE = re.compile(r"[,;]?\s+(?:this|last|that|each|every|in|during|before|after|"
                            r"since|so\s+far|already|until|over\s+(?:the\s+)?(?:years?|"
                            r"months?|weeks?|course))\b", re.I)


def quantity_of(fig: Figure, text: str) -> Quantity:
    """The typed quantity of ``fig`` read in ``text`` (the text it was extracted from)."""
    if fig.kind in (FigureKind.number, FigureKind.noun_count) and _COMPOUND_RE.match(
            text, fig.end):
        # "a 131,072-token context", "a 30-second wait", "a 16-GPU node": a compound modifier
        # states the number's unit, or the noun it counts (the word after the hyphen, not the
        # head noun: a 16-GPU node counts GPUs)
        q = _quantity_of(fig, text[:fig.end] + " " + text[fig.end + 1:])
        m = _WORD_RE.match(text, fig.end + 1)
        if q.unit is not None or q.kind not in (Kind.count, Kind.number) or m is None or (
                m.group("w").lower() in _STOP) or not all(
                v == v.to_integral_value() for v in q.values):
            return q
        noun, modifiers = lemma(m.group("w")), tuple[str, ...]()
        if noun in ("context", "window"):
            noun, modifiers = "token", (noun,)  # "a 128K-context model": tokens
        return Quantity(Kind.count, q.values, q.decimals, noun=noun, modifiers=modifiers,
                        spelled=q.spelled)
    return _quantity_of(fig, text)


#: A hyphen joining a number to its unit or counted noun; not the words the figure patterns
#: read themselves ("-fold", "-point", "-times", "-percent") nor "8-way", nor a bit width ("a
#: 16-bit baseline" is a precision, not a size of two bytes).
_COMPOUND_RE = re.compile(r"-(?!(?:fold|points?|times|percent|way|to|or|and|of|bits?)\b)"
                          r"[A-Za-z]", re.IGNORECASE)


def _quantity_of(fig: Figure, text: str) -> Quantity:
    values = fig.values
    base = {"values": values, "decimals": fig.decimals, "spelled": fig.spelled}
    if fig.kind is FigureKind.date:
        return Quantity(Kind.date)
    if fig.kind is FigureKind.money:
        return Quantity(Kind.money, **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.range and fig.unit == "x":  # "3-10x"
        return Quantity(Kind.multiplier, **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.multiplier:
        if _is_frequency(text, fig):
            return Quantity(Kind.count, noun="time", **base)  # type: ignore[arg-type]
        if _X_COUNT_RE.match(text, fig.end) and fig.text.rstrip()[-1:] in ("x", "×") and (
                not fig.decimals and not _refers_to_result(text, fig)):  # 3.6 of a thing: no
            noun, modifiers = _noun_phrase(text, fig.end)  # "16x H200 GPUs": sixteen of them
            if (m := _WORD_RE.match(text, fig.end)) is not None and m.start("w") == fig.end:
                noun, modifiers = lemma(m.group("w")), ()  # "an 8xH100 node": eight H100s
            return Quantity(Kind.count, noun=noun, modifiers=modifiers, **base)  # type: ignore[arg-type]
        of_time = all(v < 1 for v in values) and bool(values) and bool(
            _OF_TIME_RE.match(text, fig.end))
        return Quantity(Kind.multiplier, of_time=of_time, **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.points:
        return Quantity(Kind.points, direction=_direction(text, fig), **base)  # type: ignore[arg-type]
    if fig.kind in (FigureKind.number, FigureKind.noun_count) and _FACTOR_OF_RE.search(
            text, max(0, fig.start - 16), fig.start):  # "by a factor of 4": a multiplier
        return Quantity(Kind.multiplier, **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.percent or (fig.kind is FigureKind.range and fig.unit == "%"):
        return Quantity(Kind.percent, direction=_direction(text, fig), **base)  # type: ignore[arg-type]
    unit = parse_unit(text, fig.end)
    if unit is not None and unit[0].symbol == "s" and text[fig.end:fig.end + 1] == "s" and (
            _HTTP_STATUS_RE.fullmatch(fig.text)):
        return Quantity(Kind.number, **base)  # type: ignore[arg-type]  # "503s": responses
    if unit is None:
        unit = _rate_after_modifier(text, fig.end)  # "512 prompt tokens/s"
    if unit is not None:
        kind = _DIMENSION_KIND.get(unit[0].dimension, Kind.number)
        return Quantity(kind, unit=unit[0], **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.year:
        return Quantity(Kind.year, **base)  # type: ignore[arg-type]
    if values:
        noun, modifiers = _noun_phrase(text, fig.end)
        if _POINT_RE.match(text, fig.end):
            noun, modifiers = "point", ()  # "a 60-point cut": the unit, not a modifier of "cut"
        if (m := _SINGULAR_LENGTH_RE.match(text, fig.end)) and (
                noun in ("context", "window") or fig.text[-1:] in ("K", "k", "M")):
            noun, modifiers = "token", (m.group(1),)  # "up to 64K context": tokens
        if _PERCENTAGE_POINTS_RE.match(text, fig.end):
            noun, modifiers = "point", ()  # "a 4-7 percentage point gain"
        if noun == "point" and not modifiers:  # "a 40-point rise", "20.64 points": points
            return Quantity(Kind.points, direction=_direction(text, fig), **base)  # type: ignore[arg-type]
    if all(v == v.to_integral_value() for v in values) and values:
        plural = noun is not None and _plural(text, fig.end, len(modifiers))
        if noun is not None and (fig.kind in (FigureKind.noun_count, FigureKind.quantity)
                                 or noun_class(noun) or fig.spelled or plural):
            if fig.kind is not FigureKind.number or noun_class(noun) or plural:
                return Quantity(Kind.count, noun=noun, modifiers=modifiers, **base)  # type: ignore[arg-type]
    named = _name_before(text, fig.start) if values and all(
        v == v.to_integral_value() for v in values) else ()
    return Quantity(Kind.number, named=named, **base)  # type: ignore[arg-type]


#: The name of a setting written before its bare value: "a batch size of 64", "tensor
#: parallelism of 8", "a budget of 2048"; without "of" only a parameter's head noun ("batch
#: size 64", "rank 32"), since a verb may stand there too ("handled 30").
_NAME_OF_RE = re.compile(r"(?P<p>(?:[A-Za-z][\w-]*\s+){1,3}?)of\s+(?:about\s+|roughly\s+|"
                         r"around\s+|up\s+to\s+|~\s*)?$")
_PARAMETER_RE = re.compile(r"(?P<p>(?:[A-Za-z][\w-]*\s+)?(?:size|rank|budget|dimension|degree|"
                           r"length|parallelism|width|depth|batch))\s+(?:of\s+)?$", re.IGNORECASE)
#: Nouns that say how a number stands, not what it counts: "a total of 64", "a factor of 8".
_QUANTIFIER_NOUNS = frozenset({"total", "maximum", "minimum", "max", "min", "average", "mean",
                               "median", "peak", "number", "count", "sum", "factor", "multiple",
                               "ratio", "value", "figure", "score", "rate", "set", "range",
                               "order", "lot", "couple", "handful", "group", "one",
                               "out", "instead", "because", "most", "all", "some", "none",
                               "both", "each", "any", "many"})


def _name_before(text: str, start: int) -> tuple[str, ...]:
    """The lemmas of the setting's name right before a bare number, head last; empty when none
    (see :data:`_NAME_OF_RE`)."""
    before = text[max(0, start - 48):start]
    m = _PARAMETER_RE.search(before) or _NAME_OF_RE.search(before)
    if m is None:
        return ()
    words: list[str] = []
    for word in reversed(m.group("p").split()):
        low = word.lower()
        if low in _STOP or low in _DETERMINER_WORDS or not low.isalpha() and "-" not in low:
            break
        words.insert(0, lemma(word))
    if not words or words[-1] in _QUANTIFIER_NOUNS:
        return ()
    return tuple(words)


_DETERMINER_WORDS = frozenset({"a", "an", "the", "its", "their", "our", "his", "her", "this",
                               "that", "these", "those", "some", "any", "every", "no"})


#: A share of a time after a multiplier below one: "half as long", "half the time", "0.25x
#: the wait".
_OF_TIME_RE = re.compile(r"\s+(?:as\s+long|as\s+much\s+time|(?:of\s+)?the\s+(?:time|wait|"
                         r"latency|duration|runtime))\b", re.IGNORECASE)
_POINT_RE = re.compile(r"-points?\b")
_FACTOR_OF_RE = re.compile(r"\bfactor[\s-]+of[\s-]+$", re.IGNORECASE)
_SINGULAR_LENGTH_RE = re.compile(r"[ -](context|window)\b(?!s)")
_PERCENTAGE_POINTS_RE = re.compile(r"[ -]percentage[ -]points?\b")
_HTTP_STATUS_RE = re.compile(r"[1-5]\d\d")
_MODIFIER_RE = re.compile(r"\s(?P<w>[a-z][a-z-]+)(?=\s)")


def _rate_after_modifier(text: str, end: int) -> tuple[Unit, int] | None:
    """A rate whose unit follows one lower-case modifier: "512 prompt tokens/s", "40 output
    tokens per second". Only a rate: "16 spare GB" is no size of 16 GB."""
    m = _MODIFIER_RE.match(text, end)
    if m is None or m.group("w") in _STOP or m.group("w") in UNITS:
        return None
    unit = parse_unit(text, m.end())
    if unit is None or "/" not in unit[0].dimension:
        return None
    return unit


def unit_end(text: str, end: int) -> int:
    """Where the unit written after a number ending at ``end`` ends ("1,800 output tokens per
    second", "96 GB"); ``end`` when no unit follows. The unit's words belong to the
    quantity, not to what is said around it."""
    unit = parse_unit(text, end) or _rate_after_modifier(text, end)
    return unit[1] if unit is not None else end


def _plural(text: str, end: int, skip: int = 0) -> bool:
    """The head noun after a number is plural as written: the word after ``skip`` modifiers
    ("16 attention heads", "128 retained attention heads": counts of heads)."""
    m = _WORD_RE.match(text, end)
    for _ in range(skip):
        if m is None:
            return False
        m = _WORD_RE.match(text, m.end())
    if m is None:
        return False
    w = m.group("w").lower()
    return w.endswith("s") and not w.endswith("ss") and w not in _STOP


class Verdict(str, Enum):
    """How a figure stands against one piece of evidence."""

    match = "match"
    unit = "unit"  # same number under another unit (GB vs GiB, Gb/s vs GB/s, bytes vs tokens)
    converted = "converted"  # the evidence converted to a sibling unit, written in the wrong one
    points = "points"  # percent against percentage points
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
        hundredfold = _eq(ev_value * 100, value, d)  # "480% faster" for 4.8 times (= 380%)
        return Verdict.match if ok else (Verdict.kind if same or hundredfold else _DIFFERENT)
    if fig.kind is Kind.multiplier and ev.kind is Kind.percent:
        ok = any(_close(m, value, d) for m in _percent_as_multiplier(ev_value, ev.direction))
        return Verdict.match if ok else (Verdict.kind if same else _DIFFERENT)
    if fig.kind is Kind.percent and ev.kind is Kind.number and ev_value <= 1:
        return Verdict.match if _eq(ev_value * 100, value, d) else _DIFFERENT
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


_PREFIXED = re.compile(r"(?P<p>[KMGTP])(?:i?)[Bb](?P<t>/\w+)?")


_DURATIONS = ("ns", "us", "ms", "s")


def sibling_units(unit: Unit) -> list[Unit]:
    """Units one slip away from ``unit``: the same prefix letter with the other base or the
    other of bits and bytes (GB: GiB, Gb, Gib); for a duration, the other SI prefixes of the
    second (s: ns, us, ms)."""
    if unit.dimension == "s" and unit.factor in {UNITS[d].factor for d in _DURATIONS}:
        return [UNITS[d] for d in _DURATIONS if UNITS[d].factor != unit.factor]
    m = _PREFIXED.fullmatch(unit.symbol)
    if m is None:
        return []
    p, t = m.group("p"), m.group("t") or ""
    names = (f"{p}B{t}", f"{p}iB{t}", f"{p}b{t}", f"{p}ib{t}")
    return [UNITS[n] for n in names if n in UNITS and n != unit.symbol]


def _significant(value: Decimal, decimals: int) -> int:
    digits = value.copy_abs().quantize(Decimal(1).scaleb(-decimals)).as_tuple().digits
    return len("".join(map(str, digits)).lstrip("0"))


def _units(fig: Quantity, value: Decimal, ev_value: Decimal, ev: Quantity) -> Verdict:
    assert fig.unit is not None and ev.unit is not None
    d = fig.decimals
    if fig.unit.dimension != ev.unit.dimension:
        if {fig.unit.dimension, ev.unit.dimension} <= {"bytes", "bytes/s"}:
            return Verdict.kind  # a size is never a rate
        if "/" in fig.unit.dimension and "/" in ev.unit.dimension and _eq(ev_value, value, d):
            return Verdict.unit  # "300 tokens/s" for 300 GB/s: a rate in another unit
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


#: Nouns that stand for whatever the sentence counts ("Ada and ten others", "two more"): a
#: count of them agrees with a count of any noun.
_ANAPHORIC = frozenset({"other", "more", "one", "rest", "remainder"})


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
    if fig.modifiers and ev.modifiers and not set(fig.modifiers) & set(ev.modifiers):
        return Verdict.modifier
    return Verdict.match


_JOIN_RE = re.compile(r"\s*(?:to|and|-|–|—|or)\s*$")


def typed_figures(text: str) -> list[tuple[Figure, Quantity]]:
    """Every figure of ``text`` with its quantity. In a pair such as ``22 to 32% lower`` or
    ``between 4 and 8 GB``, the first number takes the kind, unit and direction of the second
    (the pair is one range of one quantity)."""
    return list(_typed(text))


@lru_cache(maxsize=4096)
def _typed(text: str) -> tuple[tuple[Figure, Quantity], ...]:
    figures = extract_figures(text)
    out = [(f, quantity_of(f, text)) for f in figures]
    for i in range(len(out) - 1):
        (f, q), (g, r) = out[i], out[i + 1]
        if _multiplier_range(text, f, q, g, r):  # "raised 2.8 to 5 times": two multipliers
            out[i] = (f, Quantity(Kind.multiplier, q.values, f.decimals, spelled=q.spelled))
            out[i + 1] = (g, Quantity(Kind.multiplier, r.values, g.decimals, spelled=r.spelled))
            continue
        if r.kind is Kind.count and r.noun in _ANAPHORIC and not r.modifiers:
            out[i + 1] = (g, _resolve_others(text, out[:i + 1], g, r))
        if q.kind is Kind.number and r.kind not in (Kind.number, Kind.date, Kind.year) and (
                _JOIN_RE.fullmatch(text[f.end:g.start]) is not None):
            out[i] = (f, Quantity(r.kind, q.values, f.decimals, r.unit, r.noun, r.modifiers,
                                  r.direction, q.spelled))
    for i in range(len(out) - 1):
        if (pair := _compound_duration(text, out[i], out[i + 1])) is not None:
            out[i], out[i + 1] = pair
    return tuple(out)


_COMPOUND_JOIN_RE = re.compile(r"\s*,?\s*(?:and\s+)?")


def _compound_duration(text: str, a: tuple[Figure, Quantity], b: tuple[Figure, Quantity]
                       ) -> tuple[tuple[Figure, Quantity], tuple[Figure, Quantity]] | None:
    """"two minutes and 24 seconds", "1 h 12 min": one duration written in two units. Both
    parts state the whole (2.4 minutes; 144 seconds), each in its own unit, so each traces to
    evidence of the whole duration."""
    (f, q), (g, r) = a, b
    if q.kind is not Kind.duration or r.kind is not Kind.duration or q.unit is None or (
            r.unit is None or q.unit.factor is None or r.unit.factor is None):
        return None
    if len(f.values) != 1 or len(g.values) != 1 or q.unit.factor <= r.unit.factor or (
            _COMPOUND_JOIN_RE.fullmatch(text, _unit_end(text, f), g.start) is None):
        return None
    total = f.values[0] * q.unit.factor / r.unit.factor + g.values[0]  # in the smaller unit
    upper = (total * r.unit.factor / q.unit.factor).normalize()
    decimals = min(max(0, -int(upper.as_tuple().exponent)), 2)
    first = replace(f, value=quantize(upper, decimals), decimals=decimals)
    second = replace(g, value=total, decimals=g.decimals)
    return ((first, replace(q, values=first.values, decimals=decimals)),
            (second, replace(r, values=second.values)))


def _unit_end(text: str, fig: Figure) -> int:
    unit = parse_unit(text, fig.end)
    return unit[1] if unit is not None else fig.end


def _resolve_others(text: str, before: list[tuple[Figure, Quantity]], g: Figure, q: Quantity
                    ) -> Quantity:
    """"nine authors: Ada Park and eight others" counts authors: a count of "others" takes the
    noun of the nearest count before it in the same sentence, within a few figures (left
    unresolved, it agrees with a count of anything)."""
    for f, p in reversed(before[-6:]):
        if g.start - f.end > 300 or _SENTENCE_END_RE.search(text, f.end, g.start):
            break
        if p.kind is Kind.count and p.noun and p.noun not in _ANAPHORIC:
            return Quantity(Kind.count, q.values, q.decimals, noun=p.noun, spelled=q.spelled)
    return q


_SENTENCE_END_RE = re.compile(r"[.!?]\s")


def _multiplier_range(text: str, f: Figure, q: Quantity, g: Figure, r: Quantity) -> bool:
    """``2.8 to 5 times``: the second end reads as repetitions on its own ("5 times"), but a
    range whose first end has decimals, or follows a change ("raised", "by", "up to"), is a
    range of multipliers. "ran 3 to 5 times" stays a count of repetitions."""
    if q.kind is not Kind.number or r.kind is not Kind.count or r.noun != "time":
        return False
    if _JOIN_RE.fullmatch(text[f.end:g.start]) is None:
        return False
    before = text[max(0, f.start - 30):f.start]
    return bool(f.decimals or _MULT_LEAD_RE.search(before) or _BEFORE_INCREASE.search(before)
                or _BEFORE_DECREASE.search(before) or _RAISED_RE.search(before))


_RAISED_RE = re.compile(r"\b(?:raised|raises|lifted|lifts|cut|cuts|boosted|boosts|sped\s+up"
                        r"|speeds\s+up|slowed|slows)\s+(?:by\s+)?$", re.I)


_NAME_UNITS = {"b": "B", "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB", "pb": "PB",
               "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB", "pib": "PiB",
               "gbit": "Gb", "gbps": "Gbps", "tbit": "Tb", "ms": "ms", "us": "us", "ns": "ns",
               "sec": "s", "seconds": "s", "minutes": "minutes", "hours": "hours",
               "gbs": "GB/s", "qps": "QPS", "rps": "RPS", "w": "W", "kw": "kW",
               "gflops": "GFLOPS", "tflops": "TFLOPS", "pflops": "PFLOPS", "eflops": "EFLOPS"}
_TIME_TOKENS = {"s": "s", "sec": "s", "min": "min", "h": "h", "hr": "h"}
_MULT_NAMES = ("speedup", "speed_up", "multiplier", "ratio", "fold", "times", "factor", "gain_x")
_DECREASE_NAMES = ("reduction", "decrease", "cut", "drop", "lower", "saving", "fewer")
_INCREASE_NAMES = ("improvement", "increase", "gain", "uplift", "faster", "higher", "boost")


def metric_quantity(name: str, kind: str | None = None) -> Quantity | None:
    """The quantity a reported metric's *name* (or its spec's ``kind``) states, or None.

    ``peak_read_tib_s`` -> rate in TiB/s; ``ttft_reduction_pct`` -> percent (decrease);
    ``median_ttft_speedup`` -> multiplier; ``storage_nodes`` -> count of nodes.
    """
    parts = name.lower().split("_")
    direction = ("decrease" if any(p in parts for p in _DECREASE_NAMES) else
                 "increase" if any(p in parts for p in _INCREASE_NAMES) else None)
    if kind == "points" or any(p in ("points", "pts", "pp") for p in parts[1:]):
        return Quantity(Kind.points, direction=direction)  # "accuracy_gain_points": points
    if kind == "percent" or any(p in ("pct", "percent", "percentage") for p in parts):
        return Quantity(Kind.percent, direction=direction)
    if kind == "multiplier" or any(p in _MULT_NAMES for p in parts) or parts[-1] == "x":
        return Quantity(Kind.multiplier)
    if len(parts) > 1 and parts[-1] == "s" and parts[-2] not in _NAME_UNITS and parts[-2] not in (
            "tokens", "tok", "req", "requests", "per"):
        return Quantity(Kind.duration, unit=UNITS["s"])  # "l4x4_long_vllm_s": seconds
    for i, a in enumerate(parts):
        b = parts[i + 1] if i + 1 < len(parts) else ""
        if b == "per" and i + 2 < len(parts):  # "tib_per_min"
            b = parts[i + 2]
        if a in _NAME_UNITS:
            symbol = _NAME_UNITS[a] + (f"/{_TIME_TOKENS[b]}" if b in _TIME_TOKENS else "")
            unit = UNITS.get(symbol)
            if unit is not None:
                return Quantity(_DIMENSION_KIND.get(unit.dimension, Kind.number), unit=unit)
    if kind == "money":
        return Quantity(Kind.money)
    head = lemma(parts[-1])
    if kind == "count" or noun_class(head):
        return Quantity(Kind.count, noun=head, modifiers=tuple(lemma(p) for p in parts[-2:-1]))
    return None


def unit_quantity(unit: str | None) -> Quantity | None:
    """The quantity a measurement's or computation step's ``unit`` field states, or None."""
    if not unit:
        return None
    text = unit.strip()
    if text in ("%", "percent", "pct"):
        return Quantity(Kind.percent)
    if text in ("x", "×", "ratio", "times", "multiplier"):
        return Quantity(Kind.multiplier)
    parsed = parse_unit(" " + text, 0)
    if parsed is not None and parsed[1] == len(text) + 1:
        return Quantity(_DIMENSION_KIND.get(parsed[0].dimension, Kind.number), unit=parsed[0])
    return None
