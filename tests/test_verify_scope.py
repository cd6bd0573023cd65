"""Work shared between checks of one article (ledger/verify/scope.py), and the shortcut in
``find_terms`` that skips terms the text cannot contain: both must leave every result as it was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledger import figures
from ledger.models import Article
from ledger.schema import load_article
from ledger.verify import verify_article
from ledger.verify.intervals import relative_intervals
from ledger.verify.prose import _term_pattern, find_terms
from ledger.verify.scope import article_scope
from ledger.verify.tracing import build_index

ROOT = Path(__file__).resolve().parent.parent
SEED_ALL = sorted((ROOT / "claims").glob("*.json"))
SEED = SEED_ALL[0]


def _article() -> Article:
    article, findings = load_article(SEED)
    assert article is not None, findings
    return article


def test_an_article_scope_computes_the_index_once() -> None:
    article = _article()
    with article_scope():
        assert build_index(article) is build_index(article)
        assert relative_intervals(article) is relative_intervals(article)
        other = _article()
        assert build_index(other) is not build_index(article)  # per article, never shared


def test_outside_a_scope_every_call_reads_the_article_afresh() -> None:
    article = _article()
    first = build_index(article)
    article.facts.clear()
    assert build_index(article) is not first
    assert len(build_index(article).numbers) < len(first.numbers)


def test_verify_article_gives_the_same_findings_inside_and_outside_a_scope() -> None:
    article = _article()
    once = verify_article(article)
    with article_scope():
        nested = verify_article(article)
    assert [(f.rule, f.pointer, f.line, f.column, f.message) for f in once] == [
        (f.rule, f.pointer, f.line, f.column, f.message) for f in nested]


def _unfiltered(text: str, terms: list[str]) -> list[tuple[int, int, str]]:
    found, taken = [], bytearray(len(text))
    for term in sorted(set(terms), key=len, reverse=True):
        for m in _term_pattern(term).finditer(text):
            if any(taken[m.start():m.end()]):
                continue
            taken[m.start():m.end()] = b"\x01" * (m.end() - m.start())
            found.append((m.start(), m.end(), term))
    return sorted(found)


@pytest.mark.parametrize("text", [
    "The storage nodes served 6.6 TiB/s.",
    "The ſtorage nodes served 6.6 TiB/s.",            # long s matches "s" case-insensitively
    "Each \u212aV-cache block is 64 KiB.",             # the Kelvin sign matches "k"
    "The cluster’s GPUs — all eight — ran “prefill”.",  # letters ASCII, punctuation not
    "İnference on the GPU fleet",                    # dotted capital I
    "",
])
def test_find_terms_finds_what_the_plain_patterns_find(text: str) -> None:
    terms = ["storage node", "storage", "kv-cache", "KV-cache block", "GPU", "prefill",
             "inference", "cluster", "ran", "absent term"]
    assert find_terms(text, terms) == _unfiltered(text, terms)


def _without_lookahead(pattern: re.Pattern[str]) -> re.Pattern[str]:
    assert pattern.pattern.startswith("(?=")
    return re.compile(pattern.pattern[pattern.pattern.index(")") + 1:], pattern.flags)


@pytest.mark.parametrize("name", ["_WORD_RE", "_MONEY_RE", "_VERSION_RE", "_NUMBER_RE",
                                  "_IDENTITY_RE", "_PERCENTILE_RE"])
def test_a_leading_lookahead_changes_no_match(name: str) -> None:
    """The figure patterns' leading lookaheads (speed only) find exactly what the patterns
    without them find: every number word in several cases, money, and look-alike letters."""
    words = [*figures._TENS, *figures._UNITS, *figures._MULTIPLIER_WORDS, "one", "hundred",
             "thousand"]
    text = " ".join([*words, *(w.upper() for w in words), *(w.title() for w in words),
                     *(f"{w}fold" for w in words), "thirty-two", "two hundred", "five percent",
                     "ſix", "ſeven-fold", "$5", "€1.5M", "7 USD", ".5 dollars", "12,000 EUR",
                     "vLLM 0.6.3.post1", "version 2.5", "Release 1.10", "1.2.3rc4", "a.1.2.3",
                     "1 divided by 3.85", "1/3.85", "100 minus 54.3", "the 99th percentile",
                     "x1 minus 2", "8x4", "3.5x", "4K tokens", ".5%", "12,000.5", "1 minus 0.457",
                     "the 90th percentile", "the 50th-percentile latency", "99.9th percentile"])
    pattern = getattr(figures, name)
    plain = _without_lookahead(pattern)
    assert [m.groupdict() | {"span": m.span()} for m in pattern.finditer(text)] == [
        m.groupdict() | {"span": m.span()} for m in plain.finditer(text)]
    assert len(list(pattern.finditer(text))) >= 4
    bodies = "\n\n".join(  # and every article the desk and the corpus hold
        json.loads(path.read_text(encoding="utf-8"))["body"]
        for path in [*SEED_ALL, *sorted((ROOT / "tests" / "corpus").glob("set-*/articles/*.json"))])
    assert [m.span() for m in pattern.finditer(bodies)] == [m.span() for m in plain.finditer(bodies)]
