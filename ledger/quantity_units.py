"""Kinds, units and nouns of typed quantities: the :class:`Quantity` record, the units table
:data:`UNITS` (exact Decimal factors to a base unit), the noun classes and the quantity a metric's
name states. The vocabulary the reader (:mod:`ledger.quantity_phrases`) and the comparison
(:mod:`ledger.quantity_compare`) share; import these names from :mod:`ledger.quantities`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from functools import lru_cache

__all__ = [
    "NOUN_CLASSES",
    "UNITS",
    "Kind",
    "Quantity",
    "Unit",
    "declared_readings",
    "defines_unit",
    "lemma",
    "metric_quantity",
    "noun_class",
    "parse_unit",
    "sibling_units",
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
    energy = "energy"
    voltage = "voltage"
    current = "current"
    temperature = "temperature"
    frequency = "frequency"
    length = "length"
    mass = "mass"
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
         "h": Decimal(3600), "hr": Decimal(3600), "day": Decimal(86400)}


_SPELLED_PREFIX = {"G": "giga", "T": "tera", "P": "peta", "E": "exa"}


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
    for sym in ("TPS", "tps"):  # "5,762 TPS/GPU": tokens per second, as ML tables write it
        units[sym] = Unit("tokens/s", "tokens/s", Decimal(1))
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
    for sym, power in (("W", 0), ("kW", 3), ("MW", 6), ("GW", 9)):
        units[sym] = Unit(sym, "W", Decimal(10) ** power)
    for sym, power in (("Wh", 0), ("kWh", 3), ("MWh", 6), ("GWh", 9), ("TWh", 12)):
        units[sym] = Unit(sym, "Wh", Decimal(10) ** power)
    for word, power in (("", 0), ("kilo", 3), ("mega", 6), ("giga", 9)):
        for plural in ("", "s"):  # "150 kilowatts", "1 gigawatt", "100 kilowatt-hours"
            units[f"{word}watt{plural}"] = Unit(f"{word}watt", "W", Decimal(10) ** power)
            units[f"{word}watt-hour{plural}"] = Unit(f"{word}watt-hour", "Wh",
                                                     Decimal(10) ** power)
    for sym in ("A", "amps", "amp", "amperes", "ampere"):
        units[sym] = Unit("A", "A", Decimal(1))
    for sym, power in (("V", 0), ("VDC", 0), ("VAC", 0), ("kV", 3), ("mV", -3)):
        units[sym] = Unit(sym.replace("DC", "").replace("AC", ""), "V", Decimal(10) ** power)
    for sym in ("volt", "volts", "kilovolt", "kilovolts"):
        units[sym] = Unit("V", "V", Decimal(1000) if sym.startswith("kilo") else Decimal(1))
    for scale, spellings in (("C", ("°C", "degrees Celsius", "degrees C", "ºC", "C")),
                             ("F", ("°F", "degrees Fahrenheit", "degrees F", "ºF", "F"))):
        for sym in spellings:  # no factor: a temperature converts by an offset
            units[sym] = Unit(f"°{scale}", "temperature", None, scale)
    for sym, power in (("Hz", 0), ("MHz", 6), ("GHz", 9)):
        units[sym] = Unit(sym, "Hz", Decimal(10) ** power)
    for sym, power in (("MT/s", 6), ("GT/s", 9)):  # transfers per second: "200 GT/s per lane"
        units[sym] = Unit(sym, "transfers/s", Decimal(10) ** power)
    lengths = {"nm": Decimal("1e-9"), "µm": Decimal("1e-6"), "um": Decimal("1e-6"),
               "mm": Decimal("0.001"), "cm": Decimal("0.01"), "m": Decimal(1),
               "km": Decimal(1000), "ft": Decimal("0.3048"), "inches": Decimal("0.0254"),
               "inch": Decimal("0.0254")}
    for word, sym in (("nanometer", "nm"), ("micrometer", "µm"), ("micron", "µm"),
                      ("millimeter", "mm"), ("centimeter", "cm"), ("meter", "m"),
                      ("kilometer", "km")):
        for spelling in (word, word + "s", word[:-2] + "re", word[:-2] + "res"):
            lengths[spelling] = lengths[sym]
    lengths.update({"feet": Decimal("0.3048"), "foot": Decimal("0.3048")})
    for sym, factor in lengths.items():  # "cables under 4 m", "4 meters", "775 micrometers"
        units[sym] = Unit(sym if len(sym) <= 2 else sym.rstrip("s"), "m", factor)
    # mass: "a 1400kg payload", "3,086 lb"; not "pounds", which may be money
    masses: list[tuple[tuple[str, ...], Decimal]] = [
        (("kg", "kilogram", "kilograms", "kilo", "kilos"), Decimal(1)),
        (("g", "gram", "grams"), Decimal("0.001")), (("lb", "lbs"), Decimal("0.45359237")),
        (("tonne", "tonnes"), Decimal(1000))]
    for names, factor in masses:
        for sym in names:
            units[sym] = Unit(names[0], "kg", factor)
    for p, power in (("", 0), ("G", 9), ("T", 12), ("P", 15), ("E", 18)):
        # compute rate: "740 TFLOPs/s", "1.2 PFLOPS", "989 TFLOP/s" are one unit each; the
        # plural "FLOPs" without "/s" is written for the rate as often as for a count
        unit = Unit(f"{p}FLOP/s", "flop/s", Decimal(10) ** power)
        for spelling in ("FLOPS", "FLOPs", "FLOP/s", "FLOPs/s", "FLOPS/s", "flops", "flop/s"):
            if p or spelling in ("FLOPS", "FLOP/s", "FLOPs/s"):  # "3 FLOPs per byte": a count
                units[p + spelling] = unit
        if prefix := _SPELLED_PREFIX.get(p):  # "262 teraflops", "163 teraFLOP/s": spelled out
            for spelling in ("flops", "FLOPS", "FLOPs", "FLOP/s", "FLOPs/s", "flop/s"):
                units[prefix + spelling] = unit
    return units


#: Every unit the checker reads, by the spelling written after a number.
UNITS: dict[str, Unit] = _build_units()
_DIMENSION_KIND = {"bytes": Kind.size, "bytes/s": Kind.rate, "tokens/s": Kind.rate,
                   "requests/s": Kind.rate, "s": Kind.duration, "calendar": Kind.duration,
                   "W": Kind.power, "Wh": Kind.energy, "V": Kind.voltage, "A": Kind.current,
                   "temperature": Kind.temperature, "Hz": Kind.frequency, "flop/s": Kind.rate,
                   "transfers/s": Kind.rate, "m": Kind.length, "kg": Kind.mass}
_UNIT_ALTERNATION = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_UNIT_RE = re.compile(rf"\+?\s?(?P<u>{_UNIT_ALTERNATION})"
                      # a unit normalised per device stays the unit: "5,762 TPS/GPU"
                      rf"(?:(?=/(?:GPU|gpu|node|chip|card|host|device|user)s?\b)|(?![\w/]))"
                      rf"|\s(?:[A-Za-z]+\s+)?(?P<per>[\w]+)\s+(?:per|a|an|each)\s+"
                      rf"(?P<t>second|minute|hour|day)\b")
_PER = {"second": "s", "minute": "min", "hour": "h", "day": "day"}


#: Noun classes: nouns in one class count the same kind of thing (lemmas, singular).
NOUN_CLASSES: dict[str, frozenset[str]] = {
    "gpu": frozenset({"gpu", "accelerator", "card", "device", "chip", "h100", "h200", "a100",
                      "b200", "gb200", "gb300", "mi300x", "l40", "l40s", "tpu"}),
    "node": frozenset({"node", "server", "machine", "host", "box"}),
    "rack": frozenset({"rack", "cabinet"}),
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


def _plural_of(noun: str) -> str:
    """How a message writes a counted noun's plural: "addresses", "GPUs", "boxes"."""
    return noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")


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
            return f"count of {(mods + ' ') if mods else ''}{_plural_of(self.noun)}"
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
        if m.group("u") == "m" and (m.start("u") == end or text[m.end():m.end() + 1] == "-"):
            return None  # "100m", "a 125m-parameter model": millions; "4 m cables": metres
        return UNITS[m.group("u")], m.end()
    per = m.group("per")
    key = f"{per}/{_PER[m.group('t')]}"
    unit = UNITS.get(key) or UNITS.get(f"{_unit_symbol(per)}/{_PER[m.group('t')]}")
    return (unit, m.end()) if unit else None


