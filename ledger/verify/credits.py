"""Who a figure is credited to.

* ``unattributed-figure``: a figure whose every trace is author-reported evidence (a fact of an
  author-reported evidence type, or the benchmark scope when it was not independently
  reproduced) sits in a paragraph with no attribution, read by the grammar of
  :mod:`ledger.verify.attribution` (a reporting verb in any tense with its agent, possessives,
  "according to", the article's publishers, authors and ``reported_by``). A secondary report of
  an author's figure counts as author-reported evidence too: its teller must be named; so does
  documentation repeating an author-reported result (a multiplier, rate or percentage), while a
  count or size that documentation states is a design parameter. In a
  paragraph that credits its figures, a sentence that states an author's figure in the desk's
  own voice as what the product does, in the present tense ("the gateway lifts hit rates from
  about 25%"), and credits no one is a warning; not when the clause is what someone reports
  ("the post says the gateway lifts ..."). So is a figure whose part of a paragraph (up to its
  citation marker) credits no one while another part, citing other sources, holds the
  paragraph's credit. In the desk's analysis paragraph, a figure credited earlier in the
  article is the desk's input, not a new claim.
* ``desk-claims-authors-figure``: an author-reported figure in a sentence that presents it as
  the desk's own measurement ("PCT measured", "we tested"); in an article that records no
  measurement of its own, also a sentence that claims figures stated elsewhere ("PCT confirmed
  them in its own tests", "PCT measured the figures above").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal

from ..figures import Figure, FigureKind
from ..models import Article, EvidenceType
from ..quantities import Kind
from ..quantity_units import UNITS
from ..report import Finding, Severity
from .attribution import attributes, desk_claims, desk_names, reported_clause
from .evidence import Trace
from .experiments import arithmetic_spans
from .owners import MARKER_RUN_RE
from .persons import is_person_name
from .prose import Span, enclosing, group_in, paragraphs, sentences
from .sourcenames import GENERIC
from .text import body_span
from .tracing import TracedFigure, tried

__all__ = ["agent_names", "check_desk_claims", "check_unattributed"]


_REFERS_BACK = re.compile(r"\b(?:(?:these|those|both|such|the\s+same)\s+(?:\w+\s+)?(?:figures|"
                          r"numbers|results|claims|benchmarks|measurements|reports)"
                          # "Two cautions follow from how that sentence is built"
                          r"|(?:that|this|the\s+same)\s+(?:\w+\s+)?(?:sentence|passage|"
                          r"statement|quote|quotation|wording|headline)"
                          # "the three read as follows:": a numeral standing for the results
                          r"|(?:the|these|those|all)\s+(?:two|three|four|five|six|seven|eight|"
                          r"nine|ten)\s+(?=(?:read|are|were|compare|come|line\s+up|look|stand|"
                          r"sit|say|give|show)\b))\b(?!-)", re.IGNORECASE)


def _desk_words(article: Article) -> re.Pattern[str]:
    """The desk's names in a paragraph: its publisher, the publisher's initials, we, the desk."""
    names = "|".join(re.escape(n) for n in desk_names(article.publisher))
    return re.compile(rf"\b(?:{names}|we|our|the desk)\b")


def _sources_author_reported(t: TracedFigure, article: Article) -> bool:
    """Every trace to a source's evidence is someone's report that needs its owner named: an
    author-reported fact, metric or scope, or a secondary report of it (a third party's
    account needs its teller named as much). The desk's own inferences that restate the figure
    are set aside. A count or size that documentation also states is not counted (a design
    parameter needs no credit), but a result (a multiplier, a rate, a percentage) that an
    author-reported fact states still needs its owner when documentation repeats it (a
    vendor's index restating its README's 6.6 TiB/s)."""
    sourced = [tr for tr in t.traces if tr.origin in ("fact", "scope", "metric")]
    if not any(tr.author_reported for tr in sourced) or _testbed_spec(t, article, sourced):
        return False
    kinds = {f.id: f.evidence_type for f in article.facts}
    allowed = {EvidenceType.secondary_reporting, EvidenceType.interview}
    if t.quantity is not None and t.quantity.kind in _RESULT_KINDS and any(
            tr.author_reported and tr.origin == "fact" for tr in sourced):
        allowed |= _DOCUMENTATION
    return all(tr.author_reported or kinds.get(tr.fact_id or "") in allowed for tr in sourced)


_RESULT_KINDS = frozenset({Kind.multiplier, Kind.rate, Kind.percent})
#: A memory size written into a device's name: "on an H100 SXM 80GB", "A100 PCIe 40GB".
_DEVICE_SIZE_RE = re.compile(r"(?:\b[A-Z][\w-]*\d[\w-]*|\bSXM\d?|\bPCIe|\bNVL\d*|\bHBM\w*)\s+"
                             r"(?P<n>\d+(?:\.\d+)?)\s?(?P<u>GB|GiB|TB)\b")


def _testbed_spec(t: TracedFigure, article: Article, sourced: list[Trace]) -> bool:
    """A size the sources give only as the testbed's hardware: inside a device's name in a
    fact ("an H100 SXM 80GB"; "about 74.5 GiB" of it too), or in the scope's hardware: not a
    result whose owner must be named."""
    q = t.quantity
    if (q is None or q.kind is not Kind.size or q.unit is None or q.unit.factor is None
            or not t.figure.values):
        return False
    size = t.figure.values[0] * q.unit.factor
    facts = {f.id: f.claim for f in article.facts}

    def names_device(text: str) -> bool:
        return any(abs(Decimal(m.group("n")) * (UNITS[m.group("u")].factor or 0) - size)
                   <= size / 100
                   for m in _DEVICE_SIZE_RE.finditer(text))
    return bool(sourced) and all(
        (tr.origin == "fact" and names_device(facts.get(tr.fact_id or "", "")))
        or tr.pointer == "/benchmark_scope/hardware" for tr in sourced)


_DOCUMENTATION = frozenset({EvidenceType.primary_documentation,
                            EvidenceType.dated_primary_research})


def _analysis_paragraphs(article: Article, traced: list[TracedFigure]
                         ) -> tuple[set[int], set[int]]:
    """Starts of the desk's own analysis paragraphs: they name the desk or state a figure of
    its own arithmetic; there a restated author figure is the desk's input, not a report. The
    second set holds those of arithmetic."""
    paras = paragraphs(article.body)
    desk = _desk_words(article)
    worked = arithmetic_spans(paras, traced)
    return {p.start for p in paras if desk.search(p.text)} | worked, worked


def agent_names(article: Article) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The article's own agents: publishers (each part of "A / B") with the benchmark scope's
    ``reported_by``, and the sources' authors (full name and surname)."""
    names: list[str] = []
    authors: list[str] = []
    for src in article.sources:
        names += [p.strip() for p in re.split(r"\s*(?:/|,|;|\band\b)\s*", src.publisher)]
        for author in src.authors or []:
            authors += [author, author.split()[-1]]
    if article.benchmark_scope is not None:
        reported_by = article.benchmark_scope.reported_by
        names.append(reported_by.split(",")[0].strip())
        names += _quoted_parties(reported_by)
    return (tuple(dict.fromkeys(n for n in names if n and not n.endswith("et al."))),
            tuple(dict.fromkeys(a for a in authors if a)))


