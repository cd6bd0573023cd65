"""Figures in prose: every number, percent, multiplier, date, amount and number word, with its span.

:func:`extract_figures` is the one entry point. It works in three passes over the text:

1. **Mask** what only looks like a figure: citation markers (``[S4]``), URLs, and names that
   contain digits (``Kimi-2.5``, ``GB200``, ``NVFP4``, ``TP4``, ``H100``, ``1P1D``, ``v5``). A
   name is a token that starts with a letter and contains a digit, or a digit-letter-digit token.
2. **Dates first**, so that ``June 24, 2024`` is one date rather than 24 and 2024: ``Month D,
   YYYY``, ``D Month YYYY``, ``Month D`` (no year), ``Month YYYY`` and ISO ``YYYY-MM-DD``.
3. **Numbers and number words**, each tagged with a kind: money (``$1.2M``), ranges (``12.8-13.0
   TB/s``, both ends kept), percent and percentage points, multipliers (``3.8 times``, ``46-fold``,
   ``46x``, ``46×``, ``doubles``, ``half``), counts with a noun (``60 GPUs``), quantities with a unit
   (``45 minutes``), years, and plain numbers. Number words are read as numbers (``two``,
   ``forty-six``, ``one hundred``); a lone ``one`` is not, because in prose it is nearly always a
   determiner ("beyond one instance"), and ordinals (``first``) are not figures.

Each :class:`Figure` keeps its exact character span and its printed precision (digits after the
decimal point), so that tracing compares at that precision with decimal half-up rounding.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from enum import Enum
from functools import lru_cache

__all__ = [
    "MODEL_FAMILIES",
    "MONTHS",
    "NUMBER_WORDS",
    "Figure",
    "FigureKind",
    "context_lengths",
    "extract_figures",
    "masked_spans",
    "model_sizes",
    "quantize",
    "word_value",
]


class FigureKind(str, Enum):
    number = "number"
    percent = "percent"
    points = "percentage_points"
    multiplier = "multiplier"
    noun_count = "count"  # not `count`: that would shadow str.count
    quantity = "quantity"
    money = "money"
    range = "range"
    date = "date"
    year = "year"


@dataclass(frozen=True)
class Figure:
    """One figure in a text. ``start``/``end`` are character offsets (end exclusive).

    ``value`` is the number as printed (a percent keeps its percent value: ``62.5%`` -> 62.5),
    ``decimals`` its printed precision, ``upper`` the high end of a range. Dates carry ``date``
    and ``date_precision`` (``day``, ``month_day`` when no year is written, or ``month``).
    """

    text: str
    start: int
    end: int
    kind: FigureKind
    value: Decimal | None = None
    decimals: int = 0
    upper: Decimal | None = None
    unit: str | None = None
    spelled: bool = False
    date: dt.date | None = None
    date_precision: str | None = None

    @property
    def values(self) -> tuple[Decimal, ...]:
        """The numbers this figure states: one, or both ends of a range."""
        if self.value is None:
            return ()
        return (self.value,) if self.upper is None else (self.value, self.upper)

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "text": self.text, "start": self.start, "end": self.end, "kind": self.kind.value,
        }
        if self.value is not None:
            data["value"] = format(self.value, "f")
        if self.upper is not None:
            data["upper"] = format(self.upper, "f")
        if self.unit:
            data["unit"] = self.unit
        if self.date is not None:
            data["date"] = self.date.isoformat()
            data["date_precision"] = self.date_precision
        return data


MONTHS = {
    name: i for i, name in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"], start=1)
}
#: The months' full names, capitalised, as one regex alternation ("January|February|...").
MONTH_NAMES = "(?:" + "|".join(m.title() for m in MONTHS) + ")"
_MONTH_ABBR = {name[:3]: i for name, i in MONTHS.items()} | {"sept": 9}
_MONTH_RE = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)

_UNITS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
#: Words that state a multiplier or a fraction by themselves.
_MULTIPLIER_WORDS: dict[str, int | Decimal] = {
    "double": 2, "doubles": 2, "doubled": 2, "doubling": 2, "twice": 2,
    "triple": 3, "triples": 3, "tripled": 3, "tripling": 3, "thrice": 3,
    "treble": 3, "trebles": 3, "trebled": 3, "trebling": 3,
    "quadruple": 4, "quadruples": 4, "quadrupled": 4, "quadrupling": 4,
    "quintuple": 5, "quintuples": 5, "quintupled": 5, "quintupling": 5,
    "half": Decimal("0.5"), "halves": Decimal("0.5"), "halved": Decimal("0.5"),
    "halving": Decimal("0.5"),
}
#: Every number word the extractor reads (``one`` only inside a compound).
NUMBER_WORDS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_MULTIPLIER_WORDS) | {"one"}

_SMALL = "|".join(sorted(list(_UNITS) + ["one"], key=len, reverse=True))
_TEN = "|".join(_TENS)
_SCALE = "|".join(_SCALES)
_WORD_NUMBER = (
    rf"(?:(?:{_TEN})(?:-(?:{_SMALL}))?|(?:{_SMALL}))(?:\s+(?:{_SCALE}))?"
)

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
#: ``8xH100``: eight H100s, written onto the model name (read as a count by the quantities).
_MULT_SUFFIX = (r"\s?[x×](?![\w])|[x×](?=[A-Z][A-Za-z]*\d)|-fold\b|\s?fold\b|\s+times\b"
                r"|-times\b")
_PCT_SUFFIX = r"\s?%|[\s-]percentage[\s-]points?\b|\s+pp\b|\s+percent\b|\s+per\s+cent\b"
_MONEY_SCALE = r"(?:\s?(?:k|K|M|B|bn|million|billion|thousand|trillion)\b)?"

#: Model families whose version follows as a separate number ("Llama 3", "Qwen 2.5").
MODEL_FAMILIES = ("Llama", "Qwen", "Mistral", "Mixtral", "Gemma", "Phi", "GPT", "Claude",
                  "DeepSeek", "Kimi", "Falcon", "Yi", "OPT", "Vicuna", "Grok", "Nemotron")
_MODEL_NAME_RE = re.compile(
    # Llama 3 70B; not a size after the name ("GPT-3 175GB": 175 gigabytes). (Each family's
    # name opens with a capital, each size with a digit: other positions fail at once.)
    rf"\b(?=[A-Z])(?:{'|'.join(MODEL_FAMILIES)})(?:[ -]\d+(?:\.\d+)*[A-Za-z]?(?![\w/]|\.\d)(?!\s?(?:[KMGTP]i?B|[KMGT]b)\b))+"
    # a 7B model, 4K context; but "up to 380K context tokens" counts tokens (the noun after
    # "context"), and a bound ("up to", "than", "beyond") makes any length a claim
    r"|(?=\d)(?<!\bup to )(?<!\bthan )(?<!\bbeyond )"
    r"\b\d+(?:\.\d+)?[KMBT](?=[ -](?:models?|context(?![ -]tokens?\b)|parameters?|params|window"
    r"|variant|checkpoint|LLM|instruct)\b"
    # the size before the model's own name: "the 7B Llama-2 model", "a 34B Yi", "the 405B
    # Acme-Chat model" (a family name, or a capitalised name and then the word model)
    rf"|[ -](?:{'|'.join(MODEL_FAMILIES)})(?![a-z])(?![ -]?[a-z]*s\b)"
    r"|[ -][A-Z][\w.-]*(?:[ -][A-Z0-9][\w.-]*)?[ -](?:models?|variant|checkpoint|LLM)\b)")
_CITATION_RE = re.compile(r"\[[A-Z]{1,3}[0-9]+\]")
#: Interface standards whose generation follows as a number ("PCIe 5.0", "NVLink 4"; never a
#: figure with a unit, "NVLink 900 GB/s").
_STANDARDS = ("PCIe", "PCIe Gen", "CXL", "USB", "NVLink", "UCIe", "Thunderbolt", "Wi-Fi")
#: Processor lines whose generation follows as a number ("Xeon 6", "Graviton 4").
_PRODUCT_LINES = ("Xeon", "EPYC", "Gaudi", "Graviton", "Trainium", "Inferentia", "Ryzen",
                  "Threadripper", "Snapdragon")
#: A version, never a figure: three or more dotted parts ("2.5.9", "0.6.3.post1"), or any
#: dotted number after "version" or "release" ("version 2.5").
_VERSION_RE = re.compile(r"(?=\d)(?:(?<![\w.])\d+(?:\.\d+){2,}(?:\.?[A-Za-z]+\d*)?(?![\w.]*\d)"
                         r"|(?<=\b[Vv]ersion )\d+(?:\.\d+)+|(?<=\b[Rr]elease )\d+(?:\.\d+)+"
                         # the generation of an interface standard: "PCIe 4.0", "CXL 2.0"
                         + "".join(rf"|(?<=\b{w} )\d(?:\.\d)?(?![\w.%])(?!\s?(?:[KMGTP]i?[Bb]|GT/s|x\b))"
                                   for w in _STANDARDS)
                         # the generation of a processor line: "Xeon 6", "Gaudi 3"
                         + "".join(rf"|(?<=\b{w} )\d{{1,2}}(?![\w.,%])(?!\s?(?:[KMGTP]i?[Bb]|x\b))"
                                   for w in _PRODUCT_LINES)
                         + ")")
#: A label and its ordinal, a name of a part, never a figure: "Table 3", "Figure 5", "version
#: 1", "revision 2", "step 4", "Tier 1", "round 2" (not "step 4x", "version 2 GB").
_ORDINAL_LABEL_RE = re.compile(
    # (a word of letters, then a number, is what every label needs: tried first, it spares the
    # alternation at every other word)
    r"\b(?=[A-Za-z.]+\s+\d)(?:[Vv]ersion|[Rr]evision|[Rr]elease|[Tt]able|[Ff]igure|Fig\.|[Ss]ection|[Cc]hapter|"
    r"[Aa]ppendix|[Ee]quation|Eq\.|[Ss]tep|[Pp]hase|[Ss]tage|[Tt]ier|[Rr]ound|[Pp]art|[Pp]age|"
    r"[Ll]ine|[Ii]ssue|[Ll]isting|[Aa]lgorithm|[Tt]heorem|[Ll]emma|[Ee]xample)\s+"
    r"(\d{1,4}(?:\.\d+)*)(?![\w%]|\.\d|\s?(?:[KMGTP]i?[Bb]|[KMGT]bps|ms|s|x|×)\b)")
_URL_RE = re.compile(r"\b(?=[hw])(?:https?://|www\.)\S+[^\s.,;:)\]]")
_NAME_RE = re.compile(
    # a number word joined to a name counts the named thing ("a four-n300 workstation"): the
    # word is a figure, the name after the hyphen a name
    # (a digit within the token is what every alternative needs: tried first, it spares the
    # lookaheads at every other word)
    rf"(?<![\w.])(?=[\w.+-]*\d)(?!\d+[x×][A-Z][A-Za-z]*\d)(?!(?i:{_WORD_NUMBER})-[A-Za-z]+\d)"
    r"(?:[A-Za-z][\w.+-]*\d[\w.+-]*"
    r"|(?!\d+[x×]\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|[KMGT]b(?:ps)?)\b)\d+[A-Za-z]+\d[\w-]*"
    r"|\d+(?!(?:[KMGTP]i?[Bb]|[KMGT]bps|[KMGT]bits?|GHz|MHz|kW|MW|GW|[kMGT]?Wh|ms|us|ns|min|mins|"
    r"mm|cm|nm|km|kg|lbs?|"
    r"secs?|hrs?|st|nd|rd|th|x|K|M|B)\b"
    r"|[KMGT]b/)[A-Za-z]{2,}\w*"
    r"|\d{3,}(?![KMBTWV]\b)[A-Z](?![\w/]))"  # a model number ending in one capital: "Xeon 6 6740E"
    r"(?<=[\w+])"
)

#: (each opens with the character its match must start with, which the rest requires anyway:
#: every other position fails at once)
_DATE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?=\d)(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"), "iso"),
    (re.compile(rf"\b(?=[JFMASOND])(?P<mon>{_MONTH_RE})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+"
                rf"(?P<y>\d{{4}})\b"), "mdy"),
    (re.compile(rf"\b(?=\d)(?P<d>\d{{1,2}})\s+(?P<mon>{_MONTH_RE})\s+(?P<y>\d{{4}})\b"), "dmy"),
    # the year in brackets after the day: "on August 5 (2025)" (looked for only where a
    # bracketed year is written: see _dates)
    (_BRACKET_YEAR_RE := re.compile(
        rf"\b(?=[JFMASOND])(?P<mon>{_MONTH_RE})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s*"
        rf"\((?P<y>\d{{4}})\)"),
     "mdy"),
    (re.compile(rf"\b(?=[JFMASOND])(?P<mon>{_MONTH_RE})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
                rf"(?![.,]?\d)"), "md"),
    (re.compile(rf"\b(?=[JFMASOND])(?P<mon>{_MONTH_RE})\s+(?P<y>(?:19|20)\d{{2}})\b"), "my"),
    # a year and a month as a changelog writes them: "2023/10", "2024-01" (two-digit month)
    (re.compile(r"(?=(?:19|20)\d)(?<![\w./-])(?P<y>(?:19|20)\d{2})(?:/(?P<m>0?[1-9]|1[0-2])|"
                r"-(?P<m2>0[1-9]|1[0-2]))"
                r"(?![\w/-]|[.,]\d)"), "ym"),
    # a changelog's "in 2024.7" (July 2024): only after a word that introduces a time, so that
    # "2024.5 GB" stays a number. The lookahead first says what the rest requires anyway, so
    # the ten lookbehinds are tried only where a "2024." starts (20x faster, same matches).
    (re.compile(r"(?=(?:19|20)\d{2}\.)(?:" + "|".join(rf"(?<=\b{w} )" for w in (
        "in", "since", "from", "until", "till", "by", "before", "after", "around")) + r"|(?<=\())"
                r"(?P<y>(?:19|20)\d{2})\.(?P<m3>1[0-2]|0?[1-9])(?![\w%×-]|\.\d|\s?(?:x\b|[A-Z]))"),
     "ym"),
]

#: Each of these scans every position of every text; a leading lookahead names the characters a
#: match can start with (what the pattern requires there anyway), so other positions fail at once.
_MONEY_RE = re.compile(
    rf"(?=[$€£¥\d.])(?:(?P<cur>[$€£¥])\s?(?P<n>{_NUM}){_MONEY_SCALE}"
    rf"|(?<![\d.,])(?P<n2>{_NUM})\s?(?P<cur2>USD|EUR|dollars|euros)\b)"
)
_RANGE_RE = re.compile(
    rf"(?<![\w.,])(?P<lo>{_NUM})(?P<lopct>%)?(?:-|\s?[–—]\s?)(?P<hi>{_NUM})"
    rf"(?:(?P<x>[x×])(?![\w-])|(?![\w-])(?P<pct>%)?)"
)
#: ``16x16GB`` (sixteen modules of 16 GB) is a count and a size, not a name: the size is read
#: after the ``x``.
_NUMBER_RE = re.compile(
    rf"(?=[\d.])(?:(?<![\w.,])|(?<=\d[x×]))(?P<n>{_NUM})"
    rf"(?P<mag>[KkMBT](?![\w/])|[\s-](?:thousand|million|billion|trillion)\b(?!-fold))?"
    rf"(?:(?P<mult>{_MULT_SUFFIX})|(?P<pct>{_PCT_SUFFIX}))?"
)
#: ``25K tokens``, ``4 million tokens``: a magnitude letter or word after the number multiplies
#: it (printed to the magnitude: ``4 million`` is 4,000,000 to the nearest million).
_MAGNITUDE = {"K": 3, "k": 3, "M": 6, "B": 9, "T": 12, "thousand": 3, "million": 6, "billion": 9, "trillion": 12}
#: The letters a number word can start with (case-insensitively, like the pattern).
_WORD_STARTS = "".join(sorted({w[0] for w in [*_TENS, *_UNITS, "one", "hundred", "thousand",
                                              *_MULTIPLIER_WORDS]}))
_WORD_RE = re.compile(
    rf"(?=[{_WORD_STARTS}])(?:\b(?P<fw>(?:{_TEN}|{_SMALL}|hundred|thousand))fold\b"
    rf"|\b(?P<w>{_WORD_NUMBER})\b(?:(?P<mult>-fold\b|\s+times\b|fold\b)|(?P<pct>\s+percent\b))?"
    rf"|\b(?P<mw>{'|'.join(_MULTIPLIER_WORDS)})\b)",
    re.IGNORECASE,
)
_QUANTITY_UNITS = re.compile(
    r"(?:[KMGTP]i?B(?:/s)?|[KMGT]bps|Gb/s|GB/s|TB/s|ms|us|µs|ns|s|secs?|seconds?|mins?|minutes?|"
    r"hrs?|hours?"
    r"|days?|weeks?|months?|years?|W|kW|MW|GW|Wh|kWh|MWh|GWh|TWh|V|VDC|VAC|kV|mV|"
    r"(?:kilo|mega|giga)?watt(?:-hours?)?s?|amps?|amperes?|(?:kilo)?volts?|"
    r"degrees\s+(?:Celsius|Fahrenheit|C|F)|GHz|MHz|tokens?/s|req/s|QPS|RPS|tokens?|requests?)\b"
)
_NOUN_RE = re.compile(r"(?:\s+|-)(?P<noun>(?:[A-Za-z][\w-]*\d[\w-]*\s+)?[A-Za-z][A-Za-z-]*)")


def quantize(value: Decimal, decimals: int) -> Decimal:
    """``value`` rounded half-up to ``decimals`` places (the comparison used for tracing).

    A value too long for the decimal context (over 28 digits) is returned unchanged.
    """
    try:
        quantum = _QUANTA[decimals] if 0 <= decimals < len(_QUANTA) else Decimal(1).scaleb(
            -decimals)
        return value.quantize(quantum, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return value


#: ``Decimal(1).scaleb(-d)`` for the usual numbers of places, built once (quantize is called for
#: every figure against every piece of evidence).
_QUANTA = tuple(Decimal(1).scaleb(-d) for d in range(16))


def _decimal(text: str) -> tuple[Decimal, int]:
    clean = text.replace(",", "")
    decimals = len(clean.split(".", 1)[1]) if "." in clean else 0
    return Decimal(clean), decimals


_CONTEXT_LENGTH_RE = re.compile(
    r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)(?P<mag>[KMB])(?=[ -](?:tokens?\s+)?(?:context|window)\b)")


def context_lengths(text: str) -> list[Figure]:
    """``128K context``, ``1M-token window``: lengths in tokens that :func:`extract_figures`
    masks (in prose they are as often part of a model's name as a claim), for evidence text,
    where a body's "128K tokens of context" should find them. Counts of tokens, scaled."""
    out = []
    for m in _CONTEXT_LENGTH_RE.finditer(text):
        value, decimals = _decimal(m.group("n"))
        shift = _MAGNITUDE[m.group("mag")]
        value, decimals = value.scaleb(shift), decimals - shift
        if value == value.to_integral_value():
            value = value.quantize(Decimal(1))
        out.append(Figure(m.group(), m.start(), m.end(), FigureKind.quantity, value, decimals,
                          unit="tokens"))
    return out


#: A parameter count inside a model's name: "70B" of "Llama 2 70B" or "a 70B model".
_SIZE_IN_NAME_RE = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)(?P<mag>[MBT])(?![\w.])")


