"""``misattributed-source``: an owner named next to a citation who is neither the cited source's
publisher nor one of its authors ("NVIDIA's post [S3]" where S3's publisher is VAST).

An **owner** is a name (a word with a capital letter, up to three words) in one of the
constructions the desk uses to say whose document or result it cites:

* a possessive before a document noun: ``NVIDIA's documentation``, ``Meta's technical blog``,
  ``DigitalOcean's own summary``, ``Acme's review``, ``Acme's version of the abstract``; a
  person's group or lab (``Jane Roe's group``) is matched as a person (surname and first name);
* a possessive before a person: ``Red Hat's Christopher Nuland``;
* a determiner, the name and a document noun: ``a Microsoft series``, ``the vLLM team``;
* a possessive before a result noun (``Samsung's figures``) or the name as the subject of a
  reporting verb (``AMD reports that``), also across a parenthetical opening the sentence
  (``AMD, in a blog post, reports``).

* a possessive before a product (``NVIDIA's Dynamo framework``, ``Jane Roe's widget package``):
  the product's owner, who may differ from the owner of the source that documents it. Accepted
  when the name publishes a source whose title or URL names the product; an error when the
  cited source documents the product and the name owns another of the article's sources; else
  a warning.

People named as the cited work's authors ("CacheBlend, by Jane Roe and eight co-authors", "a
post by Jane Roe", read by :mod:`ledger.verify.persons`) must be its listed authors (same
surname, compatible first name), its publisher, or named by a fact citing it. An error when the
article's data settles it (the person is another source's author; or the cited sources list
authors and no one named is among them); a warning when the cited sources list no authors,
when others named alongside are authors (the list may be partial), when the cited source is
secondary (it may name the authors of the work it reports on), or when the construction names
another work ("KIVI, a paper by ...").

A name after the sentence's subject, where that subject is the cited source's own publisher or
author, is what the source discusses ("StorageMath faults a WEKA post"), not an owner. Nor is
the subject of an event verb ("NVIDIA announced both families at GTC") cited only to secondary
sources whose title names it: they report the event it took part in.

The citation is the sentence's own ``[S#]`` markers, else the first group of markers after it
in the paragraph (``[S3] [S4]`` cite together). A document owner must be the publisher, an author, or the site (URL host) of a cited
source, or the benchmark scope's ``reported_by``; a result's owner may also be a party the
cited source quotes (named in a fact that cites it). A name that is a whole word of the cited
source's title also counts for a team ("the SGLang team" for "SGLang HiCache: ...") and for a
document named after it ("the Widget usage guide" for "Widget Usage Guide"), not for a
possessive ("NVIDIA's post" is not a post titled "Workato + NVIDIA ..."). Sentences in which
the desk says what it did *not* find ("PCT did not find that figure in X's post") are skipped.

How a name is matched to a source (initials, an organisation's whole name, the article's own
system) is :mod:`ledger.verify.sourcenames`; a site or an organisation named as where the cited
document lives or comes from ("indexed on alphaXiv", "a commentary from X") is
:mod:`ledger.verify.sites`.
"""

from __future__ import annotations

import re

from ..figures import MONTH_NAMES, FigureKind, extract_figures
from ..models import Article
from ..report import Finding, Severity
from .attribution import REPORTING_VERBS, desk_names, desk_negated
from .persons import OTHER_WORKS, Authorship, authorships, is_person_name, same_person
from .prose import Span, paragraphs, sentences
from .sites import host_findings
from .sourcenames import (
    NAME,
    SKIP,
    accepted,
    matches,
    norm,
    org_start,
    own_system,
    owner_trace,
    owns,
    site_words,
    title_match,
)
from .text import body_span

__all__ = ["MARKER_RUN_RE", "check_owners", "owners_in"]

_DOC = (r"(?:documentation|docs|blog|post|write-?up|guide|paper|series|summary|page|deck|README|"
        r"article|announcement|site|website|newsletter|team|slides|talk|repository|repo|"
        r"instalment|installment|press\s+release|whitepaper|notes|index|engineers|authors|"
        r"FAQ|changelog|wiki|handbook|manual|tutorial|cookbook|model\s+card|specification|"
        r"abstract|review|explainer|note|commentary|critique|walkthrough|overview|primer|"
        r"group|lab|colleagues|researchers|pull\s+request|PR|issue|commit|discussion|thread|"
        r"conference|summit|keynote|webinar|podcast|channel|"
        # "X's version of the abstract": the owner of that copy
        r"(?:version|copy|edition|draft|translation)\s+of\s+(?:the|its|their|this)\s+"
        r"(?:[\w-]+\s+)?(?:paper|post|abstract|article|report|study|README|blog))")
#: What a product's owner makes: "NAME's widget package" names the product's owner, who need
#: not be the owner of a source that documents it.
_PRODUCT = (r"(?:package|library|framework|toolkit|tool|implementation|codebase|plugin|"
            r"extension|fork|port|SDK|CLI|connector|integration)")
