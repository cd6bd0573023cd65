"""Prose guardrails read into rules the structured rules cannot hold.

:func:`prose_rule` reads two guardrail phrasings:

* **present-as**: "Do not present / describe / call / label / turn / generalise X as (or
  into) Y", "never present it as Y", "not an average and not a per-client rate": the figure
  of X (or, without a figure, X's words) must not share a sentence with Y's words;
* **credit-to**: "Do not credit / attribute X to Y": a sentence with X's figure (or X's
  words) and Y's words must not credit Y ("accounts for", "credits", "thanks to", "due to"),
  nor make Y the agent that reports X's figure ("Y reports that ... 17%").

:mod:`.prose_checks` checks a body against the rule read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from ..figures import FigureKind, extract_figures

__all__ = ["ProseRule", "prose_rule"]

_STOP = frozenset({"a", "an", "the", "its", "it", "their", "his", "her", "of", "for", "to", "as",
                   "is", "in", "on", "at", "by", "with", "and", "or", "not", "any", "this",
                   "that", "these", "those", "result", "results", "figure", "figures", "number",
                   "one", "them", "they", "only", "also", "over", "than", "own", "per"})


@dataclass
class ProseRule:
    """A guardrail read from prose: its figure values (or subject words) and forbidden words."""

    kind: str  # "present_as" | "credit_to"
    values: list[tuple[Decimal, ...]] = field(default_factory=list)  # one tuple per figure
    subject: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    any_term: bool = False  # "not an average and not a per-client rate": each word alone
    #: "do not credit X to A alone": A may share the credit; only a sole credit breaks it
    sole: bool = False
    #: "a like-for-like or same-precision comparison": each adjective breaks it; their noun
    #: alone ("the comparison system") does not
    shared_noun: str = ""


#: "do not present X as Y", "or present them as Y", "do not generalise it to Y", and the verb
#: left out after a positive instruction: "always present them as such, never as Y".
_PRESENT_RE = re.compile(
    r"\b(?:do\s+not|don't|never|not|or)\s+(?:present|describe|call|label|turn|name|treat|"
    r"report|repeat|frame|cite|state|restate|rewrite|recast|reframe|quote|express|portray|"
    r"characteri[sz]e|spin|count|read|interpret|advertise|market|sell)\s+(?P<x>.+?)\s+"
    r"(?:as|into)\s+(?P<y>[^;.]+)"
    r"|\b(?:do\s+not|don't|never|not)\s+(?:generali[sz]e|extend|apply|carry\s+over|attach|"
    r"tie|link|pin|assign|connect|transfer)\s+"
    r"(?P<gx>(?:[^;.]|\.(?=\d))+?)\s+(?:as|into|to)\s+(?P<gy>[^;.]+?)"
    r"(?=,\s*(?:which|where|who|as)\b|[;.]|$)"
    r"|\bpresent\s+(?P<nx>it|them)\s+as\s+such,\s+never\s+as\s+(?P<ny>[^;.]+)",
    re.IGNORECASE)
#: "do not call X Y" with no "as": X is a pronoun, a name or "the" and one word
_CALL_RE = re.compile(
    r"\b(?i:do\s+not|don't|never)\s+(?:call|label|term|dub)\s+(?P<x>it|them|[A-Z][\w-]*|"
    r"the\s+[\w-]+)\s+(?P<y>[^;.]+?)(?:(?P<cond>\s+(?:without|unless|until|when|if)\b)|(?=[;.]|$))")
_CREDIT_RE = re.compile(
    r"\b(?:do\s+not|don't|never)\s+(?:credit|attribute|ascribe)\s+(?P<x>.+?)\s+to\s+"
    r"(?P<y>[^;:.]+)"
    # "attribute them to the summary, never to A or to B": the verb is not said again
    r"|\b(?:credit|attribute|ascribe)\s+(?P<x2>.+?)\s+to\s+[^;:.]+?,?\s+(?:but\s+)?"
    r"(?:never|not)\s+to\s+(?P<y2>[^;:.]+)", re.IGNORECASE)
#: "Integration into ... is not a Y": the head noun before its modifiers and the negation
_IS_NOT_RE = re.compile(r"^\s*(?:the\s+)?(?P<noun>[A-Za-z][\w-]*)\b[^;.]*?\s+(?:is|are)\s+not\b",
                        re.IGNORECASE)
_NOT_A_RE = re.compile(r"\bnot\s+(?:an?|the)\s+(?P<y>[\w-]+(?:\s+[\w-]+)?)", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(r"\b(?:not|no|none|nothing|never|nor|without|rather\s+than|"
                             r"instead\s+of|different|separate|distinct)\s+"
                             r"(?:[\w'’-]+\s+){0,3}$"
                             # ", not with the baselines of the blog's own test", "should not
                             # be quoted as today's": "not" negates up to the clause's end
                             r"|\b(?:not|never|no\s+longer)\s+(?!only\b)[^,;:.()]*$"
                             r"|\b(?:not|never|nothing|no|neither)\s+(?:about\s+|of\s+)?"
                             r"(?:[\w'’-]+,\s+)+(?:[\w'’-]+\s+)?(?:(?:or|and|nor)\s+)?$"
                             # "benchmark it before treating 20x the speed as 20x the value":
                             # a caution against the reading, not the reading
                             r"|\b(?:before|against)\s+(?:treating|reading|taking|calling|"
                             r"counting|describing|presenting)\b(?:[^,;:.()]|\.(?=\d))*$",
                             re.IGNORECASE)


def _content(text: str) -> list[str]:
    words = [w.strip(".,;:'\"()’") for w in re.split(r"\s+|\bor\b|\band\b", text)]
    out = []
    for w in words:
        w = re.sub(r"(?:'s|’s)$", "", w)
        # a name with digits ("Mistral-7B", "H100") is a name; a bare figure is not
        named = re.fullmatch(r"[A-Za-z][\w.-]*\d[\w.-]*", w) is not None
        if w and w.lower() not in _STOP and (named or not any(c.isdigit() for c in w)) \
                and len(w) > 2:
            out.append(w)
    return out


def _values(text: str) -> list[tuple[Decimal, ...]]:
    text = re.sub(r"\bup-to-(?=\d)", "up to ", text)  # "the up-to-100x"
    return [f.values for f in extract_figures(text) if f.kind is not FigureKind.date]


_RESULT_KINDS = (FigureKind.multiplier, FigureKind.percent, FigureKind.money, FigureKind.points)


def _result_values(text: str) -> list[tuple[Decimal, ...]]:
    """The figures a pronoun stands for: the results of the text (multipliers, percentages,
    money) when it has any ("The up-to-100x compares ... on one 16GB GPU": the 100x), else all."""
    text = re.sub(r"\bup-to-(?=\d)", "up to ", text)
    figures = [f for f in extract_figures(text) if f.kind is not FigureKind.date]
    results = [f.values for f in figures if f.kind in _RESULT_KINDS]
    return results or [f.values for f in figures]


_COMPARED_AS_RE = re.compile(r"\s*(?:over|against|versus|vs\.?|relative\s+to|compared\s+"
                             r"(?:with|to))\b", re.IGNORECASE)
#: A pronoun for the figures named before it: "present either as ...", "add them".
_PRONOUN_RE = re.compile(r"\s*(?:it|them|its|either|both|each|neither|these|those)\b",
                         re.IGNORECASE)
_DOC_NOUNS = frozenset({"post", "posts", "page", "pages", "paper", "papers", "blog", "document",
                        "documents", "source", "sources", "text", "texts", "site", "website"})


def _head_subject(text: str) -> list[str]:
    """The subject words of a guardrail's first clause ("StorageMath's criticism concerns
    ...": StorageMath, criticism): what "it" stands for in the instruction after it."""
    head = text.split(";")[0]
    return _content(" ".join(head.split()[:2]))