_PARTY_SPLIT = re.compile(r"\s*(?:[,;()]|\bquoting\b|\band\b|\bvia\b)\s*")


_PEOPLE_WORDS = re.compile(r"\b(?:authors?|team|maintainers|developers|engineers|researchers|"
                           r"contributors|page|post|paper|commit|benchmark|blog|README|docs|"
                           r"documentation|repository|repo|guide|website|site|wiki|changelog|"
                           r"whitepaper|report|notes|slides|announcement)\b", re.I)


def _quoted_parties(reported_by: str) -> list[str]:
    """The organisations a benchmark scope's ``reported_by`` names ("LMSYS, quoting Acme AI and
    Beta Group"), each with its first word ("Acme" for "Acme's hit rate"); not a product's
    people or documents ("Widget authors", "Widget team benchmark page"), whose first word is
    the product; a person's first name is not a party."""
    parties: list[str] = []
    for part in _PARTY_SPLIT.split(reported_by):
        words = part.split()
        if not words or not words[0][:1].isupper() or _PEOPLE_WORDS.search(part):
            continue
        parties += [part, words[0]] if len(words) > 1 and not is_person_name(part) else [part]
    return parties


#: A line of a list: "- ...", "* ...", "• ...", "1. ..." or "2) ...".
_LIST_ITEM = re.compile(r"\s*(?:[-*•]|[0-9]{1,2}[.)])\s")


class _CreditedParagraphs:
    """Which paragraphs attribute their figures: a paragraph that credits someone itself, or
    one that refers back ("Two of those figures ...") to a credited paragraph right before it.

    Read lazily, only for the paragraphs a figure sits in (and the ones they refer back to):
    reading attribution is the costliest grammar of the check, and a paragraph without figures
    needs no answer."""

    def __init__(self, paras: Sequence[Span], credits: Callable[[str], bool]) -> None:
        self._paras = paras
        self._index = {p.start: i for i, p in enumerate(paras)}
        self._credits = credits
        self._known: dict[int, bool] = {}

    def _lead_in(self, i: int) -> int | None:
        """The line that introduces the list item ``i`` ("Its announcement listed three use
        cases:" above "- Chatting with a book: ..."): the nearest line before the item's list,
        when it ends with a colon; None for a line that is no list item, or a list that no such
        line introduces."""
        if not _LIST_ITEM.match(self._paras[i].text):
            return None
        j = i - 1
        while j >= 0 and _LIST_ITEM.match(self._paras[j].text):
            j -= 1
        return j if j >= 0 and self._paras[j].text.rstrip().endswith(":") else None

    def listed(self, start: int) -> bool:
        """Whether the paragraph at ``start`` is an item of a list whose introducing line
        credits: the item states what that line says someone reports."""
        i = self._index[start]
        lead = self._lead_in(i)
        return lead is not None and not self._credits(self._paras[i].text) and self.at(
            self._paras[lead].start)

    def at(self, start: int) -> bool:
        """Whether the paragraph starting at ``start`` attributes its figures."""
        i = self._index[start]
        chain: list[int] = []  # paragraphs that credit no one but refer back to the one before
        while i not in self._known:
            if self._credits(self._paras[i].text):
                self._known[i] = True
            elif (lead := self._lead_in(i)) is not None:
                chain.append(i)  # a list item: the line that introduces its list decides
                i = lead
            elif i == 0 or not _REFERS_BACK.search(self._paras[i].text):
                self._known[i] = False
            else:
                chain.append(i)
                i -= 1
        for k in chain:
            self._known[k] = self._known[i]
        return self._known[self._index[start]]


