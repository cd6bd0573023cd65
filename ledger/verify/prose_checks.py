"""Prose guardrails checked: a body against a rule read from a guardrail's prose.

Reading prose is uncertain, so a violation found this way is a *warning* (rule
``guardrail``) that names the guardrail; a guardrail read neither way stays an
``unchecked-guardrail`` warning. The rules come from :func:`.prose_rules.prose_rule`.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..figures import FigureKind, quantize
from ..models import Article
from ..report import Finding, Severity
from .attribution import reports_next
from .lemmas import SYNONYMS, _same_word, find_lemmas
from .prose import Span, clauses, enclosing, group_in, sentences
from .prose_rules import (
    _CREDIT_RE,
    _DOC_NOUNS,
    _NEGATED_BEFORE,
    _PRESENT_RE,
    SOLE_WORDS_RE,
    ProseRule,
    _content,
)
from .text import body_span
from .tracing import TracedFigure

__all__ = ["check_prose_rule"]

#: A negated verb right after a forbidden word: "the specification does not fix it".
_NEGATED_AFTER = re.compile(r"\W*(?:[\w'’-]+\s+){0,2}?(?:(?:does|do|did|can|could|will|would|"
                            r"should|is|are|was|were)\s*(?:not|n't)|cannot|never)\b",
                            re.IGNORECASE)
_CREDIT_WORDS = re.compile(
    # "a discrepancy in the credits" names a list of authors, not a credit
    r"\b(?:(?<!the\s)credit\w*|attribut\w*|accounts?\s+for|thanks\s+to|due\s+to|because\s+of|"
    r"comes?\s+from|came\s+from|owing\s+to|driven\s+by|delivered\s+by|alone|on\s+its\s+own|"
    r"by\s+itself|solely|single-handedly|according\s+to|as\s+reported\s+by|delivered|"
    r"produced)\b", re.IGNORECASE)
#: the forbidden owner as a possessive ("NVIDIA's own results") or as the subject that states
#: the sentence ("The OSDI abstract keeps ... against Orca") credits it too
_OWNED_AFTER = re.compile(r"^(?:'s|’s)\s", re.IGNORECASE)
_DOC_SUBJECT = re.compile(r"^\W*(?:the\s+|its\s+|their\s+)?(?:[\w'’-]+\s+){0,2}$",
                          re.IGNORECASE)
#: Qualifiers that make a claim universal: a guardrail that forbids one forbids generality
_UNIVERSAL_RE = re.compile(r"\b(?:general|generally|always|universal|universally|every|any|all|"
                           r"whole|entire|in\s+general|regardless)\b", re.IGNORECASE)


def _owns(values: list[tuple[Decimal, ...]], t: TracedFigure) -> bool:
    """The body figure states one of the guardrail's figures (a range: both ends)."""
    fig = t.figure
    if fig.kind is FigureKind.date or not fig.values:
        return False
    return any(len(vs) == len(fig.values) and all(
        quantize(v, fig.decimals) == fv and abs(v - fv) <= abs(fv) / 50
        for v, fv in zip(vs, fig.values, strict=True)) for vs in values)


def _distinct_terms(hits: list[tuple[int, int, str]]) -> int:
    """How many different terms matched at different places (a synonym matched by two terms
    at one place counts once)."""
    places: dict[int, str] = {}
    for start, _end, term in hits:
        if start not in places and term not in places.values():
            places[start] = term
    return len(places)


def _phrases(hits: list[tuple[int, int, str]], body: str, guardrail: str) -> int:
    """How many pairs of hits are one name of the guardrail ("Hopper GPUs", "GB200 GPUs": both
    words capitalised or with digits), said together: such a pair is one term, not two. "on
    Hopper GPUs" is not "results on other Hopper GPUs"; "other Hopper" still counts twice."""
    pairs = 0
    ordered = sorted(hits)
    for (_s1, e1, t1), (s2, _e2, t2) in zip(ordered, ordered[1:], strict=False):
        if t1 != t2 and _name_like(t1) and _name_like(t2) and re.fullmatch(
                r"[\s-]+", body[e1:s2]) and re.search(
                rf"(?<![\w-]){re.escape(t1)}[\s-]+{re.escape(t2)}(?![\w-])", guardrail,
                re.IGNORECASE):
            pairs += 1
    return pairs


def _name_like(term: str) -> bool:
    return term[:1].isupper() or any(c.isdigit() for c in term)


