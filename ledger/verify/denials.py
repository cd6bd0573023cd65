"""Prose guardrails that deny a claim or a baseline, read by structure and matched by meaning.

Three more phrasings than :mod:`.meaning` reads:

* **say-that**: "never say / write / claim (that) S V O" -- "never write that the model reads,
  remembers or attends to the whole stream", "never say X extended Y's effective window";
* **does-not**: "S does not V1 O1 or V2 O2" -- "the tool does not extend the window or let a
  model recall 4 million tokens": each conjunct is a claim the body must not make;
* **baseline**: "never state / report them against Y or Z" -- the figures' baseline is not Y;
* **no figure**: "do not attach a number to the README's claim that X improves Y" -- a sentence
  with the owner, a word of the claim and a result figure breaks it.

A claim is parsed into its verbs (the first word of each conjunct after its subject, past a
causative "let/make a model"), its object words, the names among them (capitalised words, or a
model name's letters: "GLM" of "GLM-4-9B-1M") and its figures. A sentence makes the claim when
it has one of the verbs (any inflection or synonym, not negated), the claim's figure when it
has one, and an object word (a name, when the object has names) that is not negated. A
baseline is broken by a sentence with a result figure that compares it ("against", "over",
"versus", "than", "compared with") with one of the names. Reading prose is uncertain, so each
violation is a warning (rule ``guardrail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from ..figures import FigureKind
from ..models import Article
from ..report import Finding, Severity
from .meaning import _NEGATED_BEFORE, _content, _owns, _result_values, _values, find_lemmas
from .prose import Span, group_in, sentences
from .text import body_span
from .tracing import TracedFigure

__all__ = ["Denial", "check_denial", "denials"]

_SAY_RE = re.compile(
    r"\b(?:never|do\s+not|don't|or)\s+(?:say|write|claim|suggest|imply)\s+(?:that\s+)?"
    r"(?P<claim>[^;.]+)", re.IGNORECASE)
#: "do not attach a number to the README's claim that X improves Y": the claim has no figure
_ATTACH_RE = re.compile(
    r"\b(?:never|do\s+not|don't)\s+(?:attach|give|assign|put|add)\s+(?:a|any)\s+"
    r"(?:number|figure|value|multiple|percentage|multiplier)\s+to\s+(?P<x>[^;.]+)", re.IGNORECASE)
_NAME_AS_RE = re.compile(
    r"\b(?:never|do\s+not|don't)\s+(?:name|cite|give|use|treat|present)\s+(?P<y>[^;.]+?)\s+as\s+"
    r"(?:its|their|the)\s+baseline", re.IGNORECASE)
_DOES_NOT_RE = re.compile(
    r"^\s*(?P<subject>[A-Z][^;.]*?)\s+(?:does|do|did)\s+not\s+(?P<claims>[^;.]+)")
_AGAINST_RE = re.compile(
    r"\b(?:never|do\s+not|don't)\s+(?:state|present|report|give|quote|describe|show)\s+"
    r"(?P<x>(?:[^;.]|\.(?=\d))+?)\s+(?:against|over|versus|relative\s+to|compared\s+with)\s+"
    r"(?P<y>[^;.]+)",
    re.IGNORECASE)
#: "do not use the summary's 1.5x for Llama-3-8B in place of the project page's 1.4x": the
#: figure may be given only as its owner's
_INSTEAD_RE = re.compile(
    r"\b(?:never|do\s+not|don't)\s+(?:use|quote|cite|give|report|state|print|substitute)\s+"
    r"(?P<x>(?:[^;.]|\.(?=\d))+?)\s+(?:in\s+place\s+of|instead\s+of|rather\s+than)\s+"
    r"(?P<y>(?:[^;.]|\.(?=\d))+)", re.IGNORECASE)
_CONJUNCT_RE = re.compile(r",\s*(?:or\s+|and\s+|nor\s+)?|\s+(?:or|and|nor)\s+")
_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "this", "that", "these", "those"})
_QUANTIFIERS = _DETERMINERS | {"both", "all", "each", "either", "neither", "every", "any"}
#: a work that owns a result: a clause that names one other than the guardrail's is about it
_OTHER_WORK_RE = re.compile(r"\b(?:paper|post|blog|abstract|review|study|README|evaluation|"
                            r"report|article|preprint|talk|slides)\b", re.IGNORECASE)
_COPULA_CLAIM_RE = re.compile(r"\s*([A-Z][\w-]*)\s+(?:is|are|was|were)\s+(.+)")
_DOC_SUBJECT_RE = re.compile(r"\b(?:post|paper|README|abstract|blog|page|document|table|"
                             r"source|article|report|review|FAQ|docs|documentation)s?$",
                             re.IGNORECASE)
_REPORTING_RE = re.compile(r"\s*(?:state|say|give|list|report|name|mention|describe|show|"
                           r"document|specify|disclose)\b", re.IGNORECASE)
_CAUSATIVE = frozenset({"let", "lets", "make", "makes", "help", "helps", "allow", "allows"})
_AUXILIARY = frozenset({"can", "could", "will", "would", "now", "also", "still", "ever",
                        "really", "actually"})
_GENERIC = re.compile(r"^\s*(?:another|other|any|some)\b", re.IGNORECASE)
#: a comparison that names a baseline, just before it
_COMPARED_RE = re.compile(r"\b(?:against|over|versus|vs\.?|than|compared\s+(?:with|to)|"
                          r"relative\s+to)\s+(?:[\w'’-]+\s+){0,3}$", re.IGNORECASE)


@dataclass
class Denial:
    """A claim (or baseline) a guardrail forbids."""

    kind: str  # "claim" | "baseline" | "no_figure" | "substitute"
    verbs: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    values: list[tuple[Decimal, ...]] = field(default_factory=list)
    subject: list[str] = field(default_factory=list)  # a common noun the claim is about
    #: the head noun of each object ("output" of "the target model's output"): a sentence
    #: must say one of them, not only a modifier ("model")
    heads: list[str] = field(default_factory=list)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][\w'’-]*", text)


def _name(word: str) -> str | None:
    """A name in a claim: a capitalised word, or a model name's letters ("GLM-4-9B-1M": GLM)."""
    word = re.sub(r"(?:'s|’s)$", "", word)
    if any(c.isdigit() for c in word):
        letters = re.match(r"[A-Za-z]{2,}", word)
        return letters.group() if letters else None
    return word if word[:1].isupper() else None


