"""Reading a figure's typed quantity from the prose around it (:func:`quantity_of`,
:func:`typed_figures`): its noun phrase, unit, direction and whether it counts anything at all.
Split from :mod:`ledger.quantities` (which re-exports these names) to keep one concept a module."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal
from functools import lru_cache

from .figures import Figure, FigureKind, extract_figures, quantize
from .quantity_units import (
    _DIMENSION_KIND,
    _KEEP_S,
    UNITS,
    Kind,
    Quantity,
    Unit,
    lemma,
    metric_quantity,
    money_rate,
    noun_class,
    parse_unit,
)

__all__ = [
    "quantity_of",
    "typed_figures",
    "unit_end",
]

_STOP = frozenset({
    "of", "on", "in", "to", "with", "and", "or", "for", "per", "at", "from", "by", "that",
    "which", "the", "a", "an", "than", "as", "is", "are", "was", "were", "each", "into",
    "over", "across", "under", "using", "while", "when", "where", "but", "not", "its",
    "their", "his", "her", "it", "this", "these", "those", "more", "less", "fewer",
    "lower", "higher", "faster", "slower", "times", "out", "up", "down", "about", "after",
    "before", "between", "behind", "against", "through", "spread", "without", "within",
    # adverbs and conjunctions end a noun phrase too: "the two named here plus ten others"
    "here", "there", "plus", "minus", "also", "only", "then", "now", "vs", "versus",
})
_WORD_RE = re.compile(r"\s*(?P<w>[A-Za-z][\w'-]*)")
#: Verbs in the third person that look like plural nouns right after a number ("15% to 580
#: gives 667", "the 2x means"): the number counts nothing.
_VERBS_S = frozenset({"gives", "leaves", "means", "takes", "makes", "needs", "yields",
                      "remains", "becomes", "equals", "puts", "sits", "stays", "holds",
                      "reaches", "comes", "goes", "does", "seems", "implies", "suggests",
                      "exceeds", "brings"})
#: One word that names what changed, between a percent and the noun of its change: "a 10%
#: step saving", "a 40% throughput gain" (not "of", "the" or another function word).
_CHANGED = r"(?:\s+(?!(?:of|the|a|an|in|on|at|to|for|and|or|is|was)\b)[a-z][\w-]*(?=\s))?"
_INCREASE = re.compile(r"\s*(?:faster|higher|more|greater|larger|better|bigger|quicker"
                       rf"|{_CHANGED}\s*(?:improvement|increase|gain|speed-?up|boost|uplift|"
                       r"rise))\b", re.I)
_DECREASE = re.compile(r"\s*(?:lower|less|fewer|smaller|shorter|slower|cheaper"
                       rf"|{_CHANGED}\s*(?:reduction|decrease|cut|drop|saving|savings|decline|"
                       r"fall))\b", re.I)
_BEFORE_INCREASE = re.compile(r"\b(?:(?:rose|rises|rise|increased?|increases|improved?|improves"
                              r"|grew|grows|gains?|boosts?|up)\s+(?:by\s+)?|(?:increase|gain"
                              r"|improvement|rise|boost|uplift)\s+of\s+(?:about\s+|some\s+"
                              r"|roughly\s+|nearly\s+|around\s+)?)$", re.I)
_BEFORE_DECREASE = re.compile(r"\b(?:(?:fell|falls|fall|dropped|drops|drop|cuts?|reduced?"
                              r"|reduces|declined?|declines|down|shrank|shrinks|lowered"
                              r"|lowers)\s+(?:by\s+)?|(?:cut|reduction|drop|decrease|saving"
                              r"|savings|decline|fall)\s+of\s+(?:about\s+|some\s+|roughly\s+"
                              r"|nearly\s+|around\s+)?)$", re.I)


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
        if not _noun_word(word) or (not words and word.lower() in _VERBS_S):
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


def _noun_word(word: str) -> bool:
    """The word may be (part of) a counted noun: no stop word, nor a compound that opens with
    one ("4K-versus-16K": a comparison of two figures, not 4,000 "versus-16Ks")."""
    low = word.lower()
    return low not in _STOP and low.split("-")[0] not in _STOP


def _next_is_noun(text: str, pos: int) -> bool:
    """The next word continues the noun phrase: a known noun or a plural, or a model name
    before one ("three GB300 NVL72 configurations": configurations are counted)."""
    m = _WORD_RE.match(text, pos)
    if not m or text[pos:m.start("w")].strip() or m.group("w").lower() in _STOP:
        return False
    word = m.group("w")
    if any(c.isdigit() for c in word) and _next_is_noun(text, m.end()):
        return True
    return bool(noun_class(lemma(word)) or word.lower().endswith("s"))


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


#: A command-line flag right before its value: "--join_timeout_ms 10000", "--mtbf-secs=300".
_FLAG_BEFORE_RE = re.compile(r"--(?P<name>[A-Za-z][\w-]*)(?:=|\s+)$")
#: A money figure's currency, by the sign or code it is written with (kept as its noun).
_CURRENCIES = {"$": "USD", "USD": "USD", "dollars": "USD", "€": "EUR", "EUR": "EUR",
               "euros": "EUR", "£": "GBP", "¥": "JPY"}
#: Nouns a year names the edition of: "2023 results", "the 2024 models".
_DATED_NOUNS = frozenset({"result", "figure", "number", "model", "price", "benchmark", "ranking",
                          "submission", "rule", "guideline", "spec", "standard", "product",
                          "release", "plan", "target", "budget", "earning", "sale", "estimate",
                          "forecast", "edition", "round", "season", "election", "time"})
#: Words before a year-like number that keep it a year: "the 2024 models", "in 2000 runs".
_YEAR_BEFORE_RE = re.compile(r"\b(?:the|a|an|its|their|this|that|in|since|by|from|until|to|"
                             r"before|after|during|of|circa|early|late|mid|fiscal|FY|year|"
                             r"spring|summer|autumn|fall|winter)\s+$", re.IGNORECASE)


#: A price after "N ×": the number is a factor of a product ("200 × $0.0032 for GiB of RAM"),
#: not a multiple.
_TIMES_PRICE_RE = re.compile(r"\s?[$€£]\s?\d")


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
    start = fig.start
    if (lead := _RANGE_LEAD_RE.search(text, max(0, start - 48), start)) is not None:
        start = lead.start()  # "the 3 to 4x figures": the determiner is before the range
    return _DETERMINER_BEFORE_RE.search(text[max(0, start - 12):start]) is not None


#: The first end of a range, or the items of a list, written before an ``Nx`` ("3 to 4x",
#: "2-4x" read apart; "the 3.5x, 63x and 10x figures").
_RANGE_LEAD_RE = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?[x×]?(?:\s*(?:,|to|or|and|-|–|—)\s*|"
                            r",\s*(?:and|or)\s+))+$")


def _is_frequency(text: str, fig: Figure) -> bool:
    """``ran three times`` counts repetitions; ``three times the throughput`` is a multiplier."""
    if not fig.text.endswith("times") or fig.decimals:
        return False
    tail = text[fig.end - len(" times"):]
    before = text[max(0, fig.start - 20):fig.start]
    return bool(_FREQ_TIMES_RE.match(tail)) and not _MULT_LEAD_RE.search(before) and not (
        _COMPARATIVE_AFTER_RE.match(text, fig.end)) and not (_SCALED_BEFORE_RE.search(
                     text[max(0, fig.start - 50):fig.start])
                     and not _WHEN_AFTER_RE.match(text, fig.end))


#: A comparative after "N times" makes it a multiple ("6 times longer than", "five times
#: cheaper"): a known comparative, or any word in -er followed by "than".
_COMPARATIVE_AFTER_RE = re.compile(
    r"\s*[,.;:]?\s*(?:(?:faster|slower|higher|lower|more|less|larger|longer|shorter|bigger|"
    r"smaller|greater|cheaper|wider|narrower|deeper|quicker|better|worse|fewer)\b"
    r"|[A-Za-z]{2,}er\s+than\b)")


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
                not _noun_word(m.group("w"))) or not all(
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
        return Quantity(Kind.money, unit=money_rate(text, fig.end, fig.start),
                        noun=_CURRENCIES.get(fig.unit or ""), **base)  # type: ignore[arg-type]
    if (flag := _FLAG_BEFORE_RE.search(text, max(0, fig.start - 48), fig.start)) is not None and (
            typed := metric_quantity(flag.group("name").replace("-", "_"))) is not None and (
            typed.unit is not None):
        # "--join_timeout_ms 10000", "--mtbf-secs=300": the flag's name gives the unit
        return Quantity(typed.kind, unit=typed.unit, **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.range and fig.unit == "x":  # "3-10x"
        return Quantity(Kind.multiplier, **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.multiplier:
        if _is_frequency(text, fig):
            return Quantity(Kind.count, noun="time", **base)  # type: ignore[arg-type]
        if _TIMES_PRICE_RE.match(text, fig.end):  # "200 × $0.0032": a factor of a product
            return Quantity(Kind.number, **base)  # type: ignore[arg-type]
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
    if unit is None:
        unit = _unit_after_name(text, fig.end)  # "2280 FP16/BF16 TFLOPS"
    if unit is not None:
        kind = _DIMENSION_KIND.get(unit[0].dimension, Kind.number)
        return Quantity(kind, unit=unit[0], **base)  # type: ignore[arg-type]
    if fig.kind is FigureKind.year:
        noun, modifiers = _noun_phrase(text, fig.end)
        if (noun is not None and noun not in _DATED_NOUNS and (noun_class(noun) or modifiers)
                and _plural(text, fig.end, len(
                modifiers)) and not _YEAR_BEFORE_RE.search(text, max(0, fig.start - 16),
                                                           fig.start)):
            # "cites 2000 synthetic failures": a count; "the 2024 models", "in 2000 runs"
            # stay years (a determiner or a preposition of time before it)
            return Quantity(Kind.count, noun=noun, modifiers=modifiers, **base)  # type: ignore[arg-type]
        return Quantity(Kind.year, **base)  # type: ignore[arg-type]
    if values:
        noun, modifiers = _noun_phrase(text, fig.end)
        if _counts_its_modifier(text, fig, noun, modifiers):
            noun, modifiers = modifiers[0], (noun,)  # "a 4096 token context": tokens
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


#: A name with a digit (a number format, a memory type): "FP16", "BF16/FP16", "HBM3".
_DIGIT_NAME_RE = re.compile(r"\s(?:[A-Za-z]+\d\w*)(?:/[A-Za-z]+\d\w*)*(?=\s)")


def _unit_after_name(text: str, end: int) -> tuple[Unit, int] | None:
    """A unit written after a name with a digit: "1979 FP8 TFLOPS", "96 HBM3 GB". The name
    qualifies the unit; the number is still in it ("8 H100 GPUs" has no unit and counts
    GPUs)."""
    m = _DIGIT_NAME_RE.match(text, end)
    return parse_unit(text, m.end()) if m is not None else None


def _counts_its_modifier(text: str, fig: Figure, noun: str | None,
                         modifiers: tuple[str, ...]) -> bool:
    """A number above one before a singular noun of a known class and a singular head counts
    that first noun, as the hyphenated compound would ("a 4096 token context", "a 24 GPU
    cluster"): a plural number cannot count a singular head. A plural head is what is counted
    ("500 client nodes")."""
    return (noun is not None and len(modifiers) == 1 and noun_class(modifiers[0]) is not None
            and all(v > 1 for v in fig.values) and not _plural(text, fig.end, 0)
            and not _plural(text, fig.end, 1))


def unit_end(text: str, end: int) -> int:
    """Where the unit written after a number ending at ``end`` ends ("1,800 output tokens per
    second", "96 GB"); ``end`` when no unit follows. The unit's words belong to the
    quantity, not to what is said around it."""
    unit = parse_unit(text, end) or _rate_after_modifier(text, end) or _unit_after_name(text, end)
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


#: Nouns that stand for whatever the sentence counts ("Ada and ten others", "two more"): a
#: count of them agrees with a count of any noun.
_ANAPHORIC = frozenset({"other", "more", "one", "rest", "remainder"})


#: What joins two numbers of one quantity: a range ("22 to 32%") or a pair compared ("16 vs
#: 32 GB"); the first takes the unit written after the second.
_JOIN_RE = re.compile(r"\s*(?:to|and|-|–|—|or|vs\.?|versus)\s*$")


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
    _type_operands(text, out)
    for i in range(len(out) - 1):
        if (pair := _compound_duration(text, out[i], out[i + 1])) is not None:
            out[i], out[i + 1] = pair
        elif (way := _restated_change(text, out[i], out[i + 1])) is not None:
            g, r = out[i + 1]
            out[i + 1] = (g, replace(r, direction=way))
    return tuple(out)


_PLUS_MINUS_RE = re.compile(r"\s*[-+−–]\s*")
_EQUALS_RE = re.compile(r"\s*=\s*")
_OTHER_OPERATOR_RE = re.compile(r"[/*×÷x(]\s*$")


def _type_operands(text: str, out: list[tuple[Figure, Quantity]]) -> None:
    """Bare numbers added or subtracted to a typed result take its kind: in "51 - 21 = 30
    percentage points" the 51 and 21 are percents (points are a gap of percents); in "40 + 24
    = 64 GB" they are gigabytes."""
    for k in range(1, len(out)):
        g, r = out[k]
        if r.kind not in (Kind.points, Kind.percent) and r.unit is None:
            continue
        if _EQUALS_RE.fullmatch(text, out[k - 1][0].end, g.start) is None:
            continue
        kind = Kind.percent if r.kind is Kind.points else r.kind
        j = k - 1
        chain = [j]
        while j > 0 and _PLUS_MINUS_RE.fullmatch(text, out[j - 1][0].end, out[j][0].start):
            j -= 1
            chain.append(j)
        if len(chain) < 2 or _OTHER_OPERATOR_RE.search(text, max(0, out[j][0].start - 3),
                                                       out[j][0].start):
            continue  # "493017 / 425000 - 1 = 16.0%": a ratio less one, not a gap of percents
        for i in chain:
            f, q = out[i]
            if q.kind is Kind.number and not q.spelled:
                out[i] = (f, Quantity(kind, q.values, f.decimals, r.unit))


#: A percent set beside a ratio as its restatement: "= 1.218, about 21.8%", "1.5x (50%)".
_RESTATE_RE = re.compile(r"\s*(?:[×x])?\s*(?:,|\(|,?\s+or)\s*(?:(?:about|roughly|around|nearly|"
                         r"some|almost|i\.e\.,?|that\s+is,?)\s+)?$", re.IGNORECASE)


def _restated_change(text: str, a: tuple[Figure, Quantity], b: tuple[Figure, Quantity]
                     ) -> str | None:
    """The direction of a percent of no direction that restates the ratio right before it as a
    change ("rose by 353.185 / 290.005 = 1.218, about 21.8%": an increase of 21.8%; "0.9 of its
    length, or 10% less" keeps its own word): "increase" for a ratio above one whose excess
    it gives, "decrease" for one below one whose shortfall it gives, else None."""
    (f, q), (g, r) = a, b
    if r.kind is not Kind.percent or r.direction is not None or len(f.values) != 1 or (
            len(g.values) != 1 or q.kind not in (Kind.number, Kind.multiplier)):
        return None
    if _RESTATE_RE.fullmatch(text, f.end, g.start) is None:
        return None
    ratio, percent = f.values[0], g.values[0]
    tolerance = Decimal(1).scaleb(-g.decimals)
    if ratio > 1 and abs((ratio - 1) * 100 - percent) <= tolerance:
        return "increase"
    if 0 < ratio < 1 and abs((1 - ratio) * 100 - percent) <= tolerance:
        return "decrease"
    return None


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
