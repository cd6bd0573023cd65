"""Guardrails read by structure: the protected figure's own label, the parts of a prose
guardrail, and sentences that keep two experiments apart (sentences written for these tests)."""

from __future__ import annotations

import copy
import json
from typing import Any

from verify_fixtures import load

from ledger.figures import extract_figures
from ledger.models import Article
from ledger.report import Finding, Severity
from ledger.verify.consistency import word_count
from ledger.verify.guardrails import check_guardrails
from ledger.verify.ownlabel import names_noun, own_label
from ledger.verify.tracing import trace_figures


def _article(body: str, guardrails: list[dict[str, Any]],
             specs: dict[str, Any] | None = None) -> Article:
    doc = copy.deepcopy(load())
    doc["body"] = body
    if specs is not None:
        doc["benchmark_scope"]["metric_specs"] = specs
    doc["editorial_word_count"] = word_count(body)
    doc["corrections"] = [{"status": "prepublication_guardrail", **g} for g in guardrails]
    return Article.model_validate_json(json.dumps(doc))


def _guardrail(body: str, *guardrails: dict[str, Any]) -> list[Finding]:
    article = _article(body, list(guardrails))
    return [f for f in check_guardrails(article, trace_figures(article))
            if f.rule == "guardrail"]


def _errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is Severity.error]


def _label(text: str, figure: str) -> str | None:
    fig = next(f for f in extract_figures(text) if f.text == figure)
    span = own_label(text, fig)
    return text[span[0]:span[1]] if span else None


def _forbid(value: float, *words: str) -> dict[str, Any]:
    return {"text": "A guardrail with a rule.",
            "rule": {"kind": "forbidden_label", "value": value, "forbidden": list(words),
                     "scope": "clause"}}


# --- a figure's own label ------------------------------------------------------------------


def test_a_figure_is_named_by_the_phrase_it_carries() -> None:
    text = "nodes gave 3.1x the bandwidth at 15% lower power, and 9x in the decode phase"
    assert _label(text, "3.1x") == "the bandwidth"
    assert _label(text, "15%") == "lower power"
    assert _label(text, "9x") == "in the decode phase"
    assert _label("the 7x is a bandwidth figure", "7x") == "a bandwidth figure"
    assert _label("the 12% gain is a power saving per rack", "12%") == "gain is a power saving per rack"
    assert _label("energy use fell by 4.5x.", "4.5x") is None


def test_a_comparative_alone_names_nothing() -> None:
    text = "a queue 6.5x longer than before"
    fig = extract_figures(text)[0]
    assert _label(text, "6.5x") == "longer"
    assert not names_noun(text, own_label(text, fig))


def test_a_word_of_a_neighbouring_figure_is_not_the_protected_figures_label() -> None:
    body = ("Operators saw up to 3.1x the bandwidth at 15% lower power, according to the "
            "vendor.\n")
    assert not _errors(_guardrail(body, _forbid(15, "bandwidth", "latency")))
    body2 = "Operators saw delay down 4x in the warm phase and 7x in the cold phase.\n"
    assert not _errors(_guardrail(body2, _forbid(7, "warm phase")))


def test_a_forbidden_word_in_the_figures_own_label_is_an_error() -> None:
    body = "Operators saw up to 3.1x the bandwidth at 15% lower latency, the vendor says.\n"
    found = _errors(_guardrail(body, _forbid(15, "bandwidth", "latency")))
    assert found and "'latency'" in found[0].message


def test_a_word_elsewhere_when_the_figure_names_itself_is_only_a_note() -> None:
    body = "The vendor promises a 12x gain for decoding on one card with quality kept.\n"
    found = _guardrail(body, _forbid(12, "quality"))
    assert found and all(f.severity is Severity.note for f in found)


def test_a_label_before_a_comparative_or_a_bare_figure_is_still_read() -> None:
    assert _errors(_guardrail("It offers a context window 6.5x larger than before.\n",
                              _forbid(6.5, "context window")))
    assert _errors(_guardrail("Power draw fell by 4.5x in the trial.\n", _forbid(4.5, "power")))


