"""People named as the authors of a cited work, and whether a named person is a source's author.

An **authorship construction** names the people who wrote a work, in one of the forms the desk
uses:

* a document noun or an authoring verb, then ``by`` and the names: ``a post by Jane Roe``,
  ``the paper, written by Jane Roe and Ian Poe``;
* an apposition after the work's name, ``by`` or ``from`` and the names, closed by a comma or
  by "and colleagues": ``Frobnicator, by Jane Roe and six co-authors, ...``, ``Widget, from Ian
  Poe and colleagues, ...``;
* the names, then "and (N) colleagues / co-authors / collaborators".

A **person name** is two to four capitalised words (``Jane Roe``, ``Joseph E. Gonzalez``,
``Íñigo Goiri``, ``Ludwig van Beethoven``); a name with an all-capital word (``NVIDIA Research``)
or an organisation word (``Microsoft Research``, ``Hugging Face Team``) is an organisation, left
to :mod:`ledger.verify.owners`.

:func:`same_person` compares a name with a listed author: the surnames (last words) are equal and
the first names agree at least on their initial (``Joey Gonzalez`` is ``Joseph E. Gonzalez``;
``Hao Zhang`` is not ``Qizheng Zhang``). Accents and case are ignored.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["OTHER_WORKS", "Authorship", "authorships", "is_person_name", "same_person"]

_UPPER = "A-ZÀ-ÖØ-Þ"
_WORD = rf"[{_UPPER}](?:[^\W\d_]*(?:[-'’][^\W\d_]+)*|\.)"
_PARTICLE = r"(?:de|van|von|der|den|da|del|di|la|le|du|bin|al)"
_PERSON = rf"{_WORD}(?:\s+(?:{_PARTICLE}\s+)?{_WORD}){{1,3}}"
_LIST = rf"(?P<list>{_PERSON}(?:(?:,\s+|,?\s+and\s+){_PERSON})*)"
_COLLEAGUES = r"(?:[\w-]+\s+)?(?:co-?authors|coauthors|colleagues|collaborators)\b"
_DOCS = (r"(?:posts?|papers?|articles?|blog|write-?ups?|reports?|preprints?|README|guides?|"
         r"talks?|threads?|stud(?:y|ies)|series|notes?|pieces?|essays?|tutorials?|surveys?|"
         r"analys[ie]s|decks?|slides|chapters?|books?|letters?|newsletters?|keynotes?|"
         r"interviews?|lectures?|presentations?|podcasts?|videos?|announcements?|abstracts?|"
         r"reviews?|explainers?|preprints?|releases?|walkthroughs?|overviews?)")
#: People who write together: "six authors including ...", "a team led by ...".
_AUTHOR_GROUP = (r"(?:authors?|co-?authors|researchers|team|group|contributors|engineers|"
                 r"collaborators|colleagues|writers)")
#: Verbs by which the sentence's opening names say what the cited work says ("Jane Roe and
#: Ian Poe argue that ...").
_SAYING = (r"(?:report|argue|write|wrote|say|said|state|claim|describe|propose|present|"
           r"conclude|suggest|show|find|found|explain|note|observe|measure|contend|warn|"
           r"recommend|treat|estimate|demonstrate|evaluate|benchmark|test)(?:s|es|ed|d)?")
#: Works that a cited page usually reports on rather than is: "a talk by Jane Roe [S2]" may
#: cite a post about the talk.
OTHER_WORKS = frozenset({
    "talk", "talks", "thread", "threads", "chapter", "chapters", "book", "books", "letter",
    "letters", "deck", "decks", "slides", "keynote", "keynotes", "interview", "interviews",
    "lecture", "lectures", "presentation", "presentations", "podcast", "podcasts", "video",
    "videos", "newsletter", "newsletters"})
#: A work's name: a word with a capital letter ("CacheBlend", "vLLM", "H2O").
_NAMED = r"[A-Za-z0-9]*[A-Z][\w.+-]*"
_PATTERNS = [
    re.compile(rf"(?:\b(?P<work>{_NAMED}),\s+(?:a|an|the)\s+(?:[\w-]+\s+){{0,3}}?)?"
               rf"\b(?P<noun>{_DOCS}|written|authored|co-?authored|edited|compiled)\s+by\s+"
               rf"{_LIST}"),
    # put out by its authors, with where and when between: "posted to arXiv on May 2, 2026
    # by Jane Roe and Ian Poe"
    re.compile(rf"\b(?P<noun>posted|published|released|uploaded|submitted)\s+"
               rf"(?:(?:to|on|in|at)\s+[^.;:\[]{{1,50}}?\s+)?by\s+{_LIST}"),
    re.compile(rf"(?:\b(?P<work>{_NAMED}))?,\s+(?:by|from)\s+{_LIST}"
               rf"(?=\s*[,(]|,?\s+and\s+{_COLLEAGUES})"),
    re.compile(rf"\b{_LIST},?\s+and\s+{_COLLEAGUES}"),
    # a group of writers, then some of its members: "six authors including Jane Roe", "a
    # twelve-author team led by Jane Roe"
    re.compile(rf"\b(?P<noun>{_AUTHOR_GROUP})\s+(?:[\w-]+\s+){{0,2}}?"
               rf"(?:including|led\s+by|headed\s+by|such\s+as)\s+{_LIST}"),
    # the names open the sentence and say what the cited work says: "Jane Roe and Ian Poe
    # treat X as Y and report that ..."
    re.compile(rf"^\s*{_LIST}(?<!'s)(?<!’s)\s+(?=[a-z])(?=[^.;\[]*\b{_SAYING}\b)"),
    # the same after an opening phrase naming their document: "In a tutorial published May 2,
    # 2026, Jane Roe and Ian Poe cache the prompts", "In their paper, Jane Roe shows"
    re.compile(rf"^\s*(?:In|On)\s+(?:a|an|the|their|his|her)\s+(?:[\w-]+\s+){{0,3}}?"
               rf"(?P<noun>{_DOCS})\b[^;:\[]{{0,50}}?,\s+{_LIST}(?<!'s)(?<!’s)\s+(?=[a-z])"
               # a verb next, not a noun the names modify ("Red Hat Summit attendees")
               rf"(?![a-z]+(?:ees|ers|ors|ists|ians|ants|ents|ies)\b)"),
]
_SPLIT_LIST = re.compile(r",\s+and\s+|,\s+|\s+and\s+")
#: Words that make a capitalised name an organisation, not a person.
_ORG_WORDS = frozenset({
    "research", "lab", "labs", "laboratory", "university", "institute", "inc", "corp",
    "corporation", "team", "group", "ai", "cloud", "systems", "foundation", "project",
    "company", "blog", "college", "center", "centre", "school", "academy", "society",
    "networks", "technologies", "computing", "software", "face", "services",
    "department", "division", "press", "media", "news", "community", "org", "ltd", "llc",
})


@dataclass(frozen=True)
class Authorship:
    """One authorship construction: its names (``(start, end, name)`` in the sentence), the
    work it names just before it, if any (``Frobnicator`` in "Frobnicator, by Jane Roe"), and
    the document noun before "by" (``post`` in "a post by Jane Roe")."""

    names: tuple[tuple[int, int, str], ...]
    work: str = ""
    noun: str = ""


def _fold(text: str) -> list[str]:
    plain = "".join(c for c in unicodedata.normalize("NFKD", text)
                    if not unicodedata.combining(c))
    return [t for t in re.split(r"[^\w]+", plain.lower()) if t]


#: Capitalised function words that open a sentence, never a person's first name.
_FUNCTION_WORDS = frozenset({
    "the", "this", "that", "these", "those", "a", "an", "in", "on", "at", "for", "its", "their",
    "our", "his", "her", "but", "and", "or", "when", "while", "after", "before", "with", "by",
    "from", "both", "each", "every", "all", "some", "most", "many", "no", "if", "as", "so",
    "since", "then", "there", "here", "across", "unlike", "like", "under", "over", "per",
    # prepositions that open a sentence before a name: "Against DeepSpeed on GShard ..."
    "against", "versus", "beside", "besides", "without", "within", "through", "toward",
    "towards", "beyond", "about", "among", "behind", "below", "above", "despite", "during",
    "into", "onto", "upon", "via", "to", "of", "where", "whereas", "although", "though"})


def is_person_name(name: str) -> bool:
    """Two or more capitalised words, none all capitals and none an organisation word, not
    opened by a function word ("The Widget") and with no possessive inside ("Widget's
    Pager")."""
    words = name.split()
    return len(words) >= 2 and words[0].lower() not in _FUNCTION_WORDS and not any(
        w.endswith(("'s", "’s")) for w in words) and not any(
        (len(w) > 1 and w.isupper() and not w.endswith(".")) or w.lower().strip(".")
        in _ORG_WORDS for w in words)


def same_person(name: str, author: str) -> bool:
    """``name`` names ``author``: the same surname, first names agreeing on their initial (a
    name of one word is a surname)."""
    n, a = _fold(name), _fold(author)
    if not n or not a or n[-1] != a[-1]:
        return False
    return len(n) == 1 or len(a) == 1 or n[0][0] == a[0][0]


#: A word each construction of :data:`_PATTERNS` needs, in order (None: anchored at the
#: sentence's start, cheap to try): a sentence without it is not scanned for that construction.
_NEEDS = [re.compile(r"\bby\b"), re.compile(r"\bby\b"), re.compile(r"\b(?:by|from)\b"),
          re.compile(r"(?i:co-?authors|coauthors|colleagues|collaborators)\b"),
          re.compile(r"\b(?:including|led|headed|such)\b"), None, None]
assert len(_NEEDS) == len(_PATTERNS)


def authorships(sentence: str) -> list[Authorship]:
    """Every authorship construction in ``sentence`` whose names are people."""
    out: list[Authorship] = []
    taken: set[int] = set()
    for pattern, needs in zip(_PATTERNS, _NEEDS, strict=True):
        if needs is not None and needs.search(sentence) is None:
            continue
        for m in pattern.finditer(sentence):
            if m.start("list") in taken:
                continue
            taken.add(m.start("list"))
            names = []
            at = m.start("list")
            for part in _SPLIT_LIST.split(m.group("list")):
                start = sentence.index(part, at)
                at = start + len(part)
                if is_person_name(part):
                    names.append((start, at, part))
            if names:
                work = m.group("work") if "work" in pattern.groupindex else None
                noun = m.group("noun") if "noun" in pattern.groupindex else None
                out.append(Authorship(tuple(names), work or "", (noun or "").lower()))
    return out
