"""How the article's sources are named, and whether a name written in prose is one of them.

A source is known by its publisher, its authors and its site (the words of its URL's host; for a
GitHub URL, also its owner). A name in prose matches when a word of it is a word of one of
those, when one contains the other, or by initials: "University of Washington" is "UW", "MIT"
is "Massachusetts Institute of Technology". An organisation's name is read whole across its
"of" ("the University of Washington's group"), since the possessive marks only its last word.
Used by :mod:`ledger.verify.owners` and :mod:`ledger.verify.sites`.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from ..models import Article, Source

__all__ = ["NAME", "PLACE_RE", "SKIP", "accepted", "initials", "matches", "norm", "org_start",
           "own_system", "owner_trace", "owns", "site_words", "title_match"]

#: Capitalised words that are no owner: pronouns, determiners, and times ("Today's README",
#: "Monday's post", "January's release" name when, not whose).
SKIP = frozenset({"They", "He", "She", "We", "I", "You", "The", "This", "That", "These", "Those",
                  "It", "Its", "A", "An", "In", "On", "Her", "His", "Their", "Our", "Both", "Each",
                  "Some", "Current", "According", "Before", "After", "For", "With", "But", "And", "By",
                  "Against", "Unlike", "Like", "Versus", "Compared", "Than", "Over",
                  "None", "Neither", "Either", "All", "Most", "Many", "Several", "Few", "Every",
                  "Such", "Other", "Others", "Nothing", "Nobody", "Everyone", "Everything",
                  "One", "Two", "Today", "Yesterday", "Tomorrow", "Tonight", "Now", "Last",
                  "Next", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                  "Sunday", "January", "February", "March", "April", "May", "June", "July",
                  "August", "September", "October", "November", "December"})
_NOT_SKIP = rf"(?!(?:{'|'.join(sorted(SKIP))})\b)"
#: What every alternative of a name needs where it starts (a capital within its first word, or a
#: domain): tried first, it spares the long :data:`_NOT_SKIP` lookahead at each lower-case word,
#: and matches nothing the alternatives would not.
_NAME_START = r"(?=[\w.&+-]*[A-Z]|[a-z][\w-]*\.(?:ai|io|com|dev|org|net|co|app|sh)(?![\w.]))"
NAME = (rf"(?P<name>{_NAME_START}{_NOT_SKIP}(?:[A-Za-z][\w.&+-]*[A-Z][\w.&+-]*|[A-Z][\w.&+-]*"
         # a name written as its domain, in lower case: "usage.ai's guide"
         r"|(?<![\w.])[a-z][\w-]*\.(?:ai|io|com|dev|org|net|co|app|sh)(?![\w.]))"
         r"(?:\s+[A-Z][\w.&+-]*){0,2})")

#: The words of an organisation's name before "of" ("University of", "Institute of
#: Technology"): the name read is only the last part of it.
_ORG_HEAD_RE = re.compile(r"(?:^|(?<=\s))((?:[A-Z][\w&.-]*\s+){1,3})(?:of|for)\s+(?:the\s+)?$")


def org_start(sentence: str, start: int) -> int:
    """Where an organisation's whole name starts when ``start`` is the part after its "of"
    ("the University of Washington's" -> "University of Washington")."""
    m = _ORG_HEAD_RE.search(sentence, max(0, start - 60), start)
    if m is None:
        return start
    words = m.group(1).split()
    while words and words[0] in SKIP:
        words.pop(0)
    if not words:
        return start
    return start - len(sentence[m.start(1):start]) + sentence[m.start(1):start].index(words[0])


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def site_words(src: Source) -> set[str]:
    host = urlparse(src.url).hostname or ""
    words = {w for w in re.split(r"[.\-]", host) if len(w) > 2 and w not in (
        "www", "com", "org", "net", "blog", "blogs", "docs", "developer", "github", "io",
        "community", "cloud", "html", "technical")}
    if host.endswith("github.com"):
        path = urlparse(src.url).path.strip("/").split("/")
        words |= {w for w in re.split(r"[-_]", path[0].lower()) if len(w) > 2} if path else set()
    return words


#: Words many organisations' names share: "Google Research" and "Yandex Research" are two
#: owners, though one word of their names is the same.
GENERIC = frozenset({
    "research", "labs", "lab", "ai", "inc", "ltd", "llc", "corp", "corporation", "company",
    "group", "team", "university", "institute", "college", "school", "foundation", "center",
    "centre", "systems", "technologies", "technology", "tech", "computing", "cloud", "data",
    "software", "networks", "network", "engineering", "blog", "notes", "news", "press",
    "media", "project", "community", "official", "the", "of", "and", "for", "global",
    "international", "digital", "analytics", "solutions", "services", "hub", "io", "dev",
    "developers", "docs", "github", "open", "science", "sciences", "intelligence",
    # the kind of a venue, which two venues share: "IEEE Transactions" is no "ACM Transactions"
    "journal", "transactions", "proceedings", "conference", "symposium", "workshop", "review",
    "letters", "magazine", "daily", "times", "weekly", "digest",
})


def matches(name: str, candidates: list[str]) -> bool:
    key = norm(name)
    if not key:
        return True
    tokens = {t for t in key.split() if len(t) > 1}
    short = initials(name)
    for cand in candidates:
        c = norm(cand)
        if not c:
            continue
        # a candidate that is a word many names share ("research", a site's word) is in
        # "Microsoft Research" without naming it
        if key in c or (c in key and c not in GENERIC) or (tokens - GENERIC) & {
                t for t in c.split() if len(t) > 2}:
            return True
        if short & set(c.split()) or tokens & initials(cand):
            return True  # "University of Washington" and "UW SAMPL"; "MIT" and its name
    return False


_LINK_WORDS = frozenset({"of", "for", "and", "the", "&"})
_ORG_RUN_RE = re.compile(r"[A-Z][\w&-]*(?:\s+(?:(?:of|for|and|the|&)\s+)*[A-Z][\w&-]*)+")


def initials(text: str) -> set[str]:
    """Initialisms of the names of several capitalised words in ``text`` ("Carnegie Mellon
    University" -> "cmu"); a run of words all in capitals is already an abbreviation."""
    out = set()
    for m in _ORG_RUN_RE.finditer(text):
        words = [w for w in m.group().split() if w.lower() not in _LINK_WORDS]
        if len(words) >= 2 and not all(w.isupper() for w in words):
            out.add("".join(w[0] for w in words).lower())
    return out


def accepted(article: Article, cited: list[str], construction: str) -> list[str]:
    names: list[str] = []
    by_id = {s.id: s for s in article.sources}
    for sid in cited:
        src = by_id.get(sid)
        if src is None:
            continue
        names += [src.publisher, *(src.authors or []), *sorted(site_words(src))]
        claims = [f.claim for f in article.facts if sid in f.source_ids]
        if construction not in ("doc", "named", "team"):
            names += [PLACE_RE.sub(" ", c) for c in claims]
        else:  # "Meta and Crusoe authors report ...": the fact gives the authors' employers
            names += [n for c in claims for m in AFFILIATION_RE.finditer(c)
                      for n in re.split(r"\s*,\s*|\s+and\s+", m.group("names"))]
    return names


#: Employers named before the people of a source in a fact: "Meta and Crusoe authors report",
#: "Google researchers", "IBM, Meta and Crusoe engineers".
AFFILIATION_RE = re.compile(
    r"(?P<names>(?!(?:The|These|Those|Its|Their|Our|Both|All|Some)\b)[A-Z][\w.&+-]*(?:(?:\s*,\s*|\s+and\s+)[A-Z][\w.&+-]*)*)\s+"
    r"(?:authors|engineers|researchers|scientists|team|staff)\b")


#: A name after "on", "at", "using", "via" in a fact is where or with what a test ran ("tests on
#: CoreWeave"), not a party the source quotes.
PLACE_RE = re.compile(r"\b(?:on|at|using|via)\s+[A-Z][\w.&+-]*(?:\s+[A-Z][\w.&+-]*)*")



def title_match(name: str, article: Article, cited: list[str]) -> bool:
    """A name that is a whole word of a cited source's title ("the SGLang team" for a post
    titled "SGLang HiCache: ..."); "Mooncake" is not a word of "MooncakeStoreConnector"."""
    key = set(norm(name).split())
    return any(key and key <= set(norm(s.title).split())
               for s in article.sources if s.id in cited)


def own_system(article: Article, name: str, cited: list[str]) -> bool:
    """``name`` is the system the article is about (whole words of its title or subject), and
    publishes none of the article's other sources: "the PyramidKV repository" names the
    system's own repository, whoever hosts it."""
    key = set(norm(name).split())
    own = set(norm(article.title).split()) | set(norm(article.subject or "").split())
    if not key or not key <= own:
        return False
    return all(src.id in cited for src in owns(article, name))


def owns(article: Article, name: str) -> list[Source]:
    """The article's sources whose publisher, authors or site ``name`` matches."""
    return [src for src in article.sources if matches(
        name, [src.publisher, *(src.authors or []), *sorted(site_words(src))])]


def owner_trace(article: Article, cited: list[str]) -> list[dict[str, object]]:
    return [{"origin": "source", "pointer": f"/sources/{i}", "value": src.id,
             "publisher": src.publisher, "authors": list(src.authors or []),
             "site": sorted(site_words(src)),
             "verdict": "cited" if src.id in cited else "not cited"}
            for i, src in enumerate(article.sources)]