def test_a_spelled_range_is_one_figure_and_a_label_after_and_names_what_follows() -> None:
    body = ("They report power cut by 1.5 to 2.5 times and power cut by 3.5 to 6 times, with "
            "the same hardware.\n")
    found = _errors(_guardrail(body, _forbid(6, "power")))
    assert found
    col = body.index("3.5") + 1
    assert found[0].column is not None and found[0].end_column is not None
    assert found[0].column <= col < found[0].end_column


# --- parts of a prose guardrail ------------------------------------------------------------


def test_a_join_guardrail_names_two_experiments_and_stops_at_the_next_instruction() -> None:
    from ledger.models import SeparateExperimentsRule
    from ledger.verify.guardrails import rule_from_prose

    article = _article("Nothing here.\n", [])
    rule = rule_from_prose("Do not combine the vendor's 4x and the lab's 9x as one result or "
                           "describe either as the usual gain; both are peaks.", article)
    assert isinstance(rule, SeparateExperimentsRule)
    assert [e.name for e in rule.experiments] == ["the vendor's 4x", "the lab's 9x"]
    assert [e.terms for e in rule.experiments] == [["vendor"], ["lab"]]
    rule = rule_from_prose("Do not merge the trial's 3x with the pilot's 5x into one claim.",
                           article)
    assert isinstance(rule, SeparateExperimentsRule)
    assert rule.experiments[1].name == "the pilot's 5x"


def test_either_in_a_prose_guardrail_stands_for_the_figures_named_before_it() -> None:
    from ledger.verify.meaning import prose_rule

    rule = prose_rule("Do not combine the vendor's 4x and the lab's 9x as one result or "
                      "describe either as the usual gain.")
    assert rule is not None and sorted(rule.values) == [(4,), (9,)]


def test_the_word_for_what_the_figure_is_does_not_break_a_guardrail_on_its_modifier() -> None:
    guard = {"text": "Do not present the 46x as the typical speedup; it is a peak."}
    specs = {"median_ttft_speedup": {"label": "median TTFT speedup", "kind": "multiplier",
                                     "vocabulary": ["speedup"]}}

    def found(body: str) -> list[Finding]:
        article = _article(body, [guard], specs)
        return [f for f in check_guardrails(article, trace_figures(article))
                if f.rule == "guardrail"]

    assert not found("The operators quote a 46x speedup on one rack.\n")
    hits = found("The operators quote a 46x speedup as the typical gain.\n")
    assert hits and hits[0].severity is Severity.warning


# --- unsupported conclusions ---------------------------------------------------------------


def test_a_conclusion_adverb_with_a_universal_is_a_conclusion() -> None:
    from ledger.verify.conclusions import _conclusion

    found = _conclusion("Tiering is therefore always faster than a single pool.")
    assert found is not None and found[2] == "always"
    found = _conclusion("The new codec is thus unusable for every interactive service.")
    assert found is not None and found[1].startswith("The new codec")
    found = _conclusion("Offloading hence makes a second cache tier unnecessary.")
    assert found is not None and found[2] == "unnecessary"
    assert _conclusion("The scheduler therefore places each phase on its own machine.") is None


def test_a_judgement_after_shows_needs_no_that_and_no_demonstrative() -> None:
    from ledger.verify.conclusions import _conclusion

    found = _conclusion("The lab's 2x shows the vendor exaggerated its gain.")
    assert found is not None and found[2] == "exaggerated"
    assert _conclusion("The trace shows two tiers on every host.") is None


# --- prose guardrails by meaning -----------------------------------------------------------


def test_multi_word_synonyms_match() -> None:
    from ledger.verify.meaning import find_lemmas

    assert find_lemmas("the codec on its own halves the rate", ["alone"])
    assert find_lemmas("it serves both more users and longer prompts", ["together"])


def test_a_cause_claimed_as_the_only_one_in_new_words_breaks_a_credit_guardrail() -> None:
    guard = {"text": "The 40% drop needs both the new scheduler and the cache; never attribute "
                     "it to the cache alone."}
    body = "The cache by itself cuts waiting by 40% on the busiest hour.\n"
    found = _guardrail(body, guard)
    assert found and found[0].severity is Severity.warning
    assert not _guardrail("The scheduler with the cache cuts waiting by 40% at peak.\n", guard)


