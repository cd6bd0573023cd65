"""Who a figure is attributed to, read from clause structure: a small documented grammar.

An NLP library (spaCy) was considered: its English models are not installable here as
packages, and loading one costs more than the whole one-second budget of ``ledger verify``.
The desk's attribution sentences follow a few patterns, written out below and tested in
``tests/test_attribution.py``.

A paragraph **attributes** its figures when one of its sentences (anywhere in it, including
the sentence that closes it) has

* an **agent with a reporting verb** in any tense: ``the post reports``, ``NVIDIA reported``,
  ``Campi found``, ``Her team ran``, ``They say``, ``the authors have measured``, ``the paper's
  authors reported``, ``Widget's own researchers found``, also across a parenthetical (``The
  maintainers, citing one trace, report``, ``A note on X, dated May 3, 2026, says``). The agent
  is a source noun (post, paper, page, documentation, README, team, authors, vendor...), a
  person pronoun (he, she, they), a person's team (``her team``, ``their group``), or a
  capitalised name that is not the desk's (its publisher and the publisher's initials, "we");
  ``it`` is an agent only with a verb that only a communicator does (``it reports``, ``it
  says``), not ``it reaches``; the article's own product doing an action (``FlexWidget
  reaches``, ``Widget ran``: :data:`ACTION_VERBS`) is a claim, not a report, unless that name
  is also a publisher's; a document is an agent of the verbs that state or change its figures
  (``The OSDI abstract keeps the 2.6x and adds 3.7x``);
* a **passive or prepositional** attribution: ``reported by``, ``according to``, ``as reported``,
  ``per the post``, ``quoted in``, a document framing the sentence (``In the paper, ...``),
  ``Acme put the gain at 3x``;
* a **possessive** of an agent before what it produced: ``the post's figures``, ``DeepSeek's two
  published benchmarks``, ``NVIDIA's numbers``;
* an **attribution word**: ``author-reported``, ``self-reported``, ``vendor-reported``, ``the
  authors``, ``vendor figures``, ``the claimed speedup``, ``belongs to``, or the benchmark
  scope's ``reported_by``. Possessives take a bare apostrophe too (``the maintainers'
  count``) and a numbered table or figure (``the paper's Table 2``).

:func:`desk_claims` finds the opposite: the desk presenting a figure as its own measurement,
by a verb (``PCT measured``, ``we tested``, ``PCT reran``), a possessive or a noun of its own
work (``our benchmarks show``, ``PCT's own LongBench run``, ``in PCT's reproduction``), or a
sentence opened by the desk that places the work in its own setting (``PCT confirmed these in
its own lab``), unless negated (``not PCT measurements``, ``PCT did not run them``). The desk's
names come from the article's publisher (:func:`desk_names`: "Peterson Compute Trading" and
"PCT"), with "we", "our" and "the desk".
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from ..figures import MONTH_NAMES
from .scope import per_scope

__all__ = [
    "ACTION_VERBS", "REPORTING_VERBS", "attributes", "desk_claims", "desk_names", "desk_negated", "reported_clause",
    "reports_next",
]

#: Reporting verbs: every form of each is recognised (``report, reports, reported, reporting``).
REPORTING_VERBS: dict[str, tuple[str, ...]] = {
    "report": (), "say": ("said",), "measure": (), "find": ("found",),
    "show": ("shown", "showed"), "claim": (), "state": (), "publish": (), "describe": (),
    "announce": (), "note": (), "write": ("wrote", "written"), "observe": (), "estimate": (),
    "cite": (), "record": (), "document": (), "list": (), "give": ("gave", "given"),
    "put": (), "quote": (), "present": (), "demonstrate": (), "test": (), "run": ("ran",),
    "benchmark": (), "clock": (), "attribute": (), "credit": (), "reach": (), "achieve": (),
    "count": (), "time": (), "compute": (), "calculate": (), "tell": ("told",),
    "explain": (), "mention": (), "highlight": (), "summarise": (), "summarize": (),
    "promise": (), "advertise": (), "quantify": ("quantified", "quantifies"), "detail": (),
    "name": (), "raise": (), "rank": (), "plot": (), "chart": (), "recall": (),
    "relay": (), "repeat": (), "reiterate": (), "publicise": (), "publicize": (),
    # verbs of stance by which an agent puts its own figures ("Etched argues that GPUs are ...
    # up only about 15%"); not those of advice or caveats ("the documentation warns that ..."
    # says nothing of whose the paragraph's figures are)
    "argue": (), "contend": (), "conclude": (), "insist": (), "maintain": (), "assert": (),
    "acknowledge": (), "admit": ("admitted",), "concede": (), "predict": (), "boast": (),
    "tout": (),
}


def _forms(verb: str, irregular: tuple[str, ...]) -> list[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    forms = [verb, verb + ("es" if verb.endswith(("sh", "ch", "s", "x")) else "s"),
             stem + "ed", stem + "ing", *irregular]
    if verb.endswith("y") and verb not in irregular:
        forms += [verb[:-1] + "ies", verb[:-1] + "ied"]
    if verb in ("run", "put"):
        forms += [verb + verb[-1] + "ing"]
    return forms


_VERB = "|".join(sorted({f for v, irr in REPORTING_VERBS.items() for f in _forms(v, irr)},
                        key=len, reverse=True))
#: Without the bare base form: after a singular agent, "report" is a noun ("a vLLM report"),
#: while "reports", "reported" and "said" are verbs.
_VERB_INFLECTED = "|".join(sorted(
    {f for v, irr in REPORTING_VERBS.items() for f in _forms(v, irr)} - set(REPORTING_VERBS),
    key=len, reverse=True))
_SOURCE_NOUN = (r"(?:authors?|team|vendor|company|post|blog(?:\s+post)?|paper|page|"
                r"documentation|docs|README|study|report|announcement|article|index|notes|"
                r"write-?up|survey|maintainers|developers|engineers|researchers|operators?|"
                r"project|guide|series|benchmark|evaluation|talk|slides|repository|repo|"
                r"source|press\s+release|datasheet|whitepaper|deck|test|experiment|run|study|setup|"
                r"trial|demo|case\s+study|abstract|version|revision|preprint|deck|README|summary|note|"
                r"document|entry|listing|wiki|encyclopa?edia|datasheet|spec\s+sheet|fact\s+sheet|"
                # a standards body and what it publishes: "the consortium's webinar follow-up"
                r"consortium|committee|foundation|specification|webinar|FAQ|follow-?up|explainer)")
_NOT_NAMES = (r"(?!(?:We|Our|The|This|That|These|Those|It|Its|In|On|At|For|With|A|An|"
              r"But|And|Or|If|When|While|As|So|Both|Each|Every|No|Not|One|All|Such|Then|"
              r"There|Here|Across|After|Before|Without|Under|Over|From|By|Unlike|Like)\b)"
              # units after a number ("a 1 GB read runs at ..."): not a party
              r"(?![KMGTPE]i?[Bb](?:/s|ps)?\b|[KMGT]Hz\b|[kKMG]W\b|[TPG]FLOPS?\b|IOPS\b)")
#: (each word's capital is tried before the long lookahead, which it implies: a lower-case word
#: fails at once)
_NAME = rf"(?=[A-Z]){_NOT_NAMES}[A-Z][\w&.+-]*(?:\s+(?=[A-Z]){_NOT_NAMES}[A-Z][\w&.+-]*){{0,3}}"
_PERSON = r"(?:[Hh]e|[Ss]he|(?:[Hh]is|[Hh]er|[Tt]heir)\s+(?:team|group|lab|colleagues|" \
          r"co-?authors|company|firm|employer))"
_GROUP = (r"(?:authors|maintainers|developers|engineers|researchers|operators|co-?authors|"
          r"contributors)")
#: "They", "the authors", "the paper's authors", "Splitwise's own researchers".
_PLURAL_AGENT = (rf"(?:[Tt]hey|(?:the|The|its|Its|their|Their)\s+(?:[\w-]+(?:'s|’s)?\s+){{0,2}}"
                 rf"{_GROUP}|"
                 # plural documents: "the notes say", "those slides show"
                 rf"(?:the|The|its|Its|their|Their|those|Those|these|These)\s+(?:[\w-]+\s+){{0,2}}"
                 rf"(?:notes|docs|slides|papers|posts|pages|documents|tables|charts|READMEs|"
                 rf"minutes|proceedings|guides|reports|sources)|{_NAME}(?:'s|’s)\s+(?:own\s+|[\w-]+\s+)?(?:{_GROUP}|team|group|lab))")
#: Verbs that only a communicator does: "it reports" has a source for its subject, while "it
#: reaches" may be the product.
_SAYS = (r"(?:reports|reported|says|said|states|stated|claims|claimed|writes|wrote|notes|noted|"
         r"lists|listed|describes|described|publishes|published|announces|announced|quotes|"
         r"quoted|cites|cited|mentions|mentioned|explains|explained|"
         r"tells|told|recalls|recalled|presents|presented|puts\s+it|put\s+it)")
#: A document named by its date or its place in a series: "A May 28 follow-up explains", "an
#: earlier 2025 post said" (an undated "a test" may be the desk's or anyone's).
_DATED_DOCUMENT = (r"(?:[Aa]n?)\s+(?:(?:earlier|later|separate|second|third|companion|new)\s+)?"
                   rf"(?:{MONTH_NAMES}\s+\d{{1,2}},?\s+(?:\d{{4}}\s+)?|\d{{4}}\s+)")
_AGENT = rf"(?:(?:the|The|its|Its|that|That|this|This)\s+(?:[\w-]+\s+){{0,2}}{_SOURCE_NOUN}" \
         rf"|{_DATED_DOCUMENT}{_SOURCE_NOUN}|{_PERSON}|{_NAME})"
_GAP = r"(?:\s+(?:also|separately|later|then|first|again|now|itself|themselves|has|have|had|" \
       r"since|already|recently|" \
       r"was|were|is|are|did|does|do|only|further|instead|originally|publicly|explicitly))*"
_DOCUMENT = (r"(?:abstract|paper|post|README|blog|report|article|page|documentation|docs|document|"
             r"announcement|study|preprint|summary|review|note|notes|deck|slides|talk|"
             r"whitepaper|datasheet|guide|FAQ|explainer|write-?up|table|chart|standard|"
             r"specification|spec)")
#: What a document does to the figures it carries.
_CONTENT_VERB = (r"(?:keeps|kept|adds|added|lists|listed|sets|offers|offered|includes|included|"
                 r"contains|contained|carries|carried|repeats|repeated|restates|restated|"
                 r"updates|updated|revises|revised|drops|dropped|omits|omitted|changes|changed|"
                 r"puts|gives|gave|cuts|lowers|lowered|raises|raised|quotes|prints|printed|"
                 r"tabulates|tabulated|breaks\s+down|broke\s+down|reads|read|compares|compared|"
                 r"ranks|ranked|plots|plotted|charts|charted|"
                 # what a standard does to the figures it sets: "the tallest stack the
                 # standard allows"
                 r"allows|allowed|permits|permitted|specifies|specified|defines|defined|"
                 r"requires|required|mandates|mandated)")
#: A parenthetical between an agent and its verb, of up to two comma-separated parts:
#: ", citing one trace, ", ", dated May 3, 2026, ".
_ASIDE = rf",\s+[^,\[.;]{{1,60}}(?:,\s+[^,\[.;]{{1,30}})?,{_GAP}\s+"
#: "Acme put the gain at 3x": the past tense of "put" is its base form.
_PUT_AT = r"\s+put\s+[^.;]{1,50}?\bat\b"
#: "the version cited here", "the figures quoted above": a participle that names a document,
#: not an agent that reports
_NOT_PARTICIPLE = r"(?!\s+(?:here|above|below|earlier|previously|elsewhere)\b)"
#: A subject owned by a named party, whatever its noun, with a verb of saying: "Acme's
#: description of the card lists", "The Register's rundown of the launch said". A product's
#: part does things ("Widget's chip reaches"), it does not say them.
_OWNED_SUBJECT = (rf"{_NAME}(?:'s|’s)\s+(?:[\w-]+\s+){{0,2}}?[\w-]+"
                  rf"(?:\s+(?:of|on|about|for)\s+(?:the|its|their|this|that|an?)\s+"
                  rf"(?:[\w-]+\s+){{0,2}}?[\w-]+)?")
_SAYS_OR_GIVES = rf"(?:{_SAYS}|gives|gave|counts|counted|shows|showed)"
_AGENT_VERB = (rf"\b{_PLURAL_AGENT}{_GAP}\s+(?:{_VERB})\b"
               # not a participle of the noun ("Widget's cache published to four hosts")
               # a name and its people, right before the verb: "Widget contributors reported"
               rf"|\b{_NAME}\s+{_GROUP}{_GAP}\s+(?:{_VERB})\b"
               rf"|\b{_OWNED_SUBJECT}{_GAP}\s+{_SAYS_OR_GIVES}\b"
               r"(?!\s+(?:to|on|in|at|by|for|from|with|as|under|into)\b)"
               rf"|\b{_AGENT}{_GAP}\s+(?:{_VERB_INFLECTED})\b{_NOT_PARTICIPLE}"
               rf"|\b{_AGENT}{_GAP}{_PUT_AT}"
               rf"|\b[Ii]t{_GAP}\s+{_SAYS}\b"
               # a document as the subject of a verb that states or changes its figures: "The
               # abstract keeps the 2.6x and adds 3.7x"
               rf"|\b(?:the|The|its|Its|this|This|that|That)\s+(?:[\w-]+(?:'s|’s)?\s+){{0,2}}"
               rf"{_DOCUMENT}{_GAP}\s+{_CONTENT_VERB}\b"
               # a parenthetical between the agent and its verb: "A summary on X, dated May
               # 3, says", "The authors, citing a trace, report"
               # an indefinite source with a verb of saying: "An encyclopedia entry on the
               # part lists", "a vendor datasheet states"
               # (a named one, "A vLLM report lists", is a claim unless the name is an agent)
               rf"|\b(?:[Aa]n?)\s+(?:[a-z][a-z-]*\s+){{0,2}}{_SOURCE_NOUN}(?:\s+(?:on|about|of|for)\s+"
               rf"(?:the|its|their|this|that|an?)\s+(?:[\w-]+\s+){{0,2}}?[\w-]+)?{_GAP}\s+{_SAYS}\b"
               # a document, with the words that place it, stating or repeating figures: "A
               # later revision (v5) restates the headline as", "A consulting primer last
               # verified on June 7, 2026 repeats"
               rf"|\b(?:[Aa]n?|[Tt]he|[Ii]ts|[Tt]heir|[Tt]his|[Tt]hat)\s+(?:[a-z][a-z-]*\s+){{0,2}}"
               rf"(?:{_SOURCE_NOUN}|{_DOCUMENT}|primer)\b(?:\s+(?:[^.;\[]|\.(?=\S)){{0,90}}?)?\s+"
               rf"(?:{_SAYS}|{_CONTENT_VERB}|restates|repeats)\b{_NOT_PARTICIPLE}"
               rf"|\b{_PLURAL_AGENT}{_ASIDE}(?:{_VERB})\b"
               rf"|\b(?:{_AGENT}|(?:[Aa]n?)\s+(?:[\w-]+\s+){{0,2}}{_SOURCE_NOUN}"
               rf"(?:\s+(?:on|in|by|from)\s+{_NAME})?){_ASIDE}(?:{_VERB_INFLECTED})\b")
_PASSIVE = (r"(?i:\b(?:reported|measured|published|stated|claimed|given|found|described|quoted|"
            r"documented|announced|presented|cited|run|benchmarked|tested|summari[sz]ed|detailed|"
            r"listed|compiled|collected|tabulated|set\s+out|laid\s+out|recounted|"
            r"recapped)\s+(?:by|in)\b"
            r"|\baccording\s+to\b|\bas\s+reported\b|\bper\s+the\b|\bin\s+the\s+words\s+of\b"
            # a source's reading framing the sentence: "By its reading, ...", "by their count"
            r"|\bby\s+(?:its|their|his|her|the\s+[\w-]+(?:'s|’s|s'|s’))\s+(?:own\s+)?"
            r"(?:reading|account|count|estimate|reckoning|telling|figures|numbers|measure))"
            # a document framing the sentence: "In the paper, throughput rises 3x"
            rf"|\b[Ii]n\s+(?:the|its|their|that|this)\s+(?:[\w-]+\s+){{0,2}}{_DOCUMENT},")
#: "Her write-up", "their paper": a person's document (not "their experiment", which may be
#: anyone's).
#: "The test used a 7B model": a test's setup, attributed to whoever ran the test.
_TEST_USED = (r"\b(?:the|The|this|This|that|That|its|Its)\s+(?:[\w-]+\s+){0,2}(?:test|experiment|"
              r"run|study|setup|benchmark|evaluation|trial)s?\s+(?:used|uses|ran|runs)\b")
_PERSON_DOCUMENT = (r"\b(?:[Hh]is|[Hh]er|[Tt]heir)\s+(?:own\s+)?(?:write-?up|post|paper|blog|"
                    r"report|article|slides|talk|figures|numbers|results|measurements|"
                    r"benchmarks|data|tests|announcement|thread|video)\b")
_PRODUCT = (r"(?:figures?|results?|numbers?|benchmarks?|tests?|measurements?|data|claims?|runs?|"
            r"experiments?|evaluations?|post|paper|report|blog|announcement|documentation|"
            r"docs|study|headline|chart|plot|table|tally|estimates?|account|setup|findings?|"
            r"deployment|write-?up|page|guide|README|count|reckoning|words|wording|"
            # a third party's document about the work: "Liner's summary", "the Gazette's recap"
            r"summary|summaries|review|overview|digest|recap|explainer|tutorial|article|"
            r"coverage|thread|notes|changelog|talk|slides|webinar|follow-?up|answers|FAQ|"
            r"specification|"
            r"(?i:table|figure|chart)(?:\s+\d+)?)")
_POSSESSIVE = (rf"\b(?:{_AGENT}|{_SOURCE_NOUN})(?:'s|’s|s'|s’|(?<=s)'|(?<=s)’)\s+"
               # words between, a date among them: "DCX's May 29, 2026 explainer"
               rf"(?:[\w-]+\s+|\d{{1,2}},\s+){{0,3}}?"
               rf"{_PRODUCT}\b")
_WORDS = (r"(?i:\bauthor-reported\b|\bself-reported\b|\bvendor-reported\b|\bthe\s+authors\b|"
          r"\breported\s+by\b|\battributed\s+to\b|\bbelongs?\s+to\b|\bbelonged\s+to\b"
          # "vendor figures", "the claimed speedup": someone else's numbers
          r"|\b(?:vendor|supplier|author|authors'|company|marketing)\s+(?:figures|numbers|claims|"
          r"results|data|benchmarks)\b"

          r"|\bthe\s+(?:claimed|reported|advertised|quoted|published|stated)\s+(?!by\b)\w+)")

#: Where the figures come from, when that names a party or a document: "the numbers come from a
#: Contoso validation setup", "the figures came from a partner's bench"; not "the number comes
#: from a stress test", which says how it was made, not whose it is.
_ORIGIN = (r"\b(?i:figures?|numbers?|results?|data|measurements?|benchmarks?|estimates?|claims?|"
           r"counts?|readings?)\s+(?:all\s+|here\s+|used\s+here\s+)?(?i:come|comes|came|coming|"
           r"derive|derives|derived|originate|originates|originated)\s+from\s+"
           rf"(?=(?:[\w'’-]+\s+){{0,4}}?(?:[A-Z][\w&.+-]*|[\w-]+(?:'s|’s|s'|s’)(?!\w)|"
           rf"(?i:{_DOCUMENT})s?\b))")

_ATTRIBUTION_RE = re.compile(
    "|".join(f"(?:{p})" for p in (_AGENT_VERB, _PASSIVE, _POSSESSIVE, _WORDS, _ORIGIN,
                                  _PERSON_DOCUMENT, _TEST_USED)))
_NEGATION = r"(?:not|never|no|nor|did\s+not|does\s+not|didn't|doesn't|has\s+not|have\s+not)"
#: What the desk did that produces a figure of its own: verbs, and nouns after its possessive
#: ("PCT's own run", "our reproduction").
_DESK_WORK = (r"(?:measured|measures|tested|tests|ran|runs|reran|reruns|benchmarked|benchmarks|"
              r"found|finds|observed|observes|recorded|records|saw|sees|clocked|achieved|"
              r"reproduced|reproduces|replicated|replicates|got|obtained|measurements?|testing|"
              r"tests?|runs?|reruns?|results|offloaded|deployed|replayed|timed|profiled|"
              r"profiling|evaluated|evaluation|experiments?|trials?|numbers|data|"
              r"reproductions?|replications?|benchmark|replays?|compared|sampled|surveyed|"
              # "PCT has since used it to produce kernels up to 2x"
              r"used\s+(?:it|them|this|that)\s+to\s+(?:produce|build|write|reach|get|train|run)|"
              # "PCT counts 100,000-plus XPUs": a count of its own ("counts as" interprets)
              r"count(?:s|ed)(?!\s+(?:as|on|toward|against)\b)|tall(?:ies|ied))(?![\w-])")
#: Machines a measurement runs on: "on a rented server", "on an H100".
_HARDWARE = (r"(?:systems?|machines?|servers?|nodes?|GPUs?|cards?|boxe?s?|instances?|"
             r"[A-Z]+\d+[\w-]*)(?![\w-])")
_DESK_SETTING = (r"(?:tests?|testing|runs?|reruns?|replays?|measurements?|benchmarks?|lab|experiments?|"
                 r"bench|test-?bed|test\s+bed|rigs?|setup|"
                 r"reproductions?|replications?|trials?|cluster|hardware|evaluations?|"
                 r"sampling|samples?|surveys?|comparisons?|studies|study)(?![\w-])")
#: The desk's own work as the agent of a finding: "PCT's own count of the dataset finds that
#: 73%", "our survey of the logs showed 40%". Not its reading of others' work or its arithmetic
#: ("PCT's reading of the paper finds", "our arithmetic gives 44%"), which restate sources.
_DESK_INTERPRETS = (r"(?:reading|readings|analysis|arithmetic|maths?|calculations?|sums?|"
                    r"estimates?|view|take|summary|reckoning|interpretation|understanding|"
                    r"conclusion|guess|reading|"
                    # a depiction or a worked case, not a measurement: "PCT's illustration
                    # shows", "our example gives", "the desk's sketch of the costs puts"
                    r"illustrations?|examples?|sketch(?:es)?|diagrams?|charts?|graphics?|"
                    r"scenarios?|hypotheticals?|comparisons?|tables?|walk-?throughs?|"
                    r"explanations?|explainers?|models?|framing|picture|projections?|"
                    r"thought\s+experiments?)")
_FINDS = (r"(?:finds|found|shows|showed|gives|gave|yields|yielded|puts|reached|reaches|"
          r"returns|returned|produces|produced|records|recorded|comes\s+to|came\s+to)")
_DESK_WORK_FINDS = (rf"(?:own\s+)?(?!{_DESK_INTERPRETS}\b)[a-z][\w-]*"
                    rf"(?:\s+of\s+(?!(?:(?:the|its|their|this|that)\s+)?(?:[\w'’-]+\s+)?"
                    rf"{_DOCUMENT}s?\b)(?:[\w'’-]+\s+){{0,2}}[\w-]+)?\s+{_FINDS}\b")
#: The rest of one clause (no subordinate clause that could bring another subject: "We noted
#: that the vendor ran it in its own lab").
_OWN_CLAUSE = (r"(?:(?!\b(?:that|which|who|whether|how|when|while|after|because)\b)"
               # a decimal point or a thousands comma is inside a number, not a clause's end
               r"(?:[^.;,]|(?<=\d)[.,](?=\d)))*?")
#: The desk's generic names; its own name comes from the article's publisher (desk_names).
_DESK_GENERIC = (r"We", r"we", r"Our", r"our", r"The\s+desk", r"the\s+desk", r"This\s+desk",
                 r"this\s+desk")


def desk_names(publisher: str) -> tuple[str, ...]:
    """The names the desk goes by: the article's publisher and its initials ("Jones Daily
    Review", "JDR")."""
    words = [w for w in re.findall(r"[A-Za-z][\w&-]*", publisher) if w[0].isupper()]
    names = [publisher.strip()]
    if len(words) >= 2:
        names.append("".join(w[0] for w in words))
    return tuple(n for n in names if n)


