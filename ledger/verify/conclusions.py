"""``unsupported-conclusion``: the body draws a sweeping conclusion that nothing in the article
states ("This shows that DeepSeek overstated the result", "... proves that round-robin should
never be used").

What is detected, and only this, because it can be detected reliably: a sentence with a
conclusion verb and ``that`` (shows, proves, demonstrates, establishes, confirms, means), or
the verb after a demonstrative subject without ``that`` ("This proves EFA beats ...", "which
proves ..."), whose conclusion uses a sweeping word (overstated, obsolete, always, never,
cheapest, will replace, any, as fast as, ...); a clause with a conclusion adverb (therefore,
thus, hence, consequently: "X is therefore always cheaper", "Y is thus unusable for any
workload") that uses such a word; a judgement after the verb with any subject ("the FAQ's
figure shows the README overstated it"); or a judgement drawn with "so" ("so the gains are
mostly marketing"); or, with no connective at all, a clause in the desk's own voice that gives
a verdict over an open class ("V1 will halve any deployment's GPU bill", "the chip runs faster
than every rival", "It is now the fastest way to serve chat", "batching no longer costs any
latency") and neither reports, hedges, advises nor negates; when no inference or fact of the
article uses that word (for a quantifier, the phrase it quantifies: "any workload"). A
judgement followed by its scope ("overstates what a chat user will see") qualifies a figure
and is no conclusion. Whether the facts *support* a conclusion is an editor's judgement, so
the finding is a warning that says so.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..models import Article
from ..report import Finding, Severity
from .attribution import desk_names
from .prose import sentences
from .text import body_span

__all__ = ["SWEEPING_WORDS", "check_conclusions"]

_VERB = (r"(?:shows?|showed|proves?|proved|demonstrates?|demonstrated|establishes|established|"
         r"confirms?|confirmed|means)")
#: "X shows that ...", or with a demonstrative subject and no "that" ("This proves EFA beats
#: RoCE", "which proves llm-d halves ...", "the later figures show it overstated ...").
_CONCLUDES_RE = re.compile(
    rf"\b{_VERB}\s+that\s+(?P<claim>.+?)\s*[.!?]?$"
    rf"|\b(?:this|that|which|these|it|figures|numbers|results)\s+{_VERB}\s+(?!that\b)"
    rf"(?P<bare>.+?)\s*[.!?]?$", re.IGNORECASE)
#: "X therefore makes Y unnecessary", "X is thus always cheaper": a conclusion adverb; the claim
#: is the clause around it, sweeping when it says always, any, never, unnecessary...
_THEREFORE_RE = re.compile(r"\b(?:therefore|thus|hence|consequently|accordingly)\b",
                           re.IGNORECASE)
#: "the FAQ's figure shows the README overstated it": any subject, no "that"; only a judgement
#: counts here ("the chart shows 40% more hits on every node" reports, it does not judge).
_JUDGED_RE = re.compile(rf"\b{_VERB}\s+(?!that\b)(?P<judged>.+?)\s*[.!?]?$", re.IGNORECASE)
#: "..., so X's gains are mostly marketing": a judgement drawn with "so" (judgement words only;
#: a universal after "so" is usually a caveat: "so shorter prompts may gain less").
_SO_RE = re.compile(r"(?:^|[,;]\s*|\s)so\s+(?P<claim>[^,;.]+)", re.IGNORECASE)
#: Words that make a conclusion sweeping: a judgement of someone's honesty or a universal.
JUDGEMENT_WORDS = (
    "overstated", "overstates", "overstate", "exaggerated", "exaggerates", "inflated", "misled",
    "wrong", "false", "obsolete", "broken", "useless", "marketing", "hype", "meaningless",
    "pointless", "lied", "dishonest", "unnecessary", "unusable", "unneeded", "irrelevant",
    "worthless", "redundant",
)
SWEEPING_WORDS = (
    *JUDGEMENT_WORDS, "always", "never", "cheapest", "fastest", "best", "worst",
    "replace", "replaces", "will", "guarantees", "guaranteed", "universally", "every", "any",
    "no longer", "all", "only", "must", "halves", "linearly", "as fast as", "beats",
    "at least", "impossible", "none", "nothing",
)
_SWEEPING_RE = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in SWEEPING_WORDS) + r")\b",
                          re.IGNORECASE)
#: A judgement followed by its scope ("overstates what a chat workload will see") qualifies a
#: figure; it does not judge whoever stated it.
_JUDGEMENT_RE = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in JUDGEMENT_WORDS) +
                           r")\b(?!\s+(?:what|how|for|when|where|in\s+(?:a|an|the|this))\b)",
                           re.IGNORECASE)
#: Words too common to look up alone in the evidence: the phrase they quantify is looked up.
_QUANTIFIERS = frozenset({"any", "every", "all", "only", "none", "nothing", "will", "at least"})


def _stated(article: Article, word: str) -> bool:
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    texts = [inf.claim for inf in article.inferences] + [f.claim for f in article.facts]
    return any(pattern.search(t) for t in texts)


def check_conclusions(article: Article) -> list[Finding]:
    """A warning for each sweeping conclusion that the article's evidence never states."""
    findings = []
    labelled = _labelled_re(desk_names(article.publisher))
    for sentence in sentences(article.body):
        found = _conclusion(sentence.text) or _labelled_conclusion(labelled, sentence.text)
        if found is None:
            continue
        start, claim, word = found
        if word.lower() in _QUANTIFIERS:  # "any workload", not "any", is what is claimed
            universal = _UNIVERSAL_RE.search(claim)
            word = universal.group() if universal is not None else word
        if _stated(article, word):
            continue
        start += sentence.start
        findings.append(body_span(
            article, start, start + len(claim), Severity.warning, "unsupported-conclusion",
            f"this conclusion ({word!r}) is stated by no inference or fact of the "
            "article; the checker cannot decide whether the facts support it: add an inference "
            "with its basis, or soften the wording"))
    return findings