def test_extend_to_is_a_generalisation_and_them_is_the_heads_subject() -> None:
    from ledger.verify.meaning import prose_rule

    rule = prose_rule("The latency figures were taken on Falcon; do not extend them to Qwen or "
                      "Gemma, which served only for quality.")
    assert rule is not None and rule.subject[:2] == ["latency", "Falcon"]
    assert rule.forbidden == ["Qwen", "Gemma"]


def test_a_contrast_opened_by_not_negates_to_its_end() -> None:
    from ledger.verify.meaning import _NEGATED_BEFORE

    assert _NEGATED_BEFORE.search("The 9x compares A with B, not with the tuned setup of the ")
    assert not _NEGATED_BEFORE.search("The 9x is not only fast, it beats the ")
    assert not _NEGATED_BEFORE.search("It was not slow, and the ")


# --- denied claims and baselines -----------------------------------------------------------


def test_a_denied_claim_is_parsed_into_verbs_objects_and_names() -> None:
    from ledger.verify.denials import denials

    found = denials("The tool does not shrink the index or let a server hold 9 million rows; "
                    "never write that the server scans, caches or indexes the full table.")
    verbs = [d.verbs for d in found]
    assert ["shrink"] in verbs and ["hold"] in verbs and ["scans", "caches", "indexes"] in verbs
    said = next(d for d in found if d.verbs == ["scans", "caches", "indexes"])
    assert said.subject == ["server"] and "table" in said.objects
    named = denials("The speedup applies to Falcon-7B only; never say Turbo sped up Qwen-2-7B's "
                    "prefill.")
    assert named and named[0].names == ["Qwen"]


def test_a_sentence_that_makes_a_denied_claim_is_a_warning() -> None:
    guard = {"text": "The pool holds recent rows only; never say Turbo extended Qwen-2-7B's "
                     "usable context."}
    found = _guardrail("The gain in usable context is a doubling for both Falcon and Qwen.\n",
                       guard)
    assert found and found[0].severity is Severity.warning
    assert not _guardrail("The gain in usable context is a doubling for Falcon and none for "
                          "Qwen.\n", guard)
    assert not _guardrail("Qwen-2-7B and Falcon-7B have a usable context of 8K.\n", guard)


def test_a_claim_with_a_figure_needs_that_figure_and_a_common_word_in_a_name_is_no_hit() -> None:
    guard = {"text": "Turbo does not let a server recall 9 million rows; never write that the "
                     "server reads the whole stream."}
    assert _guardrail("Now the server can recall all 9 million rows.\n", guard)
    assert not _guardrail("Teams trying StreamingDB should check recall on the whole set.\n",
                          guard)


def test_a_denied_baseline_is_a_comparison_with_it() -> None:
    guard = {"text": "Both gains are against a cold start; never state them against a warm "
                     "pool or another scheme."}
    found = _guardrail("Against a warm pool, the authors report 3x lower waits.\n", guard)
    assert found and found[0].severity is Severity.warning
    assert not _guardrail("The 3x is against a cold start, not against a warm pool.\n", guard)
    assert not _guardrail("A warm pool helps when the 3x gain is not needed.\n", guard)


def test_call_without_as_is_read_and_a_conditional_one_stays_unchecked() -> None:
    from ledger.verify.meaning import prose_rule

    rule = prose_rule("Do not call Turbo lossless or exact; quality was only sampled.")
    assert rule is not None and rule.subject == ["Turbo"]
    assert rule.forbidden == ["lossless", "exact"]
    assert prose_rule("Do not call the pool faster without saying which requests it served.") \
        is None


def test_a_status_guardrail_needs_its_status_word() -> None:
    guard = {"text": "Do not present the beta pool as Acme's current cache; the 2.0 release "
                     "replaced it."}
    assert not _guardrail("Acme added a cache pool in its beta release.\n", guard)
    assert _guardrail("Acme's current cache is the beta pool.\n", guard)


def test_the_articles_topic_counts_beside_a_distinctive_word_never_alone() -> None:
    guard = {"text": "The $2.50 and $9.00 per hour are a cloud's list prices; never present them "
                     "as the Mooncake Store's measured cost or saving."}
    assert _guardrail("With Mooncake Store, an hour costs $2.50 instead of $9.00.\n", guard)
    assert not _guardrail("Mooncake Store lists $2.50 and $9.00 per hour from a cloud.\n", guard)