def _named(desk: tuple[str, ...]) -> list[str]:
    """The desk's names as regex alternatives, longest first, any whitespace between words."""
    return [re.escape(n).replace("\\ ", r"\s+") for n in sorted(desk, key=len, reverse=True)]


@lru_cache(maxsize=64)
def _desk_res(desk: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The desk-claim and desk-negation patterns for a desk's names."""
    d = "(?:" + "|".join([*_named(desk), *_DESK_GENERIC]) + ")"
    claim = re.compile(
        rf"\b{d}(?:'s|’s)?{_GAP}\s+(?:own\s+)?(?:[\w-]+\s+)?{_DESK_WORK}"
        # two verbs of its work joined: "PCT rebuilt and measured it", "we set up, then ran"
        rf"|\b{d}{_GAP}\s+[a-z][\w-]*,?\s+(?:and|then|and\s+then)\s+{_DESK_WORK}"
        rf"|\b(?:{d}(?:'s|’s)|[Oo]ur)\s+{_DESK_WORK_FINDS}"
        rf"|\b(?i:in|by|from|on)\s+(?:{d}(?:'s|’s)?)\s+(?:own\s+)?(?:[\w-]+\s+)?{_DESK_SETTING}"
        rf"|^\s*{d}\s+[a-z]+(?:ed|ew|ot|an)\s+{_OWN_CLAUSE}\bin\s+(?:its|our)\s+own\s+"
        rf"{_DESK_SETTING}"
        rf"|\b{d}{_GAP}\s+{_ATTESTS}\s+that\b"
        # attesting a figure on hardware or in a setting of its own: "PCT validated the 2x on
        # a rented server", "and PCT confirmed it on an H100 in its own lab"
        rf"|\b{d}{_GAP}\s+{_ATTESTS}\s+{_OWN_CLAUSE}\b(?:on|in)\s+(?:its|our|an?)\s+"
        rf"(?:own\s+)?(?:[\w-]+\s+){{0,2}}?(?:{_DESK_SETTING}|{_HARDWARE})")
    negated = re.compile(rf"\b{_NEGATION}\s+{d}\b|\b{d}\s+(?:{_NEGATION})\b"
                         # "Nor did we test the sparse kernel claim": the inverted negation
                         rf"|\b(?:nor|neither)\s+(?:did|does|do|has|have|had|could|can|will|"
                         rf"would)\s+{d}\b"
                         rf"|\b(?:not|never|no|rather\s+than|instead\s+of|as\s+opposed\s+to)\s+"
                         rf"(?:\w+\s+){{0,2}}(?:{d}|desk|our)\b"
                         rf"|\b{d}\s+(?:\w+\s+){{1,2}}(?:none|nothing|neither|no)\b"
                         # "nobody at PCT has rerun it", "no one from the desk tested it"
                         rf"|\b(?:nobody|no\s+one|none)\s+(?:at|from|of|in)\s+(?:the\s+)?{d}"
                         # the desk's work that did not find it: "PCT's own replay did not
                         # reach 2x", "our rerun never showed it"
                         rf"|\b{d}(?:'s|’s)?\s+(?:own\s+)?[\w-]+\s+(?:{_NEGATION}|never)\b"
                         # a negative subject whose predicate is the desk's work: "Neither set
                         # of figures is a PCT measurement", "None of these came from our lab"
                         rf"|\b(?:neither|none|nothing)\b[^.;:]{{0,60}}?\b(?:is|are|was|were|"
                         rf"comes?|came)\s+(?:from\s+)?(?:an?\s+|the\s+)?{d}",
                         re.IGNORECASE)
    return claim, negated


@lru_cache(maxsize=64)
def _desk_words_re(desk: tuple[str, ...]) -> re.Pattern[str]:
    """Any word by which a sentence can name the desk (its names, "we", "our", "desk"), in any
    case: what each desk-claim and desk-negation pattern needs."""
    return re.compile(r"\b(?:" + "|".join([*_named(desk), "we", "our", "desk"]) + r")\b",
                      re.IGNORECASE)


def _names_desk(sentence: str, desk: tuple[str, ...]) -> bool:
    return _desk_words_re(desk).search(sentence) is not None


def reported_clause(before: str) -> bool:
    """``before`` (the text up to a clause) ends in a reporting verb, so the clause is what
    someone reports ("the post says [the gateway lifts ...]")."""
    return bool(_REPORTED_CLAUSE_RE.search(before))


_REPORTED_CLAUSE_RE = re.compile(rf"\b(?:{_VERB_INFLECTED})(?:\s+that)?\s*$")
#: a reporting verb right after a name, with its auxiliary or adverb: "reports", "has measured",
#: "later said"
_REPORTS_NEXT_RE = re.compile(
    rf"^\s+(?:(?:has|have|had|also|then|now|later|first|[a-z]+ly)\s+){{0,2}}"
    rf"(?:{_VERB_INFLECTED})\b", re.IGNORECASE)


_REPORTS_NEXT_BASE_RE = re.compile(
    rf"^\s+(?:(?:have|had|also|then|now|later|first|[a-z]+ly)\s+){{0,2}}"
    rf"(?:{'|'.join(REPORTING_VERBS)})\b(?!\s+(?:of|on|for)\b)", re.IGNORECASE)


def reports_next(after: str, plural: bool = False) -> bool:
    """``after`` (the text right after a name) opens with a reporting verb, so the name is the
    agent that states what follows ("NVIDIA reports that ...", "Acme has measured ..."). After
    a plural agent the verb's base form counts too ("the Acme authors put it at 3x", "the
    maintainers report"), which after a singular name is as often a noun ("a vLLM report")."""
    return bool(_REPORTS_NEXT_RE.match(after) or (plural and _REPORTS_NEXT_BASE_RE.match(after)))


def desk_negated(sentence: str, desk: tuple[str, ...] = ()) -> bool:
    """The sentence says what the desk did *not* do or find ("PCT reran none of them")."""
    return _names_desk(sentence, desk) and bool(_desk_res(desk)[1].search(sentence))


#: What follows one of the article's names in each of its constructions, compiled once: the
#: name, then a reporting verb ("Acme reports"); its possessive before its document ("Acme's
#: post"); its possessive before a figure ("Acme's hit rate rose by 40 points", not a product's
#: name with its version: "Acme's Widget-X 3.1 reaches"). The fourth construction, "by/per/from
#: the NAME", ends in the name.
_AFTER_NAME = (
    re.compile(rf"{_GAP}\s+(?:{_VERB_INFLECTED})\b"),
    re.compile(rf"(?:'s|’s|s'|s’)\s+(?:[\w-]+\s+){{0,3}}?{_PRODUCT}\b"),
)
_FIGURE_AFTER_NAME = re.compile(
    r"(?:'s|’s)\s+(?:(?:[A-Z][\w.-]*\s+){0,2}(?:[a-z][\w-]*\s+){1,4}?)?"
    r"(?:by\s+|to\s+|of\s+|at\s+|from\s+)?(?:about\s+|up\s+to\s+|nearly\s+)?\d")
_BOUNDARY = re.compile(r"\b")
_BY_START_RE = re.compile(r"\b(?:by|to|from|per)(?=\s)")


class _NamedAgents:
    """The article's own agents (source publishers, the benchmark scope's ``reported_by``) in
    the constructions of :data:`_AFTER_NAME`, found as one alternation ``\\b(?:NAME)TAIL|...``
    would find them (same matches, same order), without compiling the long verb and product
    alternations again for every article's names: that compile was a sixth of the time of
    verifying an article the process had not seen."""

    def __init__(self, names: list[str]) -> None:
        # the order of the alternation it stands for: longest (escaped) name first
        self.names = sorted(names, key=lambda n: len(re.escape(n)), reverse=True)
        alternation = "|".join(map(re.escape, self.names))
        self.by = re.compile(rf"\b(?:by|to|from|per)\s+(?:the\s+)?(?:{alternation})\b")

    def _end_at(self, text: str, at: int) -> int | None:
        if not _BOUNDARY.match(text, at):
            return None
        here = [n for n in self.names if text.startswith(n, at)]
        for tail in _AFTER_NAME:
            for name in here:
                if (m := tail.match(text, at + len(name))) is not None:
                    return m.end()
        if (m := self.by.match(text, at)) is not None:
            return m.end()
        for name in here:
            if (m := _FIGURE_AFTER_NAME.match(text, at + len(name))) is not None:
                return m.end()
        return None

    def finditer(self, text: str) -> Iterator[str]:
        """The matched texts, left to right and not overlapping, as ``re.finditer`` gives."""
        starts = {m.start() for m in _BY_START_RE.finditer(text)}
        for name in self.names:
            at = text.find(name)
            while at >= 0:
                starts.add(at)
                at = text.find(name, at + 1)
        pos = 0
        for at in sorted(starts):
            if at >= pos and (end := self._end_at(text, at)) is not None:
                yield text[at:end]
                pos = end


@lru_cache(maxsize=256)
def _extra_pattern(names: tuple[str, ...]) -> _NamedAgents | None:
    cleaned = [n for n in names if n and len(n) > 2]
    return _NamedAgents(cleaned) if cleaned else None


#: Verbs that a product does as readily as a reporter: "Widget reaches 2x" is a claim about the
#: product, "the authors reached 2x" a report.
ACTION_VERBS = ("measure", "test", "run", "benchmark", "clock", "reach", "achieve", "time",
                "raise", "count", "show", "give", "put", "rank")
_ACTION_FORMS = frozenset(f for v in ACTION_VERBS for f in _forms(v, REPORTING_VERBS[v]))


def _stems(text: str) -> set[str]:
    """Words of ``text`` cut to five letters, without short words."""
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower())
            if len(w) > 2 or (len(w) == 2 and re.search(r"\d", w))}  # "V2", "H2"