def check_unattributed(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``unattributed-figure`` findings, one per line of the body and severity: a paragraph
    that does not credit its figures is one problem, however many figures it holds."""
    return _one_per_line(article.body, _unattributed(article, traced))


def _one_per_line(body: str, findings: list[Finding]) -> list[Finding]:
    """Findings on the same line and of the same severity merged into one that spans them all
    and names each figure; the first one's message and trace stand for the rest."""
    groups: dict[tuple[int | None, Severity], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.line, f.severity), []).append(f)
    out = []
    for group in groups.values():
        first = group[0]
        if len(group) == 1 or first.column is None:
            out.extend(group)
            continue
        line = body.split("\n")[(first.line or 1) - 1]
        figures = ", ".join(repr(line[(f.column or 1) - 1:(f.end_column or 1) - 1])
                            for f in group)
        out.append(replace(
            first, column=min(f.column or 0 for f in group),
            end_column=max(f.end_column or 0 for f in group),
            message=f"{len(group)} figures in this paragraph ({figures}) have no credit it "
                    f"can read; the first: {first.message}"))
    return sorted(out, key=lambda f: (f.line or 0, f.column or 0))


def _unattributed(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    names, authors = agent_names(article)
    paras = paragraphs(article.body)
    desk = desk_names(article.publisher)
    product = f"{article.subject} {article.title}"
    credited = _CreditedParagraphs(paras, lambda text: attributes(text, names, authors, desk,
                                                                  product))
    analysis, worked = _analysis_paragraphs(article, traced)
    findings = []
    seen: set[tuple[str, tuple[Decimal, ...]]] = set()  # figures already stated with an owner
    parts: dict[int, list[_Part]] = {}  # each paragraph's cited parts, read once
    for t in sorted(traced, key=lambda t: t.figure.start):
        para = enclosing(paras, t.figure.start, t.figure.end)
        if para is None or t.figure.kind is FigureKind.date:
            continue
        key = _figure_key(t)
        if credited.at(para.start):
            if (finding := _credit_elsewhere(article, t, para, key in seen,
                                             (names, authors, desk, product), parts)) is not None:
                findings.append(finding)
                seen.add(key)
                continue
            seen.add(key)
            tense = _claim_tense(article.body, t.figure, product)
            if (_sources_author_reported(t, article) and tense is not None
                    and not credited.listed(para.start)):
                spans = sentences(article.body)
                sentence = enclosing(spans, t.figure.start, t.figure.end)
                if sentence is not None and not attributes(
                        sentence.text, names, authors, desk, product) and not (
                        tense == "past" and _announced(spans, sentence, para.start,
                                                       (names, authors, desk, product))):
                    findings.append(body_span(
                        article, _claim_start(article.body, t.figure, product), t.figure.end,
                        Severity.warning, "unattributed-figure",
                        f"{t.figure.text!r} is the authors' figure, stated here in the desk's "
                        "own voice as what the product does; its paragraph credits other "
                        "figures, this sentence credits none (the checker cannot be sure)",
                        trace=tried(t)))
            continue
        claimed = _claimed_as_result(article.body, t.figure, product)
        reported = t.author_reported or (_sources_author_reported(t, article) and (
            para.start not in analysis or claimed))
        weighed = not reported or (key in seen and para.start in analysis and not claimed)
        if (weighed and para.start in analysis and para.start not in worked
                and (t.author_reported or _sources_author_reported(t, article))
                and (finding := _restated_result(
                    article, t, (names, authors, desk, product))) is not None):
            # the desk's analysis weighs a figure credited earlier ("so 4x and 2x ..."), unless
            # it states the result again as a fact, in a sentence that credits no one
            findings.append(finding)
            continue
        if not reported or (key in seen and _refers_back_to(article.body, t.figure)):
            continue  # "the 13x": a figure whose owner the reader was already given
        if _bare_name_of_credited(t, seen):
            continue  # "whether 5.81 beats 3.85": credited figures named by their numbers
        if _hypothesis_of_desk(article.body, t) or _names_subject(article, t.figure):
            continue  # "If ..., cost would fall by 37.5%"; "Maia 100" in an article on it
        if _design_word(article.body, t):
            continue  # "4-bit groupwise weights", "the two-loop architecture": a design
        if key in seen and para.start in analysis and not claimed:
            continue  # the desk's analysis weighs a figure credited earlier ("so 4x and 2x ...")
        sources = sorted({s for tr in t.traces for s in tr.source_ids})
        if _continues_credited(paras, para, sources, credited):
            continue  # "A week later, the pool held 64%. [S4]" after S4's credited account
        doubt = ("; a spelled-out number may be prose that only shares the value, so this is "
                 "not certain" if t.figure.spelled else
                 "" if claimed or _desk_claimed(article, para) else
                 _doubt(article, para, sources) or _follows_credit(paras, para, sources, credited))
        findings.append(body_span(
            article, _claim_start(article.body, t.figure, product) if claimed else t.figure.start,
            t.figure.end, Severity.warning if doubt else Severity.error, "unattributed-figure",
            f"{t.figure.text!r} is author-reported ({', '.join(sources) or 'benchmark scope'}"
            ", not independently reproduced) but its paragraph does not attribute it "
            "(e.g. 'the authors reported')" + doubt, trace=tried(t)))
    return findings


_MARKER_RE = re.compile(r"\[(S\d+)\]")


#: A part of a paragraph that ends at a group of citation markers: its start and end in the
#: paragraph's text, the sources it cites, and whether it credits anyone.
_Part = tuple[int, int, frozenset[str], bool]


def _credit_elsewhere(article: Article, t: TracedFigure, para: Span, seen: bool,
                      agents: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str],
                      memo: dict[int, list[_Part]]) -> Finding | None:
    """A warning for an author's figure, new to the reader, whose part of a paragraph (the
    sentences up to its citation marker) credits no one, while another part, citing other
    sources, does ("... using 20% fewer GPUs ... [S4] For context, that is Azure's figure
    [S6]"): the paragraph's credit is for the other source, not this figure's. ``memo`` keeps
    each paragraph's parts (:func:`_cited_parts`)."""
    if seen or t.figure.spelled or not (t.author_reported or _sources_author_reported(t, article)):
        return None
    sources = {s for tr in t.traces for s in tr.source_ids}
    if para.start not in memo:
        memo[para.start] = _cited_parts(para, agents)
    parts = memo[para.start]
    if not sources or len(parts) < 2:
        return None
    offset = t.figure.start - para.start
    mine = next((p for p in parts if p[0] <= offset < p[1]), None)
    if mine is None or not (sources & mine[2]) or mine[3]:
        return None
    others = [p for p in parts if p is not mine and not (p[2] & sources) and p[3]]
    if not others:
        return None
    return body_span(
        article, t.figure.start, t.figure.end, Severity.warning, "unattributed-figure",
        f"{t.figure.text!r} is author-reported ({', '.join(sorted(sources))}, not "
        "independently reproduced); its paragraph credits the part citing "
        f"{', '.join(sorted(others[0][2]))}, but the part citing {', '.join(sorted(mine[2]))} "
        "credits no one (the checker cannot be sure)", trace=tried(t))