def model_sizes(text: str) -> list[Figure]:
    """The sizes in model names that :func:`extract_figures` masks ("Llama 2 70B", "a 7B
    model"), for evidence text, where a body's "a 70-billion-parameter model" should find
    them. Counts of parameters, scaled."""
    out: list[Figure] = []
    if _SIZE_IN_NAME_RE.search(text) is None:
        return out  # no size to find: skip the longer scan for names
    for name in _MODEL_NAME_RE.finditer(text):
        for m in _SIZE_IN_NAME_RE.finditer(text, name.start(), name.end()):
            value, decimals = _decimal(m.group("n"))
            shift = {"M": 6, "B": 9, "T": 12}[m.group("mag")]
            value, decimals = value.scaleb(shift), decimals - shift
            if value == value.to_integral_value():
                value = value.quantize(Decimal(1))
            out.append(Figure(m.group(), m.start(), m.end(), FigureKind.noun_count, value,
                              decimals, unit="parameters"))
    return out


def masked_spans(text: str) -> list[tuple[int, int]]:
    """Spans that are never figures: citation markers, URLs, names that contain digits,
    versions ("2.5.9", "version 2.5") and ordinals of labelled parts ("Table 3")."""
    spans = [m.span() for m in _CITATION_RE.finditer(text)]
    spans += [m.span() for m in _URL_RE.finditer(text)]
    spans += [m.span() for m in _NAME_RE.finditer(text)]
    models = [m.span() for m in _MODEL_NAME_RE.finditer(text)]
    spans += models
    spans += _model_sizes_named_again(text, models)
    spans += [m.span() for m in _VERSION_RE.finditer(text)]
    spans += [m.span(1) for m in _ORDINAL_LABEL_RE.finditer(text)]
    spans += [m.span() for m in _IDENTITY_RE.finditer(text)]
    spans += [m.span() for m in _PERCENTILE_RE.finditer(text)]
    return sorted(spans)