def _product_acts(match: str, stems: set[str], names: tuple[str, ...] = ()) -> bool:
    """The attribution match is the product doing an action ("FlexGen reaches"), not one of
    the article's publishers ("Hugging Face ran both engines" in an article on its product)."""
    words = match.split()
    if not stems or len(words) < 2 or words[-1] not in _ACTION_FORMS:
        return False
    agent = [w for w in words[:-1] if w.lower() not in ("the", "its", "this", "that")]
    if not agent or any(w.endswith(("'s", "’s", "'", "’")) or re.fullmatch(_GROUP, w)
                        for w in agent):
        return False  # "Widget's developers ran": people, not the product
    first = re.sub(r"[^a-z0-9]", "", agent[0].lower())
    if any(re.sub(r"[^a-z0-9]", "", n.split()[0].lower()) == first
           and not _PEOPLE_OF_RE.match(n) for n in names if n):
        return False
    return first[:5] in stems


#: A name for the people of a product ("Widget authors (arXiv)", "the Widget team"): they
#: report, but the product named first is still the product when it acts.
_PEOPLE_OF_RE = re.compile(rf"\S+\s+(?:{_GROUP}|team|group|lab|contributors)\b")


def _is_desk(agent: str, desk: tuple[str, ...]) -> bool:
    return any(re.match(rf"{re.escape(n)}(?![\w-])", agent) for n in desk)