def _cited_parts(para: Span, agents: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...],
                                           str]) -> list[_Part]:
    """The parts of a paragraph that each end at a group of citation markers (see
    :data:`_Part`); text after the last group belongs to the last part."""
    bounds: list[tuple[int, int, frozenset[str]]] = []
    start = 0
    for m in MARKER_RUN_RE.finditer(para.text):
        bounds.append((start, m.end(), frozenset(re.findall(r"S\d+", m.group()))))
        start = m.end()
    if bounds and start < len(para.text):
        bounds[-1] = (bounds[-1][0], len(para.text), bounds[-1][2])
    return [(a, b, cited, attributes(para.text[a:b], *agents)) for a, b, cited in bounds]


#: Words by which a paragraph names whose account it gives, whatever its grammar: "the
#: authors", "the company", "the post", "the vendor's page".
_OWNER_WORDS_RE = re.compile(
    r"\b(?:authors?|researchers|team|company|vendor|maintainers|developers|paper|preprint|"
    r"post|blog|announcement|documentation|docs|guide|README|page|study|whitepaper|"
    r"press\s+release|launch|keynote|talk|slides|changelog|release\s+notes)\b", re.IGNORECASE)


def _follows_credit(paras: Sequence[Span], para: Span, sources: list[str],
                    credited: _CreditedParagraphs) -> str:
    """Why the checker cannot be sure (or ""): the paragraph right before this one (before its
    list and the line that introduces it, for a list item) credits its figures and cites a
    source this figure traces to, which this one cites too (a list, in its items or the line
    that closes it); this one may go on with that account ("According to the
    team, ... [S1]" and then "The per-phase results come from separate runs:" with its list)."""
    i = next(k for k, p in enumerate(paras) if p.start == para.start)
    j = i - 1
    while j >= 0 and (_LIST_ITEM.match(paras[j].text) or paras[j].text.rstrip().endswith(":")):
        j -= 1
    if j < 0 or not credited.at(paras[j].start):
        return ""
    # what this paragraph cites; for a list item, its list and the line that closes it
    end = i + 1
    if _LIST_ITEM.match(para.text):
        while end < len(paras) and _LIST_ITEM.match(paras[end].text):
            end += 1
        end = min(end + 1, len(paras))
    own = {m for p in paras[i:end] for m in _MARKER_RE.findall(p.text)}
    cited = sorted(set(_MARKER_RE.findall(paras[j].text)) & set(sources) & own)
    if not cited:
        return ""
    return (f"; the paragraph before credits [{'], ['.join(cited)}], which this figure traces "
            "to, and this one may go on with that account (the checker cannot be sure)")


