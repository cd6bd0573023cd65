"""The words a figure carries itself: its own label, read from the phrase structure after it.

A figure is usually named by the noun phrase written right after it ("20% lower cost", "1.4x
the throughput", "6x in the prefix stage", "2.5x faster", "40 GB/s of write throughput"), or,
when it is the subject of a copula, by the predicate ("the 5x is a throughput result"). A word
outside that phrase is not the figure's label just because it is near: in "1.4x the throughput
at 20% lower cost" the 20% is a cost, and "throughput" belongs to the 1.4x.

:func:`own_label` returns the span of that phrase (``None`` when the figure carries no words:
"latency fell by 1.9x."); :func:`range_start` joins a spelled range ("2.8 to 5 times") so that
a label before it reaches the whole range. The grammar is small and documented here:

* the phrase starts after the figure (and its unit, when one is written), runs over words
  separated by spaces only (punctuation ends it), at most :data:`MAX_WORDS` words;
* it ends before another figure, or before a word of :data:`_STOP` (prepositions that start an
  adjunct -- at, for, with, over, than, against, by... -- conjunctions and relative words);
  "in", "of" and "per" continue it ("a 41x gain in tokens per GPU");
* one copula (is, are, was, were) continues into the predicate, which names the subject too
  ("the 5x is a throughput result", "the 67% gain is a cost saving");
* a phrase made only of determiners ("the", "a", "up") is no label.
"""

from __future__ import annotations

import re

from ..figures import Figure
from ..quantities import parse_unit

__all__ = ["MAX_WORDS", "names_noun", "own_label", "range_start"]

MAX_WORDS = 6
_WORD_RE = re.compile(r"[A-Za-z][\w'’/-]*|\S")
_STOP = frozenset({
    "at", "for", "with", "on", "over", "than", "against", "versus", "vs", "from", "while",
    "when", "under", "after", "before", "by", "and", "or", "but", "nor", "to", "as", "that",
    "which", "who", "where", "because", "since", "if", "so", "into", "onto", "across", "within",
    "without", "beside", "besides", "behind", "through", "via", "among", "between", "despite",
    "has", "have", "had", "can", "could", "will", "would", "may", "might", "should", "must",
    "does", "do", "did", "not", "also", "still", "only",
    # verbs that follow a subject phrase: "450 billion tokens took 84 days" (took is no label)
    "took", "takes", "taking", "ran", "reached", "reaches", "gave", "gives", "showed", "shows",
    "became", "becomes", "fell", "rose", "grew", "remained", "stayed", "required", "requires",
    "delivered", "delivers", "achieved", "achieves", "produced", "produces", "yielded", "yields",
})
_COPULA = frozenset({"is", "are", "was", "were", "be", "been", "being"})
_EMPTY = frozenset({"the", "a", "an", "up", "its", "their", "of", "in"})
#: Comparatives: "22.2x larger" says how much, not of what ("a context window up to 22.2x
#: larger": the window is what the figure measures).
_COMPARATIVES = frozenset({
    "more", "less", "fewer", "lower", "higher", "larger", "smaller", "faster", "slower", "longer",
    "shorter", "bigger", "greater", "better", "worse", "cheaper", "quicker", "tighter", "times",
    "fold", "as", "much", "many", "over", "above", "below",
})
_RANGE_GAP_RE = re.compile(r"\s*(?:to|-|–)\s*")


def own_label(body: str, fig: Figure, limit: int | None = None) -> tuple[int, int] | None:
    """The span of the words ``fig`` carries after it (see the module's grammar), or None."""
    limit = len(body) if limit is None else limit
    pos = fig.end
    unit = parse_unit(body, fig.end)
    if unit is not None:
        pos = unit[1]
    start = end = None
    count = 0
    copula_seen = False
    for m in _WORD_RE.finditer(body, pos, limit):
        gap = body[pos:m.start()]
        word = m.group().lower()
        if gap.strip() or not m.group()[0].isalpha():
            break  # punctuation, a digit (another figure) or a bracket ends the phrase
        if word in _COPULA:
            if copula_seen:
                break  # "the 5x is a ..." / "the 67% gain is a ...": the predicate names it too
            copula_seen, pos = True, m.end()
            continue
        if word in _STOP or count >= MAX_WORDS:
            break
        start = m.start() if start is None else start
        end, pos, count = m.end(), m.end(), count + 1
    if start is None or end is None:
        return None
    words = {w.lower() for w in re.findall(r"[\w'’/-]+", body[start:end])}
    return (start, end) if words - _EMPTY else None


def range_start(body: str, fig: Figure, before: Figure | None) -> int:
    """Where the range that ends with ``fig`` starts: ``before``'s start when the two are
    written as one range ("2.8 to 5 times", "3-10x"), else ``fig``'s own start."""
    if before is None or before.end > fig.start:
        return fig.start
    if _RANGE_GAP_RE.fullmatch(body[before.end:fig.start]) and before.unit is None and (
            parse_unit(body, before.end) is None):
        return before.start
    if re.fullmatch(r"\s+to\s+", body[before.end:fig.start]) and re.search(
            r"\bfrom\s+$", body[max(0, before.start - 6):before.start]) and (
            before.kind is fig.kind):
        return before.start  # "rose from 44% to 80%": a change's two ends share its words
    return fig.start


def names_noun(body: str, span: tuple[int, int] | None) -> bool:
    """True when an own label names what the figure measures: a word that is not a comparative
    ("lower cost" does, "larger" alone does not), outside a leading "in" phrase, which states a
    condition ("down 6x in the prefill stage": the metric is named before the figure)."""
    if span is None:
        return False
    words_in = re.findall(r"[\w'’/-]+", body[span[0]:span[1]])
    if words_in and words_in[0].lower() == "in":
        return False  # "fell 4.5x in the trial", "down 6x in the prefix stage": a condition
    words = {w.lower() for w in words_in}
    return bool(words - _EMPTY - _COMPARATIVES - _COPULA)