#: Time bases a price or a cost is stated per ("$2 an hour", "$10/day", "$1.85 per GPU-hour").
_MONEY_PER_RE = re.compile(
    r"\s*(?:/\s*|\s(?:per|an?|each)\s+)(?:(?:GPU|chip|node|instance|server)[- ])?"
    r"(?P<t>second|sec|s|minute|min|hour|hr|h|day|week)\b", re.IGNORECASE)
_MONEY_PER = {"second": "s", "sec": "s", "s": "s", "minute": "min", "min": "min", "hour": "h",
              "hr": "h", "h": "h", "day": "day", "week": "week"}
_MONEY_SECONDS = {**_TIME, "week": Decimal(604800)}


_MONEY_ADJECTIVE = {"hourly": "h", "daily": "day", "weekly": "week"}
#: "$87,072 daily cost": the adjective right after the amount.
_MONEY_AFTER_RE = re.compile(r"\s+(?P<a>hourly|daily|weekly)\b", re.IGNORECASE)
#: "total daily cost is $87,072": the adjective a few words before, with no number between.
_MONEY_BEFORE_RE = re.compile(r"\b(?P<a>hourly|daily|weekly)\s+(?:[A-Za-z-]+\s+){0,4}$",
                              re.IGNORECASE)


#: The words between a unit and the larger unit it divides: "eight bits per byte", "1,024 MiB
#: in a GiB", "24 hours a day", "3,600 seconds to an hour".
_DEFINES_RE = re.compile(r"\s*(?:per|/|(?:in|to)\s+(?:an?|one|the|each)|an?|each)(?=\s)",
                         re.IGNORECASE)