def _desk_claimed(article: Article, para: Span) -> bool:
    """Whether a sentence of the paragraph presents the work as the desk's ("In a vLLM report,
    PCT tested ..."): whoever else it names, no one is credited for it."""
    desk = desk_names(article.publisher)
    return any(desk_claims(s.text, desk) for s in sentences(para.text))


def _doubt(article: Article, para: Span, sources: list[str]) -> str:
    """Why the checker cannot be sure that a figure the attribution grammar found no credit for
    is unattributed ("" when it is sure): the paragraph names the owner of the figure's source
    or an account ("Google's May 8 post says ...", "as quoted by a developer on Google's
    forum"), in words the grammar did not read as a credit. Only a paragraph that names no one
    blocks, or a figure stated as what the product does ("JetStream delivers a 3x gain"), which
    the caller does not ask about, nor one in a paragraph where the desk claims the work."""
    owners = [src for src in article.sources if src.id in sources]
    words = {first for src in owners if (first := src.publisher.split()[0]).lower() not in GENERIC
             and len(first) > 2}
    words |= {a.split()[-1] for src in owners for a in src.authors or [] if a.split()}
    named = next((w for w in sorted(words) if re.search(rf"\b{re.escape(w)}\b", para.text)),
                 None)
    if named is None and (m := _OWNER_WORDS_RE.search(para.text)) is not None:
        named = m.group()
    if named is None:
        return ""
    return (f"; the paragraph names {named!r}, but the checker could not read it as crediting "
            "this figure, so it cannot be sure")


#: A paragraph that opens by going on in time from what came before: "A week later", "Two
#: months on", "The following Tuesday", "Later that month", "Soon after". Not "In a later
#: test", which names another occasion without placing it after the one told.
_UNIT = r"(?:days?|weeks?|months?|years?|quarters?|hours?)"
_CONTINUES_RE = re.compile(
    rf"^\s*(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    rf"several|a\s+few|some|\d+)\s+{_UNIT}\s+(?:later|on|after(?:wards)?)\b"
    rf"|(?:later|earlier)\s+(?:that|the\s+same)\s+{_UNIT}\b|"
    rf"(?:the|that)\s+(?:next|following)\s+(?:{_UNIT}|morning|evening|"
    rf"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
    rf"|(?:soon|shortly|not\s+long)\s+after(?:wards)?\b|by\s+then\b)", re.IGNORECASE)
_MARKER_RE = re.compile(r"\[(S\d+)\]")


def _continues_credited(paras: Sequence[Span], para: Span, sources: list[str],
                        credited: _CreditedParagraphs) -> bool:
    """The paragraph goes on in time from an account told before it ("Five days later, the
    next release doubled ...") and cites only sources that an earlier paragraph credits, one
    of them a source of the figure: the reader was given the owner of the account it
    continues."""
    if not sources or not _CONTINUES_RE.match(para.text):
        return False
    told = {sid for p in paras if p.start < para.start and credited.at(p.start)
            for sid in _MARKER_RE.findall(p.text)}
    cited = set(_MARKER_RE.findall(para.text))
    return bool(cited & set(sources)) and cited <= told


def _announced(spans: tuple[Span, ...], sentence: Span, para_start: int,
               agents: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str]) -> bool:
    """The sentence before, in the same paragraph, credits someone and announces results: a
    past-tense result right after it ("The authors give two results. In simulation, Widget
    achieved 5x") narrates what was just announced; a present-tense one states it afresh as
    the desk's, and one after a sentence on the test's setup ("Their tests covered chat. On
    those tasks Widget delivered 5x") as the product's."""
    i = spans.index(sentence)
    if i == 0 or spans[i - 1].start < para_start:
        return False
    names, authors, desk, product = agents
    before = spans[i - 1].text
    return bool(_ANNOUNCES_RE.search(before)) and attributes(before, names, authors, desk,
                                                             product)


#: A sentence that ends by announcing results: "The authors give two results.", "The paper
#: reports these figures:"; the sentence after it is what it announced.
_ANNOUNCES_RE = re.compile(r"\b(?:results?|figures?|numbers?|findings?|headlines?|claims?|"
                           r"measurements?|outcomes?)\s*(?:\[[^\]]*\]\s*)*[.:]?\s*$", re.I)


#: A determiner, with at most one word between it and the figure ("the 13x", "the full 1.6x").
_REFERENCE_BEFORE = re.compile(r"\b(?:the|this|that|these|those|its|their|at|with)\s+"
                               r"(?:[a-z][a-z-]*\s+)?$", re.I)


