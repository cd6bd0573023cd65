"""Tracing, typed quantities, dates, percentage points and arithmetic restated in prose:
mechanisms behind the false errors and misses found on corpus set C, each with sentences
written here."""

from __future__ import annotations

from ledger.figures import extract_figures
from ledger.verify.tracing import EvidenceIndex, Trace, trace_figure


def _index(*claims: str) -> EvidenceIndex:
    index = EvidenceIndex()
    for i, claim in enumerate(claims):
        index.add_text(claim, Trace("fact", f"/facts/{i}/claim", fact_id=f"F{i + 1}"))
    return index


def test_a_changelog_month_is_a_month_date() -> None:
    (fig,) = extract_figures("the loader landed upstream (2022/07)")
    assert fig.date is not None and (fig.date.year, fig.date.month) == (2022, 7)
    assert fig.date_precision == "month"
    (iso,) = extract_figures("shipped in 2021-11, then")
    assert iso.date_precision == "month" and iso.date is not None and iso.date.month == 11
    assert [f.kind.value for f in extract_figures("the 2019/20 season")] == ["year", "number"]


def test_a_body_month_traces_to_a_changelog_month_in_a_fact() -> None:
    index = _index("The changelog lists the Rust loader (2022/07) and the S3 backend (2023/02).")
    (body,) = extract_figures("The S3 backend arrived in February 2023.")
    assert trace_figure(body, index).traced
    (other,) = extract_figures("The S3 backend arrived in March 2023.")
    assert not trace_figure(other, index).traced


def test_a_year_after_a_name_is_a_year_not_a_count() -> None:
    kinds = {f.text: f.kind.value for f in extract_figures(
        "NSDI 2023 papers cite it; the 2021 releases did not; the desk read 2048 papers")}
    assert kinds == {"2023": "year", "2021": "year", "2048": "count"}
    index = _index("The program lists the design as an NSDI 2023 paper.")
    (body,) = extract_figures("The program lists it among NSDI 2023 papers.")
    assert trace_figure(body, index).traced


def test_a_range_ending_in_times_is_two_multipliers() -> None:
    from ledger.quantities import Kind, typed_figures

    def kinds(text: str) -> list[Kind]:
        return [q.kind for _, q in typed_figures(text)]

    assert kinds("write bandwidth lifted 1.6 to 4 times over the old path") == [
        Kind.multiplier, Kind.multiplier]
    assert kinds("queueing delay fell by 2 to 6 times") == [Kind.multiplier, Kind.multiplier]
    assert kinds("each sweep was repeated 2 to 4 times") == [Kind.count, Kind.count]
    index = _index("The vendor reports write bandwidth 1.6-4x higher than the old path.")
    for fig, q in typed_figures("write bandwidth lifted 1.6 to 4 times over the old path"):
        assert trace_figure(fig, index, q).traced, fig.text


def test_magnitude_words_and_letters_state_the_same_number() -> None:
    from decimal import Decimal

    values = {f.text: f.values[0] for f in extract_figures(
        "a 3 million-row table, 2.5 billion parameters, 40K requests and 96k prompts")}
    assert values == {"3 million": Decimal(3_000_000), "2.5 billion": Decimal(2_500_000_000),
                      "40K": Decimal(40_000), "96k": Decimal(96_000)}
    index = _index("The service handled 3 million requests a day.")
    for text in ("It handled 3M requests a day.", "It handled 3,000,000 requests a day."):
        (fig,) = extract_figures(text)
        assert trace_figure(fig, index).traced, text
    (wrong,) = extract_figures("It handled 3.5M requests a day.")
    assert not trace_figure(wrong, index).traced


def test_a_context_length_in_a_fact_is_evidence_for_a_count_of_tokens() -> None:
    from ledger.quantities import typed_figures

    index = _index("The model card advertises a 256K context on one GPU.")
    ((fig, q),) = typed_figures("It reads 256K tokens of context on one GPU.")
    assert trace_figure(fig, index, q).traced
    assert extract_figures("the 256K context model") == []  # still masked in the body