def _compounds(words: list[str], kept: list[str], text: str) -> list[str]:
    """A kept modifier whose head noun was set aside as allowed stays with it: "describe it as
    GPU memory; it sets host memory" forbids "GPU memory", not every "GPU"."""
    out = []
    for w in kept:
        i = words.index(w) if w in words else -1
        head = words[i + 1] if 0 <= i < len(words) - 1 else None
        phrase = f"{w} {head}" if head else ""
        if head and head not in kept and re.search(re.escape(phrase), text, re.IGNORECASE):
            out.append(phrase)
        else:
            out.append(w)
    return out


def _allowed_part(text: str) -> str:
    """The parts of a guardrail that say what is allowed (no forbidding phrasing)."""
    return " ".join(part for part in re.split(r";|\.(?!\d)", text)  # not "14.5x"
                    if not _PRESENT_RE.search(part) and not _CREDIT_RE.search(part))


def _distinctive(rule: ProseRule, text: str, article: Article) -> list[str]:
    """The forbidden words that carry the forbidden meaning: not those the guardrail also uses
    for what it allows ("The 6x hold once DRAM capacity is exceeded; do not present them as
    gains for workloads that fit in DRAM": DRAM is on both sides), nor the article's own topic
    (its title's words: "AIBrix", "cache" in an article on AIBrix's KV cache). When nothing is
    left, all of them."""
    allowed = _allowed_part(text)
    shared = {t for t in rule.forbidden  # the word itself, not its synonyms: a guardrail that
              if (_same_word(allowed, t) and not _forbidden_owner(t, text, allowed))
              or _same_word(article.title, t)}  # allows "prices" may still forbid "cost"
    return [t for t in rule.forbidden if t not in shared] or rule.forbidden


def _forbidden_owner(term: str, text: str, allowed: str) -> bool:
    """A name the guardrail forbids as an owner ("do not present them as LMSYS's or PCT's
    measurements") stays distinctive although the allowed part names it in another role
    ("quoted in the LMSYS post"): owning the figures is what is ruled out."""
    owner = re.compile(rf"(?<![\w-]){re.escape(term)}(?:'s|’s)(?![\w])")
    return term[:1].isupper() and bool(owner.search(text)) and not owner.search(allowed)


def _wording_allowed(at_hit: str, guardrail: str) -> bool:
    """The forbidden word and the word after it are a wording the guardrail itself allows,
    outside a negation: "not a per-client rate; only the index page words it as per client
    node" allows "per client node"."""
    words = re.findall(r"[\w+]+", at_hit)[:3]
    if len(words) < 3:
        return False
    phrase = r"[\s-]+".join(map(re.escape, words))
    return any(not _NEGATED_BEFORE.search(guardrail[:m.start()].split(";")[-1])
               for m in re.finditer(rf"(?<![\w-]){phrase}(?![\w-])", guardrail, re.IGNORECASE))


def _metric_words(article: Article, figures: list[TracedFigure]) -> str:
    """The labels and vocabulary of the metrics the figures trace to ("speedup" for a figure
    traced to a pre-filling speedup): "present the 10x as the typical speedup" forbids
    "typical", not the word that says what the 10x is."""
    specs = (article.benchmark_scope.metric_specs or {}) if article.benchmark_scope else {}
    words = []
    for t in figures:
        for metric in t.metrics:
            spec = specs.get(metric)
            if spec is not None:
                words += [spec.label, *spec.vocabulary]
    return " ".join(words)


def _subject_by_metric(article: Article, subject: list[str],
                       figures: list[TracedFigure]) -> list[tuple[int, int, str]]:
    """The figures of the sentence whose metric the subject words name ("the throughput
    figures" are the figures traced to throughput metrics), as hits."""
    return [(t.figure.start, t.figure.end, t.figure.text) for t in figures
            if find_lemmas(_metric_words(article, [t]), subject)]


#: "On the X accelerators, TTFT fell 23x", "With X, tokens cost $1": X is credited as the means
_MEANS_BEFORE = re.compile(r"(?:^|[,;]\s*|\b(?:on|with|using|via|through)\s+)"
                           r"(?:on|with|using|via|through)\s+(?:[\w'’-]+\s+){0,3}$"
                           r"|^(?:on|with|using|via|through)\s+(?:[\w'’-]+\s+){0,3}$",
                           re.IGNORECASE)