def test_a_means_before_the_word_credits_it_only_with_the_guardrails_figure() -> None:
    guard = {"text": "Do not credit the 31x to a particular accelerator; the post does not say "
                     "which ran it."}
    assert _guardrail("On the Falcon accelerators, the wait fell by up to 31x.\n", guard)
    assert not _guardrail("On the Falcon accelerators, the wait fell sharply.\n", guard)


def test_a_sentence_that_refers_back_to_the_protected_figure_is_checked() -> None:
    guard = {"text": "The 35% and 85% hit rates come from a reseller; always present them as "
                     "such, never as an Acme measurement."}
    body = ("A reseller says hit rates rose from 35% to 85%. The desk could not confirm it, so "
            "the desk reports it as Acme's measured result.\n")
    found = _guardrail(body, guard)
    assert found and found[0].column is not None
    assert found[0].column > body.index("The desk")
    assert not _guardrail("A reseller says hit rates rose from 35% to 85%. The desk could not "
                          "confirm it, so it is reported here as a reseller's figure.\n", guard)


def test_a_guardrail_against_generality_needs_a_general_claim() -> None:
    guard = {"text": "Small pages are the only case where the tier beat DRAM; do not present "
                     "the tier as faster in general."}
    assert not _guardrail("At small pages the tier was about 9% faster than DRAM.\n", guard)
    assert _guardrail("The tier is always faster than DRAM.\n", guard)


def test_a_pronoun_stands_for_the_heads_results_and_up_to_is_read() -> None:
    from ledger.verify.meaning import _result_values

    assert _result_values("The up-to-40x compares it with others on one 24GB GPU") == [(40,)]
    assert _result_values("The 40GB limit needs an 80GB card") == [(40,), (80,)]


def test_a_baseline_of_another_work_named_in_the_sentence_is_not_the_guarded_ones() -> None:
    guard = {"text": "The README benchmark compares Turbo with round-robin; do not present its "
                     "gains as over commercial engines."}
    assert not _guardrail("The paper reports 3x lower waits compared with commercial engines.\n",
                          guard)
    assert _guardrail("Against commercial engines: waits up to 3x lower.\n", guard)


def test_a_model_name_with_digits_is_a_word_of_a_guardrail() -> None:
    from ledger.verify.meaning import _content

    assert _content("the Qwen-14B gain and the H100 pool, not 40") == ["Qwen-14B", "gain", "H100",
                                                                      "pool"]


def test_implicit_credits_need_the_guardrails_subject_or_a_reference_back() -> None:
    guard = {"text": "The latency figures are a student's measurements; do not credit them to "
                     "Acme or present them as Acme results."}
    assert _guardrail("A student timed the pool. These are Acme's own latency results.\n", guard)
    assert not _guardrail("Acme's answer is its pool, released in March.\n", guard)
    said = {"text": "Do not credit the board details to the press release; they come from a "
                    "teardown."}
    assert _guardrail("The board details are given according to the press release.\n", said)


def test_the_document_that_states_a_sentence_is_credited_with_it() -> None:
    guard = {"text": "Do not credit the Redis comparison to the final paper; only the preprint "
                     "names Redis."}
    assert _guardrail("The final paper keeps the 3x, against Redis and Memcached.\n", guard)
    assert not _guardrail("The final paper keeps the 3x, against Memcached.\n", guard)


def test_not_negates_to_the_end_of_its_clause() -> None:
    from ledger.verify.meaning import _NEGATED_BEFORE

    assert _NEGATED_BEFORE.search("so the old rates should not be quoted as the behaviour of ")


def test_a_heading_before_a_colon_labels_the_figure_after_it() -> None:
    body = "Kernel time: up to 3.5x faster. Whole-request power: 6.5x lower.\n"
    found = _errors(_guardrail(body, _forbid(6.5, "power")))
    assert found