def _claim(conjuncts: list[str], values: list[tuple[Decimal, ...]]) -> Denial | None:
    """Verbs of each conjunct, the object words and names of the last one."""
    verbs, rest, subject = [], "", []
    copula = _COPULA_CLAIM_RE.match(conjuncts[0]) if len(conjuncts) == 1 else None
    if copula:  # "RoCE is available on AWS": the names must meet
        names = [n for w in _words(copula.group(1) + " " + copula.group(2)) if (n := _name(w))]
        return Denial("claim", [], [], names, values) if len(names) >= 2 else None
    heads: list[str] = []
    for k, part in enumerate(conjuncts):
        words = _words(part)
        i = 0
        if words and (words[0].lower() in _DETERMINERS or words[0][:1].isupper()):
            i = 2 if words[0].lower() in _DETERMINERS else 1  # past the subject
            if i == 2 and len(words) > 1:
                subject = [words[1]]  # "the model reads ...": a common noun
        elif k == 0 and words and words[0].lower() in _PRONOUNS:
            i = 1  # "it doubles ...": the pronoun is the subject
        elif k == 0 and (verb := _finite_verb(words)) is not None:
            i = verb  # "lookahead decoding changes ...": a subject of common nouns
            subject = [words[i - 1]]
        while i < len(words) and words[i].lower() in _AUXILIARY:
            i += 1
        if i < len(words) and words[i].lower() in _CAUSATIVE:
            i += 1
            i += 2 if i < len(words) and words[i].lower() in _DETERMINERS else 1
        if i < len(words):
            verbs.append(words[i].lower())
            rest = " ".join(words[i + 1:])
            if (head := _head_noun(rest)) is not None:
                heads.append(head)
                # "hardware with unlimited memory": what the object is said to have
                if with_ := re.search(r"\bwith\s+(?P<w>[^,;]+)$", rest, re.IGNORECASE):
                    heads += _content(with_.group("w"))
    names = [n for w in rest.split() if (n := _name(w))]
    objects = [w for w in _content(rest) if w.lower() not in {v.lower() for v in verbs}]
    if not verbs or not (objects or names or values):
        return None
    return Denial("claim", verbs, objects, names, values, subject, heads)