@per_scope
def attributes(text: str, names: tuple[str, ...] = (), authors: tuple[str, ...] = (),
               desk: tuple[str, ...] = (), product: str = "") -> bool:
    """True when ``text`` (a paragraph) attributes its figures to someone other than the desk
    (``desk``: its names, from :func:`desk_names`).

    ``names`` are the article's own agents (source publishers, the benchmark scope's
    ``reported_by``): they count as agents even when not capitalised (``vLLM``), in the
    constructions above. ``authors`` are the sources' authors: naming one is attribution.
    ``product`` is what the article is about (its subject and title): the product doing an
    action ("Widget reaches 2x", "Widget ran 3x faster") is a claim, not someone reporting.
    """
    stems = _stems(product)
    extra = _extra_pattern(names)
    matches: Iterable[str] = (m.group() for m in _ATTRIBUTION_RE.finditer(text))
    if extra is not None:
        matches = itertools.chain(matches, extra.finditer(text))
    if any(not _is_desk(m, desk) and not _product_acts(m, stems, names) for m in matches):
        return True
    named = _authors_re(authors)
    return named is not None and named.search(text) is not None


@functools.lru_cache(maxsize=256)
def _authors_re(authors: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for the sources' authors (names of three letters or more)."""
    names = sorted({a for a in authors if len(a) > 2}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None


def desk_claims(sentence: str, desk: tuple[str, ...] = ()) -> re.Match[str] | None:
    """The words by which ``sentence`` presents a figure as the desk's own measurement
    (``desk``: the desk's names besides "we" and "the desk", from :func:`desk_names`)."""
    if not _names_desk(sentence, desk):
        return None  # every claim (and every negation) names the desk: most sentences do not
    claim, negated = _desk_res(desk)
    if negated.search(sentence):
        return None
    quoted = [q.span() for q in _QUOTED_RE.finditer(sentence)]
    for m in claim.finditer(sentence):
        if any(a <= m.start() < b for a, b in quoted):
            continue  # 'the authors write "we measured 2x"': the authors' words, not the desk's
        if _ARITHMETIC_RUN_RE.match(sentence, m.end()) and m.group().split()[-1] in (
                "ran", "runs", "run", "reran", "reruns"):
            continue  # "PCT ran the numbers": arithmetic, not a measurement
        if m.group().split()[-1] in _LOCATING and (
                _IN_SOURCE_RE.match(sentence, m.end()) or _DOCUMENTS_RE.match(sentence, m.end())
                or _found_thing_before(sentence, m.start(), m.end())):
            # "We found the 3x in the README", "PCT observed all sources on May 2", "none of
            # the posts we found": where a figure is, or which documents were read; not a
            # measurement
            continue
        if m.group().endswith("that") and _CHECKS_DOCUMENTS_RE.search(sentence, m.end()):
            continue  # "PCT verified that the README lists 12 models": a check of a source
        return m
    return None


_LOCATING = frozenset({"found", "finds", "saw", "sees", "observed", "observes"})
#: The desk attesting a product's behaviour as a fact it established ("PCT confirmed that the
#: engine processes 1M tokens on one GPU"); a check of documents or of arithmetic ("PCT
#: verified that the README lists 12 models", "we confirmed that the sum is 40") is not.
_ATTESTS = r"(?:confirmed|confirms|verified|verifies|validated|validates|established|establishes)"
_CHECKS_DOCUMENTS_RE = re.compile(
    rf"\b(?:{_DOCUMENT}s?|sources?|arithmetic|sums?|maths?|dates?|figures|numbers|"
    rf"citations?|quotes?|says|said|states|stated|lists|listed|reports|reported)\b",
    re.IGNORECASE)
_IN_SOURCE_RE = re.compile(
    rf"[^.;:]{{0,60}}?\b(?:in|on)\s+(?:the|its|their|both|two|three|several|each|either|"
    rf"an?|that|this)\s+(?:[\w'’-]+\s+){{0,2}}?(?:{_DOCUMENT}s?|places|sources|versions|"
    rf"pages|sections|posts|papers)\b")
#: The documents as the object of a locating verb: "observed all sources", "found both posts".
_DOCUMENTS_RE = re.compile(
    rf"\s+(?:(?:all|both|the|these|those|its|their|each|every|two|three|four|several)\s+)*"
    rf"(?:[\w'’-]+\s+){{0,2}}?(?:{_DOCUMENT}s?|sources|pages|posts|papers|versions)\b")
#: A noun phrase right before the desk's clause: "the posts we found", "the best-documented path
#: we found" (a reduced relative clause: what was found is that noun; "In testing we found 2x"
#: has no determiner, and the desk found the 2x).
_NOUN_BEFORE_RE = re.compile(r"\b(?i:the|a|an|any|every|each|no|only|one|which|what|all|both)\s+"
                             r"(?:[\w-]+\s+){0,2}?(?P<noun>[a-z][\w-]*)\s+$")
#: Words before "we found" that are no noun it qualifies ("and we found"), or that name a
#: result ("the speed-ups we found": the desk's finding all the same).
_NOT_FOUND_THING = frozenset({
    "and", "but", "so", "or", "nor", "that", "which", "then", "when", "where", "as", "if",
    "because", "while", "after", "before", "since", "here", "there", "also", "what", "once",
    "until", "though", "although", "yet", "now", "later", "first", "finally", "instead",
    "figures", "figure", "numbers", "number", "results", "result", "measurements", "speed-ups",
    "speedups", "speed-up", "speedup", "gains", "gain", "savings", "latency", "latencies",
    "throughput", "data", "values", "rates", "times", "average", "mean", "median", "peak",
    "rate", "ratio", "share", "improvement", "reduction", "increase", "drop", "cut", "boost",
    "speed", "score", "hit", "miss", "win", "uplift", "difference"})


def _found_thing_before(sentence: str, at: int, end: int) -> bool:
    """A noun other than a result's stands right before the desk's locating clause (which
    does not go on to the desk's own setting: "the post PCT observed in its own tests")."""
    m = _NOUN_BEFORE_RE.search(sentence, 0, at)
    return (m is not None and m.group("noun").lower() not in _NOT_FOUND_THING
            and not _OWN_SETTING_RE.match(sentence, end))


_OWN_SETTING_RE = re.compile(r"(?:\s+[\w-]+){0,3}?\s+(?:in|on|at)\s+(?:its|our|their)\s+own\b")
_QUOTED_RE = re.compile(r"“[^”]*”|\"[^\"]*\"")
_ARITHMETIC_RUN_RE = re.compile(r"\s+(?:the\s+|its\s+|our\s+|some\s+)?(?:numbers|arithmetic|"
                                r"maths?|sums|calculations?|figures\s+through)\b")