#: "any buyer", "every rival", "all GPU-only alternatives": a quantifier over an open class
#: (not "all eight GPUs", a count, nor "all of these runs", the article's own evidence).
_UNIVERSAL_RE = re.compile(
    r"\b(?:any|every|all)\s+(?!(?:[\d,.]+|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"of|the|these|those|this|that|its|their|our|his|her|such|other|but|in|at|on|to|and|or)\b)"
    r"[\w'’-]+(?:\s+(?!(?:is|are|was|were|will|can|has|have)\b)[a-z][\w'’-]*){0,2}",
    re.IGNORECASE)
#: What a universal claim says of them: a comparison, a judgement, a promise ("saves the caches
#: of all requests", "cut its latency" describe; they give no verdict).
_VERDICT_RE = re.compile(
    r"\b(?:(?:cheaper|faster|better|slower|safer)\s+than|(?:is|are|be|runs?|becomes?)\s+"
    r"(?:\w+\s+)?(?:cheaper|faster|better|slower|safer)|irrelevant|unusable|useless|will\s+\w+|"
    r"can\s+expect|beats?|outperforms?|no\s+longer|obsolete|unnecessary|"
    # "the cheapest API for any long-context workload"
    r"the\s+(?:cheapest|fastest|best|quickest|most\s+(?:efficient|cost-effective|economical)))\b",
    re.IGNORECASE)
#: "the cheapest way to serve", "the fastest engine": a verdict over every alternative.
_SUPERLATIVE_RE = re.compile(
    r"\bthe\s+(?:cheapest|fastest|best|quickest|most\s+(?:efficient|cost-effective|economical|"
    r"accurate))\s+(?:[\w-]+\s+)?(?:way|option|choice|engine|system|platform|solution|chip|GPU|"
    r"path|server|accelerator|hardware|runtime|stack)\b"
    # over the whole market: "the cheapest long-context provider on the market"
    r"|\bthe\s+(?:cheapest|fastest|best|quickest)\b[^.;]{0,60}?\b(?:on|in)\s+the\s+"
    r"(?:market|industry|world)\b", re.IGNORECASE)