_BACK_SUBJECT = re.compile(r"\s*(?:these|those|they|this|it)\s+(?:are|is|were|was)\b",
                           re.IGNORECASE)
#: a sentence that refers back to the figures of the sentence before it
_REFERS_BACK = re.compile(r"\b(?:it|they|them|these|those|both)\b", re.IGNORECASE)


def _unconditional(rule: ProseRule, hits: list[tuple[int, int, str]], sentence: Span,
                   condition: list[str], figures: list[TracedFigure]) -> bool:
    """A general claim made without a universal word: the protected figure stated as the
    forbidden comparison (three of its words or more) with none of the words of the
    condition the guardrail says it holds under ("GDS reads run 3.2x faster than the CPU
    path" for "the penalty for misaligned reads", not "the general speed-up")."""
    return (bool(rule.values) and bool(condition) and _distinct_terms(hits) >= 3
            and any(_owns(rule.values, t) for t in figures)
            and not find_lemmas(sentence.text, condition))


#: adjectives that say only which one: they need the noun they qualify
_IDENTITY = frozenset({"same", "other", "another", "different", "similar", "identical",
                       "separate", "given", "particular", "certain"})


def _other_results_clause(hit: tuple[int, int, str], mine: list[TracedFigure],
                          figures: list[TracedFigure], body: str) -> bool:
    """The hit's clause holds a result figure (a multiplier or percentage) other than the
    protected ones, and none of those."""
    clause = enclosing(clauses(body), hit[0], hit[1])
    if clause is None:
        return False
    inside = [t for t in figures if clause.contains(t.figure.start, t.figure.end)]
    return not any(t in mine for t in inside) and any(
        t.figure.kind in (FigureKind.multiplier, FigureKind.percent) for t in inside)


def _without_head(hit: tuple[int, int, str], body: str, heads_of: dict[str, list[str]]) -> bool:
    """A forbidden adjective said without the noun it qualifies in the guardrail (or a form
    or synonym of it) right after it."""
    heads = heads_of.get(hit[2])
    if not heads:
        return False
    after = body[hit[1]:hit[1] + 60]
    return not any(start <= 1 for start, _end, _term in find_lemmas(after, heads))


def _protected(rule: ProseRule, by_sentence: dict[int, list[TracedFigure]],
               spans: tuple[Span, ...], n: int, body: str,
               general: bool = False) -> list[TracedFigure]:
    """The guardrail's figures in sentence ``n``; when it has none and refers back with a
    pronoun ("so the desk reports it as ..."), those of the sentence before, same paragraph.
    A generalisation (``general``) is a claim about a finding, often made without its number:
    a sentence with no figure at all that generalises takes the figure of the sentence after
    it too ("Its main finding is a general law ... The authors found that 100 tokens ...")."""
    sentence = spans[n]
    ends = rule.values + [(v,) for vs in rule.values if len(vs) > 1 for v in vs]
    own = [t for t in by_sentence.get(sentence.start, []) if _owns(ends, t)]
    if (not own and general and n + 1 < len(spans)
            and not any(t.figure.kind is not FigureKind.date
                        for t in by_sentence.get(sentence.start, []))
            and "\n" not in body[sentence.end:spans[n + 1].start]):
        own = [t for t in by_sentence.get(spans[n + 1].start, []) if _owns(ends, t)]
    if own or n == 0 or not _REFERS_BACK.search(sentence.text):
        return own
    before = spans[n - 1]
    if "\n" in body[before.end:sentence.start]:
        return own  # another paragraph
    return [t for t in by_sentence.get(before.start, []) if _owns(ends, t)]


def _states_after(rule: ProseRule, hits: list[tuple[int, int, str]], sentence: Span,
                  figures: list[TracedFigure]) -> bool:
    """A forbidden owner as the agent of a reporting verb, with the protected figure after it,
    is credited with that figure: "Acme reports that the cache lifts hits by 17%"."""
    text, at = sentence.text, sentence.start
    agents = [h for h in hits if reports_next(text[h[1] - at:], plural=_plural_agent(
        text[h[0] - at:h[1] - at])) or _GETS_NEXT.match(text[h[1] - at:])]
    ends = rule.values + [(v,) for vs in rule.values if len(vs) > 1 for v in vs]
    return any(t.figure.start > h[1] and _owns(ends, t)
               and not _NEXT_CLAUSE.search(text[h[1] - at:t.figure.start - at])
               for h in agents for t in figures)