#: Verbs by which a product does something to a figure, in the present tense (a past tense
#: narrates an experiment that a neighbouring sentence has already credited: "The post
#: describes a test. Transfers reached 230 GB/s").
_RESULT_VERBS = (
    r"(?:serves|moves|cuts|delivers|reaches|achieves|sustains|handles|boosts|raises|lowers|"
    r"reduces|lifts|improves|increases|accelerates|turns\s+away|rejects|saves|attains|yields|"
    r"doubles|triples|halves|shrinks|outperforms|beats|speeds\s+up|keeps|makes|gives|brings|"
    r"enables|allows|offers|provides|runs|processes|supports|"
    # what it costs or takes: "Widget trains for 40% less", "Widget uses a third of the memory"
    r"trains|costs|uses|needs|requires|consumes|"
    # a particle after the object: "Widget speeds decoding up by 2x"
    r"speeds\s+(?:[\w-]+\s+){0,2}?up)")


#: A figure stated as what the product does, right after its verb or a few words into the
#: verb's clause: "FastGen serves 1.42", "EFA moves 752 GB/s", "the grid cuts TTFT by 41x",
#: "the gateway lifts hit rates from about 25%", "the router turns away one caller in seven". The
#: subject is a name or "the" and a noun, with up to three words before the verb.
_RESULT_CLAIM_RE = re.compile(
    r"(?P<subject>(?:\b[A-Za-z][\w-]*[A-Z][\w+-]*|\b[A-Z][\w+-]*|"
    r"\b(?:the|The|its|Its|this|This)\s+[\w-]+)\s+(?:[\w-]+\s+){0,3}?)"
    # a second verb of the same subject: "Widget fine-tunes the heads and reaches 2x"
    r"(?:(?:[\w-]+\s+){1,8}?and\s+)?"
    # (a model's name in the object may hold a point: "serves Qwen1.5-72B at 2.4x")
    rf"{_RESULT_VERBS}\s+(?:[\w-]+(?:\.\d[\w-]*)?\s+){{0,10}}?"
    r"(?:by\s+|to\s+|at\s+|from\s+|of\s+|in\s+|for\s+)?(?:about\s+|up\s+to\s+|roughly\s+|over\s+|"
    r"nearly\s+|almost\s+|around\s+|some\s+|one\s+\w+\s+in\s+|as\s+(?:much|many|little|few)\s+as\s+)?$")


#: The product by name, right before a past-tense verb of result ("On two tasks Widget delivered
#: up to 5x"): the desk stating a result as the product's; a noun subject in the past tense
#: ("Transfers reached 230 GB/s") narrates a test credited nearby, so it is left out.
_PAST_CLAIM_RE = re.compile(
    r"(?P<subject>\b[A-Za-z][\w-]*[A-Z][\w+-]*|\b[A-Z][\w+-]*)\s+"
    r"(?:delivered|achieved|attained|sustained|outperformed|boosted|doubled|tripled)\s+"
    r"(?:[\w-]+\s+){0,5}?(?:by\s+|to\s+|at\s+|of\s+)?(?:about\s+|up\s+to\s+|roughly\s+|"
    r"over\s+|nearly\s+|almost\s+|around\s+)?$")


#: A relative or temporal clause opening before a past-tense claim: it narrates the setting of
#: something already reported ("the first release, where Widget delivered 2x").
_SETTING_BEFORE_RE = re.compile(r"\b(?:where|when|which|whereby|as|after|once|until)\s+$", re.I)


def _claimed_as_result(body: str, fig: Figure, product: str | None = None) -> bool:
    """In the desk's analysis paragraph, an author's figure is the desk's input, unless a
    sentence states it afresh as what the product does, in the present tense. The product is
    what the article is about: a word of the subject before the verb is a word of the
    article's subject or title ("the router" in an article on a KV router; not "HotPotQA
    moves from 30.08", a benchmark's score read from a table); ``product`` is that text,
    ``None`` to accept any subject."""
    return _claim_tense(body, fig, product) is not None


def _claim_tense(body: str, fig: Figure, product: str | None = None) -> str | None:
    """"present" or "past" when the figure is stated as what the product does or did (see
    :func:`_claimed_as_result`), else None."""
    claim = _product_claim(body, fig, product)
    return claim[0] if claim is not None else None


def _claim_start(body: str, fig: Figure, product: str | None) -> int:
    """Where the claim that states the figure as the product's begins (its subject, "FlashInfer
    cuts ... by 29-69%"), so a finding shows the words at fault; the figure's start if none."""
    claim = _product_claim(body, fig, product)
    return claim[1] if claim is not None else fig.start


def _product_claim(body: str, fig: Figure, product: str | None) -> tuple[str, int] | None:
    """The tense of the claim that states the figure as what the product does or did, and
    where its subject begins in ``body``."""
    start = max(0, fig.start - 90)
    before = body[start:fig.start]
    cut = max(before.rfind(". "), before.rfind("; "), before.rfind(": "), before.rfind("\n"))
    clause = before[cut + 1:] if cut >= 0 else before
    m, tense = _RESULT_CLAIM_RE.search(clause), "present"
    if m is None:
        m, tense = _PAST_CLAIM_RE.search(clause), "past"
        if m is not None and _SETTING_BEFORE_RE.search(clause[:m.start()]):
            return None  # "the first release, where Widget delivered 2x": a narrated setting
    if m is None or reported_clause(clause[:m.start()]):
        return None
    if product is not None and not _stems(m.group("subject")) & _stems(product):
        return None
    return tense, start + (cut + 1 if cut >= 0 else 0) + m.start("subject")