#: After a possessive only: "AWS's design document" has an owner, "the EFA document" a topic.
_OWNED_DOC = (rf"(?:{_DOC}|document|preprint|examples?|recipes?|notebooks?|samples?|"
              # where its code lives: "Acme's GitHub organisation" (not "by Acme's account",
              # which is whose claim a source reports)
              rf"organi[sz]ation|org|namespace)")
#: A document's title in quotes between its owner and its noun: "Meta's "up to 3.6x" post".
_TITLED = r"(?:[\"“][^\"”]{1,80}[\"”]\s+)?"
#: A possessive, also with a bare apostrophe after a final s ("Fireworks' post").
_POSS = r"(?:'s|’s|(?<=s)'(?!\w)|(?<=s)’(?!\w))"
_RESULT = (r"(?:figures|numbers|results|benchmarks?|tests?|measurements|data|claims?|headline|"
           r"count|tally|reckoning|estimates?|calculations?|account|"
           r"report|study|analysis|evaluations?|experiments?|comparisons?|trials?)")
#: Verbs by which a named subject takes a position in the cited work ("Acme argues that ...").
_STANCE = ("argues", "argued", "contends", "contended", "concludes", "concluded", "proposes",
           "proposed", "warns", "warned", "recommends", "recommended", "insists", "insisted",
           "maintains", "stresses", "acknowledges", "acknowledged", "admits", "admitted",
           "concedes", "conceded", "predicts", "predicted", "cautions", "cautioned", "asserts",
           "asserted", "emphasises", "emphasizes", "emphasised", "emphasized", "suggests",
           "suggested")

_INFLECTED = sorted({f for v in REPORTING_VERBS for f in (v + "s", v + "ed", v[:-1] + "ed")
                     if f != v} | {"says", "said", "found", "wrote", "shows", "showed",
                                   *_STANCE},
                    key=len, reverse=True)
#: After a participle, words that make it passive: "Text quoted there from the specification
#: describes ..." (the text was quoted; no one named quotes it).
_NOT_PASSIVE = r"(?!\s+(?:there|here|from|by|above|below|earlier)\b)"
#: After a document noun, an artefact it qualifies: "the Triton tutorial kernel" is a kernel
#: (from a tutorial), not a document of Triton's.
_NOT_MODIFIER = (r"(?!\s+(?:kernels?|code|examples?|implementations?|models?|scripts?|programs?|"
                 r"functions?|operators?|ops|layers?|configs?|configurations?|settings?|"
                 r"workloads?|shapes?|variants?|versions?|builds?|binar(?:y|ies))\b)")