#: "no longer costs any accuracy", "makes context limits irrelevant", "makes A as cheap as
#: B": an absolute.
_ABSOLUTE_RE = re.compile(r"\bno\s+longer\b[^.;]*?\bany\b|\birrelevant\b"
                          # "makes long-context serving as cheap as short-context serving"
                          r"|\bmakes?\s+[^.;]{1,60}?\bas\s+(?:cheap|fast|efficient|good)\s+as\b",
                          re.IGNORECASE)
#: A clause that reports someone's claim, hedges, advises or negates draws no conclusion.
_REPORTED_RE = re.compile(
    r"\b(?:says?|said|claims?|claimed|reports?|reported|writes?|wrote|according|states?|stated|"
    r"lists?|listed|describes?|described|calls?|called|argues?|argued|promises?|promised|"
    r"advertises?|(?<!the\s)markets?|quotes?|estimates?|estimated|projects?|projected|expects|expected|"
    r"should|must|ask|measure|test|check|compare|verify|if|whether|may|might|could|would|not|"
    r"no(?!\s+longer)|none|nothing|neither|nor|cannot|unless|until)\b|[\"“”?]", re.IGNORECASE)
#: Where a sentence turns to its own claim: "PCT has not measured V1, but V1 will halve ...".
_TURN_RE = re.compile(r",\s+(?:but|so|and\s+so|yet)\s+|;\s+|\s+[—–]\s+|:\s+")


def _sweeping_claim(text: str) -> tuple[int, str, str] | None:
    """``(start, claim, sweeping phrase)`` of a clause that asserts, in the desk's own voice, a
    verdict over an open class ("V1 will halve any deployment's GPU bill", "It is now the
    fastest way to serve interactive chat"), with no connective: a conclusion all the same."""
    starts = [0, *(m.end() for m in _TURN_RE.finditer(text))]
    ends = [m.start() for m in _TURN_RE.finditer(text)] + [len(text)]
    for start, end in zip(starts, ends, strict=True):
        clause = text[start:end]
        if _REPORTED_RE.search(clause):
            continue
        universal = _UNIVERSAL_RE.search(clause)
        m = universal if universal and _VERDICT_RE.search(clause) else (
            _SUPERLATIVE_RE.search(clause) or _ABSOLUTE_RE.search(clause))
        if m is not None:
            claim = clause.rstrip(" .!?")
            return start, claim, m.group()
    return None


@lru_cache(maxsize=64)
def _labelled_re(desk: tuple[str, ...]) -> re.Pattern[str]:
    """A sentence the desk labels as its own conclusion: "PCT's view: ...", "Our verdict: ..."."""
    names = "|".join(re.escape(n).replace("\\ ", r"\s+") for n in sorted(desk, key=len,
                                                                       reverse=True))
    return re.compile(
        rf"^(?:\[S\d+\]\s*)*(?:(?:{names}|[Tt]he\s+desk)(?:'s|’s)|[Oo]ur)\s+(?:own\s+)?"
        r"(?:conclusion|view|reading|verdict|take|assessment|judge?ment|bottom\s+line)s?:\s+")


#: What makes a labelled conclusion sweeping: a universal, a superlative, an absolute or a
#: promise ("will roughly halve", "wherever it replaces NCCL", "eliminates ... entirely").
_LABELLED_SWEEP_RE = re.compile(
    r"\b(?:(?:any|every|all)\s+(?!of\b|the\b|these\b|those\b|\d)[\w'’-]+|wherever|whatever|"
    r"always|never|entirely|completely|guarantees?|guaranteed|eliminates?|"
    r"the\s+(?:lowest|highest|best|fastest|cheapest|most\s+\w+)(?:-\w+)?\s+[\w-]+|"
    r"wins|beats|outperforms|will\s+(?:\w+ly\s+)?\w+)\b", re.IGNORECASE)
