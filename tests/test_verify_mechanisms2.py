"""Mechanisms behind false errors on corpus set B, each with a sentence written here."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ledger.figures import extract_figures
from ledger.quantities import Kind, typed_figures
from ledger.verify.arithmetic import _percent_explained
from ledger.verify.credits import _refers_back_to
from ledger.verify.matching import _date_matches
from ledger.verify.tracing import EvidenceIndex, Trace


def test_a_rate_whose_unit_follows_a_modifier_is_a_rate() -> None:
    found = {f.text: q for f, q in typed_figures("a floor of 300 decode tokens/s per user")}
    assert found["300"].kind is Kind.rate and found["300"].unit is not None
    assert found["300"].unit.symbol == "tokens/s"
    counted = {f.text: q for f, q in typed_figures("the 300 decode tokens were dropped")}
    assert counted["300"].kind is Kind.count


def test_a_month_in_a_fact_is_evidence_for_the_same_month_only() -> None:
    index = EvidenceIndex()
    index.add_text("The vendor says the audit closed in March 2024.", Trace("fact", "/facts/0"))
    (month,) = index.dates
    assert month.precision == "month"
    body_month = extract_figures("closed in March 2024")[0]
    body_day = extract_figures("closed on March 3, 2024")[0]
    assert _date_matches(body_month, month.date, month.precision)
    assert not _date_matches(body_day, month.date, month.precision)
    assert _date_matches(body_month, dt.date(2024, 3, 3), "day")


def test_a_percent_within_the_declared_tolerance_of_a_ratio_is_explained() -> None:
    # 1.118 is an 11.8% gain; a claim citing the vendor's rounded-down "11%" agrees within 0.05
    assert _percent_explained(Decimal("11"), 0, [1.118], tolerance=0.05)
    assert not _percent_explained(Decimal("11"), 0, [1.118])
    assert not _percent_explained(Decimal("30"), 0, [1.118], tolerance=0.05)


def test_a_restated_figure_used_as_a_reference_is_not_a_new_claim() -> None:
    def first(text: str) -> bool:
        fig = extract_figures(text)[0]
        return _refers_back_to(text, fig)

    assert first("Read that way, the 9x is a cold-start ratio.")
    assert first("The replay ran at 64% reuse.")
    assert first("Prompts used a 32,000-token window.")
    assert not first("The new cache cuts queueing by 9x.")


def _experiments_joined(sentence: str) -> bool:
    from ledger.verify.conflations import _list_items, _listed_apart
    from ledger.verify.experiments import Experiment, sentence_owners
    from ledger.verify.prose import Span

    cold = Experiment("cold-start replay", [Decimal("41")])
    warm = Experiment("warm multi-turn chat", [Decimal("7.5")])
    span = Span(0, len(sentence), sentence)
    marks = sentence_owners(None, span, [cold, warm], False)  # type: ignore[arg-type]
    assert len(marks) == 2, marks
    return not _listed_apart(_list_items(span), marks[0], marks[1], [cold, warm])


def test_a_list_of_results_each_naming_its_experiment_is_no_join() -> None:
    assert not _experiments_joined(
        "The vendor lists 41% lower latency on the cold-start replay, and 7.5% fewer stalls "
        "in the warm chat run.")
    assert not _experiments_joined(
        "It served 41% more sessions in one test, and in the other it cut stalls by 7.5%.")
    assert _experiments_joined("Latency fell 41% while stalls fell 7.5% in the warm chat run.")
    assert _experiments_joined(
        "Latency fell 41% on the cold-start replay, on top of the warm chat's 7.5% fewer stalls.")


def test_a_spelled_out_count_of_ordinary_things_names_no_experiment() -> None:
    from ledger.verify.experiments import Experiment, sentence_owners
    from ledger.verify.prose import Span

    text = "The post lists two caveats before the 41% figure."
    exps = [Experiment("replay", [Decimal("2")]), Experiment("chat", [Decimal("41")])]
    marks = sentence_owners(None, Span(0, len(text), text), exps, False)  # type: ignore[arg-type]
    assert [text[s:e] for s, e, _ in marks] == ["41%"]


def test_count_times_size_is_two_figures_not_a_name() -> None:
    found = [(f.text, q.kind, q.unit.symbol if q.unit else None)
             for f, q in typed_figures("each host carries 12x32GB of DRAM")]
    assert found == [("12", Kind.number, None), ("32", Kind.size, "GB")]


def test_a_sentence_may_start_with_a_lower_case_brand() -> None:
    from ledger.verify.prose import sentences

    parts = [s.text for s in sentences("The cache is shared. vLLM reports the hit rate.")]
    assert parts == ["The cache is shared.", "vLLM reports the hit rate."]


def test_a_count_written_onto_a_model_name_counts_that_model() -> None:
    found = [(f.text, q.kind, q.noun) for f, q in typed_figures("one 4xA100 box and a 3x gain")]
    assert found == [("4x", Kind.count, "a100"), ("3x", Kind.multiplier, None)]


def test_spelled_small_numbers_of_ordinary_things_are_notes() -> None:
    from ledger.quantities import Quantity
    from ledger.verify.tracing import _ordinary

    ideas = dict(typed_figures("the paper rests on three ideas"))
    (q,) = ideas.values()
    assert _ordinary(q)
    gpus = next(q for _, q in typed_figures("it ran on three GPUs"))
    assert not _ordinary(gpus)
    assert not _ordinary(Quantity(Kind.duration, spelled=True))


def test_a_figure_put_as_the_result_of_a_sum_is_read_as_arithmetic() -> None:
    from ledger.verify.tracing import _ARITHMETIC_SAID_RE, _RESULT_BEFORE_RE

    for before in ("12 divided by 4 is ", "A 30% cut leaves ", "800 Gb/s, or ",
                   "the total comes to about "):
        assert _RESULT_BEFORE_RE.search(before), before
    for before in ("the cluster served ", "latency fell about "):
        assert not _RESULT_BEFORE_RE.search(before), before
    assert _ARITHMETIC_SAID_RE.search("By the desk's arithmetic, the copy takes 0.3 s.")


def test_conclusions_without_that_and_judgements_after_so() -> None:
    from ledger.verify.conclusions import _conclusion

    found = _conclusion("This proves the new cache beats every rival on cost.")
    assert found is not None and found[2] in ("beats", "every")
    found = _conclusion("The tally rose by a third, which proves the tier scales linearly.")
    assert found is not None and found[2] == "linearly"
    found = _conclusion("Nobody has rerun it, so the vendor's numbers are pure hype.")
    assert found is not None and found[2] == "hype"
    assert _conclusion("The chart shows 40% more hits on every node.") is None
    assert _conclusion("Prompts were short, so every gain may shrink on longer ones.") is None


def test_prose_guardrail_words_negated_or_shared_with_what_it_allows_do_not_count() -> None:
    from ledger.verify.meaning import _NEGATED_BEFORE, _distinctive, prose_rule

    text = ("The 3x holds once the SSD tier is full; do not present it as a gain for jobs "
            "that fit on the SSD tier.")
    rule = prose_rule(text)
    assert rule is not None

    class _Article:
        title = "A look at a storage tier"

    kept = _distinctive(rule, text, _Article())  # type: ignore[arg-type]
    assert not {"SSD", "tier"} & set(kept) and "fit" in kept
    assert _NEGATED_BEFORE.search("the vendor sells no ")
    assert _NEGATED_BEFORE.search("results come from different ")


def test_a_month_or_year_after_publication_is_after_it() -> None:
    from ledger.verify.dates import _after

    month, year = extract_figures("due in March 2031, or in 2031")[:2]
    assert _after(month, dt.date(2031, 2, 27)) and not _after(month, dt.date(2031, 3, 2))
    same_month = extract_figures("in February 2031")[0]
    assert not _after(same_month, dt.date(2031, 2, 27))


def test_gigabits_written_onto_the_number_are_a_rate() -> None:
    found = [(f.text, q.kind, q.unit.symbol if q.unit else None)
             for f, q in typed_figures("each port moves 100Gb/s")]
    assert found == [("100", Kind.rate, "Gb/s")]


def test_the_sources_counting_the_same_noun_make_a_moved_count() -> None:
    from ledger.verify.tracing import _class_counted

    index = EvidenceIndex()
    index.add_text("The trial used 6 shards for 90 tenants.", Trace("fact", "/facts/0"))
    shards = next(q for _, q in typed_figures("spread over 90 shards"))
    assert _class_counted(shards, index)  # 6 shards elsewhere: the 90 tenants moved onto shards
    repeats = next(q for _, q in typed_figures("it ran 90 times"))
    assert not _class_counted(repeats, index)


def test_two_values_swapped_against_their_fact() -> None:
    from ledger.verify.swaps import _swapped

    class _T:
        def __init__(self, text: str) -> None:
            self.figure = extract_figures(text)[0]

    fact = "The array wrote at 41 GB/s and read at 55 GB/s in the soak test."
    body = "Its array wrote at 55 GB/s and read at 41 GB/s in the soak test."
    assert _swapped(body, fact, _T("55 GB/s"), _T("41 GB/s"))  # type: ignore[arg-type]
    kept = "Its array wrote at 41 GB/s and read at 55 GB/s in the soak test."
    assert not _swapped(kept, fact, _T("41 GB/s"), _T("55 GB/s"))  # type: ignore[arg-type]
    reordered = "Its array read at 55 GB/s and wrote at 41 GB/s in the soak test."
    assert not _swapped(reordered, fact, _T("55 GB/s"), _T("41 GB/s"))  # type: ignore[arg-type]


def test_a_model_number_ending_in_one_capital_is_a_name() -> None:
    # "Ryzen 9" is the processor line's tier, a name too
    assert [f.text for f in extract_figures("a Ryzen 9 7950X box moving 300GB/s")] == ["300"]


def test_an_interval_between_the_bodys_dates_is_read_against_them() -> None:
    import json
    from pathlib import Path

    from ledger.models import Article
    from ledger.verify.intervals import relative_intervals

    seed = Path(__file__).resolve().parent.parent / "claims" / (
        "pct-2026-11-04-spotlight-mooncake-store.json")
    doc = json.loads(seed.read_text(encoding="utf-8"))

    def intervals(gap: str) -> list[bool]:
        doc["body"] = ("The first note is dated March 2, 2024. " + gap +
                       " a second note, dated September 9, 2024, revised it.")
        return [i.agrees for i in relative_intervals(Article.model_validate_json(json.dumps(doc)))]

    assert intervals("Six months later") == [True]
    assert intervals("Six months earlier") == [False]
    assert intervals("Two years later") == [False]


def test_a_hyphenated_point_figure_is_percentage_points() -> None:
    found = [(f.text, q.kind) for f, q in typed_figures("a 12-point drop in misses")]
    assert found == [("12", Kind.points)]


def test_where_a_test_ran_is_not_a_party_the_source_quotes() -> None:
    from ledger.verify.sourcenames import PLACE_RE as _PLACE_RE
    from ledger.verify.sourcenames import matches as _matches

    claim = "The vendor reports soak tests on Lambda Cloud with its own cache tier."
    assert not _matches("Lambda", [_PLACE_RE.sub(" ", claim)])
    assert _matches("Lambda", ["Lambda engineers report soak tests with the cache tier."])


def test_a_count_of_people_never_traces_to_a_bare_number() -> None:
    from ledger.quantities import Verdict, compare

    people = next(q for _, q in typed_figures("the project has 24 maintainers"))
    bare = next(q for _, q in typed_figures("a 24 in the table"))
    assert compare(people, Decimal(24), Decimal(24), bare, False) is Verdict.noun
    disks = next(q for _, q in typed_figures("the box has 24 disks"))
    assert compare(disks, Decimal(24), Decimal(24), bare, False) is Verdict.match


def test_an_authors_figure_restated_as_what_the_product_does() -> None:
    from ledger.verify.credits import _claimed_as_result

    def first(text: str) -> bool:
        return _claimed_as_result(text, extract_figures(text)[0])

    assert first("The new tier cuts queueing delay by 7x.")
    assert first("Gateway X serves 3.1 requests per second.")
    assert not first("Cache hits rose from 12% to 64%.")
    assert not first("The vendor reported a 7x cut.")


def test_a_figure_with_its_own_noun_is_not_labelled_by_the_word_before_it() -> None:
    from ledger.verify.guardrails import _self_named

    text = "a 9x gain in requests per node with a 64,000-token prompt at 40 GB/s"
    figs = {f.text: f for f in extract_figures(text)}
    assert _self_named(text, figs["64,000"]) and _self_named(text, figs["40"])
    assert not _self_named(text, figs["9x"])


def test_a_guardrail_about_the_baseline_is_read_by_meaning() -> None:
    from ledger.verify.denials import denials
    from ledger.verify.meaning import find_lemmas, prose_rule

    text = "The 12% gain is against a cold cache; do not name Redis as its baseline."
    assert prose_rule(text) is None  # read as a baseline, not as a label
    found = denials(text)
    assert found and found[0].kind == "baseline" and found[0].names == ["Redis"]
    assert find_lemmas("a 12% gain over a cold cache, lower than Redis", ["baseline"])


def test_more_prose_guardrail_wordings_are_read() -> None:
    from ledger.verify.meaning import prose_rule

    gen = prose_rule("The 9% gain is a best case; do not generalise it to every cluster size.")
    assert gen is not None and gen.values == [(Decimal(9),)] and "cluster" in gen.forbidden
    such = prose_rule("The 30% figure is a reseller's; present it as such, never as a "
                      "vendor measurement.")
    assert such is not None and "vendor" in such.forbidden
    alt = prose_rule("The 3x and the 20% are one curve; never sum them or present them as two "
                     "separate wins.")
    assert alt is not None and "separate" in alt.forbidden
    credit = prose_rule("Acme's review concerns the beta; do not attribute it to the March or "
                        "June posts.")
    assert credit is not None and credit.kind == "credit_to"
    assert credit.subject[:1] == ["Acme"] and credit.forbidden == ["March", "June"]


def test_a_word_the_guardrail_allows_is_matched_as_itself_not_its_synonyms() -> None:
    from ledger.verify.meaning import _same_word

    allowed = "The $2 and $9 figures are list prices quoted by the post"
    assert _same_word(allowed, "price") and not _same_word(allowed, "cost")