_PATTERNS = [
    # a product as the subject of its clause ("MIT's widget package offers"); in the object
    # ("the authors tested NVIDIA's Dynamo framework") it says nothing about the citation
    ("product", re.compile(rf"(?:^|[.;:]\s+|,\s+)\s*{NAME}{_POSS}\s+"
                           rf"(?P<product>(?:[\w.+-]+\s+){{0,2}}?){_PRODUCT}s?\b")),
    # the words between the possessive and its document stay in one clause; a comma only
    # inside a date ("NVIDIA's May 6, 2026 post")
    ("doc", re.compile(rf"\b{NAME}{_POSS}\s+{_TITLED}(?:[\w.-]*\d,\s+|[\w.-]+\s+){{0,3}}?"
                       rf"{_OWNED_DOC}\b")),
    ("named", re.compile(rf"\b(?:a|an|the|The|A|An)\s+{NAME}\s+(?:[a-z][\w-]*\s+){{0,1}}?"
                         rf"{_DOC}\b{_NOT_MODIFIER}")),
    ("doc", re.compile(rf"\b(?:on|in|from|by)\s+{NAME}{_POSS}?\s+(?:[a-z][\w-]*\s+){{0,1}}?"
                       rf"(?:blog|site|website|documentation|docs)\b")),
    ("person", re.compile(rf"\b{NAME}{_POSS}\s+(?P<person>[A-Z]?[a-z][\w-]*(?:\s+[A-Z][\w-]+)?)"
                          rf"(?:\s+and\s+[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)?\s+(?:walked|wrote|ran|offloaded|tested|measured|reported|found|"
                          rf"described|explained|showed|benchmarked|published)\b")),
    ("result", re.compile(rf"\b{NAME}{_POSS}\s+(?:[\w.-]*\d,\s+|[\w.-]+\s+){{0,3}}?"
                          rf"{_RESULT}\b")),
    # a publication named with its "The" ("The Register reported"), or after an opening
    # date ("On 3 March 2026 Intel published")
    ("result", re.compile(rf"(?:^|[.;:]\s+|,\s+)\s*(?:The\s+)?{NAME}\s+"
                          rf"(?:{'|'.join(_INFLECTED)})\b{_NOT_PASSIVE}")),
    ("result", re.compile(rf"^\s*(?:On|In|By|Since)\s+[^,;.\[]{{0,30}}?\b\d{{4}},?\s+"
                          rf"{NAME}\s+(?:{'|'.join(_INFLECTED)})\b")),
    # who put the document out: "notes published by Acme", "as recorded by Acme", "as
    # relayed by Acme News"
    ("by", re.compile(rf"\b(?:published|posted|recorded|hosted|maintained|compiled|archived|"
                      rf"mirrored|indexed|released|issued|kept|curated|uploaded|carried|"
                      rf"syndicated|reprinted|republished|relayed|summari[sz]ed|"
                      rf"as\s+(?:reported|covered|described|noted|quoted)|detailed)\s+by\s+"
                      rf"(?:the\s+)?{NAME}")),
    # a report with its date names its outlet: "reported by StorageNewsletter on July 17";
    # without one, "the 96% average reported by the EPA" names whose figure the source gives
    ("by", re.compile(rf"\breported\s+by\s+(?:the\s+)?{NAME}(?=\s+(?:on|in)\s+(?:{MONTH_NAMES}|"
                      rf"\d{{1,2}}\s+{MONTH_NAMES}|\d{{4}}))")),
    # who put the cited document out, in a clause of time: "a day after Acme published it",
    # "when Acme posted its notes"
    ("doc", re.compile(rf"\b(?:after|before|when|since|once|until|as)\s+(?:the\s+)?{NAME}\s+"
                       rf"(?:published|posted|released|announced|unveiled|put\s+out|wrote)\s+"
                       rf"(?:it|them|its|their|the|a|an|this|that)\b")),
    # a document, then who put it out, in a relative clause: "an interview that EE Times
    # published on June 5" (tried only where "that" or "which" stands before a capital)
    ("relative", re.compile(rf"\b(?:{_DOC}|interview|article|story|report|piece|op-ed|column)\s+"
                       rf"(?:that|which)\s+(?:The\s+)?{NAME}\s+(?:published|posted|ran|carried|"
                       rf"released|put\s+out|issued)\b")),
    # the group a work's authors belong to, in brackets: "the authors' lab (Acme Lab)"
    ("team", re.compile(rf"\b(?:authors|paper|post|team)(?:'|’|'s|’s)\s+(?:own\s+)?"
                        rf"(?:lab|group|team|institution|university|employer|company)\s+"
                        rf"\(\s*(?:the\s+)?{NAME}")),
    # whose account a sentence gives: "according to Converge Digest"
    ("result", re.compile(rf"\baccording\s+to\s+(?:the\s+)?{NAME}")),
    # where a work appeared: "presented at ISCA 2021", "published in IEEE Transactions on
    # Components", "posted on arXiv"
    ("venue", re.compile(rf"\b(?:presented|published|appeared|accepted)"
                         rf"(?:\s+(?:it|them|this|that))?\s+(?:at|in)\s+(?:the\s+)?{NAME}")),
    # "a companion journal article in IEEE Transactions on ...", '... Kernels" in ...'
    ("venue", re.compile(rf"(?:\b(?:article|paper|study|preprint)|[\"”])\s+in\s+"
                         rf"(?:the\s+)?{NAME}")),
    # whom a source's words were told to: "a maintainer told Intel that"
    ("doc", re.compile(rf"\btold\s+(?:The\s+)?{NAME}(?=\s+(?:that|about|in|on|the|it)\b|,)")),
    # a possessive heading the subject of a verb of saying, whatever its noun: "Intel's spec
    # sheet for the connector lists"
    ("doc", re.compile(rf"(?:^|[.;:]\s+|,\s+)\s*{NAME}{_POSS}\s+(?:[\w-]+\s+){{0,2}}?[\w-]+"
                       rf"(?:\s+(?:of|on|about|for)\s+(?:the|its|their|this|that|an?)\s+"
                       rf"(?:[\w-]+\s+){{0,2}}?[\w-]+)?\s+(?:says|said|states|stated|lists|"
                       rf"listed|describes|described|gives|gave|reports|reported|counts|"
                       rf"shows|showed|notes|noted|puts)\b")),
    # the subject, then a parenthetical naming its document: "NVIDIA, in a post on caching,"
    ("doc", re.compile(rf"^\s*{NAME},\s+(?:in|on)\s+(?:a|an|its|their|the)\s+"
                       rf"(?:[\w,-]+\s+){{0,4}}?{_DOC}\b")),
    # the subject, a parenthetical, then the reporting verb: "NVIDIA, citing a test, reports"
    ("result", re.compile(rf"^\s*(?:The\s+)?{NAME},\s+[^,\[]{{1,80}},\s+"
                          rf"(?:{'|'.join(_INFLECTED)})\b")),
]
#: A chip's or a card's model number: "V100", "H100", "MI300X", "GB200", "n300", "TPU v5e".
_HARDWARE_NAME_RE = re.compile(r"[A-Za-z]{1,3}\d{2,4}[A-Za-z]{0,2}|TPU\s+v\d+\w*")
_RELATIVE_RE = re.compile(r"\b(?:that|which)\s+(?:The\s+)?[A-Z]")
#: The constructions that need a possessive (an apostrophe) to match.
_POSSESSIVE_PATTERNS = frozenset(p for _, p in _PATTERNS
                                 if _POSS in p.pattern and _POSS + "?" not in p.pattern)
