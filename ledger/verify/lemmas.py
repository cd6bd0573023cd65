"""Terms found in any of their forms: lemmas and a small synonym table instead of exact strings.

:func:`find_lemmas` finds a term in any of its forms ("GPU savings" finds "GPU saving";
"savings" finds "saves"; "faster" finds "quicker"), by a crude documented stemmer plus
:data:`SYNONYMS`. The prose guardrails (:mod:`.prose_rules`, :mod:`.prose_checks`) match their
words this way.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["SYNONYMS", "find_lemmas"]

#: Words that mean the same in a label (each set is one meaning).
SYNONYMS: list[frozenset[str]] = [
    frozenset({"faster", "quicker", "speedier", "speedup", "speed-up", "accelerate", "pace"}),
    frozenset({"saving", "save", "cheaper", "reduction in cost"}),
    frozenset({"cost", "price", "spend", "spending", "expense"}),
    frozenset({"dollar", "dollars", "USD"}),
    frozenset({"latency", "delay", "wait", "response time"}),
    # the domain's metric words: one meaning each
    frozenset({"throughput", "serving capacity", "tokens per second", "requests per second",
               "goodput"}),
    # a figure "to its first token" or "before the first token" is the time to it
    frozenset({"TTFT", "time to first token", "time-to-first-token", "first-token latency",
               "first token"}),
    frozenset({"memory", "memory footprint", "footprint"}),
    frozenset({"power", "power draw", "wattage"}),
    frozenset({"energy", "energy use", "energy consumption"}),
    frozenset({"improvement", "improve", "gain", "boost", "uplift"}),
    frozenset({"measured", "measurement", "measure", "benchmarked", "benchmark", "tested",
               "observed"}),
    # where work is done: "runs on the Neural Engine", "dispatches work to it"
    frozenset({"run", "execute", "dispatch", "offload"}),
    frozenset({"general", "generally", "always", "universal", "universally", "every"}),
    frozenset({"average", "mean", "typical"}),
    # a baseline is what a figure is compared with: "lower than X", "against X", "versus X"
    frozenset({"baseline", "than", "against", "versus", "compared with"}),
    frozenset({"current", "latest", "today"}),
    # two results claimed at once: "both 4x more requests and a 9x tighter limit at once"
    frozenset({"together", "both", "combined", "simultaneously", "at once", "at the same time"}),
    # a cause claimed as the only one: "X alone", "X on its own"
    frozenset({"alone", "on its own", "by itself", "solely", "single-handedly"}),
    frozenset({"remember", "recall", "retain"}),
    frozenset({"extend", "extension", "gain", "double", "doubling", "lengthen", "expand"}),
    frozenset({"whole", "entire", "all"}),
    # what a claim does to a thing: changing it, taking it away
    frozenset({"change", "alter", "modify", "drift", "deviate"}),
    frozenset({"remove", "eliminate", "take out", "cut out", "strip out", "get rid of"}),
    frozenset({"recommend", "recommendation", "advise", "advice", "suggest"}),
]
_SUFFIXES = ("ings", "ing", "ments", "ment", "ies", "ied", "es", "ed", "s", "e", "y")


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=256)
def _stems_of(group: frozenset[str]) -> frozenset[str]:
    """The stems of a synonym group's words, built once per group (every new term is tried
    against every group)."""
    return frozenset(_stem(g) for g in group)


@lru_cache(maxsize=1024)
def _variants(term: str) -> tuple[str, ...]:
    words = term.lower().split()
    stems = {_stem(words[-1])}
    phrases = set()  # a synonym of several words stands alone ("alone": "on its own")
    for group in SYNONYMS:
        if term.lower() in group or _stem(words[-1]) in _stems_of(group):
            stems |= {_stem(g) for g in group if " " not in g}
            # ...but not for a qualified term: "cluster throughput" is not any "tokens per
            # second", only the term said whole or its head's one-word synonyms qualified
            phrases |= {" ".join([*g.split()[:-1], _stem(g.split()[-1])]) for g in group
                        if " " in g and g != term.lower()
                        and (len(words) == 1 or term.lower() in group)}
    head = " ".join(words[:-1])
    return tuple(sorted({(head + " " if head else "") + s for s in stems} | phrases,
                        key=len, reverse=True))


_PARTICLES = frozenset({"out", "off", "away"})


@lru_cache(maxsize=1024)
def _pattern(term: str) -> re.Pattern[str]:
    # a word of a phrase may be said as a possessive: "authors abstract" is "the authors'
    # abstract", "model output" is "the model's output"
    gap = r"(?:'s|’s|'|’)?[\s-]+"
    # a phrasal verb's object may stand before its particle: "take the CPU out"
    split = r"(?:\s+(?:the|a|an|its|their)?\s*[\w'’-]+){0,3}?\s+"

    def alternative(v: str) -> str:
        words = v.split()
        if len(words) == 2 and words[1] in _PARTICLES:
            return re.escape(words[0]) + r"[a-z]*" + split + re.escape(words[1])
        return (gap.join(map(re.escape, words[:-1]) or [""]).strip()
                + (gap if len(words) > 1 else "") + re.escape(words[-1]) + r"[a-z]*")
    alternatives = "|".join(alternative(v) for v in _variants(term)).replace(
        r"\-", r"[\s-]")  # "per-GPU" is "per GPU"
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w])", re.IGNORECASE)


#: forms of another word that the crude stemmer would take for a synonym's: "1.5x means a
#: third less waiting" says nothing of a mean
_HOMOGRAPHS = frozenset({"means", "meaning", "meanings", "meant", "meanwhile"})


def find_lemmas(text: str, terms: list[str], offset: int = 0) -> list[tuple[int, int, str]]:
    """Occurrences of ``terms`` in any inflection or synonym: ``(start, end, term)``."""
    found = []
    for term in terms:
        for m in _pattern(term).finditer(text):
            if m.group().lower() not in _HOMOGRAPHS:
                found.append((offset + m.start(), offset + m.end(), term))
    return sorted(found)


def _same_word(text: str, term: str) -> bool:
    """``term`` in ``text`` in any inflection, synonyms aside."""
    stem = _stem(term.split()[-1])
    head = r"\s+".join(map(re.escape, term.lower().split()[:-1]))
    pattern = ((head + r"\s+" if head else "") + re.escape(stem) + r"[a-z]*").replace(
        r"\-", r"[\s-]")  # "per-client" is "per client"
    return re.search(rf"(?<![\w-]){pattern}(?![\w])", text, re.IGNORECASE) is not None