def _plural_agent(name: str) -> bool:
    """"the EAGLE authors", "Acme engineers", "they": an agent that takes a verb's base form."""
    last = name.split()[-1].lower() if name.split() else ""
    return last in ("they", "we") or (last.endswith("s") and not last.endswith(("ss", "'s", "’s"))
                                      and len(last) > 3)


#: a name that then gets the figure as its result: "TGI and vLLM as adopters, each gaining 3x",
#: "Acme, which sees 40% fewer misses"
_GETS_NEXT = re.compile(r"^[^.;:]{0,40}?\b(?:gain|gains|gained|gaining|get|gets|got|getting|"
                        r"see|sees|saw|seeing|achiev\w*|deliver\w*|enjoy\w*|obtain\w*)\b",
                        re.IGNORECASE)


#: where the next independent clause starts: what the agent before it reports ends there
_NEXT_CLAUSE = re.compile(r"[;:]|,\s+(?:and|but|yet|so)\b|\b(?:while|whereas)\b", re.IGNORECASE)


def _owner_of(after: str, rule: ProseRule) -> bool:
    """The forbidden name is a possessive that owns what follows it, unless what follows is
    another figure than the guardrail's: "446 sits below Cerebras's own 450" credits Cerebras
    with the 450, not with the 446."""
    if not _OWNED_AFTER.match(after):
        return False
    owned = re.match(r"^(?:'s|’s)\s+(?:own\s+)?(?P<fig>\d[\d,.]*\d|\d)", after)
    if owned is None or not rule.values:
        return True
    value = Decimal(owned.group("fig").replace(",", ""))
    return any(value in vs for vs in rule.values)


def _densest(hits: list[tuple[int, int, str]], body: str) -> list[tuple[int, int, str]]:
    """The hits of the clause with the most different terms (the first such clause)."""
    groups: dict[int, list[tuple[int, int, str]]] = {}
    for h in hits:
        span = enclosing(clauses(body), h[0], h[1])
        groups.setdefault(span.start if span else h[0], []).append(h)
    return max(groups.values(), key=lambda g: (_distinct_terms(g), -g[0][0]))


def _gated(text: str, forbidden: list[str]) -> set[str]:
    """The words of an alternative that is a universal claim ("as energy per token or as a
    comparison with all GPU systems": comparison, GPU, systems): they break the guardrail only
    beside a universal word; the other alternatives' words do not need one."""
    parts = re.split(r"\bor\s+as\b", text)
    if len(parts) < 2:
        return set()
    gated: set[str] = set()
    for i, part in enumerate(parts):
        if not _UNIVERSAL_RE.search(part):
            continue
        others = " ".join(parts[:i] + parts[i + 1:])
        gated |= {t for t in forbidden if _same_word(part, t) and not _same_word(others, t)
                  and not _UNIVERSAL_RE.fullmatch(t)}
    return gated


_CHECKING = r"(?:confirm|measure|ask|test|check|compare|evaluate|verify|benchmark|validate|profile)"
#: A sentence that advises the reader to check something ("Confirm the GPU generation before
#: assuming W8A8 speed", "A buyer should test the models actually served") presents nothing.
_ADVICE_RE = re.compile(
    rf"^\W*(?:{_CHECKING}\b|(?:[\w'’-]+\s+){{1,3}}(?:should|must|needs?\s+to|ought\s+to)\s+"
    rf"(?:first\s+|also\s+|still\s+|always\s+)?{_CHECKING}\b"
    # "What to ask a vendor: ...", "Questions to ask before buying: ..."
    rf"|(?:what|which|how|questions?|things?)\s+to\s+{_CHECKING}\b)", re.IGNORECASE)
#: an indirect question poses its alternatives, it asserts none: "whether the figures are
#: logical or wire bandwidth"
_POSED_BEFORE = re.compile(r"\bwhether\b[^,;:.()]*$", re.IGNORECASE)