def test_a_metric_named_in_millions_states_its_value_in_millions() -> None:
    import json

    from verify_fixtures import load

    from ledger.models import Article
    from ledger.quantities import typed_figures
    from ledger.verify.tracing import build_index

    doc = load()
    doc["benchmark_scope"]["reported_metrics"]["replayed_prompts_m"] = 2.5
    index = build_index(Article.model_validate_json(json.dumps(doc)))
    ((fig, q),) = typed_figures("The replay sent 2.5 million prompts.")
    assert any(t.metric == "replayed_prompts_m" for t in trace_figure(fig, index, q).traces)
    ((small, r),) = typed_figures("The replay sent 2.5M prompts.")
    assert trace_figure(small, index, r).traced
    doc["benchmark_scope"]["reported_metrics"]["peak_k_prompts"] = 96
    index = build_index(Article.model_validate_json(json.dumps(doc)))
    ((peak, p),) = typed_figures("At peak it held 96k prompts.")
    assert any(t.metric == "peak_k_prompts" for t in trace_figure(peak, index, p).traces)


def test_a_count_of_others_agrees_with_a_count_of_any_noun() -> None:
    from ledger.quantities import typed_figures

    index = EvidenceIndex()
    index.add_text("The report's nine authors are Ada Park and eight others.",
                   Trace("inference", "/inferences/0/claim", inference_id="I1"))
    ((fig, q),) = typed_figures("written by Ada Park and 8 co-authors")
    assert trace_figure(fig, index, q).traced
    ((gpus, r),) = typed_figures("run on 8 GPUs")
    assert not trace_figure(gpus, index, r).traced  # the others are authors
    loose = EvidenceIndex()
    loose.add_text("Ada Park and eight others wrote it.", Trace("fact", "/facts/0/claim"))
    assert trace_figure(fig, loose, q).traced  # others of nothing named: any count agrees


def test_the_nx_before_a_verb_is_a_multiplier_named_again() -> None:
    from ledger.quantities import Kind, typed_figures

    def kind(text: str) -> Kind:
        return typed_figures(text)[0][1].kind

    assert kind("The 12x contrasts the new kernel with a naive one.") is Kind.multiplier
    assert kind("The vendor's 12x assumes a warm cache.") is Kind.multiplier
    assert kind("the 12x servers in the rack") is Kind.count
    assert kind("12x accelerators per node") is Kind.count


def test_decimal_points_are_points() -> None:
    from ledger.quantities import Kind, typed_figures

    ((_, q),) = typed_figures("the quantized model scores 3.75 points lower")
    assert q.kind is Kind.points


def _doc_with(claim: str, body_sentence: str):  # type: ignore[no-untyped-def]
    from verify_fixtures import load

    doc = load()
    doc["inferences"].append({"id": "I9", "claim": claim, "basis_fact_ids": ["F1"],
                              "label": "PCT analysis"})
    close = "These are the authors' results, not PCT measurements."
    doc["body"] = doc["body"].replace(close, close + " " + body_sentence, 1)
    return doc