#: Hedges, reports and advice within a labelled conclusion (not "should expect", a promise).
_LABELLED_HEDGE_RE = re.compile(
    r"\b(?:says?|said|claims?|reports?|reported|according|may|might|could|would|not|no|if|"
    r"whether|unless|until|depends?|ask|measure|test|check|compare|verify|price|replay|"
    r"confirm|but|where|when|only)\b|[\"“”?]", re.IGNORECASE)


def _labelled_conclusion(labelled: re.Pattern[str], text: str) -> tuple[int, str, str] | None:
    """``(start, claim, sweeping phrase)`` of a clause of a sentence the desk labels as its
    conclusion, when the clause sweeps and neither hedges, reports nor advises."""
    m = labelled.match(text)
    if m is None:
        return None
    rest = text[m.end():]
    starts = [0, *(t.end() for t in _TURN_RE.finditer(rest))]
    ends = [t.start() for t in _TURN_RE.finditer(rest)] + [len(rest)]
    for start, end in zip(starts, ends, strict=True):
        clause = rest[start:end]
        sweep = _LABELLED_SWEEP_RE.search(clause)
        if sweep is not None and not _LABELLED_HEDGE_RE.search(clause):
            return m.end() + start, clause.rstrip(" .!?"), sweep.group()
    return None


#: A conclusion verb denied: "does not (yet) show that", "never proved that".
_NEGATED_RE = re.compile(r"\b(?:not|never|n't|nothing|no\s+one)\s+(?:\w+\s+)?$", re.IGNORECASE)


#: What every conclusion below needs besides a sweeping word: the superlative and the absolutes
#: of :func:`_sweeping_claim`.
_MORE_SWEEP_RE = re.compile(r"\b(?:quickest|most|makes?|no\s+longer)\b", re.IGNORECASE)


def _conclusion(text: str) -> tuple[int, str, str] | None:
    """``(start, claim, sweeping word)`` of the sentence's conclusion, if it draws one."""
    if not _SWEEPING_RE.search(text) and not _MORE_SWEEP_RE.search(text):
        return None  # no word any conclusion below needs: most sentences, read at once
    m = _CONCLUDES_RE.search(text)
    if m is not None and _NEGATED_RE.search(text[max(0, m.start() - 24):m.start()]):
        m = None  # "it does not yet show that a UE fabric beats ...": no conclusion drawn
    if m is not None:
        group = "claim" if m.group("claim") is not None else "bare"
        word = _SWEEPING_RE.search(m.group(group))
        if word is not None:  # from the verb that draws it ("This proves ...") to its end
            return m.start(), text[m.start():m.end(group)], word.group()
    for m in _THEREFORE_RE.finditer(text):
        start = max(text.rfind(c, 0, m.start()) for c in ";:") + 1
        start += len(text[start:]) - len(text[start:].lstrip())
        stop = min([i for i in (text.find(c, m.end()) for c in ";:") if i >= 0] + [len(text)])
        claim = text[start:stop].rstrip(" .!?")
        word = _SWEEPING_RE.search(claim)
        if word is not None:
            return start, claim, word.group()
    m = _JUDGED_RE.search(text)
    if m is not None:
        word = _JUDGEMENT_RE.search(m.group("judged"))
        if word is not None:  # from the verb ("shows the README overstated it")
            return m.start(), text[m.start():m.end("judged")], word.group()
    for m in _SO_RE.finditer(text):
        word = _JUDGEMENT_RE.search(m.group("claim"))
        if word is not None:
            return m.start("claim"), m.group("claim"), word.group()
    return _sweeping_claim(text)