#: A named document's possessive before what is not a document or a result: the document is
#: where a thing comes from ("the Widget tutorial's kernel"), not whose citation this is.
_MODIFIER_RE = re.compile(rf"(?:'s|’s)\s+(?!(?:[\w.-]+\s+){{0,2}}?(?:{_RESULT}|{_OWNED_DOC})\b)")
_OWNED_DOC_RE = re.compile(_OWNED_DOC, re.IGNORECASE)
#: A full date inside a possessive's words: the result is a dated document of the owner's.
_DATED_RE = re.compile(r"\b\d{1,2},\s+\d{4}\b|\b\d{4}-\d{2}-\d{2}\b")
#: A name after these is what a result is compared with, not whose result it is.
_COMPARED_RE = re.compile(r"\b(?:against|versus|vs\.?|than|unlike|beating|beats|beat|"
                          r"compared\s+(?:with|to))\s+(?:the\s+)?$", re.IGNORECASE)
#: Words that make "a NAME ... post" the name's own outlet: "a Redis engineering-blog
#: tutorial", "an Acme company blog post", "the official Acme docs".
_HOUSE_RE = re.compile(r"\b(?:engineering|company|corporate|official|in-house|house|newsroom|"
                       r"(?:engineering|company|corporate|developer|tech)-blog)\b")
_CITE_RE = re.compile(r"\[(S\d+)\]")
#: A group of markers cites together: "[S3] [S4]", "[S3][S4]", "[S3], [S4]".
MARKER_RUN_RE = re.compile(r"\[S\d+\](?:[ \t,;]*\[S\d+\])*")


#: Each construction with its pattern and whether it needs a possessive, read once: hashing a
#: compiled pattern to test its membership in a set costs more than most scans.
_SCANS = [(construction, pattern, pattern in _POSSESSIVE_PATTERNS)
          for construction, pattern in _PATTERNS]


def owners_in(sentence: str) -> list[tuple[int, int, str, str, str]]:
    """``(start, end, name, construction, detail)`` for each owner named in ``sentence``
    (``detail``: the person a possessive owner is given, or the words naming a product, else
    empty)."""
    out: list[tuple[int, int, str, str, str]] = []
    taken: set[int] = set()
    relative = _RELATIVE_RE.search(sentence) is not None
    possessive = "'" in sentence or "’" in sentence
    for construction, pattern, needs_possessive in _SCANS:
        if not possessive and needs_possessive:
            continue  # (a possessive construction cannot match: skip its scan)
        if construction == "relative":
            if not relative:
                continue
            construction = "doc"
        for m in pattern.finditer(sentence):
            name = m.group("name").strip()
            first = name.split()[0]
            if first in SKIP or m.start("name") in taken or _COMPARED_RE.search(
                    sentence, max(0, m.start("name") - 20), m.start("name")):
                continue  # "against Pinecone's s1 index": what the result is compared with
            end = m.end("name")
            if sentence[end:end + 2] in ("'s", "’s"):
                end += 2
            elif sentence[end:end + 1] in ("'", "’") and name.endswith("s"):
                end += 1
            if construction == "by":
                if re.match(r"(?:'s|’s|\s+(?:of|for)\s+(?:the\s+)?[A-Z])", sentence[m.end("name"):]):
                    continue  # "by the University of Toronto's group": read whole elsewhere
                if is_person_name(name):
                    continue  # "published by Jane Roe": an authorship (persons)
                construction = "doc"
            taken.add(m.start("name"))
            if construction == "result" and _DATED_RE.search(sentence, m.end("name"), m.end()):
                construction = "doc"  # "Pinecone's October 10, 2023 comparison": a document
            person = (m.group("person") if construction == "person" else
                      m.group("product").strip() if construction == "product" else "")
            start = org_start(sentence, m.start("name"))
            name = sentence[start:m.end("name")].strip()
            if name.endswith(".") and sentence[m.end("name"):m.end("name") + 1] in ("", " "):
                name, end = name[:-1], end - 1  # "according to Converge Digest.": its full stop
            if _OWNED_DOC_RE.fullmatch(name):
                continue  # "the README's example": a document's own part, not an owner
            if construction == "named" and _HARDWARE_NAME_RE.fullmatch(name):
                continue  # "the V100 post": the hardware a post is about, not its owner
            if construction == "named" and _MODIFIER_RE.match(sentence, m.end()):
                continue  # "the Widget tutorial's kernel ran": a thing the source discusses
            if construction == "named" and _HOUSE_RE.search(m.group(), m.end("name") - m.start()):
                # "a Redis engineering-blog tutorial": the name's own outlet, an owner (not a
                # topic that a title may share)
                construction = "doc"
            if construction in ("doc", "named") and re.search(
                    r"\b(?:team|authors|engineers|group|lab|colleagues|researchers)$",
                    m.group()):
                construction = "team"
                # "Meta's FAIR team": the group named inside the organisation
                person = " ".join(re.findall(r"\b[A-Z][\w&-]*", sentence[end:m.end()]))
            out.append((start, end, name, construction, person))
    return out