#: An ordinal percentile names a statistic, as "p90" does: "the 90th percentile", "the
#: 99th-percentile latency" (its number is the statistic's, not a figure of the metric).
_PERCENTILE_RE = re.compile(r"(?=\d)(?<![\w.])\d{1,2}(?:\.\d+)?(?:st|nd|rd|th)(?=[- ]percentile\b)",
                            re.IGNORECASE)


#: The identity of a sum written out, never evidence: the 1 of a reciprocal ("1 divided by
#: 3.85", "1/3.85") or a complement ("1 minus 0.457"), the 100 of a percent's complement
#: ("100 minus 54.3").
_IDENTITY_RE = re.compile(r"(?=1)(?<![\w.,$/])(?:1(?=\s+(?:divided\s+by|minus)\s+\d|\s?/\s?\d)"
                          r"|100(?=\s+minus\s+\d))")


#: The parameter count that ends a model's name ("Llama 3.1 405B", "Qwen 2.5 72B").
_NAME_SIZE_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?[BMT])$")


def _model_sizes_named_again(text: str, models: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where a size that ends a model's name stands again on its own ("Llama 3.1 405B ...; the
    405B run", "on the 70B"): the model named by its size, not a figure. Only sizes in
    billions or more written onto their letter, never "4K" (a context length)."""
    sizes = {m.group(1) for start, end in models
             if (m := _NAME_SIZE_RE.search(text, start, end)) is not None}
    if not sizes:
        return []
    pattern = re.compile(r"(?<![\w.,])(?:" + "|".join(map(re.escape, sorted(sizes))) + r")(?![\w])")
    return [m.span() for m in pattern.finditer(text)]


class _Claimed:
    """Character positions already taken by a mask or an earlier figure."""

    def __init__(self, size: int) -> None:
        self._taken = bytearray(size)

    def free(self, start: int, end: int) -> bool:
        return not any(self._taken[start:end])

    def take(self, start: int, end: int) -> None:
        self._taken[start:end] = b"\x01" * (end - start)


def _month(name: str) -> int:
    key = name.lower().rstrip(".")
    return MONTHS.get(key) or _MONTH_ABBR[key[:4] if key.startswith("sept") else key[:3]]


def _date_figure(m: re.Match[str], form: str) -> Figure | None:
    g = m.groupdict()
    if form == "ym":  # "2023/10", "2024-01", "in 2024.7"
        month = int(next(g[k] for k in ("m", "m2", "m3") if g.get(k)))
    elif form == "iso":
        month = int(g["m"])
    else:
        month = _month(g["mon"])
    year = int(g["y"]) if g.get("y") else 2000  # leap year: month_day dates keep Feb 29
    day = int(g["d"]) if g.get("d") else 1
    try:
        date = dt.date(year, month, day)
    except ValueError:
        return None
    precision = {"md": "month_day", "my": "month", "ym": "month"}.get(form, "day")
    return Figure(m.group(), m.start(), m.end(), FigureKind.date, date=date,
                  date_precision=precision)


_YEAR_IN_BRACKETS_RE = re.compile(r"\((?:19|20)\d{2}\)")


def _dates(text: str, claimed: _Claimed) -> Iterator[Figure]:
    bracketed = _YEAR_IN_BRACKETS_RE.search(text) is not None
    for pattern, form in _DATE_PATTERNS:
        if pattern is _BRACKET_YEAR_RE and not bracketed:
            continue
        for m in pattern.finditer(text):
            if not claimed.free(*m.span()):
                continue
            figure = _date_figure(m, form)
            if figure is not None:
                claimed.take(*m.span())
                yield figure


def _money(text: str, claimed: _Claimed) -> Iterator[Figure]:
    for m in _MONEY_RE.finditer(text):
        if not claimed.free(*m.span()):
            continue
        value, decimals = _decimal(m.group("n") or m.group("n2"))
        claimed.take(*m.span())
        yield Figure(m.group(), m.start(), m.end(), FigureKind.money, value, decimals,
                     unit=m.group("cur") or m.group("cur2"))


def _ranges(text: str, claimed: _Claimed) -> Iterator[Figure]:
    for m in _RANGE_RE.finditer(text):
        if not claimed.free(*m.span()):
            continue
        lo, lo_dec = _decimal(m.group("lo"))
        hi, hi_dec = _decimal(m.group("hi"))
        if hi <= lo:  # "4-2" is not a range; leave both numbers to the next pass
            continue
        unit = _unit_after(text, m.end())
        claimed.take(*m.span())
        yield Figure(m.group(), m.start(), m.end(), FigureKind.range, lo, max(lo_dec, hi_dec),
                     upper=hi, unit="%" if m.group("pct") else "x" if m.group("x") else unit)


#: A unit right after a number, one optional space between (built once: it is tried after
#: every number of every text).
_UNIT_AFTER_RE = re.compile(r"\s?(" + _QUANTITY_UNITS.pattern + ")")
_YEAR_DIGITS_RE = re.compile(r"(?:19|20)\d{2}")


def _unit_after(text: str, end: int) -> str | None:
    m = _UNIT_AFTER_RE.match(text, end)
    return m.group(1) if m else None


def _classify(text: str, m: re.Match[str], value: Decimal) -> tuple[FigureKind, str | None]:
    if m.group("mult"):
        return FigureKind.multiplier, None
    if m.group("pct"):
        points = "point" in m.group("pct") or "pp" in m.group("pct")
        return (FigureKind.points if points else FigureKind.percent), "%"
    unit = _unit_after(text, m.end())
    if unit:
        return FigureKind.quantity, unit
    digits = m.group("n")
    year = (_YEAR_DIGITS_RE.fullmatch(digits) is not None and not m.group("mag")
            and not _SETTING_COMPOUND_RE.match(text, m.end()))
    if year and (_names_a_year(text, m.start()) or (
            _TIME_PREPOSITION_RE.search(text, max(0, m.start() - 8), m.start())
            and int(digits) < 2030)):
        return FigureKind.year, None  # "OSDI 2024 papers", "the 2023 releases", "in 2021 CPUs"
    noun = _NOUN_RE.match(text, m.end())
    if noun and value == value.to_integral_value() and _looks_like_count_noun(noun.group("noun")):
        return FigureKind.noun_count, noun.group("noun")
    if year:
        return FigureKind.year, None
    return FigureKind.number, None


#: What makes a year of a number that a plural noun follows: a name before it (a venue, a
#: product line: "OSDI 2024 papers", "EuroSys 2025 talks") or a determiner ("the 2023
#: releases"). A single capital that only starts the sentence ("About 2024 papers") is no name.
_YEAR_OWNER_RE = re.compile(
    r"(?:\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*|(?<=[\w,;:(] )[A-Z][a-z]+"
    r"|\b(?:the|its|their|this|these|those|whose|our|his|her)|'s)\s$")


#: A preposition of time before a year that a plural noun follows: "in 2021 CPUs and AMD GPUs
#: were not supported" (not "of" or "by": "a total of 2000 GPUs", "grew by 2024 requests").
_TIME_PREPOSITION_RE = re.compile(r"\b(?:[Ii]n|[Ss]ince|[Uu]ntil|[Tt]ill|[Dd]uring|[Bb]efore|"
                                  r"[Aa]fter|[Tt]hrough)\s$")


def _names_a_year(text: str, start: int) -> bool:
    return _YEAR_OWNER_RE.search(text[max(0, start - 40):start]) is not None


#: A number joined by a hyphen to the noun it sizes is a setting, never a year: "a 2048-token
#: budget", "a 1984-page manual"; "2024-era" and "2023-style" name a time.
_SETTING_COMPOUND_RE = re.compile(r"-(?!(?:era|style|vintage|ish)\b)[a-z]{2,}\b")


def _looks_like_count_noun(noun: str) -> bool:
    last = noun.split()[-1]
    return last.endswith("s") and not last.endswith("ss") or last.isupper() or " " in noun


def _numbers(text: str, claimed: _Claimed) -> Iterator[Figure]:
    for m in _NUMBER_RE.finditer(text):
        if not claimed.free(*m.span()):
            continue
        try:
            value, decimals = _decimal(m.group("n"))
        except InvalidOperation:
            continue
        if m.group("mag"):  # 25K = 25000, printed to the nearest thousand
            mag = m.group("mag")
            shift = _MAGNITUDE[mag if len(mag) == 1 else mag[1:]]  # " million": one separator
            value, decimals = value.scaleb(shift), decimals - shift
            if value == value.to_integral_value():
                value = value.quantize(Decimal(1))
        kind, unit = _classify(text, m, value)
        claimed.take(*m.span())
        yield Figure(m.group(), m.start(), m.end(), kind, value, decimals, unit=unit)


def word_value(words: str) -> Decimal:
    """The value of a number phrase such as ``forty-six`` or ``two hundred``."""
    total = 0
    parts = re.split(r"[\s-]+", words.lower())
    for part in parts:
        if part in _SCALES:
            total = max(total, 1) * _SCALES[part]
        else:
            total += _UNITS.get(part) or _TENS.get(part) or (1 if part == "one" else 0)
    return Decimal(total)


#: After a multiplier word, what makes it part of a compound adjective or a number format.
_COMPOUND_RE = re.compile(r"-[A-Za-z]|\s+precision\b", re.I)


#: Before "half", what makes it a noun naming a part rather than a fraction of a quantity: a
#: determiner with or without an ordinal or adjective ("the other half", "its second half",
#: "the latter half"); not "by half", "in half", "one and a half", "only half the".
_HALF_NOUN_RE = re.compile(
    r"\b(?:the|its|their|our|his|her|this|that|each|either|every)\s+"
    r"(?:(?:other|first|second|third|last|latter|former|lower|upper|top|bottom|back|front"
    r"|better|larger|bigger|smaller|remaining)\s+)?$", re.IGNORECASE)


#: "one and a half times", "two and a half percent": a whole and a half, in words.
_AND_A_HALF_RE = re.compile(
    rf"\b(?P<w>{_SMALL}|{_TEN})\s+and\s+a\s+half\b(?:(?P<mult>\s+times\b|-fold\b)|"
    rf"(?P<pct>\s+percent\b))?", re.IGNORECASE)


def _and_a_half(text: str, claimed: _Claimed) -> Iterator[Figure]:
    if " and a half" not in text and " and a Half" not in text:
        return  # (the pattern tries every word of the text)
    for m in _AND_A_HALF_RE.finditer(text):
        if not claimed.free(*m.span()):
            continue
        claimed.take(*m.span())
        kind = (FigureKind.multiplier if m.group("mult") else
                FigureKind.percent if m.group("pct") else FigureKind.number)
        yield Figure(m.group(), m.start(), m.end(), kind, word_value(m.group("w")) + Decimal("0.5"),
                     1, spelled=True, unit="%" if kind is FigureKind.percent else None)


def _words(text: str, claimed: _Claimed) -> Iterator[Figure]:
    yield from _and_a_half(text, claimed)
    for m in _WORD_RE.finditer(text):
        if not claimed.free(*m.span()):
            continue
        if any(c.isupper() for c in m.group()[1:]) and not m.group().isupper():
            continue  # "ZeRO", "TwoTower": a name in mixed case, not a number word
        if m.group("mw"):
            if _COMPOUND_RE.match(text, m.end()):
                continue  # "half-precision", "double-digit", "double precision": no figure
            if m.group("mw").lower() == "half" and _HALF_NOUN_RE.search(
                    text, max(0, m.start() - 40), m.start()):
                continue  # "the other half of the story", "the first half": a part, no figure
            value = Decimal(_MULTIPLIER_WORDS[m.group("mw").lower()])
            kind = FigureKind.multiplier
        elif m.group("fw"):  # twofold, tenfold, hundredfold
            fw = m.group("fw").lower()
            value = Decimal(_SCALES[fw]) if fw in _SCALES else word_value(fw)
            kind = FigureKind.multiplier
        else:
            phrase = m.group("w")
            if phrase.lower() == "one":
                continue
            value = word_value(phrase)
            kind = (FigureKind.multiplier if m.group("mult")
                    else FigureKind.percent if m.group("pct") else FigureKind.number)
        claimed.take(*m.span())
        decimals = max(0, -int(value.normalize().as_tuple().exponent))  # half -> 0.5, 1 place
        yield Figure(m.group(), m.start(), m.end(), kind, value, decimals, spelled=True,
                     unit="%" if kind is FigureKind.percent else None)


def extract_figures(text: str) -> list[Figure]:
    """Every figure in ``text``, in order of position, with exact spans and kinds.

    Never raises for any input string; text without figures gives an empty list.
    """
    return list(_extract(text))


#: A fraction of a quantity written in digits: "1/2 the vRAM", "1/4 of the memory", "3/4 as
#: much". Not a date ("1/2/2024") nor a ratio of two things ("a 3/4 split").
_FRACTION_RE = re.compile(r"(?<![\w/.])(?P<a>\d{1,2})/(?P<b>\d{1,3})(?![\w/.])"
                          r"(?=\s+(?:the|of|as)\b)")


def _fractions(text: str, claimed: _Claimed) -> Iterator[Figure]:
    """``1/2 the vRAM`` is a multiplier of 0.5, as ``half the vRAM`` is."""
    for m in _FRACTION_RE.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        if not claimed.free(*m.span()) or b == 0 or a >= b:
            continue
        value = (Decimal(a) / Decimal(b)).quantize(Decimal("0.0001")).normalize()
        claimed.take(*m.span())
        decimals = max(0, -int(value.as_tuple().exponent))
        yield Figure(m.group(), m.start(), m.end(), FigureKind.multiplier, value, decimals)


@lru_cache(maxsize=4096)
def _extract(text: str) -> tuple[Figure, ...]:
    # The checks ask for the figures of the same body and sentences many times; figures are
    # frozen, so one cached tuple per text is safe to share.
    claimed = _Claimed(len(text))
    fractions = list(_fractions(text, claimed))  # before the masks: "1/x" masks its 1
    for start, end in masked_spans(text):
        claimed.take(start, end)
    figures = [*fractions, *_dates(text, claimed), *_money(text, claimed),
               *_ranges(text, claimed), *_numbers(text, claimed), *_words(text, claimed)]
    return tuple(sorted(figures, key=lambda f: f.start))


def __getattr__(name: str) -> object:
    """``trace_figures``, ``TracedFigure`` and ``Trace`` live in :mod:`ledger.verify.tracing`
    (they need the article model); they are importable from here too."""
    if name in ("trace_figures", "TracedFigure", "Trace"):
        from .verify import tracing

        return getattr(tracing, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