_PRONOUNS = frozenset({"it", "they", "this", "these", "those", "he", "she", "we"})
_PREPOSITIONS = frozenset({"of", "from", "in", "on", "at", "for", "with", "by", "to", "into",
                           "over", "under", "across", "than", "as", "without", "within"})


def _finite_verb(words: list[str]) -> int | None:
    """Where the verb of a claim whose subject is common nouns stands: the first inflected
    word after the subject ("lookahead decoding changes the output": changes)."""
    for j in range(1, min(len(words), 5)):
        w = words[j].lower()
        if w in _AUXILIARY or w in _COPULA or (
                len(w) > 3 and (w.endswith("ed") or (w.endswith("s") and not w.endswith("ss")))):
            return j
    return None


def _head_noun(phrase: str) -> str | None:
    """The head of an object noun phrase: its last word before a preposition, past the
    possessive modifiers ("the target model's output": output; "the CPU from the transfer":
    CPU)."""
    words: list[str] = []
    for w in _words(re.sub(r"^\s*(?:to|on|in|at|with|from)\s+", "", phrase, flags=re.I)):
        if w.lower() in _PREPOSITIONS or w.lower() in ("that", "which", "who", "when", "if"):
            break
        words.append(w)
    content = [w for w in words if w.lower() not in _QUANTIFIERS]
    if not content:
        return None
    head = re.sub(r"(?:'s|’s|')$", "", content[-1])
    return head if len(head) > 2 and not head.endswith(("'s", "’s")) else None


#: "X is part of, or ships inside, either of them": two verbs that share one object
_SHARED_RE = re.compile(r"^\s*(?P<s>[A-Z][\w.-]*)\s+(?P<v1>[^,]+?),\s*(?:or|and)\s+(?P<v2>[^,]+?),"
                        r"\s*(?P<o>[^,]+)$")
_OBJECT_PRONOUN_RE = re.compile(r"^\s*(?:(?:either|both|any|each|one|all)\s+of\s+)?(?:them|it)"
                                r"\s*$|^\s*(?:either|both)\s*$", re.IGNORECASE)
_COPULA = frozenset({"is", "are", "was", "were", "be", "been", "become", "becomes"})


def _shared_object(claim: str, text: str) -> Denial | None:
    """A claim whose two verbs share their object, a pronoun standing for the names of the
    guardrail's head ("SGLang and vLLM are the baselines ...; do not write that Preble is part
    of, or ships inside, either of them"): each verb phrase with any of those names."""
    m = _SHARED_RE.match(claim)
    if m is None:
        return None
    obj = m.group("o")
    head = text.split(";")[0]
    named = _words(head) if _OBJECT_PRONOUN_RE.match(obj) else _words(obj)
    names = [w for w in named if w != m.group("s") and w.lower() not in _QUANTIFIERS
             and (_name(w) or any(c.isupper() for c in w[1:]))]  # "vLLM" is a name
    verbs = []
    for phrase in (m.group("v1"), m.group("v2")):
        words = [w for w in _words(phrase) if w.lower() not in _COPULA | _AUXILIARY]
        if words:  # "part of": the whole phrase, so that "part" is not "particularly"
            verbs.append(" ".join(words).lower())
    return Denial("claim", verbs, [], names, []) if verbs and names else None