#: The code host's documents of a project, after its possessive: "Megatron-LM's repository
#: README", "vLLM's docs".
_CODE_DOC_RE = re.compile(r"(?:'s|’s|')?\s+(?:[\w.-]+\s+){0,2}?(?:repository|repo|README|docs|"
                          r"documentation|changelog|wiki|issue\s+tracker)\b")


def _in_url_path(article: Article, name: str, cited: list[str]) -> bool:
    """``name`` is a path segment of a cited source's URL (the project a repository holds)."""
    key = name.lower()
    return any(key in [seg.lower() for seg in src.url.split("/")[3:]]
               for src in article.sources if src.id in cited)


def _authors_of(article: Article, person: str, cited: list[str]) -> bool:
    """The person is among the listed authors of a cited source (same surname)."""
    surname = person.split()[-1].lower() if person.split() else ""
    return bool(surname) and any(surname in a.lower().split() for src in article.sources
                                 if src.id in cited for a in src.authors or [])


def _person_sources(article: Article, person: str, cited: list[str]) -> list[str]:
    """The cited sources a person wrote (an author) or is named in (a fact citing it)."""
    key = norm(person)
    if not key:
        return cited
    own = [s.id for s in article.sources if s.id in cited
           and any(key in norm(a) for a in s.authors or [])]
    own = own or [f_sid for f in article.facts if key in norm(f.claim)
                  for f_sid in f.source_ids if f_sid in cited]
    return list(dict.fromkeys(own)) or cited


_SUBJECT_RE = re.compile(r"(?P<name>(?:[A-Za-z][\w.&+-]*[A-Z][\w.&+-]*|[A-Z][\w.&+-]*)"
                         r"(?:\s+[A-Z][\w.&+-]*){0,2})")


def _owner_as_subject(article: Article, sentence: str, cited: list[str]) -> int:
    """Where the sentence's subject ends when it is the cited source's own publisher or author
    (its first words: "StorageMath, a site that ..., faults a WEKA post"); names after it are
    what the source discusses, not owners of the citation. ``len(sentence)`` when not."""
    m = _SUBJECT_RE.match(sentence.lstrip())
    if m is None or m.group("name").split()[0] in SKIP:
        return len(sentence)
    by_id = {src.id: src for src in article.sources}
    owners = [name for sid in cited if (src := by_id.get(sid)) is not None
              for name in (src.publisher, *(src.authors or []))]
    if matches(m.group("name"), owners):
        return len(sentence) - len(sentence.lstrip()) + m.end()
    return len(sentence)


def _citations(body: str, para_start: int, para_text: str, start: int, end: int) -> list[str]:
    inside = _CITE_RE.findall(body, start, end)
    if inside:
        return inside
    after = _CITE_RE.search(para_text, end - para_start)
    if after is None:
        return []
    run = MARKER_RUN_RE.match(para_text, after.start())
    return _CITE_RE.findall(run.group()) if run else [after.group(1)]


_QUOTED_RE = re.compile(r"[\"“]([^\"”]{6,120})[\"”]")


def _named_sources(article: Article, sentence: str) -> list[str]:
    """The one source a sentence without markers names by its date ("a post dated August 20,
    2024", "NVIDIA's May 1, 2026 comparison") or by words of its title in quotes ("the 'up to
    3.6x' post"); [] when it names none, or several."""
    days = {f.date for f in extract_figures(sentence)
            if f.kind is FigureKind.date and f.date is not None and f.date_precision == "day"}
    quoted = [q.lower() for q in _QUOTED_RE.findall(sentence)]
    found = [src.id for src in article.sources
             if days & {d for d in (src.published_at, src.updated_at, src.page_date) if d}
             or any(q in src.title.lower() for q in quoted)]
    return found if len(found) == 1 else []


def _words(text: str) -> set[str]:
    """Lower-case words of a title or URL, keeping "_", "-", "." inside a word."""
    return set(re.findall(r"[a-z0-9][\w.+-]*[a-z0-9]|[a-z0-9]", text.lower()))