_SUBJECT_STOP = frozenset({"the", "its", "this", "with", "and", "for", "from", "that", "what",
                           "how", "who", "which", "a", "an", "of", "on", "in", "at", "to"})


def _stems(text: str) -> set[str]:
    """Words of ``text`` cut to five letters (router, routing: "route"), without stop words."""
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower())
            if w not in _SUBJECT_STOP and len(w) > 1}


def _refers_back_to(body: str, fig: Figure) -> bool:
    """A restated figure used as a reference or a test condition, not claimed as a result
    again: after a determiner ("the 13x is a warm-cache ratio"), as the condition of a test
    ("at 73% cache demand", "with a 128,000-token context" i.e. a hyphenated modifier)."""
    before = body[max(0, fig.start - 12):fig.start]
    if (lower := _RANGE_LOW_RE.search(body, max(0, fig.start - 24), fig.start)) is not None:
        before = body[max(0, lower.start() - 12):lower.start()]  # "the 5% to 15% saving"
    return bool(_REFERENCE_BEFORE.search(before)) or body[fig.end:fig.end + 1] == "-"


#: The low end of a range just before a figure: "5% to ", "1.2-", "3x to ".
_RANGE_LOW_RE = re.compile(r"\d[\d.,]*\s*(?:%|x|×)?\s*(?:to|-|–)\s*$")


def _bare_name_of_credited(t: TracedFigure, seen: set[tuple[str, tuple[Decimal, ...]]]
                           ) -> bool:
    """A bare number whose value an earlier, credited figure stated with its kind ("up to
    5.81x" credited to the authors, then "whether 5.81 beats 3.85"): the number without its
    unit names that figure, it states no new quantity."""
    q = t.quantity
    if q is None or q.kind is not Kind.number or q.named or not t.figure.values:
        return False
    values = tuple(t.figure.values)
    return any(kind != Kind.number.value and seen_values == values
               for kind, seen_values in seen)


#: A hypothesis: a conditional opening ("If", "Suppose", "Were the gain to hold") or a modal
#: verb ("would fall", "could reach").
_HYPOTHESIS_RE = re.compile(r"^\W*(?:if|suppose|supposing|assuming|were|had|should)\b"
                            r"|\b(?:would|could|might)\b", re.IGNORECASE)


#: A result's words around a multiplier: "up to 4.1x faster", "4x the speed", "rivals 10
#: times its size".
_RESULT_BEFORE_RE = re.compile(r"\bup\s+to\s+$", re.IGNORECASE)
_RESULT_AFTER_RE = re.compile(
    r"\s*(?:faster|quicker|slower|higher|lower|cheaper|better|more|less|fewer|smaller|larger|"
    r"bigger|the\s+(?:speed|throughput|performance|bandwidth|capacity|size|cost)|its\s+size)\b",
    re.IGNORECASE)


#: A condition anywhere in the sentence: "PCT's arithmetic: if attention gets 7x faster".
_CONDITION_RE = re.compile(r"\b(?:if|unless|assuming|suppose)\b", re.IGNORECASE)


def _restated_result(article: Article, t: TracedFigure,
                     agents: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str]
                     ) -> Finding | None:
    """A warning for an author's multiplier that the desk's analysis (not its arithmetic)
    states as a result ("the M5, with first tokens up to 4.1x faster, is ..."), in a sentence
    that credits no one and poses no hypothesis: a reader of the conclusion takes it for a
    fact."""
    body = article.body
    if t.figure.kind is not FigureKind.multiplier or _refers_back_to(body, t.figure):
        return None
    if not (_RESULT_BEFORE_RE.search(body, max(0, t.figure.start - 8), t.figure.start)
            or _RESULT_AFTER_RE.match(body, t.figure.end)):
        return None
    sentence = enclosing(sentences(body), t.figure.start, t.figure.end)
    if sentence is None or attributes(sentence.text, *agents) or _HYPOTHESIS_RE.search(
            sentence.text) or _CONDITION_RE.search(sentence.text):
        return None
    return body_span(
        article, t.figure.start, t.figure.end, Severity.warning, "unattributed-figure",
        f"{t.figure.text!r} is the authors' result, stated in the desk's analysis as a fact, "
        "in a sentence that credits no one (the checker cannot be sure the reader keeps its "
        "owner in mind)", trace=tried(t))


#: A number joined to a singular noun, the pair qualifying the next word: "4-bit groupwise
#: weights", "a two-loop architecture", "a 3-stage pump".
_COMPOUND_RE = re.compile(r"-[a-z]+(?<!s)\s+[a-z]")


def _design_word(body: str, t: TracedFigure) -> bool:
    """The figure is half of a compound adjective that names a design ("4-bit weights", "a
    two-loop architecture"): how the thing is built, said by whoever describes it, not a
    result that needs its owner named. Not a unit ("a 2-second stall") nor a typed kind
    other than a count or a bare number."""
    q = t.quantity
    return (q is not None and q.unit is None and q.kind in (Kind.count, Kind.number)
            and len(t.figure.values) == 1
            and _COMPOUND_RE.match(body, t.figure.end) is not None)