def _rules_at(tmp_path, doc, text: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    import json

    from verify_fixtures import span

    from ledger.verify import verify_file
    from ledger.verify.consistency import word_count

    doc["editorial_word_count"] = word_count(doc["body"])
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    line, column, end = span(doc["body"], text)
    return {f.rule: f.severity.value for f in verify_file(path).findings
            if f.pointer == "/body" and f.line == line and f.column is not None
            and f.end_column is not None and f.column < end and column < f.end_column}


def test_a_percent_that_is_the_gap_between_two_percents_is_points(tmp_path) -> None:
    doc = _doc_with("Hit rates of 62% and 74% bracket the replay.",
                    "The two hit rates sit 12% apart.")
    assert _rules_at(tmp_path, doc, "12%") == {"percentage-points": "error"}
    doc = _doc_with("Hit rates of 62% and 74% bracket the replay.",
                    "The two hit rates sit 12 percentage points apart.")
    assert _rules_at(tmp_path, doc, "12 percentage points") == {}


def test_a_score_difference_written_as_a_percent_is_points(tmp_path) -> None:
    doc = _doc_with("On the recall suite the small model loses 7.25 points.",
                    "On the recall suite the small model gives up 7.25%.")
    assert _rules_at(tmp_path, doc, "7.25%").get("percentage-points") == "error"


def _with_ratio(doc):  # type: ignore[no-untyped-def]
    doc["inferences"].append({
        "id": "I9", "basis_fact_ids": ["F1"], "label": "PCT analysis",
        "claim": "The nightly batch of 48,000 jobs is four times the daytime load of 12,000.",
        "computation": {"inputs": {"nightly": 48000, "daytime": 12000},
                        "steps": [{"name": "ratio", "expression": "nightly / daytime",
                                   "result": 4}]}})
    return doc


def _body_with(sentence: str):  # type: ignore[no-untyped-def]
    from verify_fixtures import load

    doc = _with_ratio(load())
    close = "These are the authors' results, not PCT measurements."
    doc["body"] = doc["body"].replace(close, close + " " + sentence, 1)
    return doc


def test_a_restated_result_with_another_value_is_arithmetic(tmp_path) -> None:
    doc = _body_with("By PCT's count the nightly batch is five times the daytime load.")
    assert _rules_at(tmp_path, doc, "five times").get("arithmetic") == "error"
    doc = _body_with("By PCT's count the 48,000 is 4.5 times the 12,000.")
    assert _rules_at(tmp_path, doc, "4.5 times").get("arithmetic") == "error"


def test_a_restated_result_kept_or_a_figure_elsewhere_is_not_arithmetic(tmp_path) -> None:
    doc = _body_with("By PCT's count the nightly batch is four times the daytime load.")
    assert "arithmetic" not in _rules_at(tmp_path, doc, "four times")
    doc = _body_with("The desk moved half the daytime load to spare nodes.")
    assert "arithmetic" not in _rules_at(tmp_path, doc, "half")


def test_half_precision_is_no_figure() -> None:
    assert [f.text for f in extract_figures("a half-precision cache in double precision")] == []
    assert [f.text for f in extract_figures("the cache halves, then falls by half")] == [
        "halves", "half"]


def test_a_duration_in_two_units_states_the_whole() -> None:
    from decimal import Decimal

    from ledger.quantities import typed_figures

    found = [(f.values, f.decimals) for f, _ in typed_figures(
        "a checkpoint every three minutes and 36 seconds")]
    assert found == [((Decimal("3.6"),), 1), ((Decimal(216),), 0)]
    index = _index("The job checkpoints every 216 seconds (3.6 minutes).")
    for fig, q in typed_figures("a checkpoint every three minutes and 36 seconds"):
        assert trace_figure(fig, index, q).traced, fig.text
    assert [f.values for f, _ in typed_figures("2 hours and 4 days")] == [
        (Decimal(2),), (Decimal(4),)]


def test_a_changelog_month_written_with_a_dot_is_a_month_after_a_time_word() -> None:
    found = [(f.text, f.kind.value) for f in extract_figures(
        "the beta shipped in 2023.9 and the GA (2024.2); the file holds 2023.5 GB")]
    assert found == [("2023.9", "date"), ("2024.2", "date"), ("2023.5", "quantity")]


def test_versions_are_no_figures() -> None:
    assert [f.text for f in extract_figures(
        "tested with release 3.1 of the runtime (build 1.14.2) and driver 550.54.15")] == []
    assert [f.text for f in extract_figures("about 2.5 times faster")] == ["2.5 times"]


def _intervals(body: str) -> list[bool]:
    import json

    from verify_fixtures import load

    from ledger.models import Article
    from ledger.verify.intervals import relative_intervals

    doc = load()
    doc["body"] = body
    return [i.agrees for i in relative_intervals(Article.model_validate_json(json.dumps(doc)))]


def test_an_interval_that_names_its_reference_is_read_against_a_date_that_fits() -> None:
    first = "The alpha is dated January 8, 2024. A patch followed on March 1, 2024. "
    assert _intervals(first + "The beta, dated May 10, 2024, came four months after "
                      "that alpha.") == [True]
    # nothing four months before the beta: left to tracing, not a date-order error
    assert _intervals("A patch is dated April 20, 2024. The beta, dated May 10, 2024, came "
                      "four months after the alpha.") == []
    assert _intervals(first + "The beta, dated May 10, 2024, came ten weeks after "
                      "March 1, 2024.") == [True]
    assert _intervals(first + "Eight months later the beta, dated May 10, 2024, "
                      "shipped.") == [False]


def test_an_interval_is_read_against_the_date_of_what_it_names() -> None:
    dated = ("A first draft is dated January 8, 2024. The patch release followed on March 1, "
             "2024. ")
    assert _intervals(dated + "The beta, dated May 10, 2024, came two months after that "
                      "first draft.") == [False]
    assert _intervals(dated + "The beta, dated May 10, 2024, came four months after that "
                      "first draft.") == [True]
    assert _intervals(dated + "The beta, dated May 10, 2024, came ten weeks after the "
                      "patch release.") == [True]


def test_n_times_a_thing_is_a_multiple_and_n_times_a_day_repeats() -> None:
    from ledger.quantities import Kind, typed_figures

    assert typed_figures("a 1 MiB chunk is 16 times a 64 KiB one")[1][1].kind is Kind.multiplier
    assert typed_figures("the job ran 3 times a week")[0][1].kind is Kind.count


def test_a_restated_result_is_read_across_the_sentence_and_by_its_kind(tmp_path) -> None:
    # the result stands in a later part of the sentence; 12,000 and 48,000 anchor it
    doc = _body_with("The 48,000 nightly jobs against 12,000 by day make the batch five times "
                     "the daytime load, which sets the peak.")
    assert _rules_at(tmp_path, doc, "five times").get("arithmetic") == "error"
    # an operand of the computation (12,000) restated as it is, and a figure in another unit,
    # are no changed results
    doc = _body_with("The nightly batch is four times the daytime load of 12,000 jobs.")
    assert "arithmetic" not in _rules_at(tmp_path, doc, "12,000")


def test_a_restated_count_is_a_count_of_the_same_thing(tmp_path) -> None:
    from verify_fixtures import load

    doc = load()
    doc["inferences"].append({
        "id": "I9", "basis_fact_ids": ["F1"], "label": "PCT analysis",
        "claim": "Twelve SSDs over three servers is four SSDs per server.",
        "computation": {"inputs": {"ssds": 12, "servers": 3},
                        "steps": [{"name": "per_server", "expression": "ssds / servers",
                                   "result": 4}]}})
    close = "These are the authors' results, not PCT measurements."
    doc["body"] = doc["body"].replace(
        close, close + " Twelve SSDs over three servers means six SSDs per server.", 1)
    assert _rules_at(tmp_path, doc, "six").get("arithmetic") == "error"


def test_an_operand_restated_as_itself_is_no_changed_result() -> None:
    from ledger.models import Inference
    from ledger.quantities import typed_figures
    from ledger.verify.restated import _inference_values, _states

    inf = Inference.model_validate({
        "id": "I9", "basis_fact_ids": ["F1"], "label": "PCT analysis",
        "claim": "Four hosts with two links each carry 1,600 Gb/s in all.",
        "computation": {"inputs": {"hosts": 4, "links": 2, "link_gbps": 200},
                        "steps": [{"name": "total", "expression": "hosts * links * link_gbps",
                                   "result": 1600}]}})
    values = _inference_values(inf)
    ((rate, r),) = typed_figures("each with two 200 Gb/s links")[1:]
    assert _states(values, rate, r)  # the operand, restated as the rate it is
    ((times, t),) = typed_figures("is 200 times the old link")
    assert not _states(values, times, t)  # no multiple
    ((hosts, h),) = typed_figures("on 2 hosts")
    assert not _states(values, hosts, h)  # 2 is a count of links, not of hosts