def defines_unit(text: str, value: Decimal, unit: Unit, end: int) -> bool:
    """The number and its unit, written ending at ``end``, state how many of that unit make
    one of the unit named next ("divided by eight bits per byte"): a definition, true by
    itself, not a figure that needs evidence."""
    m = _DEFINES_RE.match(text, end)
    if m is None or unit.factor is None:
        return False
    larger = parse_unit(text, m.end())
    if larger is None or larger[0].factor is None or larger[0].dimension != unit.dimension:
        return False
    return larger[0].factor == value * unit.factor


#: A quoted unit symbol, then the article's reading of it: '"Gb"; we read it as gigabytes',
#: '"GB" (meaning GiB)', '"Gb" here means GB'.
_READING_RE = re.compile(
    r"[\"“'‘](?P<sym>[A-Za-z]{1,4}(?:/s)?)[\"”'’][^.\[\n]{0,60}?\b(?:read(?:s|ing)?|means?|"
    r"meaning|denotes?|stands?\s+for|tak(?:e|es|en|ing))\s+(?:(?:it|them|this|that|here)\s+)*"
    r"(?:as\s+)?(?=\S)")


def declared_readings(text: str) -> dict[str, Unit]:
    """The units the text says it reads another unit's symbol as (the evidence's symbol ->
    the unit meant): a source that heads a column "Gb" for gigabytes, read so in the body."""
    out: dict[str, Unit] = {}
    for m in _READING_RE.finditer(text):
        written, meant = UNITS.get(m.group("sym")), parse_unit(text, m.end() - 1)
        if written is not None and meant is not None and meant[0].dimension == written.dimension:
            out[written.symbol] = meant[0]
    return out


def money_rate(text: str, end: int, start: int | None = None) -> Unit | None:
    """The time base of an amount of money at ``text[start:end]``: "$2 an hour" and "an hourly
    rate of $2" are $/h, so neither is the same figure as "$2 a day"; None for an amount per
    nothing, per month (no exact seconds) or per thing ("$0.14 per million tokens")."""
    base = None
    if (m := _MONEY_PER_RE.match(text, end)) is not None:
        base = _MONEY_PER[m.group("t").lower()]
    elif (m := _MONEY_AFTER_RE.match(text, end)) is not None or (
            start is not None
            and (m := _MONEY_BEFORE_RE.search(text, max(0, start - 48), start)) is not None):
        base = _MONEY_ADJECTIVE[m.group("a").lower()]
    if base is None:
        return None
    return Unit(f"$/{base}", "money/s", 1 / _MONEY_SECONDS[base])