def test_a_synonym_of_a_forbidden_label_is_a_warning_and_the_word_itself_an_error() -> None:
    syn = _guardrail("The pool gave 14x the serving capacity of one node.\n",
                     _forbid(14, "throughput"))
    assert syn and syn[0].severity is Severity.warning
    same = _guardrail("The pool gave 14x the throughput of one node.\n",
                      _forbid(14, "throughput"))
    assert same and same[0].severity is Severity.error


def test_a_number_put_on_a_claim_that_has_none() -> None:
    guard = {"text": "The README gives no figure; do not attach a number to the README's claim "
                     "that Turbo beats Redis."}
    assert _guardrail("The README claims three times the speed of Redis.\n", guard)
    assert not _guardrail("The README claims Turbo beats Redis, but prints no figure.\n", guard)
    assert not _guardrail("The paper reports 3x the speed of Redis.\n", guard)


def test_an_implied_copular_claim_needs_both_names_unnegated() -> None:
    guard = {"text": "Do not present the Acme results as measured on InfiniBand or imply "
                     "InfiniBand is available on Azure; it is not."}
    assert _guardrail("They used pairs of InfiniBand-linked Azure hosts.\n", guard)
    assert not _guardrail("Azure offers no InfiniBand here, so Acme used Ethernet.\n", guard)


def test_is_not_a_reads_the_head_noun_as_the_subject() -> None:
    from ledger.verify.meaning import prose_rule

    rule = prose_rule("Support in Redis or Valkey is not an endorsement and not a measured gain.")
    assert rule is not None and rule.subject == ["Support"]
    assert rule.forbidden == ["endorsement", "measured", "gain"]


def test_it_may_stand_for_a_name_in_the_head_or_for_the_project() -> None:
    guard = {"text": "The changelog calls Turbo experimental; do not describe it as stable."}
    assert _guardrail("The project is stable now.\n", guard)
    assert _guardrail("Turbo is stable, its authors say.\n", guard)
    assert not _guardrail("The project is experimental, and its API is not stable.\n", guard)


def test_a_forbidden_label_the_sentence_negates_keeps_the_guardrail() -> None:
    assert not _guardrail("The 5.5x is not a bandwidth result.\n", _forbid(5.5, "bandwidth"))
    assert _errors(_guardrail("The 5.5x is a bandwidth result.\n", _forbid(5.5, "bandwidth")))


def test_a_join_guardrails_values_are_typed_by_the_metrics_that_state_them() -> None:
    from ledger.models import ExperimentSpec
    from ledger.verify.guardrails import _typed_experiment

    article = _article("A 46% share of the hits, and 46x faster.\n", [])
    spec = ExperimentSpec(name="main", values=[46, 7], terms=[])
    exp = _typed_experiment(article, spec, "Keep the 46x and the 7 apart.")
    assert exp.kinds[0] is not None and exp.kinds[0].kind.value == "multiplier"
    assert exp.kinds[1] is None  # no reported metric states 7, nor does the guardrail type it
    # a value no metric states takes the kind the guardrail's own text gives it
    typed = _typed_experiment(article, spec, "Keep the 46x run and its 7 GB cache apart.")
    assert typed.kinds[1] is not None and typed.kinds[1].kind.value == "size"
    share, speedup = trace_figures(article)[:2]
    assert not exp.owns(share.figure, share.quantity)  # a percent is not the 46x
    assert exp.owns(speedup.figure, speedup.quantity)


def test_a_date_without_its_documents_name_is_read_against_the_one_named_before() -> None:
    guard = {"text": "The two posts have distinct dates.",
             "rule": {"kind": "distinct_dates",
                      "dates": {"beta post": "2026-02-10", "final post": "2026-06-01"},
                      "terms": {"beta post": ["beta"], "final post": ["final"]}}}
    wrong = "Acme shipped its beta in winter. The post, dated June 1, 2026, lists one test.\n"
    found = _guardrail(wrong, guard)
    assert found and found[0].severity is Severity.warning
    right = "Acme shipped its beta in winter. The post, dated February 10, 2026, lists one test.\n"
    assert not _guardrail(right, guard)


_PREVIEW_AND_LAUNCH = {
    "text": "The preview and the launch post are distinct dates.",
    "rule": {"kind": "distinct_dates",
             "dates": {"preview": "2025-03-02", "launch post": "2025-05-20"},
             "terms": {"preview": ["preview"], "launch post": ["launch post", "launch"]}}}