def check_prose_rule(rule: ProseRule, article: Article, traced: list[TracedFigure],
                     index: int) -> list[Finding]:
    """Warnings where a sentence breaks a guardrail read from prose."""
    text = article.corrections[index].text
    forbidden = _compounds(rule.forbidden, _distinctive(rule, text, article), text)
    # the head of the forbidden phrase, when the guardrail allows it ("is a share of cache
    # lookups; ... not as a share of memory"), is what the figure is: one of the other words
    # completes the phrase
    head = rule.forbidden[0] if rule.forbidden else ""
    said_by_metric = (rule.kind == "present_as" and head.islower() and head not in forbidden
                      and _same_word(_allowed_part(text), head))
    what = ""
    if rule.values:  # what the protected figure is, by its metric, is not what is forbidden
        what = _metric_words(article, [t for t in traced if _owns(rule.values, t)])
        named = [t for t in forbidden if not _same_word(what, t)] or forbidden
        # the figure's own metric says part of the forbidden phrase ("a share of Google's
        # compute" for a share of Google's requests): one more word completes it
        said_by_metric = said_by_metric or len(named) < len(forbidden)
        forbidden = named
    # a modifier ("traffic" of "traffic bytes") is no alternative of its own
    modifiers = {w for w in forbidden if any(re.search(
        rf"(?<![\w-]){re.escape(w)}\s+{re.escape(v)}(?![\w-])", text) for v in forbidden if v != w)}
    # an adjective of identity ("same" of "a saving on the same hardware") means something
    # only beside its noun: "the same summary" says nothing of hardware
    heads_of = {w: [v for v in forbidden if v != w and re.search(
        rf"(?<![\w-]){re.escape(w)}\s+{re.escape(v)}(?![\w-])", text)] for w in modifiers
        if w.lower() in _IDENTITY}
    # the article's own topic ("llm-d" in an article on llm-d) counts beside a distinctive word
    # ("llm-d's measured cost"), never alone
    topic = [t for t in rule.forbidden if t not in forbidden and _same_word(article.title, t)
             and not _same_word(_allowed_part(text), t)]
    # a status word ("current", "latest") is what a status guardrail forbids: it must be said
    timely = [t for t in forbidden if any(t.lower() in g for g in SYNONYMS if "current" in g)]
    # the model and hardware names among alternatives ("on A100 or other GPUs"): each alone
    alternatives = {t for t in forbidden if re.search(r"\bor\b", text)
                    and any(c.isdigit() for c in t)}  # a model or hardware name: "A100"
    universal = any(_UNIVERSAL_RE.fullmatch(t) for t in forbidden) and not re.search(
        r"\bor\s+as\b", text)  # "as X or as Y in general": the generality is one alternative
    gated = set() if universal else _gated(text, forbidden)
    if universal or gated:  # any universal word breaks it, not only the guardrail's own
        forbidden = forbidden + [w for w in ("general", "always", "every", "any", "all",
                                             "whole", "entire") if w not in forbidden]
    # what the guardrail says the figure is ("the penalty for misaligned reads"): its
    # distinctive words are the condition a general claim leaves out
    condition = [w for w in _content(_allowed_part(text)) if len(w) >= 6
                 and w.isalpha() and not any(_same_word(w, t) for t in rule.forbidden)]
    findings = []
    spans = sentences(article.body)
    by_sentence = group_in(spans, traced, lambda t: (t.figure.start, t.figure.end))  # linear
    for n, sentence in enumerate(spans):
        if _ADVICE_RE.match(sentence.text):
            continue
        hits = [h for h in find_lemmas(sentence.text, forbidden + topic, sentence.start)
                if not _NEGATED_BEFORE.search(sentence.text[:h[0] - sentence.start])
                and not _wording_allowed(sentence.text[h[0] - sentence.start:], text)
                and not _without_head(h, article.body, heads_of)
                and not _POSED_BEFORE.search(sentence.text[:h[0] - sentence.start])
                and not _NEGATED_AFTER.match(sentence.text, h[1] - sentence.start)]
        if gated and not any(_UNIVERSAL_RE.fullmatch(sentence.text[h[0] - sentence.start:
                                                                   h[1] - sentence.start])
                             for h in hits):
            hits = [h for h in hits if h[2] not in gated]  # that alternative needs "all"
        # "not a saving llm-d measured", "AWS offers no RoCE", "from different hardware": each
        # word the sentence negates or sets apart keeps the guardrail, so it does not count.
        # one word suffices for a credit, a "not a ..." list, or a label of one or two words
        needed = 1 if (rule.kind == "credit_to" or rule.any_term or said_by_metric
                       or len(rule.forbidden) <= 2) else min(2, len(forbidden) + len(topic))
        # the figure's own metric word ("average latency" for an average-latency figure) is
        # no forbidden synonym of it ("typical") where one word would do
        hits = [h for h in hits if not said_by_metric or _same_word(said := sentence.text[
            h[0] - sentence.start:h[1] - sentence.start], h[2]) or not _same_word(what, said)]
        if rule.shared_noun:  # the noun of coordinated adjectives is no violation alone
            hits = [h for h in hits if h[2] != rule.shared_noun]
            needed = 1
        if not hits or (said_by_metric and all(h[2] in modifiers for h in hits)):
            continue
        if alternatives and any(h[2] in alternatives for h in hits):
            needed = 1  # "as holding on A100 or other GPUs": a named alternative alone
        if not hits or _distinct_terms(hits) - _phrases(hits, article.body, text) < needed or all(
                h[2] in topic for h in hits):
            continue
        if timely and not any(h[2] in timely for h in hits):
            continue
        if universal and not any(_UNIVERSAL_RE.fullmatch(sentence.text[h[0] - sentence.start:
                                                                       h[1] - sentence.start])
                                 for h in hits) and not _unconditional(
                rule, hits, sentence, condition, by_sentence.get(sentence.start, [])):
            continue  # "do not present X as faster in general": only a general claim breaks it
        credited = _CREDIT_WORDS.search(sentence.text) is not None
        if rule.sole:  # "credit it to A alone": only a credit that leaves no one else
            if not SOLE_WORDS_RE.search(sentence.text):
                continue
            credited = True
        # implicit credit: a means ("With X, ..."), a possessive ("X's own results"), the
        # document that states the sentence ("The X abstract keeps ...")
        implied = any(
            _MEANS_BEFORE.search(sentence.text[:h[0] - sentence.start])
            or _owner_of(sentence.text[h[1] - sentence.start:], rule) or (
                _DOC_SUBJECT.match(sentence.text[:h[0] - sentence.start])
                and h[2].split()[-1].lower() in _DOC_NOUNS | {"abstract", "readme", "review"})
            for h in hits)
        if rule.kind == "credit_to" and not credited and not implied and not _states_after(
                rule, hits, sentence, by_sentence.get(sentence.start, [])):
            continue
        figures = _protected(rule, by_sentence, spans, n, article.body,
                             universal or bool(gated)) if rule.values else []
        if figures and sentence.contains(figures[0].figure.start, figures[0].figure.end):
            # a word in a clause that holds another result and not the protected figure
            # labels that result: "puts the single-GPU range at 1.5x to 2.3x, and says the
            # 4x used eight GPUs"
            kept = [h for h in hits if not _other_results_clause(
                h, figures, by_sentence.get(sentence.start, []), article.body)]
            if len(kept) < len(hits) and (
                    not kept or _distinct_terms(kept) - _phrases(kept, article.body, text)
                    < needed):
                continue
        subject = ([h for h in find_lemmas(sentence.text, rule.subject, sentence.start)
                    if not any(h[0] < f[1] and f[0] < h[1] for f in hits)]  # not the same words
                   or _subject_by_metric(article, rule.subject,
                                         by_sentence.get(sentence.start, []))
                   if rule.subject and not rule.values else [])
        if rule.values and not figures:
            continue
        if not rule.values and not subject and (rule.kind == "present_as" or not credited):
            # an implied credit counts only with the guardrail's subject, or a sentence that
            # refers back to it ("These are X's own results")
            if rule.kind == "present_as" or not _BACK_SUBJECT.match(sentence.text):
                continue
        # on the figure it protects; without one, on the whole sentence that breaks it
        if figures and not sentence.contains(figures[0].figure.start, figures[0].figure.end):
            start, end = hits[0][0], hits[-1][1]  # it refers back: the words that break it
        elif figures:  # from the protected figure to the words that break the guardrail:
            # those of the clause that holds most of them
            group = _densest(hits, article.body)
            near = min(figures, key=lambda t: abs(t.figure.start - group[0][0]))
            start = min(near.figure.start, group[0][0])
            end = max(near.figure.end, group[-1][1])
        else:
            start, end = sentence.start, sentence.end
        findings.append(body_span(
            article, start, end, Severity.warning, "guardrail",
            f"guardrail {index + 1} ({text[:60]!r}...), read from its prose: this sentence "
            f"uses {', '.join(sorted({h[2] for h in hits}))!r}, which it rules out; the "
            "checker read the guardrail's wording and cannot be sure"))
    return findings