#: what a product is called when it is not named: "The project is production-ready."
_TOPIC_NOUNS = ("project", "system", "library", "framework")


def _head_names(text: str) -> list[str]:
    """The names of a guardrail's first clause after its first word ("Adoption by A, B or C
    is ...": A, B, C)."""
    head = text.split(";")[0]
    return [w for w in _content(head) if w[:1].isupper() and w != head.split()[0]]


def _pronoun_subject(text: str) -> list[str]:
    """What "it" / "them" in the instruction may stand for: the head's subject words, the
    names in the head ("The README calls Llumnix alpha": README, Llumnix), and the nouns that
    stand for a product ("the project")."""
    head = text.split(";")[0]
    names = [w for w in _content(head) if w[:1].isupper() and w != head.split()[0]]
    out = _head_subject(text)
    return out + [n for n in names if n not in out] + list(_TOPIC_NOUNS)


def _owner_term(part: str) -> str:
    """The owner an alternative names, without the document noun ("Acme's page": Acme), or
    its words when it names no owner."""
    words = _content(part)
    named = [w for w in words if w.lower() not in _DOC_NOUNS]
    # "the final paper" names a document, not an owner: it stays whole
    return " ".join(named) if any(w[:1].isupper() for w in named) else " ".join(words)


#: a word that makes a credit exclusive
_SOLE_RE = re.compile(r"\s+(?:alone|solely|only|by\s+itself|on\s+its\s+own|single-handedly)$",
                      re.IGNORECASE)
SOLE_WORDS_RE = re.compile(r"\b(?:alone|solely|only|by\s+itself|on\s+its\s+own|"
                           r"single-handedly|all\s+by\s+itself|entirely|by\s+themselves|"
                           r"on\s+their\s+own)\b", re.IGNORECASE)