def test_a_document_named_as_the_reference_of_an_interval_is_not_the_one_dated() -> None:
    """"N weeks after X, on D, Y happened": X is the point the interval counts from; D is the
    date of the main clause's event."""
    for body in ("Eleven weeks after the preview, on May 20, 2025, Acme put out its launch "
                 "post.\n",
                 "Ten weeks before the launch, on March 2, 2025, Acme opened a preview to "
                 "testers.\n",
                 "A month since the preview, on May 20, 2025, Acme told its customers.\n"):
        assert not _errors(_guardrail(body, _PREVIEW_AND_LAUNCH)), body
    # the main clause's own document still takes the date
    wrong = "Acme opened the preview on May 20, 2025, a week before the launch post.\n"
    found = _guardrail(wrong, _PREVIEW_AND_LAUNCH)
    assert found and found[0].severity is Severity.error, found


def test_a_date_whose_document_the_prose_leaves_open_is_a_warning() -> None:
    # two documents in the date's clause: which one "on May 20" dates is a reading, not a fact
    body = "The launch post quoted early testers of the preview on May 20, 2025.\n"
    found = _guardrail(body, _PREVIEW_AND_LAUNCH)
    assert found and all(f.severity is Severity.warning for f in found), found
    assert "cannot be sure" in found[0].message
    assert _errors(_guardrail("The preview went out on May 20, 2025.\n", _PREVIEW_AND_LAUNCH))


def test_a_prose_violation_spans_the_clause_that_breaks_it() -> None:
    guard = {"text": "Sizes of 16KB and 32KB need a patched kernel; do not present 16KB or 32KB "
                     "pages as working with the stock kernel."}
    body = ("Acme supports 16KB and 32KB pages; as the stock kernel maps large pages only, "
            "both small sizes work with the stock kernel.\n")
    found = _guardrail(body, guard)
    assert found and found[0].end_column is not None
    assert found[0].end_column > body.index("both small sizes")


def test_name_x_as_its_baseline_is_a_comparison_with_x() -> None:
    guard = {"text": "The 12-18% gain is measured against hand-tuned kernels; do not name Redis "
                     "or another store as its baseline."}
    assert _guardrail("Writes ran 12 to 18% faster than Redis.\n", guard)
    assert not _guardrail("Redis is faster than a disk when the cache is warm.\n", guard)
    assert not _guardrail("Writes ran 12 to 18% faster, not against Redis but hand-tuned "
                          "kernels.\n", guard)


def test_a_source_that_does_not_state_something_denies_no_claim() -> None:
    from ledger.verify.denials import denials

    assert denials("The post does not state the hardware behind the table; do not describe "
                   "the table as like for like.") == []
    assert denials("Turbo does not extend the window.")


def test_a_modifier_whose_head_the_guardrail_allows_stays_a_compound() -> None:
    guard = {"text": "Do not describe the 64-entry pool as disk storage; it is host storage in "
                     "GB, beside its 9x cache."}
    assert not _guardrail("The 64-entry pool sits on a disk, with host storage beside it.\n",
                          guard)


def test_each_name_a_credit_guardrail_lists_is_forbidden_alone() -> None:
    from ledger.verify.meaning import prose_rule

    rule = prose_rule("Do not credit Acme's 7.5x to Redis or Valkey; it is Acme's own result.")
    assert rule is not None and rule.forbidden == ["Redis", "Valkey"]


def test_a_range_written_as_two_figures_and_a_named_alternative_break_a_guardrail() -> None:
    guard = {"text": "The paper states the 1.5-2.5x on H200 cards only; do not present it as "
                     "holding on B100 or other older cards."}
    assert _guardrail("Owners of B100 boards can expect the same 1.5 to 2.5 times gain.\n", guard)
    assert not _guardrail("On H200 cards the gain is 1.5 to 2.5 times.\n", guard)


# --- a join of the experiments a guardrail keeps apart ----------------------------------------


def _joins(body: str, guard: dict[str, Any]) -> list[Finding]:
    article = _article(body + "\n", [guard])
    return check_guardrails(article, trace_figures(article))