def _product_owner(article: Article, name: str, product: str, cited: list[str]
                   ) -> tuple[Severity, str] | None:
    """Who owns the product in "NAME's widget package": ``None`` when NAME publishes a source
    that documents it (its title or URL names the product); an error when the cited source
    documents the product and NAME owns another of the article's sources; else a warning."""
    words = _words(product) - {"own", "open-source", "new", "official", "python", "the"}
    if any(words & (_words(src.title) | _words(src.url)) for src in owns(article, name)):
        return None
    documented = [src.id for src in article.sources if src.id in cited
                  and words & (_words(src.title) | _words(src.url))]
    others = [src.id for src in owns(article, name) if src.id not in cited]
    if documented and others:
        return Severity.error, (
            f"; {', '.join(documented)} documents {product!r}, and {name!r} owns "
            f"{', '.join(others)} instead")
    return Severity.warning, (
        f"; {name!r} may own the product {product or 'named'!s} without owning the source "
        "that documents it (the checker cannot tell)")


def _person_verdict(article: Article, name: str, cited: list[str]) -> tuple[bool, list[str]]:
    """Whether ``name`` may be an author of the cited sources (a listed author, the publisher,
    the site, or a person a fact citing them names), and the other sources it is an author of."""
    by_id = {src.id: src for src in article.sources}
    srcs = [by_id[sid] for sid in cited if sid in by_id]
    if any(same_person(name, a) for src in srcs for a in src.authors or []) or matches(
            name, [n for src in srcs for n in (src.publisher, *sorted(site_words(src)))]):
        return True, []
    key = norm(name)
    if any(key in norm(f.claim) for f in article.facts if set(f.source_ids) & set(cited)):
        return True, []
    return False, [src.id for src in article.sources if src.id not in cited
                   and any(same_person(name, a) for a in src.authors or [])]


def _authorship_findings(article: Article, text: str, offset: int, cited: list[str],
                         subject: int) -> list[Finding]:
    """``misattributed-source`` for a person named as an author of the cited work who is not
    one: an error when the article's own sources show it (the cited sources list their authors
    and the person is another source's author, or the named work is the cited one, or no one
    named is), else a warning saying what could not be decided."""
    by_id = {src.id: src for src in article.sources}
    listed = [a for sid in cited if sid in by_id for a in by_id[sid].authors or []]
    findings = []
    for au in authorships(text):
        verdicts = [(s, e, name, *_person_verdict(article, name, cited))
                    for s, e, name in au.names if s < subject]
        anyone = any(ok for *_, ok, _ in verdicts)
        for s, e, name, ok, elsewhere in verdicts:
            if ok or (elsewhere and _names_work_of(article, au.work, elsewhere) and (
                    not listed or _secondary(article, cited))):
                continue  # "Widget, from Jane Roe and colleagues [review of Widget]"
            sure, why = _authorship_confidence(article, au, cited, listed, anyone, elsewhere)
            findings.append(body_span(
                article, offset + s, offset + e, Severity.error if sure else Severity.warning,
                "misattributed-source",
                f"{name!r} is named as an author of what [{'], ['.join(cited)}] says, but is "
                f"not among its authors ({', '.join(listed) or 'none listed'}); {why}",
                trace=owner_trace(article, cited)))
    return findings


def _secondary(article: Article, cited: list[str]) -> list[str]:
    """The cited sources that report on others' work (not primary)."""
    return [src.id for src in article.sources if src.id in cited and not src.primary]


def _names_work_of(article: Article, work: str, sources: list[str]) -> bool:
    """``work`` is the name a source's title opens with ("Widget" for "Widget: Fast Paging
    for ..."): the people named beside it are that work's authors."""
    key = norm(work)
    return bool(key) and any(norm(src.title.split(":")[0]) == key for src in article.sources
                             if src.id in sources and ":" in src.title)


def _authorship_confidence(article: Article, au: Authorship, cited: list[str],
                           listed: list[str], anyone: bool, elsewhere: list[str]
                           ) -> tuple[bool, str]:
    """Whether the article settles that the person is not the cited work's author, and why.
    A person who wrote another of the article's sources is an error only beside a primary
    source that lists its authors: an unsigned or secondary source may report on that
    person's work."""
    secondary = _secondary(article, cited)
    if elsewhere and listed and not secondary:
        return True, f"the article lists this person as an author of {', '.join(elsewhere)}"
    if not listed:
        return False, ("the cited source lists no authors, so the checker cannot tell "
                       "whether this person wrote it" + (
                           f" (the article lists this person as an author of "
                           f"{', '.join(elsewhere)})" if elsewhere else ""))
    if anyone:
        return False, ("others named with this person are its authors; the source's list "
                       "of authors may be partial")
    if secondary:
        return False, (f"{', '.join(secondary)} is a secondary source; the people named may be "
                       "the authors of the work it reports on")
    if au.noun in OTHER_WORKS:
        return False, (f"a {au.noun} is often a work the cited source reports on, not the "
                       "source itself")
    if au.work and not title_match(au.work, article, cited):
        return False, (f"{au.work!r} may be another work than the cited one, written by "
                       "this person")
    return True, "no one named here is among the cited source's authors"