def denials(text: str) -> list[Denial]:
    """The claims and baselines a guardrail's prose denies (none when it has no such part)."""
    out = []
    for m in _SAY_RE.finditer(text):
        claim = m.group("claim")
        found = _shared_object(claim, text) or _claim(_CONJUNCT_RE.split(claim), _values(claim))
        out += [found] if found else []
    denied = _DOES_NOT_RE.match(text)
    if denied and not _DOC_SUBJECT_RE.search(denied.group("subject")) and not _REPORTING_RE.match(
            denied.group("claims")):  # "The post does not state ...": about the source
        for part in _CONJUNCT_RE.split(denied.group("claims")):
            found = _claim([part], _values(part))
            out += [found] if found else []
    if attach := _ATTACH_RE.search(text):
        x = attach.group("x")
        owner = [re.sub(r"(?:'s|’s)$", "", w) for w in _words(x.split(" that ")[0])
                 if w[:1].isupper() and w.lower() not in _QUANTIFIERS]
        objects = [w for w in _content(x) if w not in owner and w.lower() not in (
            "claim", "claims", "that")]
        if owner and objects:
            out.append(Denial("no_figure", [], objects, [], [], owner))
    if named := _NAME_AS_RE.search(text):  # "do not name X or Y as its baseline"
        items = [y for y in re.split(r",\s*(?:or\s+)?|\s+or\s+", named.group("y"))
                 if y.strip() and not _GENERIC.match(y)]
        names = [" ".join(_content(y)) for y in items]
        if any(names):
            out.append(Denial("baseline", [], [], [n for n in names if n],
                              _result_values(text.split(";")[0])))
    if against := _AGAINST_RE.search(text):
        items = [y for y in re.split(r",\s*(?:or\s+)?|\s+or\s+", against.group("y"))
                 if y.strip() and not _GENERIC.match(y)]
        names = [_baseline_name(y) for y in items]
        x = against.group("x")
        pronoun = re.match(r"\s*(?:it|them|both|either|its|their)\b", x, re.I) is not None
        head = _result_values(text.split(";")[0]) if pronoun else []
        # "its gains": the head's named subject ("The README benchmark ...") must be said
        owner = [w for w in _words(" ".join(text.split(";")[0].split()[:3]))
                 if w[:1].isupper() and w.lower() not in _QUANTIFIERS] if pronoun else []
        if names:
            out.append(Denial("baseline", [], [], [n for n in names if n],
                              _values(x) or head, owner))
    if instead := _INSTEAD_RE.search(text):
        out += _substitute(instead.group("x"), instead.group("y"))
    return out


def _substitute(x: str, y: str) -> list[Denial]:
    """The figure of ``x`` with its owner (the possessive before it) and what it is for ("for
    Llama-3-8B on L40S"), when ``y`` names another figure it must not stand in for."""
    x = re.split(r"\s+(?:in\s+place\s+of|instead\s+of|rather\s+than)\s+", x)[0]
    figure, _, scope = x.partition(" for ")
    values = _result_values(figure)
    owner = re.search(r"(?P<o>[\w-]+)(?:'s|’s|')\s", figure)
    if not values or owner is None or not _result_values(y):
        return []
    names = [n for w in _words(scope) if (n := _name(w))] if scope else []
    return [Denial("substitute", [], [], names, values, [owner.group("o")])]


#: what a baseline is called beside its name: "standard multi-head attention" is any
#: multi-head attention
_PLAIN = frozenset({"standard", "ordinary", "plain", "conventional", "regular", "vanilla",
                    "usual", "traditional", "normal", "classic", "default"})


def _baseline_name(item: str) -> str:
    """A baseline's name: its words before a qualifying phrase ("standard multi-head attention
    in the same model": multi-head attention), without a word that only says it is plain."""
    words = _words(item)
    cut = next((i for i, w in enumerate(words) if i and w.lower() in _PREPOSITIONS), len(words))
    kept = " ".join(w for w in words[:cut] if w.lower() not in _PLAIN)
    return " ".join(_content(kept)) or " ".join(_content(item))


def _live(hits: list[tuple[int, int, str]], sentence: Span) -> list[tuple[int, int, str]]:
    """Hits that are not negated, and not a common word inside a name ("stream" is not in
    "StreamingLLM")."""
    out = []
    for h in hits:
        said = sentence.text[h[0] - sentence.start:h[1] - sentence.start].split()[0]
        if h[2].islower() and any(c.isupper() for c in said[1:]):
            continue
        if not _NEGATED_BEFORE.search(sentence.text[:h[0] - sentence.start]):
            out.append(h)
    return out


def _makes_claim(denial: Denial, sentence: Span, figures: list[TracedFigure]
                 ) -> tuple[int, int] | None:
    if denial.values and not any(_owns(denial.values, t) for t in figures):
        return None
    if not denial.verbs:  # a copular claim: every name, none negated
        hits = [_live(find_lemmas(sentence.text, [n], sentence.start), sentence)
                for n in denial.names]
        if not all(hits):
            return None
        return min(h[0][0] for h in hits), max(h[0][1] for h in hits)
    verbs = _live(find_lemmas(sentence.text, denial.verbs, sentence.start), sentence)
    if not verbs or (denial.subject and not find_lemmas(sentence.text, denial.subject)):
        return None
    targets = denial.names or ([] if denial.values else denial.heads or denial.objects)
    objects = _live(find_lemmas(sentence.text, targets, sentence.start), sentence) if targets \
        else verbs
    if targets and not denial.names and denial.heads:
        # the object of the verb, or its subject: in the verb's clause, not in a condition
        # after it ("beat what a batch would achieve if memory were unlimited")
        objects = [o for o in objects if any(_same_clause(sentence, v, o) for v in verbs)]
    if not objects:
        return None
    start = min(verbs[0][0], objects[0][0])
    return start, max(verbs[0][1], objects[0][1])