def test_a_join_a_guardrail_forbids_is_a_conflation_that_names_the_guardrail() -> None:
    """The mistake is the join (``conflated-experiments``), in new wording each time; the
    guardrail it breaks is named in the message, never reported a second time."""
    structured = {"text": "The bench test and the field trial are separate experiments.",
                  "rule": {"kind": "separate_experiments", "experiments": [
                      {"name": "bench test", "values": [3.3], "terms": ["bench"]},
                      {"name": "field trial", "values": [41], "terms": ["field trial"]}]}}
    prose = {"text": "Do not merge the bench's 3.3x with the field trial's 41% into one claim."}
    for guard in (structured, prose):
        for body in ("The bench test ran 3.3x faster and cut energy by 41% in the same run.",
                     "In that one setup the cards were 3.3x quicker, with 41% less idle time.",
                     "Its field trial saw 41% lower power draw and 3.3x the requests per node."):
            found = _joins(body, guard)
            joins = [f for f in found if f.rule == "conflated-experiments"]
            assert joins and joins[0].severity is Severity.error, (body, found)
            assert joins[0].message.startswith("guardrail 1 ("), joins[0].message
            assert not [f for f in found if f.rule == "guardrail"
                        and "joins" in f.message], (body, found)


def test_a_join_guardrail_is_shown_violated_in_the_report(tmp_path: Any) -> None:
    from ledger.reporting.build import build_view

    doc = copy.deepcopy(load())
    doc["body"] = "The bench test ran 3.3x faster and cut energy by 41% in the same run.\n"
    doc["editorial_word_count"] = word_count(doc["body"])
    doc["corrections"] = [{"status": "prepublication_guardrail",
                           "text": "Do not merge the bench's 3.3x with the trial's 41% into one "
                                   "claim."}]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc))
    view = build_view(path)
    assert [g.state for g in view.guardrails] == ["violated"]


def test_an_owner_who_reports_the_protected_figure_is_credited_with_it() -> None:
    guard = {"text": "The 17% gain comes from a university prototype, not from Acme's product; "
                     "do not credit it to Acme."}
    for body in ("Acme reports that its cache lifts hit rates by 17%.",
                 "In March Acme said the pool gives a 17% gain on long prompts.",
                 "Acme has measured 17% more hits with the new eviction order."):
        found = _guardrail(body + "\n", guard)
        assert found and found[0].severity is Severity.warning, (body, found)
    for body in ("A university prototype gained 17%; Acme reports nothing of the kind.",
                 "Acme reports a smaller cache, and a university prototype gained 17%.",
                 "Acme later reported fewer misses while a university prototype gained 17%."):
        assert not _guardrail(body + "\n", guard), body


def test_a_word_before_a_subordinate_clause_names_what_the_main_clause_does() -> None:
    # "measure X before taking the 3.2x": X is what to measure, the figure is in the clause
    # that "before" opens; the word does not label it
    rule = {"text": "A guardrail with a rule.",
            "rule": {"kind": "forbidden_label", "value": 3.2, "forbidden": ["throughput"]}}
    for body in ("Teams should benchmark throughput on their own prompts before quoting the "
                 "3.2x.\n",
                 "Ask for throughput at your latency target until you can check the 3.2x.\n",
                 "Plan on throughput per dollar, because nobody has reproduced the 3.2x.\n"):
        assert not _errors(_guardrail(body, rule)), body
    # the word in the figure's own clause still labels it
    assert _errors(_guardrail("Throughput rose 3.2x.\n", rule))
    assert _errors(_guardrail("Before tuning, throughput rose 3.2x.\n", rule))


def test_a_sentence_that_advises_a_check_presents_nothing() -> None:
    guard = {"text": "Do not present Quartz's token rates as independently benchmarked."}
    assert _guardrail("Quartz's token rates were independently benchmarked by a lab.\n", guard)
    for body in ("An operator should test the models it actually serves and compare cost per "
                 "token against a GPU baseline.\n",
                 "Measure the token rates independently on your own prompts before signing.\n",
                 "Buyers must first verify the token rates on an independent bench.\n"):
        assert not _guardrail(body, guard), body