_LEAD_RUN_RE = re.compile(r"\[S\d+\](?:[ \t,;]*\[S\d+\])*\s*")


def _own_part(sentence: Span) -> Span:
    """The sentence without the markers it opens with: "... by default. [S2] NVIDIA's library
    ships ... [S4]" -- [S2] closes the sentence before, and this one cites S4."""
    m = _LEAD_RUN_RE.match(sentence.text)
    if m is None or m.end() == len(sentence.text):
        return sentence
    return Span(sentence.start + m.end(), sentence.end, sentence.text[m.end():])


#: A document of the cited source about another's work, right before a name: "Cryptoflexs'
#: write-up of NVIDIA's post", "a summary of Acme's paper": the name owns the work reported
#: on, not the cited document.
_REPORTED_WORK_RE = re.compile(
    r"\b(?:write-?up|summary|coverage|review|report|account|recap|translation|digest|"
    r"critique|analysis|reading|retelling|version)\s+of\s+(?:the\s+)?$", re.IGNORECASE)


#: A work a teller refers to, right before a name: "Coomer pointed to an OSTI.GOV paper that
#: examined ...", "the post cites a Google study": an indefinite work of its own, which the
#: cited source mentions; the name owns that work, not the cited document.
_REFERRED_WORK_RE = re.compile(
    r"\b(?:point(?:s|ed|ing)?\s+to|cit(?:es|ed|ing|e)|refer(?:s|red|ring)?\s+to|invok(?:es|ed|ing)|"
    r"dr(?:ew|aws?|awing)\s+on|quot(?:es|ed|ing))\s+(?:an?|another|one)\s+$", re.IGNORECASE)


#: A sentence set at an event, where its subject presented: "At Hot Chips 2025, AMD detailed
#: ...", "At its GTC keynote, NVIDIA showed ...": a secondary source cited for it reports the
#: talk, whose speaker the subject is.
_AT_EVENT_RE = re.compile(r"\s*At\s+(?:its\s+|their\s+|the\s+)?(?:[A-Z][\w&.-]*\s+){1,4}"
                          r"(?:\d{4}|conference|summit|keynote|symposium|workshop|event)?,\s")


#: A verb of an event the subject took part in, right after it: "NVIDIA announced both
#: families at GTC". A secondary source whose title names the subject reports that event; the
#: subject is what the source is about, not whose document it is.
_EVENT_VERB_RE = re.compile(r"\s+(?:announced|unveiled|launched|introduced|debuted|released|"
                            r"showed|showcased|presented|demonstrated|shipped)\b")


#: A venue as a source's publisher or title names it: "ISCA 2021", "OSDI '24", "IEEE
#: Transactions on ...", "Journal of ...".
_VENUE_RE = re.compile(r"\b[A-Z][A-Za-z]*[A-Z]{2,}\s*(?:'\d{2}|\d{4})\b|"
                       r"\b(?:Transactions|Journal|Proceedings)\b")


def _cited_venue(article: Article, cited: list[str]) -> bool:
    """A cited source names the venue it appeared at (its publisher or title), so another
    venue named for it is a mistake rather than a second appearance."""
    return any(_VENUE_RE.search(f"{s.publisher} {s.title}") for s in article.sources
               if s.id in cited)


def _common_word(article: Article, sentence: str, start: int, name: str) -> bool:
    """``name`` opens its sentence, is one word, and either the body writes it in lower case
    elsewhere ("Throughput counts requests ..." beside "raw throughput") or, an abstract noun
    before a word that is a plural noun as often as a verb ("Reliability claims need the same
    care"), the article writes it nowhere else: a common word capitalised because it starts the sentence,
    not a name."""
    if sentence[:start].strip(" \t\"'(*-") or not name.isalpha() or not name[1:].islower():
        return False
    body = article.body
    if re.search(rf"\b{re.escape(name.lower())}\b", body) is not None:
        return True
    after = sentence[start + len(name):]
    if not _NOUN_OR_VERB_RE.match(after) or not _ABSTRACT_NOUN_RE.search(name):
        return False
    elsewhere = " ".join([*(f"{s.publisher} {s.title}" for s in article.sources),
                          *(f.claim for f in article.facts)])
    return len(re.findall(rf"\b{re.escape(name)}\b", body)) == 1 and re.search(
        rf"\b{re.escape(name)}\b", elsewhere) is None


#: Endings of abstract nouns, which names rarely have: "Reliability", "Adoption".
_ABSTRACT_NOUN_RE = re.compile(r"(?:ity|tion|sion|ment|ness|ship|ism|acy|ics)$")
#: Words after a sentence's first word that are plural nouns as often as verbs.
_NOUN_OR_VERB_RE = re.compile(r"\s+(?:claims|reports|notes|states|results|findings|figures|"
                              r"numbers|measures|counts)\b")


