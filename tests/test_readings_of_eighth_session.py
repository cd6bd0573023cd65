"""Readings found on the eighth session's blind sets (AA-AD), each written here as a case of
its own, with the mistake the reading must still catch beside it:

* a number word joined to a name counts the named thing ("a four-n300 workstation"); an
  interface's generation ("PCIe 4.0") is a name, a figure with a unit after it is not;
* compute rates spelled out ("262 teraflops", "163 teraFLOP/s") and tokens per second as ML
  tables write them ("5,762 TPS/GPU") are rates;
* a model's size in the evidence ("a 70B model") is a parameter count that the body may spell
  out ("a 70-billion-parameter model");
* a worked sum's result may carry its unit ("= 2,048GB"), be said again in a larger unit
  ("about 2TB"), count the base of its unit ("× 4 = 153.6 GB" of bytes) or pass through a
  second sum ("= 240 + 820 = 1,060 ms");
* a word in another conjunct ("cut costs by 10x and boost speed by 100x") labels its own
  figure only;
* a name a result is compared against ("Against Pinecone's s1 index") owns nothing;
* a ratio step below one is a share the body may give as a percent;
* the sources' count of people does not make a count of cards doubtful;
* owners named by a pull request, a lower-case domain, an account, a dated document, a
  conference, a relative clause or "carried by"; a project's possessive before its
  repository; a speaker's employer; "None states" and "Text quoted there" name no one;
* a money figure with a magnitude word ("$12.4 million") is its step's dollars;
* experiments' values keep their kinds, and a source's setting stated with a result is no join;
* an event coordinated after a date ("opened on ... and merged the next day") has no date;
* "ZeRO" is a name; a fact's word for its number labels a figure of no metric; a verb after
  a noun phrase ("tokens took") is no label;
* an untraced count whose very number the evidence gives to another thing ("16 SSDs" beside
  a computation's ``cores: 16``) is also a mislabel; a statistic is read from the facts the
  figure traces to, not from any fact with its number.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

from verify_fixtures import (
    Doc,
    add_fact,
    add_metric,
    claim_errors,
    fact,
    findings_at,
    inference_article,
    load,
    paragraph,
    replacing,
    rules_at,
    verify_with,
)

from ledger.figures import extract_figures
from ledger.models import Article
from ledger.quantities import Kind, typed_figures
from ledger.verify.experiments import experiments_of
from ledger.verify.intervals import relative_intervals
from ledger.verify.owners import owners_in
from ledger.verify.worked import worked_sums


def _only(text: str):  # type: ignore[no-untyped-def]
    [(fig, q)] = [(f, q) for f, q in typed_figures(text)]
    return fig, q


# --- names and counts -------------------------------------------------------------------------

def test_a_number_word_joined_to_a_name_counts_it() -> None:
    fig, q = _only("a four-n300 workstation")
    assert (fig.text, q.kind, q.noun) == ("four", Kind.count, "n300")
    assert [f.text for f in extract_figures("trained with ZeRO-3 on 8 GPUs")] == ["8"]


def test_an_interfaces_generation_is_a_name() -> None:
    assert extract_figures("a PCIe 4.0 x16 slot and CXL 2.0 memory") == []
    fig, q = _only("NVLink 900 GB/s per GPU")
    assert (fig.text, q.kind) == ("900", Kind.rate)
    [(_, a), (_, b)] = typed_figures("HBM 16 vs 32 GB")
    assert a.kind is Kind.size and b.kind is Kind.size


def test_a_mixed_case_name_is_no_number_word() -> None:
    assert extract_figures("ZeRO shards the optimizer state") == []
    assert [f.value for f in extract_figures("zero copies")] == [0]


# --- units -----------------------------------------------------------------------------------

def test_compute_rates_spelled_out_are_rates() -> None:
    for text in ("rated at 262 teraflops in FP8", "163 teraFLOP/s per GPU", "1.2 petaflops"):
        _, q = _only(text)
        assert q.kind is Kind.rate and q.unit is not None and q.unit.dimension == "flop/s"


def test_tokens_per_second_per_gpu_as_tables_write_it() -> None:
    _, q = _only("FSDP 5,762 TPS/GPU")
    assert q.kind is Kind.rate and q.unit is not None and q.unit.dimension == "tokens/s"


def test_a_wrong_compute_unit_is_still_a_unit_mismatch(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact("The 1T run reaches 163 teraFLOP/s per GPU."),
                              paragraph("The authors put the per-GPU figure at 163 "
                                        "petaFLOP/s. [S4]"))
    assert rules_at(result, doc, "163").get("unit-mismatch") == "error"


# --- a model's size ---------------------------------------------------------------------------

def test_a_model_size_in_the_evidence_is_a_parameter_count(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact("The authors served a Llama 2 70B model."),
                              paragraph("The authors served a 70-billion-parameter model. [S4]"))
    assert "untraced-figure" not in rules_at(result, doc, "70-billion")


def test_another_parameter_count_is_still_untraced(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact("The authors served a Llama 2 70B model."),
                              paragraph("The authors served a 72-billion-parameter model. [S4]"))
    assert "untraced-figure" in rules_at(result, doc, "72-billion")


# --- worked sums ------------------------------------------------------------------------------

def _sums(text: str) -> list[tuple[str, str, bool]]:
    return [(text[w.expr_start:w.expr_end], text[w.result_start:w.result_end], w.agrees)
            for w in worked_sums(text)]


def test_a_result_with_its_unit_and_said_again_in_a_larger_one() -> None:
    assert _sums("An eight-GPU platform holds 8 × 256 = 2,048GB, about 2TB.") == [
        ("8 × 256", "2,048", True), ("8 × 256", "2", True)]
    assert ("8 × 256", "3", False) in _sums("It holds 8 × 256 = 2,048GB, about 3TB.")


def test_a_result_in_its_units_base() -> None:
    assert _sums("vectors at 50,000,000 × 768 × 4 = 153.6 GB before any index") == [
        ("50,000,000 × 768 × 4", "153.6", True)]
    assert _sums("vectors at 50,000,000 × 768 × 4 = 163.6 GB") == [
        ("50,000,000 × 768 × 4", "163.6", False)]


def test_a_sum_equated_to_a_second_sum() -> None:
    text = "The average becomes 0.6 × 400 + 0.4 × 2,050 = 240 + 820 = 1,060 ms, a 47% cut."
    assert _sums(text) == [("0.6 × 400 + 0.4 × 2,050", "240 + 820", True),
                           ("240 + 820", "1,060", True)]
    wrong = "The average becomes 0.6 × 400 + 0.4 × 2,050 = 240 + 920 = 1,160 ms."
    assert ("0.6 × 400 + 0.4 × 2,050", "240 + 920", False) in _sums(wrong)


# --- words in another conjunct ----------------------------------------------------------------

def _slogan(doc: Doc) -> None:
    add_metric(doc, "readme_speed_claim_multiplier", 100, "README speed slogan", ["slogan"],
               "multiplier")
    add_metric(doc, "readme_cost_claim_multiplier", 10, "README cost slogan", ["slogan"],
               "multiplier")
    add_fact(doc, "README headline: slash API costs by 10x, boost speed by 100x.",
             "primary_documentation")


def test_a_word_in_another_conjunct_labels_its_own_figure(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _slogan, paragraph(
        "The README leads with a slogan: cut API costs by 10x and boost speed by 100x. [S4]"))
    assert "mislabeled-figure" not in rules_at(result, doc, "100x")


def test_the_figures_own_wrong_word_still_mislabels(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _slogan, paragraph(
        "The README leads with a slogan: boost speed by 10x and cut API costs by 100x. [S4]"))
    assert "mislabeled-figure" in rules_at(result, doc, "100x")


# --- owners -------------------------------------------------------------------------------------

def _owners(sentence: str) -> list[tuple[str, str]]:
    return [(name, construction) for _, _, name, construction, _ in owners_in(sentence)]


def test_a_name_compared_against_owns_nothing() -> None:
    assert _owners("Against Pinecone's storage-optimized s1 index at 99% recall, the post "
                   "reports 28x lower latency.") == []
    assert _owners("Pinecone's benchmark reports 28x lower latency.") == [
        ("Pinecone", "result")]


def test_owners_in_more_constructions() -> None:
    assert ("SkyPilot", "named") in _owners("A SkyPilot pull request printed offers.")
    assert ("usage.ai", "doc") in _owners("The mechanics come from usage.ai's EC2 guide.")
    assert ("Pinecone", "doc") in _owners("Pinecone's October 10, 2023 comparison listed pods.")
    assert ("NVIDIA", "doc") in _owners("The talk was published by NVIDIA's GTC conference.")
    assert ("EE Times", "doc") in _owners("In an interview that EE Times published, he said.")
    assert ("insideHPC", "doc") in _owners("An AWS post, carried by insideHPC, recounts it.")
    assert _owners("None states a price or a power figure.") == []
    assert _owners("Text quoted there from the specification describes the transport.") == []


def test_a_projects_repository_is_the_projects(tmp_path: Path) -> None:
    def repository(doc: Doc) -> None:  # a project named by the URL only
        doc["sources"][5]["url"] = "https://github.com/kvcache-ai/TransferKit/blob/main/README"
    doc, result = verify_with(tmp_path, repository, paragraph(
        "TransferKit's repository README describes the store. [S6]"))
    assert "misattributed-source" not in rules_at(result, doc, "TransferKit")
    doc, result = verify_with(tmp_path, repository, paragraph(
        "Redis's repository README describes the store. [S6]"))
    assert rules_at(result, doc, "Redis").get("misattributed-source") == "error"


def test_a_speakers_employer_is_a_doubt(tmp_path: Path) -> None:
    # Mooncake's contributors publish S6: they may employ S4's author
    doc, result = verify_with(tmp_path, paragraph(
        "In the post, Mooncake's Yifan Qiao described the store's design. [S4]"))
    assert rules_at(result, doc, "Mooncake").get("misattributed-source") in (None, "warning")
    doc, result = verify_with(tmp_path, paragraph(  # Acme publishes nothing here
        "In the post, Acme's Yifan Qiao described the store's design. [S4]"))
    assert rules_at(result, doc, "Acme").get("misattributed-source") == "error"


def test_a_wrong_publisher_beside_a_citation_is_still_an_error(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "In a post carried by insideHPC, the authors describe the store. [S4]"))
    assert rules_at(result, doc, "insideHPC").get("misattributed-source") == "error"


# --- shares, people, money --------------------------------------------------------------------

def test_a_ratio_step_below_one_is_a_share() -> None:
    doc = copy.deepcopy(load())
    doc["inferences"].append({
        "id": "I9", "claim": "One n300's 466 TFLOPS is about 89% of two n150s' 524.",
        "basis_fact_ids": [], "label": "PCT arithmetic",
        "computation": {"inputs": {"n300": 466, "two_n150": 524}, "steps": [
            {"name": "share", "expression": "n300 / two_n150", "result": 0.8893,
             "unit": "ratio"}]}})
    from ledger.verify.evidence import build_index
    index = build_index(Article.model_validate_json(json.dumps(doc)))
    assert any(ev.percent and abs(ev.value - Decimal("88.93")) < Decimal("0.001")
               for ev in index.numbers)


WORMHOLE = (Path(__file__).parent / "corpus" / "set-aa" / "articles"
            / "pct-2026-11-27-spotlight-tenstorrent-wormhole.json")


def test_the_sources_count_of_people_leaves_a_card_count_alone(tmp_path: Path) -> None:
    # the corpus article's facts count four developers and a 4+4-pin connector; its
    # inference says "four give 96GB" of cards
    doc, result = verify_with(tmp_path, replacing("four give 96GB", "four cards give 96GB"),
                              source=WORMHOLE)
    assert "error" not in rules_at(result, doc, "four cards").values()


def test_a_money_magnitude_is_its_steps_dollars() -> None:
    article = inference_article(
        "At $2.00 per GPU-hour the run is about $12.4 million of accelerator time.",
        {"gpu_hours": 6193152, "rate": 2.0}, [("usd", "gpu_hours * rate", 12386304)])
    assert claim_errors(article) == []
    wrong = inference_article(
        "At $2.00 per GPU-hour the run is about $14.2 million of accelerator time.",
        {"gpu_hours": 6193152, "rate": 2.0}, [("usd", "gpu_hours * rate", 12386304)])
    assert any("$14.2 million" in m for m in claim_errors(wrong))


# --- experiments ---------------------------------------------------------------------------------

def test_the_main_experiments_values_keep_their_kinds() -> None:
    doc = copy.deepcopy(load())
    scope = doc["benchmark_scope"]
    scope["reported_metrics"] = {"tps_interleaved_405b": 128}
    scope.pop("metric_specs", None)
    scope["hardware"] = "H100 GPUs, 8 to 512 GPUs"
    scope["separate_scaling_experiment"] = "The paper's 65.08% gain comes from its own runs."
    main, scaling = experiments_of(Article.model_validate_json(json.dumps(doc)))
    [gpu_count] = [k for v, k in zip(main.values, main.kinds, strict=True) if v == 512]
    assert gpu_count is not None and gpu_count.noun == "gpu"
    [(fig, q)] = [(f, q) for f, q in typed_figures("at the 128-GPU scale") if f.text == "128"]
    assert not main.owns(fig, q) and scaling.values == [Decimal("65.08")]


# --- dates ----------------------------------------------------------------------------------------

def test_an_event_coordinated_after_a_date_has_no_date(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "A pull request, opened on May 6, 2026 and merged the next day, added the "
        "connector."))
    assert "date-order" not in rules_at(result, doc, "the next day")
    article = Article.model_validate_json(json.dumps(doc))
    assert all(i.agrees for i in relative_intervals(article)
               if doc["body"][i.start:i.end] == "the next day")


def test_a_date_beside_the_phrase_is_still_checked(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "A pull request was opened on May 6, 2026, and the next day, May 9, 2026, it was "
        "merged."))
    assert "date-order" in rules_at(result, doc, "the next day")


# --- labels from facts, and verbs after a noun phrase ----------------------------------------------

def _comparison(doc: Doc) -> None:
    add_fact(doc, "In a separate comparison, the store gives up to 70% higher throughput than "
                  "the baseline.")


def test_a_facts_word_for_its_number_labels_the_figure(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _comparison, paragraph(
        "In a separate comparison, the authors report up to 70% lower memory use than the "
        "baseline. [S4]"))
    assert rules_at(result, doc, "70%").get("mislabeled-figure") == "warning"


def test_the_facts_own_word_is_no_mislabel(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _comparison, paragraph(
        "In a separate comparison, the authors report up to 70% higher throughput than the "
        "baseline. [S4]"))
    assert "mislabeled-figure" not in rules_at(result, doc, "70%")


def test_a_verb_after_a_noun_phrase_is_no_label(tmp_path: Path) -> None:
    def guardrail(doc: Doc) -> None:
        doc["corrections"].append({
            "id": "G9", "status": "prepublication_guardrail",
            "text": "The 84-day figure is an estimate; do not describe it as a completed run.",
            "rule": {"kind": "forbidden_label", "value": 84, "forbidden": ["took"],
                     "scope": "sentence"}})
        add_fact(doc, "The authors estimate 84 days for the 1T model on 450 billion tokens.")
    doc, result = verify_with(tmp_path, guardrail, paragraph(
        "The authors say the 1T model trained on 450 billion tokens took 84 days. [S4]"))
    assert "guardrail" in {f.rule for f in findings_at(result, doc, "84")}


# --- a count's number moved onto another noun, a fact's statistic -----------------------------------

def test_a_count_whose_number_the_evidence_gives_to_another_thing_is_mislabeled(
        tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, lambda d: d["inferences"].append({
        "id": "I9", "claim": "A 16-core host serves 4 queries at once.", "basis_fact_ids": [],
        "label": "PCT arithmetic", "computation": {"inputs": {"cores": 16, "per_core": 0.25},
                                                  "steps": [{"name": "queries",
                                                             "expression": "cores * per_core",
                                                             "result": 4}]}}),
        paragraph("On the desk's arithmetic, a host with 16 SSDs serves 4 queries at once."))
    found = rules_at(result, doc, "16 SSDs")
    assert found.get("mislabeled-figure") == "error" and found.get("untraced-figure") == "error"


def test_a_count_no_evidence_states_is_untraced_only(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "On the desk's arithmetic, a host with 17 SSDs serves 4 queries at once."))
    found = rules_at(result, doc, "17 SSDs")
    assert "mislabeled-figure" not in found and found.get("untraced-figure") == "error"


def test_a_statistic_read_from_the_facts_the_figure_traces_to(tmp_path: Path) -> None:
    # another fact's "8xA100" (no statistic) must not hide the traced fact's "up to 8x"
    doc, result = verify_with(
        tmp_path, fact("A single response costs a few seconds of an 8xA100 instance."),
        fact("Decoding is up to 8x faster on very long sequences."),
        paragraph("The authors report an average 8x faster decoding on long sequences. [S4]"))
    assert rules_at(result, doc, "8x").get("mislabeled-figure") == "error"


# --- from sets AE and AF --------------------------------------------------------------------------

def test_an_operand_written_with_its_operator() -> None:
    assert _sums("It converts cleanly: 0.001097 × 3,600 seconds = $3.9492 per hour.") == [
        ("0.001097 × 3,600", "$3.9492", True)]
    assert _sums("It converts cleanly: 0.001097 × 3,600 seconds = $4.9492 per hour.") == [
        ("0.001097 × 3,600", "$4.9492", False)]


def test_the_hardware_a_post_is_about_owns_nothing() -> None:
    assert _owners("Its workloads differ from the V100 post's; keep them apart.") == []
    assert ("Acme", "named") in _owners("Its workloads differ from the Acme post's.")


def test_a_sourced_price_of_another_machine_restates_nothing(tmp_path: Path) -> None:
    def prices(doc: Doc) -> None:
        add_fact(doc, "The file lists the eight-GPU p5.48xlarge at $55.04 an hour.",
                 "secondary_reporting")
        doc["inferences"].append({
            "id": "I9", "claim": "At $12.29 per GPU-hour an eight-GPU ND96isr_H100_v5 lists at "
                                 "$98.32 an hour.", "basis_fact_ids": [], "label": "PCT arithmetic",
            "computation": {"inputs": {"per_gpu": 12.29}, "steps": [
                {"name": "hourly", "expression": "8 * per_gpu", "result": 98.32}]}})
    doc, result = verify_with(tmp_path, prices, paragraph(
        "The same file lists AWS's eight-GPU p5.48xlarge at $55.04 an hour. [S4]"))
    assert "arithmetic" not in rules_at(result, doc, "$55.04")


AZURE = (Path(__file__).parent / "corpus" / "set-ae" / "articles"
         / "pct-2026-11-14-spotlight-azure-nd-h100-v5.json")


def test_a_sourced_per_unit_figure_beside_the_claims_total(tmp_path: Path) -> None:
    # the write-up's one-GPU month ($12.29 x 730) beside the desk's eight-GPU $71,773.60
    doc, result = verify_with(tmp_path, source=AZURE)
    assert "arithmetic" not in rules_at(result, doc, "$8,972")
    doc, result = verify_with(tmp_path, replacing("$98.32 an hour", "$91.32 an hour"),
                              source=AZURE)
    assert "arithmetic" in {f.rule for f in result.findings}


def test_a_metric_named_in_dollars_per_second_is_money_per_second(tmp_path: Path) -> None:
    from ledger.quantities import metric_quantity
    q = metric_quantity("modal_h100_usd_per_second")
    assert q is not None and q.kind is Kind.money and q.unit is not None
    assert q.unit.symbol == "$/s"
    doc, result = verify_with(tmp_path, lambda d: d["benchmark_scope"]["reported_metrics"].update(
        {"h100_usd_per_second": 0.001097}), paragraph(
        "The authors list the H100 at $0.001097 per minute. [S4]"))
    assert rules_at(result, doc, "$0.001097").get("unit-mismatch") == "error"


def test_a_multipliers_number_written_as_a_percent(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact("The loader is about 4x faster than native code."),
                              paragraph("The authors find the loader about 4% faster. [S4]"))
    found = rules_at(result, doc, "4%")
    assert found.get("unit-mismatch") == "error" and found.get("untraced-figure") == "error"