#: adjectives coordinated before one noun: hyphenated compounds or adjective forms
_ADJ = r"(?:[a-z]+-[\w-]+|[a-z]+(?:ing|ed|al|ive|ent|ant|ous|ic|ary|ible|able))"
_COORDINATED_RE = re.compile(rf"^(?:an?\s+|the\s+)?{_ADJ}(?:,\s*{_ADJ})*,?\s+or\s+{_ADJ}\s+"
                             r"(?P<noun>[a-z][\w-]*)$")


def prose_rule(text: str) -> ProseRule | None:
    """A present-as or credit-to rule read from a guardrail's prose, or None."""
    if m := _CREDIT_RE.search(text):
        x, said = m.group("x") or m.group("x2"), m.group("y") or m.group("y2")
        y = re.split(r"\bor\s+(?:to\s+)?|,", said)
        if not _content(x):  # "do not attribute it to the GTC or CoreWeave posts": each name
            first = re.split(r",\s*and\b|\band\s+do\s+not\b", said)[0]
            y = [w for w in _content(first) if w.lower() not in _DOC_NOUNS]
        forbidden = [t for part in y for t in [_owner_term(part)] if t]
        # "to Alluxio alone": the owner, and a credit that leaves no one else
        sole = [_SOLE_RE.sub("", t) for t in forbidden if _SOLE_RE.search(t)]
        forbidden = [t for t in sole if t] or forbidden
        if not forbidden and _PRONOUN_RE.fullmatch(said.strip()):
            # "Adoption by A, B or C is not a measured speedup; do not credit the 2x to
            # them": "them" are the names of the head
            forbidden = _head_names(text)
        subject = _content(x) or _head_subject(text)  # "do not attribute it to ...": the head's
        rule = ProseRule("credit_to", _values(x) or (_values(text.split(";")[0])
                                                     if not _content(x) else []),
                         subject if not _values(x) else _content(x), forbidden,
                         sole=bool(sole) and len(sole) == len(forbidden))
        if rule.forbidden and (rule.values or rule.subject):
            return rule
    head_values = _result_values(text.split(";")[0])
    if m := _PRESENT_RE.search(text):
        if _COMPARED_AS_RE.match(m.group("y") or m.group("gy") or m.group("ny") or ""):
            return None  # "present its gains as over Y": a baseline (.denials)
        x = m.group("x") or m.group("gx") or m.group("nx")
        values = _values(x) or (head_values if _PRONOUN_RE.match(x) else [])
        said = re.split(r"\s+(?:or|and)\s+(?:do\s+not\s+|never\s+)?(?:credit|attribute|present|"
                        r"describe|call|label|turn)\b", m.group("y") or m.group("gy") or m.group("ny"))[0]
        forbidden = [w for w in _content(said) if w.lower() not in ("as", "such")]
        noun = ""
        if (shared := _COORDINATED_RE.match(said.strip())) and len(forbidden) > 2:
            # "a like-for-like or same-precision comparison": the adjectives are what is
            # forbidden; their noun alone ("the comparison system") is not
            noun = shared.group("noun")
        if [w.lower() for w in forbidden] == ["baseline"]:
            return None  # "do not name X as its baseline": a baseline (.denials)
        subject = [] if values else (_pronoun_subject(text) if _PRONOUN_RE.fullmatch(x.strip())
                                     else _content(x))  # "them": the head's subject
        # what "them" stands for is never what it must not be presented as: "the Novita
        # figures, quoted in the LMSYS post; do not present them as LMSYS's measurements"
        subject = [w for w in subject if w not in forbidden] or subject
        rule = ProseRule("present_as", values, subject, forbidden, shared_noun=noun)
        return rule if rule.forbidden and (rule.values or rule.subject) else None
    if (m := _CALL_RE.search(text)) and not m.group("cond"):  # "do not call X Y": no "as";
        x = m.group("x")  # with a condition ("without saying which ...") it stays unchecked
        subject = _pronoun_subject(text) if _PRONOUN_RE.fullmatch(x) else _content(x)
        values = _values(x) or (head_values if _PRONOUN_RE.fullmatch(x) else [])
        # "a reproduction or confirmation of the team's numbers": what it would confirm is
        # another party's, not a label
        said = re.sub(r"\s+of\s+(?:the\s+|an?\s+)?[\w.-]+(?:'s|’s)\s.*$", "", m.group("y"))
        forbidden = _content(said)
        shared = _COORDINATED_RE.match(said.strip()) if len(forbidden) > 2 else None
        if forbidden and (values or subject):
            return ProseRule("present_as", values, [] if values else subject, forbidden,
                             any_term=True, shared_noun=shared.group("noun") if shared else "")
    nots = [n.group("y") for n in _NOT_A_RE.finditer(text)]
    head = _IS_NOT_RE.match(text)
    if nots and (head_values or head):
        forbidden = [w for y in nots for w in _content(y)]
        # "Integration into X is not an endorsement": the subject is the head noun
        subject = [] if head_values else _content(head.group("noun")) if head else []
        return (ProseRule("present_as", head_values, subject, forbidden, any_term=True)
                if forbidden and (head_values or subject) else None)
    return None