_BOUNDARY_RE = re.compile(r"[;:,—–]|\s-\s|\b(?:if|when|unless|because|although|while|whereas|"
                          r"what|whether)\b", re.IGNORECASE)


def _same_clause(sentence: Span, a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """No clause boundary or subordinator stands between the two words."""
    lo, hi = sorted((a, b))
    between = sentence.text[lo[1] - sentence.start:hi[0] - sentence.start]
    return _BOUNDARY_RE.search(between) is None


def _compares(denial: Denial, sentence: Span, figures: list[TracedFigure]
              ) -> tuple[int, int] | None:
    results = [t for t in figures if t.figure.kind in (FigureKind.multiplier, FigureKind.percent)]
    if denial.values:  # a range's ends too: "29 to 69%" is written as two figures
        ends = denial.values + [(v,) for vs in denial.values if len(vs) > 1 for v in vs]
        results = [t for t in results if _owns(ends, t)]
    if not results:
        return None
    for start, end, _term in _live(find_lemmas(sentence.text, denial.names, sentence.start),
                                   sentence):
        before = sentence.text[:start - sentence.start]
        clause = re.split(r"[,;:]", before)[-1] + sentence.text[start - sentence.start:]
        clause = re.split(r"[,;:]", clause)[0]
        if denial.subject and not denial.values and not find_lemmas(clause, denial.subject) \
                and _OTHER_WORK_RE.search(sentence.text):
            continue  # "the README against simple schedulers, the paper against Y": not its
        compared = _COMPARED_RE.search(before)
        if compared is not None:
            return sentence.start + compared.start(), end
    return None


def _numbers(denial: Denial, sentence: Span, figures: list[TracedFigure]
             ) -> tuple[int, int] | None:
    """A result figure in a sentence that states the owner's figure-less claim."""
    if not any(t.figure.kind in (FigureKind.multiplier, FigureKind.percent) for t in figures):
        return None
    owner = _live(find_lemmas(sentence.text, denial.subject, sentence.start), sentence)
    said = _live(find_lemmas(sentence.text, denial.objects, sentence.start), sentence)
    if not owner or not said:
        return None
    return sentence.start, sentence.end


def _stands_in(denial: Denial, sentence: Span, figures: list[TracedFigure]
               ) -> tuple[int, int] | None:
    """The owner's figure stated without its owner, about what it is for (when named)."""
    own = [t for t in figures if _owns(denial.values, t)]
    if not own or find_lemmas(sentence.text, denial.subject):
        return None
    if denial.names and not find_lemmas(sentence.text, denial.names):
        return None
    return own[0].figure.start, own[0].figure.end


def check_denial(denial: Denial, article: Article, traced: list[TracedFigure],
                 index: int) -> list[Finding]:
    """Warnings where a sentence makes the denied claim or names the denied baseline."""
    text = article.corrections[index].text
    findings = []
    spans = sentences(article.body)
    by_sentence = group_in(spans, traced, lambda t: (t.figure.start, t.figure.end))  # linear
    for sentence in spans:
        figures = by_sentence.get(sentence.start, [])
        check = {"claim": _makes_claim, "baseline": _compares, "no_figure": _numbers,
                 "substitute": _stands_in}
        where = check[denial.kind](denial, sentence, figures)
        if where is None:
            continue
        what = {"claim": "makes the claim it denies (" + ", ".join(denial.verbs) + ")",
                "baseline": "names a baseline it rules out",
                "no_figure": "puts a number on a claim that has none",
                "substitute": "gives a figure the guardrail keeps to its owner ("
                              + ", ".join(denial.subject) + ") without naming it"}[denial.kind]
        findings.append(body_span(
            article, where[0], where[1], Severity.warning, "guardrail",
            f"guardrail {index + 1} ({text[:60]!r}...), read from its prose: this sentence "
            f"{what}; the checker read the guardrail's wording and cannot be sure"))
    return findings
