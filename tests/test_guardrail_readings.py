"""Prose guardrails in the wordings new editors use: more verbs of presenting ("restate",
"quote", "attach ... to"), the verb said once ("attribute it to A, never to B"), a secondary
source that did not measure, a forbidden derivation or percent; and the readings that must not
fire (a negated list, a caution, a qualified synonym, an exactly stated neighbour, another
figure's owner). Each guardrail and sentence is written here, on the seed article."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import add_fact, add_metric, adding, replacing, rules_at, verify_with

from ledger.verify.derivations import form_rule
from ledger.verify.meaning import find_lemmas, prose_rule
from ledger.verify.secondhand import secondhand

Doc = dict[str, Any]


def guardrail(text: str):  # a prose guardrail, appended to the article's corrections
    def step(doc: Doc) -> None:
        doc["corrections"].append({"status": "prepublication_guardrail", "text": text})
    return step


def _found(tmp_path: Path, rule: str, sentence: str, *steps: Any) -> list[Any]:
    doc, result = verify_with(tmp_path, *steps, guardrail(rule), adding(sentence))
    index = len(doc["corrections"])
    assert not [f for f in result.findings if f.rule == "unchecked-guardrail"
                and f.pointer == f"/corrections/{index - 1}/text"], "guardrail not read"
    return [f for f in result.findings if f.rule == "guardrail"
            and f.message.startswith(f"guardrail {index} ")]


@pytest.mark.parametrize("verb", ["restate", "rewrite", "quote", "recast", "portray"])
def test_more_verbs_of_presenting_are_read(verb: str) -> None:
    rule = prose_rule(f"The 8.6-fold figure is an end-to-end latency result; do not {verb} "
                      "it as a cost saving.")
    assert rule is not None and rule.kind == "present_as" and rule.values


@pytest.mark.parametrize("text, owners", [
    ("The 3.8 times comes from the vLLM report; attribute it to that report, never to "
     "Moonshot AI or to the Acme newsletter.", ["Moonshot", "Acme"]),
    ("Credit the 92.2% to the report's authors, not to Zeta's blog.", ["Zeta"]),
])
def test_the_verb_said_once_is_read(text: str, owners: list[str]) -> None:
    rule = prose_rule(text)
    assert rule is not None and rule.kind == "credit_to"
    assert all(any(owner in term for term in rule.forbidden) for owner in owners)


SECONDHAND = [
    "The Acme digest is quoted here, but Acme's page is a third-party summary; its figures "
    "are the authors'.",
    "Acme's newsletter relays the report; its figures are the authors', not Acme's "
    "measurements.",
    "Acme's review is a secondary summary: never describe its figures as Acme's own "
    "measurements or as an independent reproduction.",
]


@pytest.mark.parametrize("text", SECONDHAND)
def test_a_secondary_source_is_read(text: str) -> None:
    rule = secondhand(text)
    assert rule is not None and rule.owners == ["Acme"]


@pytest.mark.parametrize("text", SECONDHAND)
@pytest.mark.parametrize("sentence", [
    "Acme measured 3.8 times the throughput on its own cluster.",
    "In Acme's own tests, throughput rose 3.8 times.",
    "Acme independently reproduced the 3.8 times throughput.",
])
def test_a_secondary_source_as_the_measurer_breaks_it(tmp_path: Path, text: str,
                                                      sentence: str) -> None:
    assert _found(tmp_path, text, sentence)


@pytest.mark.parametrize("sentence", [
    "Acme's page repeats the authors' 3.8 times the throughput.",
    "Acme did not measure the 3.8 times itself.",
])
def test_naming_the_secondary_source_as_a_relay_keeps_it(tmp_path: Path, sentence: str) -> None:
    assert not _found(tmp_path, SECONDHAND[1], sentence)


@pytest.mark.parametrize("text, values", [
    ("Do not divide 46 by 8.6 to compare the two reductions: they measure different things.",
     ["5.35", "0.187"]),
    ("Never subtract 1.7 from 92.2; the two hit rates come from different phases.", ["90.5"]),
    ("Do not add 12 and 60: the GPUs belong to separate experiments.", ["72"]),
])
def test_a_forbidden_derivation_is_read(text: str, values: list[str]) -> None:
    rule = form_rule(text)
    assert rule is not None and rule.kind == "derived"
    assert [f"{v:.{len(w.split('.')[-1]) if '.' in w else 0}f}" for v, w
            in zip(rule.values, values, strict=True)] == values


@pytest.mark.parametrize("rule", [
    "The 90.5 rise is in percentage points of hit rate and must not be written as a percent.",
    "The hit rate rose 90.5 points; do not write it as a percentage.",
])
@pytest.mark.parametrize("sentence, broken", [
    ("Hits rose by 90.5%.", True),
    ("Hits rose by 90.5 percentage points.", False),
])
def test_points_written_as_a_percent_break_it(tmp_path: Path, rule: str, sentence: str,
                                              broken: bool) -> None:
    assert bool(_found(tmp_path, rule, sentence)) is broken


LATENCY = "The 8.6-fold is a latency result; do not present it as a cost, power or energy gain."


@pytest.mark.parametrize("sentence, broken", [
    ("The 8.6-fold says nothing about cost, power or energy.", False),
    ("Test your own traces before treating the 8.6-fold as an 8.6-fold cost and energy gain.",
     False),
    ("The 8.6-fold is, in the end, a cost and energy gain.", True),
])
def test_a_negated_list_or_a_caution_keeps_it(tmp_path: Path, sentence: str,
                                              broken: bool) -> None:
    assert bool(_found(tmp_path, LATENCY, sentence)) is broken


def test_a_qualified_term_needs_its_qualifier() -> None:
    assert not find_lemmas("3.8 times the tokens per second", ["aggregate throughput"])
    assert find_lemmas("3.8 times the aggregate throughput", ["aggregate throughput"])
    assert find_lemmas("3.8 times the tokens per second", ["throughput"])


def test_a_phrase_matches_its_hyphenated_form() -> None:
    assert find_lemmas("an order-of-magnitude gain", ["order of magnitude"])


def test_a_neighbour_stated_exactly_is_not_the_protected_figure_rounded(
        tmp_path: Path) -> None:
    rule = "Do not label 8.6-fold as throughput."
    fact = (lambda doc: add_fact(doc, "A second run reached 9 times the throughput."))
    assert not _found(tmp_path, rule, "A second run reached 9 times the throughput.", fact)
    assert _found(tmp_path, rule, "The 8.6-fold is a throughput result.", fact)


def _paragraph(text: str):  # a paragraph before the body's first one
    def step(doc: Doc) -> None:
        doc["body"] = text + "\n\n" + doc["body"]
    return step


def _dated_status(text: str):
    def step(doc: Doc) -> None:
        doc["corrections"].append({
            "status": "prepublication_guardrail", "text": text,
            "rule": {"kind": "dated_status", "subjects": ["Mooncake paper"],
                     "observed_on": "2026-11-04", "stale_dates": ["2026-10-08"]}})
    return step


@pytest.mark.parametrize("text, broken", [
    ("Describe the Mooncake paper's current contents only as retrieved on 2026-11-04.", False),
    ("Treat the Mooncake paper's contents as those retrieved on November 4.", False),
    ("The Mooncake paper's current contents are those of November 4.", True),
    ("Do not present the Mooncake paper's cluster list as current; cite the documentation "
     "as retrieved.", True),
    ("Call the Mooncake paper's design current only when you cite its README as retrieved "
     "on November 4.", True),
    ("Treat what the Mooncake paper says as retrieved on 2026-11-04.", False),
])
def test_a_retrieval_date_observes_a_dated_source(tmp_path: Path, text: str,
                                                  broken: bool) -> None:
    """A source published earlier but retrieved on the guardrail's date shows its contents as
    of that date when the guardrail says "as retrieved on", unless it asks to cite the
    documentation: then only a living document (a README, docs) is observed when retrieved,
    and a paper from 2024 cited for a current status stays as of 2024 (the HiCache article's
    backend list cited to the announcement)."""
    doc, result = verify_with(tmp_path, _dated_status(text), _paragraph(
        "The Mooncake paper now describes a third cluster for long contexts. [S1]"))
    index = len(doc["corrections"])
    found = [f for f in result.findings if f.rule == "guardrail"
             and f.message.startswith(f"guardrail {index} ")]
    assert bool(found) is broken


def _hit_share(doc: Doc) -> None:
    add_metric(doc, "store_cache_hit_pct", 92.2, "share of cache lookups that hit",
               ["hit rate", "cache hits"], "percent")


def test_a_verb_is_not_the_statistic_it_is_spelled_like() -> None:
    assert not find_lemmas("a 3.8x gain means a third less waiting", ["typical"])
    assert find_lemmas("the mean wait fell", ["typical"])


def _average_hits(doc: Doc) -> None:
    add_metric(doc, "store_cache_hit_pct", 92.2, "average hit rate", ["hit rate"], "percent")


SHARED = ("Redis and Valkey are the stores Mooncake was compared with; do not write that "
          "Mooncake is part of, or ships inside, either of them.")


@pytest.mark.parametrize("sentence, broken", [
    ("Mooncake now ships inside Valkey.", True),
    ("Since the release, Mooncake is part of Redis.", True),
    ("Mooncake was compared with Redis and Valkey.", False),
])
def test_two_verbs_that_share_a_pronoun_object_are_read(tmp_path: Path, sentence: str,
                                                        broken: bool) -> None:
    assert bool(_found(tmp_path, SHARED, sentence)) is broken


#: (what the reading shows, guardrail, [(sentence, broken), ...], set-up steps)
READINGS: list[tuple[str, str, list[tuple[str, bool]], tuple[Any, ...]]] = [
    ('restate as is enforced',
     'The 8.6-fold figure is an end-to-end latency result; do not restate it as a cost saving.',
     [
      ('For a buyer, that 8.6-fold cut amounts to an 8.6-fold cost saving.', True),
      ('The 8.6-fold cut concerns end-to-end latency only.', False),
     ],
     ()),
    ('never to is enforced',
     'The 3.8 times comes from the vLLM report; attribute it to that report, never to Moonshot '
     'AI.',
     [
      ('According to Moonshot AI, throughput rose 3.8 times.', True),
      ('The vLLM report gives 3.8 times the throughput.', False),
     ],
     ()),
    ('never attach to is enforced',
     'The 60-GPU figure is from the synthetic scaling run; never attach it to the traces.',
     [
      ('The coding-agent traces were replayed on 60 GPUs.', True),
      ('The scaling run reached 60 GPUs on a synthetic workload.', False),
     ],
     ()),
    ('a forbidden derivation is enforced',
     'Do not divide 46 by 8.6 to rank the two reductions: they measure different things.',
     [
      ('Read one against the other, 46 divided by 8.6 puts the first-token gain at 5.3 '
       'times the end-to-end one.', True),
      ('The 46-fold gain is about 5.3 times the 8.6-fold one.', True),
      ('A separate note mentions 5.3 times more prompts.', False),
     ],
     ()),
    ('a possessive owns the figure after it',
     "The 92.2% hit rate is the vLLM authors'; do not credit it to Zeta.",
     [
      ("The 92.2% sits well above Zeta's own 80% hit rate.", False),
      ("Zeta's own 92.2% hit rate leads the field.", True),
     ],
     ()),
    ('a credit needs the guardrail subject',
     'The disk-offload detail comes from the vLLM guide; do not attribute it to the paper or to '
     'Zeta Labs.',
     [
      ('There is a small discrepancy in the credits: Zeta Labs lists nine names.', False),
      ('The disk-offload detail is credited to Zeta Labs.', True),
     ],
     ()),
    ('what a label is of is not the label',
     "Zeta's figures come from another machine; do not call them a reproduction of the team's "
     'numbers.',
     [
      ("The team's numbers came from the same framework on coding-agent traces.", False),
      ("Zeta's run is a reproduction of the team's 3.8 times.", True),
     ],
     ()),
    ('a universal alternative needs its universal word',
     'The 3.8 times is against one baseline; do not restate it as energy per token or as a gain '
     'over all serving systems.',
     [
      ('They reported 3.8 times the throughput in tokens per second on one serving '
       'system.', False),
      ('The 3.8 times beats every serving system.', True),
     ],
     ()),
    # The figure's metric already says "share": one of the alternatives completes it.
    ('a metric that says part of the phrase leaves one word',
     'The 92.2% is a share of cache lookups; do not present it as a share of memory, power or '
     'network bytes.',
     [
      ("The 92.2% is a share of the GPU's memory.", True),
      ('Put plainly, 92.2% of the power went to the store.', True),
      ('The 92.2% share of lookups says nothing about network bytes.', False),
      ('Network traffic aside, 92.2% of lookups hit.', False),
     ],
     (_hit_share,)),
    ('the figures own metric word is no forbidden synonym',
     "The 92.2% is one trace's result; do not present it as a typical, usual or expected rate.",
     [
      ('A typical deployment would see 92.2% of lookups hit.', True),
      ('Over the traces, the average hit rate was 92.2%.', False),
     ],
     (_average_hits,)),
    ('a noun phrase of the guardrail is one term',
     'The figures are peaks measured by Zeta on the GB200; never present them as end-to-end '
     'serving throughput or as results on other Blackwell GPUs.',
     [
      ('Zeta tuned the store for Blackwell GPUs.', False),
      ('Zeta expects the 3.8 times to hold on other Blackwell GPUs.', True),
     ],
     ()),
]


@pytest.mark.parametrize("rule, sentence, broken, steps", [
    pytest.param(rule, sentence, broken, steps, id=f"{name}: {sentence[:40]}")
    for name, rule, cases, steps in READINGS for sentence, broken in cases
])
def test_a_prose_guardrail_is_read_by_meaning(tmp_path: Path, rule: str, sentence: str,
                                              broken: bool, steps: tuple[Any, ...]) -> None:
    """Each guardrail, in an editor's words, is broken by the sentences marked True and kept
    by the others."""
    assert bool(_found(tmp_path, rule, sentence, *steps)) is broken


# -- the meaning of a guardrail: what it forbids, read by grammar, matched to the sentence --

def test_a_claim_with_a_common_noun_subject_has_its_verb_after_the_subject() -> None:
    from ledger.verify.denials import denials
    found = denials("Never say that speculative sampling alters the final answer; it is exact.")
    assert [d.verbs for d in found] == [["alters"]] and found[0].heads == ["answer"]
    # the object's head, not a possessive modifier before it
    found = denials("Never say that Acme approximates or changes the draft model's output.")
    assert found[0].heads == ["output"]


@pytest.mark.parametrize("rule, sentence, broken", [
    ("Never say that speculative sampling alters the final answer; it is exact.",
     "Speculative sampling appears in the final section of the paper.", False),
    ("Never say that speculative sampling alters the final answer; it is exact.",
     "With speculative sampling the answer drifts from run to run.", True),
    ("Never say that Acme approximates or changes the draft model's output; it is exact.",
     "Pricing is what changes the model plans of most buyers.", False),
    ("Never say that the cache removes the CPU from the read path; it removes one copy.",
     "The cache takes the CPU out of the read path entirely.", True),
    ("Never say that the engine beat real hardware with unlimited memory; it is a model.",
     "The engine even beat what a batch would reach if memory were unlimited.",
     False),
    ("Never say that the engine beat real hardware with unlimited memory; it is a model.",
     "The engine even beat a server with unlimited memory.", True),
])
def test_a_denied_claim_needs_its_verb_and_the_head_of_its_object(
        tmp_path: Path, rule: str, sentence: str, broken: bool) -> None:
    assert bool(_found(tmp_path, rule, sentence)) is broken


def test_a_baseline_is_named_without_its_qualifier_or_a_plain_adjective() -> None:
    from ledger.verify.denials import denials
    found = denials("Never state the 92.2% against standard LRU eviction in the same cache; "
                    "its baseline is a random policy.")
    assert [(d.kind, d.names) for d in found] == [("baseline", ["LRU eviction"])]


def test_a_possessive_joins_the_words_of_a_phrase() -> None:
    assert find_lemmas("as the reviewers' summary puts it", ["reviewers summary"])
    assert find_lemmas("the draft model's output", ["model output"])
    assert find_lemmas("the advice Acme gives", ["recommendation"])


@pytest.mark.parametrize("sentence, broken", [
    ("The same report puts the gain at 3.8 times.", False),
    ("On the same cluster the gain is 3.8 times.", True),
])
def test_a_forbidden_adjective_counts_beside_its_noun(tmp_path: Path, sentence: str,
                                                      broken: bool) -> None:
    rule = "Do not present the 3.8 times as a gain on the same cluster; it compares two clusters."
    assert bool(_found(tmp_path, rule, sentence)) is broken


@pytest.mark.parametrize("sentence, broken", [
    ("Total memory shrinks by less than 3.8 times.", False),
    ("Total memory shrinks by 3.8 times.", True),
])
def test_a_figure_that_bounds_the_label_is_not_labelled(tmp_path: Path, sentence: str,
                                                        broken: bool) -> None:
    rule = "Do not label the 3.8 times as memory; it is the weights alone."
    assert bool(_found(tmp_path, rule, sentence)) is broken


def test_coordinated_adjectives_share_their_noun(tmp_path: Path) -> None:
    from ledger.verify.guardrails import rule_from_prose
    text = "Do not present the 3.8 times as an independent or repeated measurement."
    rule = rule_from_prose(text, None)  # type: ignore[arg-type]
    assert rule is not None and rule.forbidden == [  # type: ignore[union-attr]
        "independent measurement", "repeated measurement"]
    # a clause without figures after the figure's describes it
    assert _found(tmp_path, text, "A later digest quotes 3.8 times; an independent "
                                  "measurement that settles it.")


@pytest.mark.parametrize("sentence, broken", [
    ("The cache did its part of the 3.8 times, with the prefetcher doing the rest.", False),
    ("The cache by itself produced the 3.8 times.", True),
])
def test_a_credit_to_one_party_alone_needs_a_sole_credit(tmp_path: Path, sentence: str,
                                                         broken: bool) -> None:
    rule = prose_rule("Do not credit the 3.8 times to the cache alone; the prefetcher helped.")
    assert rule is not None and rule.sole and rule.forbidden == ["cache"]
    text = "Do not credit the 3.8 times to the cache alone; the prefetcher helped."
    assert bool(_found(tmp_path, text, sentence)) is broken


def test_a_generalisation_without_its_number_takes_the_next_sentences(tmp_path: Path) -> None:
    rule = "Do not extend the 3.8 times to other clusters or workloads in general."
    assert _found(tmp_path, rule, "The headline result is a general rule that holds on every "
                                  "cluster and workload. The team measured 3.8 times.")
    # a sentence with a figure of its own is about that figure
    assert not _found(tmp_path, rule, "The 8.6-fold holds on every cluster and workload in "
                                      "general. The team measured 3.8 times.")


@pytest.mark.parametrize("sentence, broken", [
    ("The digest rounds the Acme gain to 3.8 times; PCT uses the report's figure.", False),
    ("On Acme hardware the gain is 3.8 times.", True),
])
def test_a_figure_not_to_be_used_in_place_of_another_needs_its_owner(
        tmp_path: Path, sentence: str, broken: bool) -> None:
    rule = "Do not use the digest's 3.8 times for Acme hardware in place of the report's 8.6-fold."
    assert bool(_found(tmp_path, rule, sentence)) is broken


@pytest.mark.parametrize("sentence, broken", [
    ("Questions to ask a vendor: whether the 3.8 times is a cost or a latency result.", False),
    ("Buyers can read the 3.8 times as a cost result.", True),
])
def test_an_indirect_question_asserts_none_of_its_alternatives(
        tmp_path: Path, sentence: str, broken: bool) -> None:
    assert bool(_found(tmp_path, "Do not present the 3.8 times as a cost result.",
                       sentence)) is broken


def test_coordinated_adjectives_in_prose_forbid_the_adjectives_not_their_noun() -> None:
    rule = prose_rule("The 3.8 times pits FP4 against FP8; do not call it a like-for-like or "
                      "same-precision comparison.")
    assert rule is not None and rule.shared_noun == "comparison"


@pytest.mark.parametrize("sentence, broken", [
    ("On 4 cards the model reached its first token in 2.4 s.", True),
    ("The card's 2.4 s per batch is slow.", False),
])
def test_a_time_unit_does_not_name_what_took_that_long(tmp_path: Path, sentence: str,
                                                       broken: bool) -> None:
    rule = "Do not label the 2.4 s as first token or TTFT; it is a decode time."
    doc_steps = (lambda doc: add_fact(doc, "Decoding took 2.4 s per batch on the card."),)
    assert bool(_found(tmp_path, rule, sentence, *doc_steps)) is broken


@pytest.mark.parametrize("sentence, broken", [
    ("A wiki puts the single-node gain at 8.6-fold, and says the 3.8 times used four nodes.",
     False),
    ("The wiki says the 3.8 times is a single-node gain.", True),
])
def test_a_word_in_another_results_clause_labels_that_result(tmp_path: Path, sentence: str,
                                                             broken: bool) -> None:
    rule = "Do not describe the 3.8 times as a single-node result."
    assert bool(_found(tmp_path, rule, sentence)) is broken


# --- a label in the sentence that points back -----------------------------------------------

def test_a_forbidden_label_in_the_sentence_that_points_back_is_a_warning(tmp_path: Path) -> None:
    last = "Before assigning monetary value to a cache hit"
    doc, result = verify_with(tmp_path, replacing(last, (
        "The authors' real-trace run cut median TTFT 46-fold. That is the throughput gain "
        "a buyer would see. [S4]\n\n") + last))
    assert rules_at(result, doc, "throughput gain").get("guardrail") == "warning"
    doc, result = verify_with(tmp_path, replacing(last, (
        "The authors' real-trace run cut median TTFT 46-fold. That is not a throughput "
        "gain. [S4]\n\n") + last))
    assert "guardrail" not in rules_at(result, doc, "throughput gain")