def check_owners(article: Article) -> list[Finding]:
    """``misattributed-source`` for each owner that is not the cited source's."""
    findings = []
    body = article.body
    desk = desk_names(article.publisher)
    desk_keys = {norm(n) for n in desk}
    for para in paragraphs(body):
        for sentence in map(_own_part, sentences(para.text)):
            start, end = para.start + sentence.start, para.start + sentence.end
            cited = _citations(body, para.start, para.text, start, end)
            if not _CITE_RE.search(body, start, end) and (
                    named := _named_sources(article, sentence.text)):
                cited = named  # "NVIDIA's May 1, 2026 comparison": the source of that date
            if not cited or desk_negated(sentence.text, desk):
                continue  # "PCT did not find that figure in DigitalOcean's post" cites nothing
            findings += host_findings(article, sentence.text, start, cited)
            subject = _owner_as_subject(article, sentence.text, cited)
            for s, e, name, construction, detail in owners_in(sentence.text):
                if s >= subject or norm(name) in desk_keys:
                    continue  # "StorageMath faults a WEKA post": the object, not the owner
                if _common_word(article, sentence.text, s, name):
                    continue  # "Throughput counts requests ...": a word, capitalised to open
                if _REPORTED_WORK_RE.search(sentence.text[:s]):
                    continue  # "Acme's write-up of NVIDIA's post": the work it reports on
                if _REFERRED_WORK_RE.search(sentence.text[:s]):
                    continue  # "pointed to an OSTI.GOV paper": another work it mentions
                if construction == "result" and _AT_EVENT_RE.match(sentence.text) and (
                        set(_secondary(article, cited)) == set(cited)):
                    continue  # "At Hot Chips 2025, AMD detailed ... [trade press]": the talk
                if construction == "result" and _EVENT_VERB_RE.match(sentence.text, e) and (
                        set(_secondary(article, cited)) == set(cited)) and title_match(
                            name, article, cited):
                    continue  # "NVIDIA announced both at GTC [a page titled 'NVIDIA ...']"
                if construction == "venue":
                    if matches(name, accepted(article, cited, "doc")) or not _cited_venue(
                            article, cited):
                        continue  # a work may appear at a venue its cited copy does not name
                if construction == "result" and is_person_name(name) and not (
                        sentence.text[e - 2:e] in ("'s", "’s") or owns(article, name)) and (
                        set(_secondary(article, cited)) == set(cited)):
                    # "Urs Hölzle credited the weather [trade press]": a person that a report
                    # quotes; as with a by-line (_authorship_confidence), only a primary
                    # source's list of authors settles who is not its owner
                    continue
                person = detail if construction == "person" else ""
                sources = _person_sources(article, person, cited) if person else cited
                if is_person_name(name) and construction in ("doc", "named", "team"):
                    if _person_verdict(article, name, sources)[0]:
                        continue  # "Jane Roe's group": a person, matched as a person
                elif matches(name, accepted(article, sources, construction)) or (
                        construction in ("team", "named")
                        and title_match(name, article, sources)):
                    continue
                elif construction == "team" and detail and matches(
                        detail, accepted(article, sources, construction)):
                    continue  # "Meta's FAIR team": FAIR publishes the cited source
                elif construction == "named" and own_system(article, name, sources):
                    continue  # "the PyramidKV repository": the article's system's own
                elif construction == "doc" and _CODE_DOC_RE.match(sentence.text, e) and (
                        _in_url_path(article, name, sources)):
                    continue  # "Megatron-LM's repository README": github.com/NVIDIA/Megatron-LM
                severity, why = Severity.error, ""
                if construction == "person" and person and _authors_of(
                        article, person, sources) and owns(article, name):
                    # "NVIDIA's Jared Casper described": the speaker wrote the cited talk, and
                    # the name before him publishes another of the article's sources: likely
                    # his employer, which the sources do not give
                    severity = Severity.warning
                    why = (f"; {person} is an author of it, and {name!r}, which publishes "
                           "another of the article's sources, may be the employer; the checker "
                           "cannot confirm it")
                if construction == "product":
                    verdict = _product_owner(article, name, detail, sources)
                    if verdict is None:
                        continue
                    severity, why = verdict
                publishers = ", ".join(f"{src.id}: {src.publisher}" for src in article.sources
                                       if src.id in sources)
                findings.append(body_span(
                    article, start + s, start + e, severity, "misattributed-source",
                    f"{name!r} is named as the owner of what [{'], ['.join(sources)}] says, but "
                    f"it is neither the publisher nor an author of the cited source(s) "
                    f"({publishers}){why}", trace=owner_trace(article, sources)))
            if sentence.text[subject:subject + 2] in ("'s", "’s"):
                subject = len(sentence.text)  # "X's answer, in a post by Y": Y wrote X's post
            findings += _authorship_findings(article, sentence.text, start, cited, subject)
    return findings