def _hypothesis_of_desk(body: str, t: TracedFigure) -> bool:
    """The figure is a result of the desk's own arithmetic (an inference or its computation
    gives it) stated in a hypothesis ("If throughput rose by the full 1.6x, cost per token
    would fall by 37.5%"): the desk's analysis, though a source's figure gives the same value."""
    if not any(tr.origin in ("inference", "computation") for tr in t.traces):
        return False
    sentence = enclosing(sentences(body), t.figure.start, t.figure.end)
    return sentence is not None and bool(_HYPOTHESIS_RE.search(sentence.text))


def _names_subject(article: Article, fig: Figure) -> bool:
    """The number and the capitalised word before it name what the article is about ("Maia
    100" in an article on the Maia 100): a name, not a figure to credit."""
    m = re.search(r"\b([A-Z][\w-]*)\s+$", article.body[max(0, fig.start - 40):fig.start])
    if m is None:
        return False
    name = re.escape(f"{m.group(1)} {fig.text}").replace("\\ ", r"\s+")
    return any(re.search(rf"(?<![\w-]){name}(?![\w-])", text)
               for text in (article.subject or "", article.title))


def _figure_key(t: TracedFigure) -> tuple[str, tuple[Decimal, ...]]:
    kind = t.quantity.kind.value if t.quantity is not None else t.figure.kind.value
    return kind, tuple(t.figure.values)


def _sourced(t: TracedFigure) -> bool:
    """A figure that traces to sources' evidence and to none of the desk's own measurements."""
    return (t.figure.kind is not FigureKind.date
            and any(tr.origin in ("fact", "metric", "scope") for tr in t.traces)
            and not any(tr.origin == "measurement" for tr in t.traces))


def check_desk_claims(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``desk-claims-authors-figure``: a paragraph whose figures come from sources (none from
    the desk's own ledger measurements) and a sentence in it that presents them as the desk's
    own measurement ("PCT measured", "we tested", "These are PCT's measurements")."""
    paras = paragraphs(article.body)
    by_para = group_in(paras, [t for t in traced if _sourced(t)],
                       lambda t: (t.figure.start, t.figure.end))
    measured = _measures_anything(article)
    findings = []
    for para in paras:
        figures = by_para.get(para.start, [])
        if any(tr.origin == "measurement" for t in traced
               if para.contains(t.figure.start, t.figure.end) for tr in t.traces):
            continue  # the desk's own measurements are in this paragraph
        if not figures and measured:
            continue
        sources = sorted({s for t in figures for tr in t.traces for s in tr.source_ids})
        for sentence in sentences(para.text):
            claim = desk_claims(sentence.text, desk_names(article.publisher))
            if claim is None or not (figures or _FIGURES_MEANT_RE.search(sentence.text)):
                continue
            shown = _SHOWN_RE.match(sentence.text, claim.end())
            if shown and _RECOMPUTED_RE.search(sentence.text, shown.end()):
                continue  # "The desk reproduces both: the token counts give about $562,100"
            start = para.start + sentence.start + claim.start()
            what = (f"this paragraph's figures (e.g. {figures[0].figure.text!r})" if figures
                    else "the figures it refers to")
            findings.append(body_span(
                article, start, start + len(claim.group()), Severity.error,
                "desk-claims-authors-figure",
                f"{claim.group()!r} presents {what} as the desk's own measurement, but they "
                f"come from {', '.join(sources) or 'the sources'}, not from a ledger measurement"
                + ("" if figures else " (the article records none)")))
    return findings


#: The desk redoing a sum, after its claim word and a colon: "reproduces both: the counts give
#: about $562,100", "verified it: 16 x 1,299 comes to 20.8 PFLOPS". Arithmetic, not a
#: measurement.
_RECOMPUTED_RE = re.compile(
    r"\b(?:arithmetic|recompute[sd]?|gives?\s+(?:about|roughly|exactly|around)|comes?\s+to|"
    r"divided\s+by|multiplied\s+by|works?\s+out)\b|\d\s*[×/*÷=]\s*\(?\d|\)\s*/\s*\d",
    re.IGNORECASE)
#: The claim word's object, then a colon that opens what the desk did: "reproduces both:".
_SHOWN_RE = re.compile(r"(?:\s+[\w-]+){0,2}\s*:")
#: A sentence that speaks of figures without stating one: "PCT confirmed them in its own
#: tests", "PCT measured the figures above".
_FIGURES_MEANT_RE = re.compile(
    r"\b(?:them|these|those|figures?|numbers?|results?|measurements?|speed-?ups?|gains?|"
    r"savings?|reductions?|latenc(?:y|ies)|throughput|claims?)\b", re.IGNORECASE)


def _measures_anything(article: Article) -> bool:
    """Whether the article records any measurement of its own (ledger measurements, or facts
    of an independent evidence type): without one, the desk measured nothing it reports."""
    independent = {EvidenceType.ledger_measurement,
                   EvidenceType.independently_reproduced_benchmark}
    return bool(article.measurements) or any(
        f.evidence_type in independent or f.measurement_ids for f in article.facts)