def _unit_symbol(word: str) -> str:
    unit = UNITS.get(word)
    return unit.symbol if unit else word


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


_NAME_UNITS = {"b": "B", "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB", "pb": "PB",
               "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB", "pib": "PiB",
               "gbit": "Gb", "gbps": "Gbps", "tbit": "Tb", "kbyte": "KB", "mbyte": "MB",
               "gbyte": "GB", "tbyte": "TB", "mbit": "Mb", "ms": "ms", "us": "us", "ns": "ns",
               "sec": "s", "secs": "s", "seconds": "s", "minutes": "minutes", "hours": "hours",
               "gbs": "GB/s", "qps": "QPS", "rps": "RPS", "tps": "TPS", "w": "W", "kw": "kW",
               "gflops": "GFLOPS", "tflops": "TFLOPS", "pflops": "PFLOPS", "eflops": "EFLOPS"}
#: Words after which a final ``b`` is billions, not bytes: ``params_b``, ``tokens_b``.
_BILLIONS_OF = frozenset({"param", "params", "parameters", "tokens", "tok", "weights"})
_MONEY_NAMES = frozenset({"usd", "dollar", "dollars", "eur", "euro", "euros", "price", "cost"})
_TIME_TOKENS = {"s": "s", "sec": "s", "min": "min", "h": "h", "hr": "h"}
_MULT_NAMES = ("speedup", "speed_up", "multiplier", "ratio", "fold", "times", "factor", "gain_x")
_DECREASE_NAMES = ("reduction", "decrease", "cut", "drop", "lower", "saving", "fewer")
_INCREASE_NAMES = ("improvement", "increase", "gain", "uplift", "faster", "higher", "boost")


def metric_quantity(name: str, kind: str | None = None) -> Quantity | None:
    """The quantity a reported metric's *name* (or its spec's ``kind``) states, or None.

    ``peak_read_tib_s`` -> rate in TiB/s; ``ttft_reduction_pct`` -> percent (decrease);
    ``median_ttft_speedup`` -> multiplier; ``storage_nodes`` -> count of nodes;
    ``input_tokens_per_s_per_node`` -> rate in tokens/s; ``cost_per_node`` -> None (a figure
    normalised per node counts no nodes).
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
        if a in _NAME_UNITS and not (a == "b" and i and parts[i - 1] in _BILLIONS_OF):
            symbol = _NAME_UNITS[a] + (f"/{_TIME_TOKENS[b]}" if b in _TIME_TOKENS else "")
            unit = UNITS.get(symbol)
            if unit is not None:
                return Quantity(_DIMENSION_KIND.get(unit.dimension, Kind.number), unit=unit)
    for i, a in enumerate(parts):  # "modal_h100_usd_per_second": dollars a second
        if a in _MONEY_NAMES and i + 2 < len(parts) and parts[i + 1] == "per" and (
                parts[i + 2] in _MONEY_PER):
            base = _MONEY_PER[parts[i + 2]]
            return Quantity(Kind.money, unit=Unit(f"$/{base}", "money/s",
                                                  1 / _MONEY_SECONDS[base]))
    if kind == "money":
        return Quantity(Kind.money)
    for i, a in enumerate(parts[:-2]):  # "input_tokens_per_s_per_node": a rate in tokens/s
        if a in ("tokens", "tok") and parts[i + 1] == "per" and parts[i + 2] in _TIME_TOKENS:
            unit = UNITS.get(f"tokens/{_TIME_TOKENS[parts[i + 2]]}")
            if unit is not None:
                return Quantity(Kind.rate, unit=unit)
    if len(parts) > 1 and parts[-2] == "per":
        return None  # "..._per_node": a figure normalised per node, not a count of nodes
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
    if text.lower() in ("percentage points", "percentage point", "pp", "points", "pts"):
        return Quantity(Kind.points)
    if text in ("x", "×", "ratio", "times", "multiplier"):
        return Quantity(Kind.multiplier)
    parsed = parse_unit(" " + text, 0)
    if parsed is not None and parsed[1] == len(text) + 1:
        return Quantity(_DIMENSION_KIND.get(parsed[0].dimension, Kind.number), unit=parsed[0])
    return None
